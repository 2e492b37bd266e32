// The banner over a salvaged backup (#salvage-banner): that it is damaged and only what is intact is shown,
// each file lost and why, the parts of the file damaged or missing.

import * as core from "../core/index.mjs";
import { capitalized, count, element } from "./00-basics.mjs";
import { NEW_BACKUP_STEP } from "./81-save-new-backup.mjs";

var LOST_REASONS = {
  zip_malformed: "its place in the backup is not valid",
  entry_corrupt: "it does not unpack to what it declares",
  manifest_mismatch: "it does not match the backup's list of contents",
  duplicate_entry: "a file of the same name came before it",
};

/**
 * Why an entry is lost, in words ("it lies in a damaged part of the file"), with the code when it is a
 * check's. Which parts are damaged or missing the banner says once, under the list.
 */
function lostReason(lost, report) {
  if (lost.reason === "damaged") return "it lies in a damaged part of the file";
  if (lost.reason === "missing") return "it lies in a part of the file that is missing (the file was cut short)";
  if (lost.reason === "not_found") {
    var cut = report.damagedChunks === 0 && report.lostRuns.some(function (run) {
      return run.state === "missing";
    });
    var place = cut ? "the backup was cut before it" : "it lay in a damaged or missing part of the file";
    return lost.name === core.RECORDS_NAME ? "not found where the backup keeps it: " + place : "not found: records.csv names it, but " + place;
  }
  return (LOST_REASONS[lost.reason] || "it fails a check") + " (" + lost.reason + ")";
}

/** "part 12 of the file", "parts 12–13 of the file": a chunk, in the words of a person who never met one. */
export function partsText(first, last) {
  return first === last ? "part " + first.toLocaleString("en-US") : "parts " + first.toLocaleString("en-US") + "–" + last.toLocaleString("en-US");
}

/**
 * The banner over a salvaged backup (#salvage-banner): that the backup is damaged and only what is intact
 * is shown; each entry lost and why; in walk mode, that the manifest is lost and what was restored was not
 * checked against it; the chunks damaged and missing; the bytes ignored after the end.
 */
export function salvageBanner(backup) {
  var report = backup.salvage;
  var banner = element("div", { id: "salvage-banner", class: "salvage-banner", role: "region", "aria-labelledby": "salvage-title" });
  var nothingLost = report.complete;
  banner.append(
    element("h3", { id: "salvage-title" }, nothingLost ? "Every file of this backup is intact" : "This backup is damaged: only what is still intact is shown")
  );
  var lost = report.lost;
  if (lost.length > 0) {
    banner.append(element("p", { id: "salvage-lost-lead" }, count(lost.length, "file is", "files are") + " lost:"));
    var list = element("ul", { id: "salvage-lost" });
    lost.forEach(function (entry) {
      var item = element("li");
      item.append(element("span", { class: "name" }, entry.name), ": " + lostReason(entry, report) + ".");
      list.append(item);
    });
    banner.append(list);
  } else if (!nothingLost) {
    banner.append(element("p", { id: "salvage-lost-lead" }, report.manifestLost ? "No file is known to be lost." : "No file of the backup's list of contents is lost."));
  }
  if (report.manifestLost)
    banner.append(
      element(
        "p",
        { id: "salvage-manifest-lost" },
        "The backup's list of its files (manifest.json) is lost as well. What is shown was checked for its size and CRC-32 only, not against that list; and a file whose beginning was lost is not known at all, so more may be lost than is listed here."
      )
    );
  var damagedRuns = report.lostRuns.filter(function (run) {
    return run.state === "damaged";
  });
  var missingRuns = report.lostRuns.filter(function (run) {
    return run.state === "missing";
  });
  var shownRuns = damagedRuns.slice(0, 12);
  var shownDamaged = shownRuns.reduce(function (sum, run) {
    return sum + run.last - run.first + 1;
  }, 0);
  // The file is read in parts (its chunks, numbered from 0): which ones are damaged or missing, said once.
  var chunks = shownRuns.concat(missingRuns).map(function (run) {
    if (run.state === "damaged") return capitalized(partsText(run.first, run.last)) + " of the file " + (run.first === run.last ? "is" : "are") + " damaged";
    if (run.last === null) return "The file ends early or is damaged at its end: from part " + run.first.toLocaleString("en-US") + " on, nothing is there to read";
    return capitalized(partsText(run.first, run.last)) + " of the file " + (run.first === run.last ? "is" : "are") + " missing: the file was cut short";
  });
  if (report.damagedChunks > shownDamaged)
    chunks.splice(shownRuns.length, 0, "And more: " + count(report.damagedChunks, "damaged part", "damaged parts") + " in all");
  if (report.trailingBytes > 0) chunks.push(count(report.trailingBytes, "byte", "bytes") + " after the end of the backup were ignored");
  if (chunks.length) banner.append(element("p", { id: "salvage-chunks" }, chunks.join(". ") + "."));
  banner.append(
    element(
      "p",
      null,
      nothingLost
        ? "The file itself is not as it was made, so save what is shown and keep it."
        : backup.files.length === 0
          ? "Look for another copy of the backup: nothing in this one can be restored."
          : "Save what is shown now (the buttons below save exactly these files), and look for another copy of the backup."
    )
  );
  // The last step (issue 37): what is intact, brought into the app as a new backup.
  if (backup.records) banner.append(element("p", { id: "salvage-new-backup" }, NEW_BACKUP_STEP));
  return banner;
}
