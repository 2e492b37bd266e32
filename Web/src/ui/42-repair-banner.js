// The banner over a backup opened with its recovery files (#repair-banner): what the repair did, in words
// and numbers (#repair-numbers), what to do next (#repair-hint) with the button that saves the repaired
// backup (#save-repaired), and what the recovery set said besides (#repair-note); or that the recovery
// files confirm the backup is intact. Also the numbers of a repair that could not be made, for the alert.
//
// Uses:
//   00-basics.js           capitalized, count, element
//   01-page-state.js       app
//   10-status.js           setStatus
//   11-errors.js           listText
//   22-recovery-files.js   creatorName
//   40-salvage-banner.js   partsText
//   80-saving.js           download
//   GoshuinCore            formatSize

/** "part 48", "parts 3–5 and part 48 (missing: the file was cut short)": the damaged runs, at most eight. */
function damagedPartsText(runs) {
  var shown = runs.slice(0, 8).map(function (run) {
    return partsText(run.first, run.last) + (run.reason === "missing" ? " (missing: the file was cut short)" : "");
  });
  if (runs.length > shown.length) shown.push("more");
  return listText(shown);
}

function seconds(ms) {
  return (ms / 1000).toLocaleString("en-US", { maximumFractionDigits: 1, minimumFractionDigits: 1 }) + " s";
}

/** The banner's title, in plain words. */
function repairTitle(report) {
  if (report.outcome === "intact") return "The recovery files confirm that this backup is intact";
  if (report.damagedSlices === 0)
    return "Repaired: " + count(report.addedBytes, "byte", "bytes") + " added after the end of the backup removed";
  return "Repaired: " + count(report.damagedSlices, "damaged part", "damaged parts") + " of the file rebuilt from the recovery files";
}

/** #repair-numbers: which parts, of how many, rebuilt from how many recovery slices, checked how, how fast. */
function repairNumbers(report) {
  var parts = count(report.sliceCount, "part", "parts") + " of " + core.formatSize(report.sliceSize);
  var took = seconds(report.scanMs + report.verifyMs + report.rebuildMs + report.checkMs);
  if (report.outcome === "intact")
    return (
      "All " + parts + " of the file match the recovery files, and so does the whole file's MD5; " +
      (report.recoverySlices > 0
        ? count(report.recoverySlices, "recovery slice is", "recovery slices are") + " there should it be damaged one day."
        : "but the files picked hold no recovery slice to repair it with, should it be damaged one day: those are in its .vol…par2 files.") +
      " Checked in " + took + "."
    );
  var text = "";
  if (report.damagedSlices > 0) {
    text =
      capitalized(damagedPartsText(report.runs)) + " of the file's " + parts + (report.damagedSlices === 1 ? " was" : " were") +
      " damaged or missing; " + count(report.recoverySlicesUsed, "recovery slice", "recovery slices") + " of the " +
      report.recoverySlices.toLocaleString("en-US") + " in the recovery files rebuilt " + (report.damagedSlices === 1 ? "it" : "them") + ". ";
  }
  if (report.addedBytes > 0) text += count(report.addedBytes, "byte", "bytes") + " after the end of the backup were removed. ";
  return text + "The repaired backup's MD5 is the one the recovery files give for it. Checked and repaired in " + took + ".";
}

/** #repair-note: who made the set, packets passed over, and how the set was known to be this backup's. */
function repairNote(report) {
  var notes = ["The recovery set was made for \u201c" + report.name + "\u201d" + (report.creator ? " with " + creatorName(report.creator) : "") + "."];
  var passed = report.skipped.damaged + report.skipped.unknown;
  if (passed > 0) notes.push(count(passed, "damaged or unknown packet", "damaged or unknown packets") + " in the recovery files " + (passed === 1 ? "was" : "were") + " passed over.");
  if (report.match === "size" || report.match === "sole")
    notes.push("The first 16 KiB of the backup differ from those the recovery set describes (they are damaged, or cut); its intact parts show that the set is this backup's.");
  if (report.otherFileSlices > 0) notes.push("The set protects other files too; the page counted their " + count(report.otherFileSlices, "slice", "slices") + " as missing.");
  return notes.join(" ");
}

/** The banner over a backup opened with its recovery files: `repair` is { result, name } (22-recovery-files.js). */
function repairBanner(repair) {
  var report = repair.result;
  var repaired = report.outcome === "repaired";
  var banner = element("div", { id: "repair-banner", class: "repair-banner", role: "region", "aria-labelledby": "repair-title" });
  banner.append(element("h3", { id: "repair-title" }, repairTitle(report)), element("p", { id: "repair-numbers" }, repairNumbers(report)));
  var hint = element(
    "p",
    { id: "repair-hint" },
    repaired
      ? "Save the repaired backup and keep it instead of the damaged one: under its name, " + repair.name +
          ", next to its .par2 files, and wherever you keep a copy. Until you save it, the repaired backup exists only in this tab."
      : "Keep the .par2 files next to the backup, wherever you keep a copy: with them, a damaged backup can be repaired."
  );
  banner.append(hint);
  if (repaired) {
    var buttons = element("div", { class: "buttons" });
    var save = element("button", { type: "button", id: "save-repaired", class: "save-action", "aria-describedby": "repair-hint" }, "Save the repaired backup");
    save.addEventListener("click", saveRepaired);
    buttons.append(save);
    banner.append(buttons);
  }
  banner.append(element("p", { id: "repair-note" }, repairNote(report)));
  return banner;
}

/** #save-repaired: the repaired backup as a download, under the damaged file's name. */
function saveRepaired() {
  if (app.busy || !app.session || !app.session.repair) return;
  var repair = app.session.repair;
  download(repair.result.blob, repair.name);
  setStatus("Saved the repaired backup as " + repair.name + " (your browser's downloads). Keep it instead of the damaged one.", null, true);
}

/**
 * For the alert of a repair that could not be made with too few recovery slices: "3 parts of the file are
 * damaged or missing, and the recovery files hold 2 intact recovery slices: 3 are needed."; else "".
 */
function notRepairableNumbers(failure) {
  if (failure.code !== "not_repairable" || failure.damagedSlices === undefined) return "";
  return (
    count(failure.damagedSlices, "part of the file is", "parts of the file are") + " damaged or missing, and the recovery files hold " +
    count(failure.recoverySlices, "intact recovery slice", "intact recovery slices") + ": " + failure.neededSlices.toLocaleString("en-US") +
    (failure.neededSlices === 1 ? " is" : " are") + " needed to repair it."
  );
}
