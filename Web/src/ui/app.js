// The page: the form, progress, errors, the records table, the photo grid, the photo viewer and saving.
// Text from the backup reaches the DOM only through textContent and attributes, never as HTML. Photos are
// decrypted when they come near the screen and their blob URLs are revoked when far away, so memory stays
// flat; none is decoded before its header said what it is and how many pixels it has. The table is built
// a page of bounded size at a time, in slices between which the browser stays responsive, whatever
// records.csv holds.
(function () {
  "use strict";
  if (typeof document === "undefined") return; // the tests load this script in Node for GoshuinCore only

  var core = GoshuinCore;
  var PREVIEW_LIMIT = 64 * 1048576; // photos and records.csv larger than this are not shown (saving still works)
  var THUMBNAIL_SIZE = 480; // pixels, the longer side of a photo as the grid shows it
  var KEPT_BYTES = 64 * 1048576; // what the grid's images may hold, beyond the ones near the screen
  var KEPT_PHOTOS = 400;
  var PREVIEW_PIXELS = 64000000; // the largest photo decoded for a preview (a 48-megapixel phone photo is 49)
  var DECODE_PIXELS = 64000000; // pixels being decoded at once, the grid and the viewer together
  var TABLE_COLUMNS = 50; // columns shown (the others are in records.csv)
  var PAGE_CELLS = 6000; // cells in one page of the table (columns × rows)
  var PAGE_ROWS = 500; // records in one page of the table, at most
  var KEPT_FIELDS = 1000000; // fields of records.csv kept for the table's pages
  var SHORT_CELL = 32; // characters: a cell up to this long stays on one line
  var NOTE_CELL = 160; // characters (or more than 3 line breaks): a note, shown clamped with "Show all"
  var NOTE_PREVIEW = 600; // characters of a clamped note in the page
  var NOTE_LIMIT = 100000; // characters of a note shown in full
  var SLICE_MS = 12; // work between two yields to the browser
  var PHOTO_TYPES = { jpg: "image/jpeg", jpeg: "image/jpeg", png: "image/png", heic: "image/heic", heif: "image/heif", webp: "image/webp" };
  var SNIFFED_TYPES = { JPEG: "image/jpeg", PNG: "image/png", WebP: "image/webp", GIF: "image/gif", BMP: "image/bmp", HEIC: "image/heic", HEIF: "image/heif", AVIF: "image/avif" };

  function byId(id) {
    return document.getElementById(id);
  }
  var form = byId("open-form");
  var fileInput = byId("backup-file");
  var passphrase = byId("passphrase");
  var openButton = byId("open");
  var cancelButton = byId("cancel");
  var progressBar = byId("progress");
  var statusText = byId("status-text");
  var alertBox = byId("error");
  var result = byId("result");
  var dropZone = byId("drop-zone");
  var viewer = byId("viewer");

  var session = null; // the opened backup and what the page made from it
  var controller = null; // the AbortController of the running task
  var busy = false;

  function element(tag, attributes, text) {
    var node = document.createElement(tag);
    if (attributes) for (var key in attributes) node.setAttribute(key, attributes[key]);
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function count(n, one, many) {
    return n.toLocaleString("en-US") + " " + (n === 1 ? one : many);
  }

  function now() {
    return performance.now();
  }

  // ---- yielding to the browser between slices of work (not throttled in a background tab, unlike setTimeout)

  var yieldChannel = new MessageChannel();
  var yieldWaiting = [];
  yieldChannel.port1.onmessage = function () {
    var resolve = yieldWaiting.shift();
    if (resolve) resolve();
  };
  function yieldToBrowser() {
    if (typeof scheduler !== "undefined" && scheduler && typeof scheduler.yield === "function") return scheduler.yield();
    return new Promise(function (resolve) {
      yieldWaiting.push(resolve);
      yieldChannel.port2.postMessage(0);
    });
  }
  /** A slicer: `await slicer.pause(signal)` yields when the current slice has run SLICE_MS. */
  function slicer() {
    var started = now();
    return {
      pause: async function (signal) {
        if (now() - started < SLICE_MS) return;
        await yieldToBrowser();
        if (signal && signal.aborted) throw new core.GoshuinError("interrupted", "stopped");
        started = now();
      },
    };
  }

  // ---- status, progress, errors

  var lastPaint = 0;
  function setStatus(text, fraction, force) {
    var time = Date.now();
    if (!force && time - lastPaint < 100) return;
    lastPaint = time;
    statusText.textContent = text;
    if (fraction === null) {
      progressBar.hidden = true;
    } else {
      progressBar.hidden = false;
      if (fraction === undefined) progressBar.removeAttribute("value");
      else progressBar.value = Math.max(0, Math.min(1, fraction));
    }
  }

  function clearStatus() {
    setStatus("", null, true);
  }

  /**
   * The alert: first what happened and what to do, in words; then, for a damaged or cut backup, what the
   * damage touches and the offer to show what is intact (`salvage`, a function); then the code and details
   * in small type.
   */
  function showError(error, focus, title, salvage) {
    var failure = core.asGoshuinError(error);
    if (failure.code === "internal") console.error(error); // a bug of this page: keep its stack for the console
    alertBox.replaceChildren();
    var lead = element("p", { class: "error-lead" });
    lead.append(element("strong", null, (title || "Could not open the backup") + "."), " " + core.errorAdvice(failure));
    alertBox.append(lead);
    var touched = damageText(failure.damage);
    if (touched) alertBox.append(element("p", { id: "error-damage" }, touched));
    if (salvage) {
      var offer = element("p", { class: "salvage-offer" });
      var button = element("button", { type: "button", id: "salvage", "aria-describedby": "salvage-hint" }, "Show what is intact");
      button.addEventListener("click", salvage);
      offer.append(
        button,
        " ",
        element("span", { id: "salvage-hint" }, "If this is your only copy: the page shows the records and photos that are still intact, says what is lost, and lets you save them.")
      );
      alertBox.append(offer);
    }
    var code = element("p", { class: "error-code" });
    code.append("Code ", element("code", { class: "code" }, failure.code));
    if (failure.chunkIndex !== undefined) code.append(" (chunk " + failure.chunkIndex + ")");
    if (failure.detail) code.append(" · ", element("span", { class: "detail" }, "Details: " + failure.detail));
    alertBox.append(code);
    if (focus) focus.focus();
  }

  /** "a", "a and b", "a, b and c". */
  function listText(items) {
    if (items.length <= 1) return items.join("");
    return items.slice(0, -1).join(", ") + " and " + items[items.length - 1];
  }

  /** "chunk 12", "chunks 12–13", "chunks 30 on" (a run whose end is not known). */
  function chunksText(first, last) {
    if (last === null || last === undefined) return "chunks " + first.toLocaleString("en-US") + " on";
    if (first === last) return "chunk " + first.toLocaleString("en-US");
    return "chunks " + first.toLocaleString("en-US") + "–" + last.toLocaleString("en-US");
  }

  function capitalized(text) {
    return text.charAt(0).toUpperCase() + text.slice(1);
  }

  /**
   * What the damaged chunks hold, from the intact list of contents (Spec/backup-v1.md §4.2): "Chunk 12 holds
   * IMG_0012.HEIC and the start of IMG_0013.HEIC."; or that the list is damaged too.
   */
  function damageText(damage) {
    if (!damage) return "";
    if (!damage.named) return "Which files the damage hits cannot be said: the backup's list of its files is damaged too, or not valid.";
    var parts = damage.runs.map(function (run) {
      var names = run.entries.map(function (entry) {
        return { whole: "", start: "the start of ", end: "the end of ", part: "part of " }[entry.part] + entry.name;
      });
      var single = run.first === run.last;
      var what = names.length ? listText(names) : "nothing of any file";
      return chunksText(run.first, run.last) + (single ? " holds " : " hold ") + what;
    });
    return capitalized(parts.join("; ")) + ".";
  }

  function clearError() {
    alertBox.replaceChildren();
  }

  function setBusy(value) {
    busy = value;
    openButton.disabled = value;
    fileInput.disabled = value;
    passphrase.disabled = value;
    cancelButton.hidden = !value;
    document.querySelectorAll(".save-action").forEach(function (button) {
      button.disabled = value;
    });
  }

  var taskFocus = null; // what had the focus when a save started, to give it back
  function startTask() {
    controller = new AbortController();
    taskFocus = document.activeElement;
    setBusy(true);
    return controller.signal;
  }

  function endTask() {
    controller = null;
    setBusy(false);
    // A button disabled while it worked lost the focus to the page: it gets it back.
    var active = document.activeElement;
    if ((active === null || active === document.body) && taskFocus && taskFocus.isConnected && !taskFocus.disabled) taskFocus.focus();
    taskFocus = null;
  }

  cancelButton.addEventListener("click", function () {
    if (controller) controller.abort();
  });

  /** A promise that fails with `interrupted` when `signal` is aborted. */
  function whenAborted(signal) {
    return new Promise(function (resolve, reject) {
      var stop = function () {
        reject(new core.GoshuinError("interrupted", "stopped"));
      };
      if (signal.aborted) stop();
      else signal.addEventListener("abort", stop, { once: true });
    });
  }

  /** Stop, said calmly in the status line: nothing is wrong with the backup. */
  function showStopped(text) {
    clearError();
    setStatus(text, null, true);
  }

  // ---- opening

  function resetResult() {
    closeViewer(false);
    if (session) {
      session.closed = true;
      if (session.observer) session.observer.disconnect();
      session.photos.forEach(function (photo) {
        if (photo.url) URL.revokeObjectURL(photo.url);
      });
      session.downloads.forEach(function (url) {
        URL.revokeObjectURL(url);
      });
    }
    session = null;
    result.replaceChildren();
    result.hidden = true;
  }

  var STAGE_TEXT = {
    directory: "Reading the backup's list of contents…",
    "salvage-directory": "Reading the backup's list of contents…",
  };
  /** The strict verdicts of a damaged or cut backup, for which the page offers salvage (never auth_failed). */
  var SALVAGEABLE = ["chunk_damaged", "truncated", "chunk_length_invalid", "trailing_data"];

  /**
   * "; about 25 s left" for a long stage, from its rate so far (once it has run a few seconds), as the tool
   * says it; "" before that.
   */
  var stageClock = { stage: null, started: 0, from: 0 };
  function timeLeft(stage, done, total) {
    var time = now();
    if (stageClock.stage !== stage || done < stageClock.from) stageClock = { stage: stage, started: time, from: done };
    var elapsed = (time - stageClock.started) / 1000;
    var progressed = done - stageClock.from;
    if (elapsed < 3 || progressed <= 0 || done >= total) return "";
    var left = Math.ceil(((total - done) * elapsed) / progressed);
    return left < 60 ? "; about " + left + " s left" : "; about " + Math.round(left / 60).toLocaleString("en-US") + " min left";
  }

  function onProgress(stage, done, total, header) {
    if (stage === "key") {
      if (header) {
        onProgress.rounds = header.iterations;
        setStatus("Checking the passphrase (" + header.iterations.toLocaleString("en-US") + " rounds of PBKDF2)…", 0, true);
      } else {
        var rounds = onProgress.rounds ? " (" + onProgress.rounds.toLocaleString("en-US") + " rounds of PBKDF2)" : "";
        setStatus("Checking the passphrase" + rounds + "… " + Math.round(done * 100) + "%" + timeLeft(stage, done, 1), done, done >= 1);
      }
    } else if (stage === "probe") {
      setStatus("A part of the file does not authenticate; finding the first one that fails…", done / total);
    } else if (stage === "rest") {
      setStatus("Checking that the rest of the file is intact…", done / total);
    } else if (stage === "survey") {
      setStatus("A part of the file is damaged; finding which files it holds…", done / total);
    } else if (stage === "salvage") {
      setStatus(
        "Checking every part of the file… " + Math.round((done / Math.max(1, total)) * 100) + "%" + timeLeft(stage, done, total),
        total ? done / total : 1,
        done === 0 || done === total
      );
    } else if (stage === "salvage-entries") {
      setStatus("Checking each file that is intact… " + (done + 1).toLocaleString("en-US") + " of " + total.toLocaleString("en-US"), total ? done / total : 1);
    } else if (stage === "salvage-walk") {
      setStatus("Looking for the files that are intact… " + core.formatSize(done) + " of " + core.formatSize(total), total ? done / total : 1);
    } else if (stage === "verify") {
      setStatus(
        "Checking every file in the backup against its list… " + core.formatSize(done) + " of " + core.formatSize(total) + timeLeft(stage, done, total),
        total ? done / total : 1,
        done === 0 || done === total
      );
    } else {
      setStatus(STAGE_TEXT[stage] || "Working…", undefined, true);
    }
  }

  /** Shows an opened or salvaged backup: its records read in slices, the table's first page, the photos. */
  async function present(backup, signal) {
    setStatus("Reading the records…", undefined, true);
    var records = null;
    if (backup.records && backup.records.size <= PREVIEW_LIMIT) {
      var recordsBytes = await backup.read(core.RECORDS_NAME, signal);
      var text = new TextDecoder("utf-8").decode(recordsBytes);
      recordsBytes = null;
      records = await readRecords(text, backup.photos, signal);
    }
    if (signal.aborted) throw new core.GoshuinError("interrupted", "stopped");
    showBackup(backup, records);
    await showRecordsPage(0, signal);
    if (signal.aborted) throw new core.GoshuinError("interrupted", "stopped");
  }

  /**
   * Runs `task(secret, signal)` (opening or salvaging the chosen file) with Stop, progress and the
   * passphrase's bytes wiped afterwards; shows what it returns, or its error. `shownState` is the page's
   * state then ("opened", "salvaged").
   */
  async function run(file, task, shownState) {
    if (busy) return;
    resetResult();
    clearError();
    clearStatus();
    document.body.dataset.state = "opening";
    if (!file) {
      document.body.dataset.state = "failed";
      showError(new core.GoshuinError("invalid_argument", "no backup file is chosen"), fileInput);
      return;
    }
    if (passphrase.value === "") {
      document.body.dataset.state = "failed";
      showError(new core.GoshuinError("invalid_argument", "the passphrase is empty"), passphrase);
      return;
    }
    var signal = startTask();
    cancelButton.focus(); // Open is disabled now; the one thing to do is Stop
    var secret = core.utf8Bytes(passphrase.value);
    var failedCode = null;
    setStatus("Checking the file's structure…", undefined, true);
    try {
      // Stop answers at once, even during the key derivation (which WebCrypto cannot interrupt): the
      // task that goes on in the background ends at its next check of the signal, and is dropped.
      var opening = task(secret, {
        signal: signal,
        onProgress: function (stage, done, total, header) {
          if (!signal.aborted) onProgress(stage, done, total, header); // a dropped task says nothing
        },
      });
      opening.catch(function () {});
      var backup = await Promise.race([opening, whenAborted(signal)]);
      secret.fill(0);
      await present(backup, signal);
      passphrase.value = "";
      clearStatus();
      document.body.dataset.state = shownState;
      observePhotos(session);
    } catch (error) {
      secret.fill(0);
      resetResult();
      clearStatus();
      failedCode = core.asGoshuinError(error).code;
      if (failedCode === "interrupted") {
        document.body.dataset.state = "stopped";
        showStopped("Stopped. Nothing was kept. Open the backup again when you like.");
      } else {
        document.body.dataset.state = "failed";
        // A damaged or cut backup (never a wrong passphrase): the offer to show what is still intact.
        var offer = SALVAGEABLE.indexOf(failedCode) >= 0 && shownState === "opened" ? function () { salvage(file); } : null;
        showError(error, null, null, offer);
      }
    } finally {
      taskFocus = null;
      endTask();
    }
    if (failedCode === null) {
      byId("result-heading").focus();
    } else if (failedCode === "auth_failed") {
      passphrase.focus(); // to type it again at once
      passphrase.select();
    } else if (failedCode === "interrupted") {
      openButton.focus();
    } else {
      fileInput.focus(); // most likely, another file is needed
    }
  }

  function open() {
    var file = fileInput.files && fileInput.files[0];
    return run(file, function (secret, options) {
      options.describeDamage = true; // a damaged backup's error names the files the damage touches
      return core.openBackup(core.blobSource(file), secret, options);
    }, "opened");
  }

  /** Salvage (Spec/backup-v1.md §4.2) of the file that failed, with the passphrase typed for it. */
  function salvage(file) {
    return run(file, function (secret, options) {
      return core.salvageBackup(core.blobSource(file), secret, options);
    }, "salvaged");
  }

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    open();
  });

  // A file dropped anywhere on the page is taken as the backup (and the browser does not navigate to it);
  // while one is dragged over the page, the page shows that it can be dropped anywhere.
  var dragDepth = 0;
  function carriesFiles(event) {
    var types = event.dataTransfer && event.dataTransfer.types;
    return !!types && Array.prototype.indexOf.call(types, "Files") >= 0;
  }
  function showDropZone(shown) {
    dropZone.hidden = !shown;
    document.body.classList.toggle("dragging", shown);
  }
  document.addEventListener("dragenter", function (event) {
    if (!carriesFiles(event) || busy || viewer.open) return;
    dragDepth++;
    showDropZone(true);
  });
  document.addEventListener("dragleave", function (event) {
    if (!carriesFiles(event)) return;
    dragDepth = Math.max(0, dragDepth - 1);
    if (dragDepth === 0) showDropZone(false);
  });
  document.addEventListener("dragover", function (event) {
    event.preventDefault();
    if (event.dataTransfer) event.dataTransfer.dropEffect = busy ? "none" : "copy";
  });
  document.addEventListener("drop", function (event) {
    event.preventDefault();
    dragDepth = 0;
    showDropZone(false);
    if (busy || viewer.open || !event.dataTransfer || event.dataTransfer.files.length === 0) return;
    fileInput.files = event.dataTransfer.files;
    passphrase.focus();
  });

  // ---- records.csv, read in slices

  function photoKey(name) {
    return name.toLowerCase();
  }

  /**
   * The table's rows from records.csv: at most TABLE_COLUMNS fields of each row and KEPT_FIELDS fields in
   * all are kept, every row is counted; and for each photo that a record names, that record's date.
   */
  async function readRecords(text, photos, signal) {
    var reader = new core.CsvReader(text);
    var slice = slicer();
    var photoNames = new Set(
      photos.map(function (photo) {
        return photoKey(photo.name);
      })
    );
    var header = reader.row(TABLE_COLUMNS);
    var records = {
      header: header ? header.fields : [], totalColumns: header ? header.count : 0, rows: [], count: 0, photoDates: new Map(), photoDetails: new Map(),
    };
    if (!header) return records;
    var dateColumn = -1;
    header.fields.forEach(function (name, index) {
      if (dateColumn < 0 && /date|day|日付/i.test(name.trim())) dateColumn = index;
    });
    var kept = 0;
    var widest = header.count;
    for (;;) {
      var row = reader.row(TABLE_COLUMNS);
      if (row === null) break;
      records.count++;
      if ((records.count & 1023) === 0) setStatus("Reading the records… " + Math.floor((reader.at / text.length) * 100) + "%", reader.at / text.length);
      if (row.count > widest) widest = row.count;
      if (kept < KEPT_FIELDS) {
        records.rows.push(row.fields);
        kept += Math.max(1, row.fields.length);
        if (photoNames.size > 0) namePhotos(row.fields, dateColumn, photoNames, records);
      }
      if ((records.count & 63) === 0) await slice.pause(signal);
    }
    records.totalColumns = widest;
    return records;
  }

  /**
   * The photos a record names (a field that is, or lists, photo names), each with the record's date
   * (`records.photoDates`) and its other fields, the shrine and the note among them (`records.photoDetails`,
   * for the viewer): the first record that names a photo is its record.
   */
  function namePhotos(fields, dateColumn, photoNames, records) {
    var dateAt = dateColumn >= 0 && fields[dateColumn] ? dateColumn : -1;
    if (dateAt < 0) {
      for (var i = 0; i < fields.length; i++) {
        if (/^\d{4}-\d{2}-\d{2}/.test(fields[i])) {
          dateAt = i;
          break;
        }
      }
    }
    var date = dateAt >= 0 ? fields[dateAt].trim().slice(0, 64) : "";
    var named = [];
    var nameFields = new Set();
    for (var f = 0; f < fields.length; f++) {
      var field = fields[f];
      if (field.length > 2000 || field.indexOf(".") < 0) continue;
      var words = field.split(/[\s,;|]+/);
      for (var w = 0; w < words.length; w++) {
        var key = photoKey(words[w]);
        if (!photoNames.has(key)) continue;
        nameFields.add(f);
        if (!records.photoDetails.has(key)) named.push(key);
      }
    }
    if (named.length === 0) return;
    var details = [];
    for (var d = 0; d < fields.length && details.length < 8; d++) {
      var value = fields[d].trim().replace(/\s+/g, " ");
      if (d !== dateAt && !nameFields.has(d) && value) details.push(value.length > 200 ? value.slice(0, 199) + "…" : value);
    }
    named.forEach(function (key) {
      if (date) records.photoDates.set(key, date);
      records.photoDetails.set(key, details.join(" · "));
    });
  }

  /** The case-folded names of the photos a salvage lost (records.csv aside), for the table's marks. */
  function lostPhotoKeys(lost) {
    var keys = new Set();
    lost.forEach(function (entry) {
      if (entry.name !== core.RECORDS_NAME) keys.add(photoKey(entry.name));
    });
    return keys.size ? keys : null;
  }

  /** Whether a cell's text mentions one of `keys`, words split as photo mentions are (54-photo-mentions.js). */
  function mentionsLostPhoto(text, keys) {
    if (text.length > 2000 || text.indexOf(".") < 0) return false;
    return text.split(/[ \t\r\n",;|]+/).some(function (word) {
      return keys.has(photoKey(word));
    });
  }

  // ---- showing a backup

  function backupTitle(createdAt) {
    return createdAt.slice(0, 10) + " " + createdAt.slice(11, 16) + " UTC";
  }

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
  function partsText(first, last) {
    return first === last ? "part " + first.toLocaleString("en-US") : "parts " + first.toLocaleString("en-US") + "–" + last.toLocaleString("en-US");
  }

  /**
   * The banner over a salvaged backup (#salvage-banner): that the backup is damaged and only what is intact
   * is shown; each entry lost and why; in walk mode, that the manifest is lost and what was restored was not
   * checked against it; the chunks damaged and missing; the bytes ignored after the end.
   */
  function salvageBanner(backup) {
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
    return banner;
  }

  function showBackup(backup, records) {
    var salvaged = !!backup.salvage;
    session = {
      backup: backup, records: records, photos: [], downloads: [], observer: null, closed: false, kept: [], table: null, salvaged: salvaged,
      lostPhotos: salvaged ? lostPhotoKeys(backup.salvage.lost) : null,
    };
    var recordCount = records ? records.count : null;
    var total = core.formatSize(backup.files.reduce(function (sum, f) { return sum + f.size; }, 0));
    var title = salvaged
      ? backup.createdAt ? "What is intact in the backup of " + backupTitle(backup.createdAt) : "What is intact in the damaged backup"
      : "Backup of " + backupTitle(backup.createdAt);
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
      list.append(item);
      session.photos.push({
        index: index, name: photo.name, size: photo.size, date: date, details: records ? records.photoDetails.get(photoKey(photo.name)) : undefined,
        item: item, frame: frame, img: img, note: note,
        url: null, state: "waiting", visible: false, verdict: null,
      });
    });

    result.append(photosHeading);
    if (backup.photos.length === 0) result.append(element("p", { class: "empty" }, salvaged ? "No photo is intact." : "This backup has no photos."));
    result.append(list);
    result.hidden = false;
  }

  // ---- the records table: pages of at most PAGE_CELLS cells, built in slices

  function recordsTable(records) {
    var columns = Math.min(TABLE_COLUMNS, Math.max(records.header.length, records.totalColumns));
    var perPage = Math.max(1, Math.min(PAGE_ROWS, Math.floor(PAGE_CELLS / Math.max(1, columns))));
    var table = {
      records: records,
      columns: columns,
      perPage: perPage,
      pages: Math.max(1, Math.ceil(records.rows.length / perPage)),
      page: 0,
      token: 0,
    };
    session.table = table;
    var parts = [];
    var notes = [];
    if (records.totalColumns > columns)
      notes.push("The first " + columns + " of " + records.totalColumns.toLocaleString("en-US") + " columns are shown.");
    if (records.rows.length < records.count)
      notes.push("The first " + records.rows.length.toLocaleString("en-US") + " of " + count(records.count, "record", "records") + " can be shown here.");
    if (notes.length) parts.push(element("p", { class: "empty", id: "records-note" }, notes.join(" ") + " Save records.csv for all of it."));

    var nav = element("div", { class: "table-nav" });
    table.range = element("p", { id: "records-range", "aria-live": "polite" });
    nav.append(table.range);
    if (table.pages > 1) {
      table.previous = element("button", { type: "button", id: "records-previous" }, "Previous " + perPage.toLocaleString("en-US"));
      table.next = element("button", { type: "button", id: "records-next" }, "Next " + perPage.toLocaleString("en-US"));
      table.previous.addEventListener("click", function () {
        turnPage(-1);
      });
      table.next.addEventListener("click", function () {
        turnPage(1);
      });
      nav.append(table.previous, table.next);
    }
    if (table.pages > 1) parts.push(nav);

    var scroll = element("div", { class: "table-scroll", tabindex: "0", role: "region", "aria-labelledby": "records-heading" });
    var tableElement = element("table", { id: "records" });
    var thead = element("thead");
    table.body = element("tbody");
    tableElement.append(thead, table.body);
    if (records.header.length > 0 || records.totalColumns > 0) {
      var headerRow = element("tr");
      for (var c = 0; c < columns; c++) headerRow.append(element("th", { scope: "col" }, records.header[c] === undefined ? "" : records.header[c]));
      thead.append(headerRow);
    }
    scroll.append(tableElement);
    parts.push(scroll);
    return parts;
  }

  async function turnPage(step) {
    var table = session && session.table;
    if (!table) return;
    var page = Math.max(0, Math.min(table.pages - 1, table.page + step));
    if (page === table.page) return;
    var focused = document.activeElement;
    try {
      await showRecordsPage(page, null);
    } catch (error) {
      if (core.asGoshuinError(error).code !== "interrupted") throw error;
    }
    if (focused && focused.disabled) (step < 0 ? table.next : table.previous).focus();
  }

  /** Page `page` of the table, its rows built off the document in slices, then put in place at once. */
  async function showRecordsPage(page, signal) {
    var table = session && session.table;
    if (!table) return;
    var token = ++table.token;
    var rows = table.records.rows;
    var first = page * table.perPage;
    var last = Math.min(rows.length, first + table.perPage);
    var body = element("tbody");
    var slice = slicer();
    var lost = session.lostPhotos;
    for (var r = first; r < last; r++) {
      var fields = rows[r];
      var tr = element("tr");
      for (var c = 0; c < table.columns; c++) {
        var text = fields[c] === undefined ? "" : fields[c];
        var td = cell(text);
        if (lost && mentionsLostPhoto(text, lost)) {
          // A record whose photo the salvage lost: the row says so, beside the photo's name.
          td.append(element("span", { class: "lost-mark" }, "lost"));
          tr.className = "photo-lost";
        }
        tr.append(td);
      }
      body.append(tr);
      await slice.pause(signal);
      if (token !== table.token || session === null || session.table !== table) return;
    }
    table.body.replaceWith(body);
    table.body = body;
    table.page = page;
    table.range.textContent =
      rows.length === 0
        ? "No records."
        : table.pages === 1
          ? count(rows.length, "record", "records") + "."
          : "Records " + (first + 1).toLocaleString("en-US") + "–" + last.toLocaleString("en-US") + " of " + rows.length.toLocaleString("en-US") + ".";
    if (table.previous) {
      table.previous.disabled = page === 0;
      table.next.disabled = page === table.pages - 1;
    }
  }

  function lineBreaks(text) {
    var n = 0;
    for (var at = text.indexOf("\n"); at >= 0 && n < 4; at = text.indexOf("\n", at + 1)) n++;
    return n;
  }

  /**
   * One cell. Short text stays on one line; longer text with spaces wraps at spaces only; a long note is
   * clamped to four lines with a button that shows all of it. A word is never broken inside (only a
   * "word" wider than a note's column, such as a long link, breaks where it overflows).
   */
  function cell(text) {
    var td = element("td");
    if (text.length <= SHORT_CELL && text.indexOf("\n") < 0 && text.indexOf("\r") < 0) {
      td.textContent = text;
      return td;
    }
    if (text.length <= NOTE_CELL && lineBreaks(text) <= 3) {
      td.className = "wrap";
      td.textContent = text;
      return td;
    }
    td.className = "note";
    td.dataset.expanded = "false";
    var clamp = element("div", { class: "clamp" }, text.length > NOTE_PREVIEW ? text.slice(0, NOTE_PREVIEW) + "…" : text);
    var more = element("button", { type: "button", class: "more", "aria-expanded": "false" }, "Show all");
    more.addEventListener("click", function () {
      var expand = td.dataset.expanded === "false";
      td.dataset.expanded = expand ? "true" : "false";
      more.setAttribute("aria-expanded", expand ? "true" : "false");
      more.textContent = expand ? "Show less" : "Show all";
      if (!expand) clamp.textContent = text.length > NOTE_PREVIEW ? text.slice(0, NOTE_PREVIEW) + "…" : text;
      else if (text.length > NOTE_LIMIT)
        clamp.textContent = text.slice(0, NOTE_LIMIT) + "… (" + (text.length - NOTE_LIMIT).toLocaleString("en-US") + " more characters: save records.csv to read them)";
      else clamp.textContent = text;
    });
    td.append(clamp, more);
    return td;
  }

  // ---- photos: their headers read, then decoded within a bound, near the screen

  var decoding = { pixels: 0, waiting: [] };
  /** Waits until `pixels` more pixels may be decoded (one photo alone may always be). */
  function acquirePixels(pixels) {
    pixels = Math.min(pixels, DECODE_PIXELS);
    return new Promise(function (resolve) {
      function attempt() {
        if (decoding.pixels === 0 || decoding.pixels + pixels <= DECODE_PIXELS) {
          decoding.pixels += pixels;
          resolve(function release() {
            decoding.pixels -= pixels;
            var waiting = decoding.waiting.splice(0);
            waiting.forEach(function (next) {
              next();
            });
          });
          return true;
        }
        return false;
      }
      if (!attempt()) decoding.waiting.push(function again() {
        if (!attempt()) decoding.waiting.push(again);
      });
    });
  }

  /**
   * What the page can do with a photo's bytes: { state: "decodable", info } or { state: "unsupported" |
   * "large", info, text }, the sentence for a person.
   */
  function judgePhoto(name, bytes) {
    var info;
    try {
      info = core.imageInfo(bytes);
    } catch (error) {
      info = { type: null, width: null, height: null }; // bytes no reader of headers makes sense of
    }
    var type = info.type || core.photoTypeFromName(name);
    if (info.type === null || info.width === null)
      return { state: "unsupported", info: info, text: type + ": this browser can't show a preview. Save keeps the original photo." };
    if (info.width * info.height > PREVIEW_PIXELS)
      return {
        state: "large",
        info: info,
        text: type + ", " + info.width.toLocaleString("en-US") + " × " + info.height.toLocaleString("en-US") +
          " pixels: too large to preview here. Save keeps the original photo.",
      };
    return { state: "decodable", info: info };
  }

  /**
   * The photo decoded at most `maxSide` pixels on its longer side, as an ImageBitmap, or null when this
   * browser cannot decode it. Its header was read: it is within PREVIEW_PIXELS.
   */
  async function decodePhoto(blob, info, maxSide) {
    if (typeof createImageBitmap !== "function") return null;
    var release = await acquirePixels(info.width * info.height);
    try {
      var scale = Math.min(1, maxSide / Math.max(info.width, info.height));
      // One side only, so that the other follows the photo's orientation (EXIF) and the aspect stays.
      var options = info.width >= info.height
        ? { resizeWidth: Math.max(1, Math.round(info.width * scale)), resizeQuality: "high" }
        : { resizeHeight: Math.max(1, Math.round(info.height * scale)), resizeQuality: "high" };
      try {
        return await createImageBitmap(blob, options);
      } catch (error) {
        // Some browsers decode a type in <img> that createImageBitmap refuses (Safari and HEIC).
        var url = URL.createObjectURL(blob);
        try {
          var image = new Image();
          image.src = url;
          await image.decode();
          return await createImageBitmap(image, options);
        } catch (error2) {
          return null;
        } finally {
          URL.revokeObjectURL(url);
        }
      }
    } finally {
      release();
    }
  }

  /** The photo as a Blob of the type its bytes are (a PNG named .HEIC is a PNG), else its name's. */
  function photoBlob(name, bytes, info) {
    var extension = name.split(".")[1].toLowerCase();
    return new Blob([bytes], { type: (info && SNIFFED_TYPES[info.type]) || PHOTO_TYPES[extension] || "application/octet-stream" });
  }

  function setTile(photo, state, text) {
    photo.state = state;
    photo.item.dataset.state = state;
    photo.note.textContent = text;
  }

  function observePhotos(current) {
    var byItem = new Map();
    current.photos.forEach(function (photo) {
      byItem.set(photo.item, photo);
    });
    var queue = [];
    var active = 0;
    function pump() {
      while (active < 2 && queue.length > 0 && !current.closed) {
        var photo = queue.shift();
        if (!photo.visible) {
          setTile(photo, "waiting", "Loading preview…");
          continue;
        }
        active++;
        load(photo).finally(function () {
          active--;
          pump();
        });
      }
    }
    async function load(photo) {
      setTile(photo, "loading", "Loading preview…");
      if (photo.size > PREVIEW_LIMIT) {
        setTile(photo, "large", core.photoTypeFromName(photo.name) + ", " + core.formatSize(photo.size) + ": too large to preview here. Save keeps the original photo.");
        return;
      }
      try {
        var bytes = await current.backup.read(photo.name);
        if (current.closed) return;
        var verdict = judgePhoto(photo.name, bytes);
        photo.verdict = verdict;
        if (verdict.state !== "decodable") {
          setTile(photo, verdict.state, verdict.text);
          return;
        }
        var original = photoBlob(photo.name, bytes, verdict.info);
        bytes = null;
        var shown = await thumbnail(original, verdict.info);
        if (current.closed) return;
        if (shown === null) {
          verdict = { state: "unsupported", info: verdict.info, text: verdict.info.type + ": this browser can't show a preview. Save keeps the original photo." };
          photo.verdict = verdict;
          setTile(photo, verdict.state, verdict.text);
          return;
        }
        photo.url = URL.createObjectURL(shown);
        photo.keptBytes = shown.size;
        photo.img.src = photo.url;
        try {
          await photo.img.decode();
        } catch (error) {}
        if (current.closed || photo.url === null) return;
        setTile(photo, "shown", "");
        current.kept.push(photo);
        trim();
      } catch (error) {
        if (current.closed) return;
        fail(error, "Could not show " + photo.name);
        if (!current.closed) setTile(photo, "error", "This photo could not be shown. Save keeps the original photo.");
      }
    }
    function trim() {
      var total = 0;
      current.kept.forEach(function (photo) {
        total += photo.keptBytes;
      });
      for (var i = 0; i < current.kept.length && (total > KEPT_BYTES || current.kept.length > KEPT_PHOTOS); ) {
        var photo = current.kept[i];
        if (photo.visible) {
          i++;
          continue;
        }
        photo.img.removeAttribute("src");
        URL.revokeObjectURL(photo.url);
        photo.url = null;
        setTile(photo, "waiting", "Loading preview…");
        total -= photo.keptBytes;
        current.kept.splice(i, 1);
      }
    }
    current.observer = new IntersectionObserver(
      function (changes) {
        changes.forEach(function (change) {
          var photo = byItem.get(change.target);
          photo.visible = change.isIntersecting;
          if (photo.visible && photo.state === "waiting") {
            photo.state = "queued";
            queue.push(photo);
          }
        });
        pump();
      },
      { rootMargin: "400px 0px" }
    );
    current.photos.forEach(function (photo) {
      current.observer.observe(photo.item);
    });
  }

  /** A JPEG of at most THUMBNAIL_SIZE pixels made from the photo `blob`, or null when it does not decode. */
  async function thumbnail(blob, info) {
    var bitmap = await decodePhoto(blob, info, THUMBNAIL_SIZE);
    if (bitmap === null) return null;
    try {
      var scale = Math.min(1, THUMBNAIL_SIZE / Math.max(bitmap.width, bitmap.height));
      var canvas = document.createElement("canvas");
      canvas.width = Math.max(1, Math.round(bitmap.width * scale));
      canvas.height = Math.max(1, Math.round(bitmap.height * scale));
      var context = canvas.getContext("2d");
      context.fillStyle = "#ffffff";
      context.fillRect(0, 0, canvas.width, canvas.height);
      context.drawImage(bitmap, 0, 0, canvas.width, canvas.height);
      return await new Promise(function (resolve) {
        canvas.toBlob(resolve, "image/jpeg", 0.88);
      });
    } catch (error) {
      return null;
    } finally {
      bitmap.close();
    }
  }

  // ---- the photo viewer: one photo at the window's size, decoded one at a time

  var viewerState = { index: -1, token: 0, loading: Promise.resolve() };
  var viewerTitle = byId("viewer-title");
  var viewerDate = byId("viewer-date");
  var viewerRecord = byId("viewer-record");
  var viewerPosition = byId("viewer-position");
  var viewerStage = byId("viewer-stage");
  var viewerCanvas = byId("viewer-image");
  var viewerMessage = byId("viewer-message");

  function openViewer(index) {
    if (!session || session.photos.length === 0) return;
    if (!viewer.open) {
      if (typeof viewer.showModal === "function") viewer.showModal();
      else viewer.setAttribute("open", "");
      byId("viewer-close").focus();
    }
    showInViewer(index);
  }

  function clearViewerImage() {
    viewerCanvas.hidden = true;
    viewerCanvas.width = 1;
    viewerCanvas.height = 1; // the decoded pixels go
  }

  /** Closes the viewer: its decoded photo goes; the focus goes back to the photo it showed last. */
  function closeViewer(returnFocus) {
    viewerState.token++;
    var index = viewerState.index;
    viewerState.index = -1;
    clearViewerImage();
    viewerStage.dataset.state = "empty";
    if (viewer.open) {
      if (typeof viewer.close === "function") viewer.close();
      else viewer.removeAttribute("open");
    }
    if (returnFocus && index >= 0 && session && session.photos[index]) {
      var frame = session.photos[index].frame;
      frame.focus();
      if (typeof frame.scrollIntoView === "function") frame.scrollIntoView({ block: "nearest" });
    }
  }

  async function showInViewer(index) {
    var current = session;
    var total = current.photos.length;
    index = ((index % total) + total) % total; // previous from the first is the last, and back
    var photo = current.photos[index];
    var token = ++viewerState.token;
    viewerState.index = index;
    viewerTitle.textContent = photo.name;
    viewerDate.textContent = photo.date ? "Record of " + photo.date : "";
    viewerRecord.textContent = photo.details || "";
    viewerPosition.textContent = (index + 1).toLocaleString("en-US") + " of " + total.toLocaleString("en-US");
    viewerCanvas.setAttribute("aria-label", photo.name);
    clearViewerImage();
    viewerStage.dataset.state = "loading";
    viewerMessage.textContent = "Loading " + photo.name + "…";
    var stillCurrent = function () {
      return token === viewerState.token && session === current && !current.closed;
    };
    // One photo at a time: this one is read only once the one before it is done, and not at all when
    // another was asked for meanwhile (arrows held down read one photo, the last).
    var before = viewerState.loading;
    var finished;
    viewerState.loading = new Promise(function (resolve) {
      finished = resolve;
    });
    try {
      await before;
      if (!stillCurrent()) return;
      await loadIntoViewer(current, photo, stillCurrent);
    } finally {
      finished();
    }
  }

  async function loadIntoViewer(current, photo, stillCurrent) {
    try {
      if (photo.size > PREVIEW_LIMIT) {
        viewerStage.dataset.state = "large";
        viewerMessage.textContent = core.photoTypeFromName(photo.name) + ", " + core.formatSize(photo.size) + ": too large to preview here. Save keeps the original photo.";
        return;
      }
      var bytes = await current.backup.read(photo.name);
      if (!stillCurrent()) return;
      var verdict = judgePhoto(photo.name, bytes);
      if (verdict.state !== "decodable") {
        viewerStage.dataset.state = verdict.state;
        viewerMessage.textContent = verdict.text;
        return;
      }
      var blob = photoBlob(photo.name, bytes, verdict.info);
      bytes = null;
      var ratio = window.devicePixelRatio || 1;
      var side = Math.ceil(Math.max(viewerStage.clientWidth, viewerStage.clientHeight, 320) * ratio);
      var bitmap = await decodePhoto(blob, verdict.info, side);
      if (!stillCurrent()) {
        if (bitmap) bitmap.close();
        return;
      }
      if (bitmap === null) {
        viewerStage.dataset.state = "unsupported";
        viewerMessage.textContent = verdict.info.type + ": this browser can't show a preview. Save keeps the original photo.";
        return;
      }
      viewerCanvas.width = bitmap.width;
      viewerCanvas.height = bitmap.height;
      viewerCanvas.getContext("2d").drawImage(bitmap, 0, 0);
      bitmap.close();
      viewerCanvas.hidden = false;
      viewerMessage.textContent = "";
      viewerStage.dataset.state = "shown";
    } catch (error) {
      if (!stillCurrent()) return;
      viewerStage.dataset.state = "error";
      viewerMessage.textContent = "This photo could not be shown. Save keeps the original photo.";
      var failure = core.asGoshuinError(error);
      if (failure.code !== "interrupted") {
        closeViewer(false);
        fail(failure, "Could not show " + photo.name);
      }
    }
  }

  byId("viewer-prev").addEventListener("click", function () {
    if (viewerState.index >= 0) showInViewer(viewerState.index - 1);
  });
  byId("viewer-next").addEventListener("click", function () {
    if (viewerState.index >= 0) showInViewer(viewerState.index + 1);
  });
  byId("viewer-save").addEventListener("click", function () {
    if (session && viewerState.index >= 0) saveOne(session.photos[viewerState.index].name);
  });
  byId("viewer-close").addEventListener("click", function () {
    closeViewer(true);
  });
  // Esc asks the dialog to cancel: the page closes it itself, at once, so that the focus it gives back is
  // not then taken by the browser's own return of the focus to where the dialog was opened from.
  viewer.addEventListener("cancel", function (event) {
    event.preventDefault();
    closeViewer(true);
  });
  // Any other close (the browser's own): the page tidies up and gives the focus back. The event comes as a
  // task of its own: by then the viewer may be open again, on another photo, and stays so.
  viewer.addEventListener("close", function () {
    if (!viewer.open && viewerState.index >= 0) closeViewer(true);
  });
  viewer.addEventListener("keydown", function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey || viewerState.index < 0) return;
    if (event.key === "ArrowLeft" || event.key === "ArrowRight") {
      event.preventDefault();
      showInViewer(viewerState.index + (event.key === "ArrowLeft" ? -1 : 1));
    } else if (event.key === "Escape" && !(typeof viewer.showModal === "function")) {
      closeViewer(true);
    }
  });

  /** A backup that fails a check after it was shown (its file changed on disk): nothing of it stays. */
  function fail(error, title) {
    var failure = core.asGoshuinError(error);
    if (failure.code === "interrupted") {
      showStopped("Stopped. Nothing was saved: the file that was being written was discarded.");
      return;
    }
    if (failure.code === "io" || failure.code === "no_space" || failure.code === "internal" || failure.code === "browser_limit") {
      showError(failure, null, title);
      return;
    }
    resetResult();
    document.body.dataset.state = "failed";
    showError(failure, null, "The backup no longer reads as it did");
  }

  // ---- saving

  function download(blob, name) {
    var url = URL.createObjectURL(blob);
    var link = element("a", { href: url, download: name });
    link.hidden = true;
    (viewer.open ? viewer : document.body).append(link);
    link.click();
    link.remove();
    // The download holds the data once it started; the URL goes after a minute, or when the page is reset.
    if (session) session.downloads.push(url);
    setTimeout(function () {
      URL.revokeObjectURL(url);
    }, 60000);
  }

  /** The saved folder's and ZIP's date (the backup's createdAt); "-salvaged" after what salvage restored. */
  function stamp() {
    var created = session.backup.createdAt;
    var date = created ? created.replace(/[-:]/g, "").replace("T", "-").replace("Z", "") : "";
    if (!session.salvaged) return date;
    return date ? date + "-salvaged" : "salvaged";
  }

  async function saveOne(name) {
    if (busy || !session) return;
    var current = session;
    clearError();
    var signal = startTask();
    setStatus("Preparing " + name + "…", undefined, true);
    try {
      // In pieces, so a large file is never one buffer; the download starts only after the last check.
      var parts = [];
      await current.backup.stream(
        name,
        function (piece) {
          parts.push(new Blob([piece]));
        },
        signal
      );
      if (current.closed) return;
      download(new Blob(parts, { type: name === core.RECORDS_NAME ? "text/csv" : "application/octet-stream" }), name);
      setStatus("Saved " + name + " (your browser's downloads).", null, true);
    } catch (error) {
      clearStatus();
      fail(error, "Could not save");
    } finally {
      endTask();
    }
  }

  function saveProgress(current) {
    var files = current.backup.files;
    var total = files.reduce(function (sum, file) { return sum + file.size; }, 0);
    var done = 0;
    function show(index, force) {
      setStatus(
        "Saving file " + (index + 1) + " of " + files.length + "… " + core.formatSize(done) + " of " + core.formatSize(total),
        total ? done / total : 1,
        force
      );
    }
    return {
      file: function (index) {
        show(index, true);
      },
      counter: function (index) {
        return function (count) {
          done += count;
          show(index, false);
        };
      },
    };
  }

  async function exists(folder, name) {
    try {
      await folder.getDirectoryHandle(name);
      return true;
    } catch (error) {
      if (error && error.name === "NotFoundError") return false;
      if (error && error.name === "TypeMismatchError") return true; // a file of that name
      throw error;
    }
  }

  async function saveToFolder() {
    if (busy || !session) return;
    var current = session;
    clearError();
    var parent;
    try {
      parent = await window.showDirectoryPicker({ mode: "readwrite", id: "goshuin-backup" });
    } catch (error) {
      if (error && error.name === "AbortError") return; // the person closed the picker
      showError(error, null, "Could not save");
      return;
    }
    await runSave(current, async function (signal, progress) {
      // A new folder inside the one picked, so nothing there is replaced: goshuin-backup-20261129-120000,
      // or -2, -3 … when that name is taken.
      var base = "goshuin-backup-" + stamp();
      var name = base;
      for (var n = 2; await exists(parent, name); n++) name = base + "-" + n;
      var folder = await parent.getDirectoryHandle(name, { create: true });
      var files = current.backup.files;
      for (var i = 0; i < files.length; i++) {
        progress.file(i);
        var handle = await folder.getFileHandle(files[i].name, { create: true });
        var writable = await handle.createWritable();
        try {
          await current.backup.stream(files[i].name, function (piece) {
            return writable.write(piece);
          }, signal, progress.counter(i));
          await writable.close();
        } catch (error) {
          await writable.abort().catch(function () {});
          throw error;
        }
      }
      return "Saved " + files.length + " files into the folder " + name + ".";
    });
  }

  async function saveAsZip() {
    if (busy || !session) return;
    var current = session;
    clearError();
    var name = "goshuin-backup-" + stamp() + ".zip";
    if (typeof window.showSaveFilePicker === "function") {
      // Where the browser can write a file as it goes, the ZIP streams into it: memory stays flat.
      var handle;
      try {
        handle = await window.showSaveFilePicker({
          suggestedName: name,
          id: "goshuin-backup",
          types: [{ description: "ZIP archive", accept: { "application/zip": [".zip"] } }],
        });
      } catch (error) {
        if (error && error.name === "AbortError") return; // the person closed the picker
        showError(error, null, "Could not save");
        return;
      }
      await runSave(current, async function (signal, progress) {
        var files = current.backup.files;
        var plan = core.zipPlan(files);
        var writable = await handle.createWritable();
        try {
          for (var i = 0; i < files.length; i++) {
            progress.file(i);
            await writable.write(plan.locals[i]);
            await current.backup.stream(files[i].name, function (piece) {
              return writable.write(piece);
            }, signal, progress.counter(i));
          }
          await writable.write(plan.tail);
          await writable.close();
        } catch (error) {
          await writable.abort().catch(function () {});
          throw error;
        }
        return "Saved " + files.length + " files as " + (handle.name || name) + ".";
      });
      return;
    }
    // Elsewhere the ZIP is a download built in memory, in parts of at most limits.zipPart bytes of data.
    await runSave(current, async function (signal, progress) {
      var files = current.backup.files.map(function (file, index) {
        return { name: file.name, size: file.size, crc32: file.crc32, modified: file.modified, index: index };
      });
      var groups = core.splitForZips(files, core.limits.zipPart);
      for (var g = 0; g < groups.length; g++) {
        var entries = [];
        for (var k = 0; k < groups[g].length; k++) {
          var file = groups[g][k];
          progress.file(file.index);
          var parts = [];
          await current.backup.stream(file.name, function (piece) {
            parts.push(new Blob([piece]));
          }, signal, progress.counter(file.index));
          entries.push({ name: file.name, data: new Blob(parts), crc32: file.crc32, modified: file.modified });
        }
        var zip = core.buildZip(entries);
        entries = null;
        try {
          // A browser that could not keep the data says so only when it is read.
          await zip.slice(Math.max(0, zip.size - 1)).arrayBuffer();
        } catch (error) {
          throw new core.GoshuinError("browser_limit", "a ZIP of " + core.formatSize(zip.size) + " could not be kept in memory (" + error.name + ")");
        }
        if (current.closed) return "";
        var partName = groups.length === 1 ? name : name.replace(/\.zip$/, "-part" + (g + 1) + "-of-" + groups.length + ".zip");
        download(zip, partName);
      }
      return groups.length === 1
        ? "Saved " + files.length + " files as a ZIP (your browser's downloads)."
        : "Saved " + files.length + " files as " + groups.length + " ZIPs (your browser's downloads): unpack them all into one folder.";
    });
  }

  /** Runs a save of everything with progress; `body(signal, progress)` returns the closing status. */
  async function runSave(current, body) {
    var signal = startTask();
    var progress = saveProgress(current);
    try {
      var done = await body(signal, progress);
      setStatus(done, null, true);
    } catch (error) {
      clearStatus();
      fail(error, "Could not save");
    } finally {
      endTask();
    }
  }

  // ---- what this browser can do

  (function checkSupport() {
    var missing = [];
    if (!(window.crypto && window.crypto.subtle)) missing.push("WebCrypto");
    try {
      new DecompressionStream("deflate-raw");
    } catch (error) {
      missing.push("DecompressionStream('deflate-raw')");
    }
    if (typeof IntersectionObserver !== "function") missing.push("IntersectionObserver");
    if (missing.length > 0) {
      showError(new core.GoshuinError("browser_unsupported", "missing: " + missing.join(", ")));
      openButton.disabled = true;
    }
  })();
})();
