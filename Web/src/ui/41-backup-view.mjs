// An opened, repaired or salvaged backup shown (#result): its title, the repair's banner, its summary, the buttons that save it, the
// records table's place, and the photo grid's tiles, each waiting for its preview; and the session that
// holds what the page made of it.

import * as core from "../core/index.mjs";
import { count, element } from "./00-basics.mjs";
import { app, result } from "./01-page-state.mjs";
import { afterNextFrame } from "./02-slices.mjs";
import { lostPhotoKeys, photoKey } from "./30-records.mjs";
import { salvageBanner } from "./40-salvage-banner.mjs";
import { repairBanner } from "./42-repair-banner.mjs";
import { recordsTable } from "./50-table.mjs";
import { openViewer } from "./70-viewer.mjs";
import { saveAsZip, saveOne, saveToFolder } from "./80-saving.mjs";
import { newBackupSection } from "./81-save-new-backup.mjs";

// The photo tiles in the document at first, then added a frame at a time: WebKitGTK held the page's thread 90 ms
// and more laying out 256 tiles in the frame that shows a backup (Spec/decisions/0066).
var TILES_FIRST = 32;
var TILES_A_FRAME = 64;

function backupTitle(createdAt) {
  return createdAt.slice(0, 10) + " " + createdAt.slice(11, 16) + " UTC";
}

/**
 * Shows `backup` with its `records` (30-records.mjs), under the repair's banner when `repair` is not null, with
 * its first photo tiles; returns `addTiles(signal)`, which adds the others a frame at a time. Every photo is in
 * the session at once.
 */
export function showBackup(backup, records, repair) {
  var salvaged = !!backup.salvage;
  app.session = {
    backup: backup, records: records, photos: [], downloads: [], observer: null, closed: false, kept: [], table: null, salvaged: salvaged, repair: repair,
    lostPhotos: salvaged ? lostPhotoKeys(backup.salvage.lost) : null,
  };
  var recordCount = records ? records.count : null;
  var total = core.formatSize(backup.files.reduce(function (sum, f) { return sum + f.size; }, 0));
  var title = salvaged
    ? backup.createdAt ? "What is intact in the backup of " + backupTitle(backup.createdAt) : "What is intact in the damaged backup"
    : "Backup of " + backupTitle(backup.createdAt) + (repair && repair.result.outcome === "repaired" ? ", repaired" : "");
  var heading = element("h2", { id: "result-heading", tabindex: "-1" }, title);
  var checked = !salvaged || !backup.salvage.manifestLost
    ? " Every file was checked against the backup's list of contents."
    : " Each file was checked for its size and CRC-32.";
  var summary = element(
    "p",
    { class: "summary" },
    (recordCount === null ? "" : count(recordCount, "record", "records") + ", ") +
      count(backup.photos.length, "photo", "photos") + ", " + total + (salvaged ? " intact." : " in all.") + checked
  );
  var buttons = element("div", { class: "buttons" });
  if (backup.files.length === 0) {
    summary.textContent = "Nothing of the backup is intact: there is nothing to show or save.";
  } else if (typeof window.showDirectoryPicker === "function") {
    var folderButton = element("button", { type: "button", id: "save-folder", class: "save-action" }, "Save everything to a folder…");
    folderButton.addEventListener("click", saveToFolder);
    buttons.append(folderButton);
  }
  if (backup.files.length > 0) {
    var zipButton = element("button", { type: "button", id: "save-zip", class: "save-action" }, "Download everything as a ZIP");
    zipButton.addEventListener("click", saveAsZip);
    buttons.append(zipButton);
  }
  if (backup.records) {
    var recordsButton = element("button", { type: "button", id: "save-records", class: "save-action" }, "Save records.csv");
    recordsButton.addEventListener("click", function () {
      saveOne(core.RECORDS_NAME);
    });
    buttons.append(recordsButton);
  }

  var recordsHeading = element("h3", { id: "records-heading" }, "Records");
  result.append(heading);
  if (salvaged) result.append(salvageBanner(backup));
  if (repair) result.append(repairBanner(repair));
  result.append(summary, buttons, recordsHeading);
  if (!backup.records) {
    result.append(element("p", { class: "empty", id: "records-lost" }, "records.csv is lost: it is not among the files that are intact."));
  } else if (records === null) {
    result.append(element("p", { class: "empty" }, "records.csv is too large to show here; save it to open it in a spreadsheet."));
  } else {
    result.append.apply(result, recordsTable(records));
  }

  var photosHeading = element("h3", { id: "photos-heading" }, "Photos");
  var list = element("ul", { id: "photos", "aria-labelledby": "photos-heading" });
  var items = [];
  backup.photos.forEach(function (photo, index) {
    var item = element("li", { "data-state": "waiting" });
    var figure = element("figure");
    var noteId = "photo-note-" + index;
    var date = records ? records.photoDates.get(photoKey(photo.name)) : undefined;
    var frame = element("button", {
      type: "button",
      class: "frame",
      "aria-label": "View " + photo.name + (date ? ", " + date : ""),
      "aria-describedby": noteId,
      "aria-haspopup": "dialog",
    });
    var img = element("img", { alt: photo.name, decoding: "async" });
    var note = element("span", { class: "tile-note", id: noteId }, "Loading preview…");
    frame.append(img, note);
    frame.addEventListener("click", function () {
      openViewer(index);
    });
    var caption = element("figcaption");
    var save = element("button", { type: "button", class: "save-action", "aria-label": "Save " + photo.name }, "Save");
    save.addEventListener("click", function () {
      saveOne(photo.name);
    });
    caption.append(element("span", { class: "name" }, photo.name), element("span", { class: "size" }, core.formatSize(photo.size)), save);
    figure.append(frame, caption);
    item.append(figure);
    items.push(item);
    app.session.photos.push({
      index: index, name: photo.name, size: photo.size, date: date, details: records ? records.photoDetails.get(photoKey(photo.name)) : undefined,
      item: item, frame: frame, img: img, note: note,
      url: null, state: "waiting", visible: false, verdict: null,
    });
  });

  result.append(photosHeading);
  if (backup.photos.length === 0) result.append(element("p", { class: "empty" }, salvaged ? "No photo is intact." : "This backup has no photos."));
  list.append.apply(list, items.splice(0, TILES_FIRST));
  result.append(list);
  // Last, after the photos (so that nothing above moves): a new backup of what is shown (issue 37).
  if (backup.files.length > 0) result.append(newBackupSection(backup));
  result.hidden = false;
  return async function addTiles(signal) {
    while (items.length > 0) {
      await afterNextFrame(signal);
      list.append.apply(list, items.splice(0, TILES_A_FRAME));
    }
  };
}
