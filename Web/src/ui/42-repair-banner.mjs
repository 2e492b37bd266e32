// The banner over a backup opened with its recovery files (#repair-banner): what the repair did, in words
// and numbers (#repair-numbers), what to do next (#repair-hint) with the button that saves the repaired
// backup (#save-repaired), and what the recovery set said besides (#repair-note); or that the recovery
// files confirm the backup is intact. Also the numbers of a repair that could not be made, for the alert.

import * as core from "../core/index.mjs";
import { capitalized, count, element } from "./00-basics.mjs";
import { app } from "./01-page-state.mjs";
import { setStatus } from "./10-status.mjs";
import { listText } from "./11-errors.mjs";
import { creatorName } from "./22-recovery-files.mjs";
import { partsText } from "./40-salvage-banner.mjs";
import { download } from "./80-saving.mjs";
import { NEW_BACKUP_STEP } from "./81-save-new-backup.mjs";

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

/**
 * The title of a banner over a backup that opened whole with recovery files that were not used (`reason`, the
 * GoshuinError that kept them from checking or repairing it).
 */
function unusedTitle(reason) {
  if (reason.code === "recovery_set_mismatch") return "The recovery files picked were made for another backup";
  if (reason.code === "recovery_set_not_found") return "None of the files picked under Recovery files is a recovery file";
  if (reason.code === "recovery_set_invalid") return "The recovery files picked could not be used";
  if (reason.code === "browser_limit") return "The page could not check this backup against its recovery files";
  return "The recovery files picked do not describe this backup as it is";
}

/** The banner's title, in plain words. */
function repairTitle(report) {
  if (report.outcome === "unused") return unusedTitle(report.reason);
  if (report.outcome === "intact") return "The recovery files confirm that this backup is intact";
  if (report.damagedSlices === 0)
    return "Repaired: " + count(report.addedBytes, "byte", "bytes") + " added after the end of the backup removed";
  return "Repaired: " + count(report.damagedSlices, "damaged part", "damaged parts") + " of the file rebuilt from the recovery files";
}

var PROTECT_HINT = "To protect it, make new recovery files with goshuin-tool protect, and keep them next to it.";

/** #repair-numbers of a backup that opened whole with recovery files that were not used: why, and what to do. */
function unusedNumbers(report) {
  var reason = report.reason;
  var opened = "The backup opened with its passphrase, and every check passed: it is intact.";
  if (reason.code === "recovery_set_mismatch") return "They cannot check or repair this one. " + opened + " " + PROTECT_HINT;
  if (reason.code === "recovery_set_not_found" || reason.code === "recovery_set_invalid")
    return "They hold no recovery set this page can use for it. " + opened + " " + PROTECT_HINT;
  if (reason.code === "browser_limit") return "That is more than it does in a browser. " + opened + " goshuin-tool verify can check it against them.";
  var parts = report.damagedSlices !== undefined ? report.damagedSlices : reason.damagedSlices;
  return (
    (parts ? "By them, " + count(parts, "part of the file is", "parts of the file are") + " damaged or missing; yet " : "Yet ") +
    opened.charAt(0).toLowerCase() + opened.slice(1) + " They were made for another copy or version of it. " + PROTECT_HINT
  );
}

/** #repair-numbers: which parts, of how many, rebuilt from the recovery files, checked how, how fast. */
function repairNumbers(report) {
  if (report.outcome === "unused") return unusedNumbers(report);
  var parts = count(report.sliceCount, "part", "parts") + " of " + core.formatSize(report.sliceSize);
  var took = seconds(report.scanMs + report.verifyMs + report.rebuildMs + report.checkMs);
  if (report.outcome === "intact")
    return (
      "All " + parts + " of the file match the recovery files, and so does the whole file's MD5; " +
      (report.recoverySlices > 0
        ? "they can rebuild up to " + count(report.recoverySlices, "damaged part", "damaged parts") + " should it be damaged one day."
        : "but the files picked could not rebuild a part of it, should it be damaged one day: that is in its .vol…par2 files.") +
      " Checked in " + took + "."
    );
  var text = "";
  if (report.damagedSlices > 0) {
    text =
      capitalized(damagedPartsText(report.runs)) + " of the file's " + parts + (report.damagedSlices === 1 ? " was" : " were") +
      " damaged or missing, and " + (report.damagedSlices === 1 ? "was" : "were") + " rebuilt from the recovery files (they can rebuild up to " +
      count(report.recoverySlices, "part", "parts") + "). ";
  }
  if (report.addedBytes > 0) text += count(report.addedBytes, "byte", "bytes") + " after the end of the backup were removed. ";
  return text + "The repaired backup's MD5 is the one the recovery files give for it. Checked and repaired in " + took + ".";
}

/** #repair-note: who made the set, packets passed over, and how the set was known to be this backup's. */
function repairNote(report) {
  var notes = ["The recovery set was made for \u201c" + report.name + "\u201d" + (report.creator ? " with " + creatorName(report.creator) : "") + "."];
  var passed = report.skipped.damaged + report.skipped.unknown;
  if (passed > 0) notes.push(count(passed, "damaged or unknown packet", "damaged or unknown packets") + " in the recovery files " + (passed === 1 ? "was" : "were") + " passed over.");
  if (report.notReadToEnd > 0) notes.push(count(report.notReadToEnd, "file", "files") + " picked " + (report.notReadToEnd === 1 ? "was" : "were") + " not read to the end: more than the page reads for a backup of this size.");
  if (report.match !== "exact")
    notes.push("The start or the length of the backup differ from those the recovery set describes (damaged, or cut); " + evidenceText(report.evidence));
  if (report.otherFileSlices > 0) notes.push("The set protects other files too; the page counted their " + count(report.otherFileSlices, "part", "parts") + " as missing.");
  return notes.join(" ");
}

/** How the set was known to be this backup's when its start or length differ (Spec/decisions/0048). */
function evidenceText(evidence) {
  if (evidence === "zeros") return "every byte of it is zero (erased), so it holds nothing of another file.";
  if (evidence === "block") return "512-byte blocks of it are those of the file the recovery files rebuild, so the set is this backup's.";
  return "its intact parts show that the set is this backup's.";
}

/** The banner over a backup opened with its recovery files: `repair` is { result, name } (22-recovery-files.mjs). */
export function repairBanner(repair) {
  var report = repair.result;
  var repaired = report.outcome === "repaired";
  var unused = report.outcome === "unused";
  var banner = element("div", { id: "repair-banner", class: "repair-banner" + (unused ? " notice" : ""), role: "region", "aria-labelledby": "repair-title" });
  banner.dataset.outcome = report.outcome;
  banner.append(element("h3", { id: "repair-title" }, repairTitle(report)), element("p", { id: "repair-numbers" }, repairNumbers(report)));
  if (unused) {
    var code = element("p", { class: "error-code" });
    code.append("Code ", element("code", { class: "code" }, report.reason.code));
    if (report.reason.detail) code.append(" · ", element("span", { class: "detail" }, "Details: " + report.reason.detail));
    banner.append(code);
    return banner;
  }
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
  // The last step (issue 37): the backup brought into the app as a new backup.
  if (repaired) banner.append(element("p", { id: "repair-new-backup" }, NEW_BACKUP_STEP));
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
 * For the alert of a repair that could not be made with too little recovery data: "3 parts of the file are
 * damaged or missing, and the recovery files can rebuild only 2: 3 are needed to repair it."; for a file cut
 * short, that it is; else "".
 */
export function notRepairableNumbers(failure) {
  if ((failure.code !== "not_repairable" && failure.code !== "truncated") || failure.damagedSlices === undefined) return "";
  var can =
    failure.recoverySlices === 0
      ? "the recovery files picked can rebuild none (that is in the .vol…par2 files)"
      : "the recovery files can rebuild only " + failure.recoverySlices.toLocaleString("en-US");
  var others = failure.otherFileSlices ? " (with " + count(failure.otherFileSlices, "part", "parts") + " of other files the set protects)" : "";
  var needed = ": " + failure.neededSlices.toLocaleString("en-US") + (failure.neededSlices === 1 ? " is" : " are") + " needed to repair it.";
  if (failure.code === "truncated")
    return "The file is cut short: " + count(failure.damagedSlices, "part of the file is", "parts of the file are") + " missing, and " + can + others + needed;
  if (failure.dependent)
    return (
      count(failure.damagedSlices, "part of the file is", "parts of the file are") + " damaged or missing, and what the recovery files hold cannot rebuild " +
      (failure.damagedSlices === 1 ? "it" : "them") + ": pieces of it depend on one another (it happens with some recovery files). Pick every .vol…par2 file; other ones may do."
    );
  return count(failure.damagedSlices, "part of the file is", "parts of the file are") + " damaged or missing, and " + can + others + needed;
}
