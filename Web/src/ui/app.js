// The page: the form, progress, errors, the records table, the photo grid and saving. Text from the backup
// reaches the DOM only through textContent and attributes, never as HTML. Photos are decrypted when they
// come near the screen and their blob URLs are revoked when far away, so memory stays flat.
(function () {
  "use strict";
  if (typeof document === "undefined") return; // the tests load this script in Node for GoshuinCore only

  var core = GoshuinCore;
  var PREVIEW_LIMIT = 64 * 1048576; // photos larger than this are not previewed (saving still works)
  var THUMBNAIL_SIZE = 480; // pixels, the longer side of a photo as the grid shows it
  var KEPT_BYTES = 64 * 1048576; // what the grid's images may hold, beyond the ones near the screen
  var KEPT_PHOTOS = 400;
  var TABLE_LIMIT = 50000; // records shown in the table (a backup's records.csv has far fewer)
  var PHOTO_TYPES = { jpg: "image/jpeg", jpeg: "image/jpeg", png: "image/png", heic: "image/heic", heif: "image/heif", webp: "image/webp" };

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

  var session = null; // the opened backup and what the page made from it
  var controller = null; // the AbortController of the running task
  var busy = false;

  function element(tag, attributes, text) {
    var node = document.createElement(tag);
    if (attributes) for (var key in attributes) node.setAttribute(key, attributes[key]);
    if (text !== undefined) node.textContent = text;
    return node;
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

  function showError(error, focus, title) {
    var failure = core.asGoshuinError(error);
    if (failure.code === "internal") console.error(error); // a bug of this page: keep its stack for the console
    alertBox.replaceChildren();
    var line = element("p");
    line.append(element("strong", null, (title || "Could not open the backup") + ": "), element("code", { class: "code" }, failure.code));
    if (failure.chunkIndex !== undefined) line.append(" (chunk " + failure.chunkIndex + ")");
    alertBox.append(line, element("p", null, core.advice(failure.code)));
    if (failure.detail) alertBox.append(element("p", { class: "detail" }, "Details: " + failure.detail));
    if (focus) focus.focus();
  }

  function showNote(text) {
    alertBox.replaceChildren(element("p", null, text));
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
    result.querySelectorAll(".save-action").forEach(function (button) {
      button.disabled = value;
    });
  }

  function startTask() {
    controller = new AbortController();
    setBusy(true);
    return controller.signal;
  }

  function endTask() {
    controller = null;
    setBusy(false);
  }

  cancelButton.addEventListener("click", function () {
    if (controller) controller.abort();
  });

  // ---- opening

  function resetResult() {
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
  };

  function onProgress(stage, done, total, header) {
    if (stage === "key") {
      if (header) {
        onProgress.rounds = header.iterations;
        setStatus("Checking the passphrase (" + header.iterations.toLocaleString("en-US") + " rounds of PBKDF2)…", 0, true);
      } else {
        var rounds = onProgress.rounds ? " (" + onProgress.rounds.toLocaleString("en-US") + " rounds of PBKDF2)" : "";
        setStatus("Checking the passphrase" + rounds + "… " + Math.round(done * 100) + "%", done, done >= 1);
      }
    } else if (stage === "probe") {
      setStatus("A part of the file does not authenticate; finding the first one that fails…", done / total);
    } else if (stage === "rest") {
      setStatus("Checking that the rest of the file is intact…", done / total);
    } else if (stage === "verify") {
      setStatus(
        "Checking every file in the backup against its list… " + core.formatSize(done) + " of " + core.formatSize(total),
        total ? done / total : 1,
        done === 0 || done === total
      );
    } else {
      setStatus(STAGE_TEXT[stage] || "Working…", undefined, true);
    }
  }

  async function open() {
    if (busy) return;
    resetResult();
    clearError();
    document.body.dataset.state = "opening";
    var file = fileInput.files && fileInput.files[0];
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
    var secret = core.utf8Bytes(passphrase.value);
    var failedCode = null;
    setStatus("Checking the file's structure…", undefined, true);
    try {
      var backup = await core.openBackup(core.blobSource(file), secret, { signal: signal, onProgress: onProgress });
      secret.fill(0);
      setStatus("Showing the records and photos…", undefined, true);
      var recordsBytes = backup.records.size <= PREVIEW_LIMIT ? await backup.read(core.RECORDS_NAME, signal) : null;
      if (signal.aborted) throw new core.GoshuinError("interrupted", "stopped");
      showBackup(backup, recordsBytes);
      passphrase.value = "";
      clearStatus();
      document.body.dataset.state = "opened";
      byId("result-heading").focus();
    } catch (error) {
      secret.fill(0);
      resetResult();
      clearStatus();
      document.body.dataset.state = "failed";
      showError(error);
      failedCode = core.asGoshuinError(error).code;
    } finally {
      endTask();
    }
    if (failedCode === "auth_failed") {
      passphrase.focus(); // to type it again at once
      passphrase.select();
    } else if (failedCode === "interrupted") {
      openButton.focus();
    } else if (failedCode !== null) {
      fileInput.focus(); // most likely, another file is needed
    }
  }

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    open();
  });

  // A file dropped anywhere on the page is taken as the backup (and the browser does not navigate to it).
  document.addEventListener("dragover", function (event) {
    event.preventDefault();
  });
  document.addEventListener("drop", function (event) {
    event.preventDefault();
    if (busy || !event.dataTransfer || event.dataTransfer.files.length === 0) return;
    fileInput.files = event.dataTransfer.files;
    passphrase.focus();
  });

  // ---- showing a backup

  function backupTitle(createdAt) {
    return createdAt.slice(0, 10) + " " + createdAt.slice(11, 16) + " UTC";
  }

  function showBackup(backup, recordsBytes) {
    session = { backup: backup, photos: [], downloads: [], observer: null, closed: false, kept: [] };
    var rows = recordsBytes ? core.parseCsv(new TextDecoder("utf-8").decode(recordsBytes)) : null;
    var recordCount = rows ? Math.max(0, rows.length - 1) : null;
    var shownRows = rows ? Math.min(rows.length, TABLE_LIMIT + 1) : 0;

    var heading = element("h2", { id: "result-heading", tabindex: "-1" }, "Backup of " + backupTitle(backup.createdAt));
    var summary = element(
      "p",
      { class: "summary" },
      (recordCount === null ? "" : recordCount + (recordCount === 1 ? " record, " : " records, ")) +
        backup.photos.length + (backup.photos.length === 1 ? " photo" : " photos") + ", " +
        core.formatSize(backup.files.reduce(function (sum, f) { return sum + f.size; }, 0)) +
        " in all. Every file was checked against the backup's list of contents."
    );
    var buttons = element("div", { class: "buttons" });
    if (typeof window.showDirectoryPicker === "function") {
      var folderButton = element("button", { type: "button", id: "save-folder", class: "save-action" }, "Save everything to a folder…");
      folderButton.addEventListener("click", saveToFolder);
      buttons.append(folderButton);
    }
    var zipButton = element("button", { type: "button", id: "save-zip", class: "save-action" }, "Download everything as a ZIP");
    zipButton.addEventListener("click", saveAsZip);
    var recordsButton = element("button", { type: "button", id: "save-records", class: "save-action" }, "Save records.csv");
    recordsButton.addEventListener("click", function () {
      saveOne(core.RECORDS_NAME);
    });
    buttons.append(zipButton, recordsButton);

    var recordsHeading = element("h3", { id: "records-heading" }, "Records");
    var scroll = element("div", { class: "table-scroll", tabindex: "0", role: "region", "aria-labelledby": "records-heading" });
    var table = element("table", { id: "records" });
    var thead = element("thead");
    var tbody = element("tbody");
    table.append(thead, tbody);
    if (rows && rows.length > 0) {
      var headerRow = element("tr");
      rows[0].forEach(function (cell) {
        headerRow.append(element("th", { scope: "col" }, cell));
      });
      thead.append(headerRow);
      var fragment = document.createDocumentFragment();
      for (var r = 1; r < shownRows; r++) {
        var tr = element("tr");
        for (var c = 0; c < Math.max(rows[r].length, rows[0].length); c++) tr.append(element("td", null, rows[r][c] === undefined ? "" : rows[r][c]));
        fragment.append(tr);
      }
      tbody.append(fragment);
    }
    scroll.append(table);
    var recordsNote =
      rows === null
        ? element("p", { class: "empty" }, "records.csv is too large to show here; save it to open it in a spreadsheet.")
        : shownRows < rows.length
          ? element("p", { class: "empty" }, "The first " + TABLE_LIMIT.toLocaleString("en-US") + " records are shown; save records.csv for all of them.")
          : null;

    var photosHeading = element("h3", { id: "photos-heading" }, "Photos");
    var list = element("ul", { id: "photos", "aria-labelledby": "photos-heading" });
    backup.photos.forEach(function (photo) {
      var item = element("li");
      var figure = element("figure");
      var frame = element("div", { class: "frame" });
      var img = element("img", { alt: photo.name, decoding: "async" });
      frame.append(img);
      var caption = element("figcaption");
      var save = element("button", { type: "button", class: "save-action", "aria-label": "Save " + photo.name }, "Save");
      save.addEventListener("click", function () {
        saveOne(photo.name);
      });
      caption.append(element("span", null, photo.name), save);
      figure.append(frame, caption);
      item.append(figure);
      list.append(item);
      session.photos.push({ name: photo.name, size: photo.size, item: item, img: img, url: null, state: "idle", visible: false });
    });

    result.append(heading, summary, buttons, recordsHeading);
    if (recordsNote) result.append(recordsNote);
    result.append(scroll, photosHeading);
    if (backup.photos.length === 0) result.append(element("p", { class: "empty" }, "This backup has no photos."));
    result.append(list);
    result.hidden = false;
    observePhotos(session);
  }

  // ---- photos, decrypted near the screen

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
          photo.state = "idle";
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
      photo.state = "loading";
      if (photo.size > PREVIEW_LIMIT) {
        photo.state = "large";
        return;
      }
      try {
        var bytes = await current.backup.read(photo.name);
        if (current.closed) return;
        var extension = photo.name.split(".")[1].toLowerCase();
        var original = new Blob([bytes], { type: PHOTO_TYPES[extension] || "application/octet-stream" });
        bytes = null;
        // The grid shows a small copy, so what it holds does not grow with the photos' size; a photo this
        // browser cannot decode here is given as it is (Safari shows HEIC), or shows its name.
        var shown = (await thumbnail(original)) || original;
        if (current.closed) return;
        photo.url = URL.createObjectURL(shown);
        photo.keptBytes = shown.size;
        photo.img.src = photo.url;
        photo.state = "shown";
        current.kept.push(photo);
        trim();
      } catch (error) {
        if (current.closed) return;
        fail(error, "Could not show " + photo.name);
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
        photo.state = "idle";
        total -= photo.keptBytes;
        current.kept.splice(i, 1);
      }
    }
    current.observer = new IntersectionObserver(
      function (changes) {
        changes.forEach(function (change) {
          var photo = byItem.get(change.target);
          photo.visible = change.isIntersecting;
          if (photo.visible && photo.state === "idle") {
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
  async function thumbnail(blob) {
    if (typeof createImageBitmap !== "function") return null;
    var bitmap;
    try {
      bitmap = await createImageBitmap(blob);
    } catch (error) {
      return null;
    }
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

  /** A backup that fails a check after it was shown (its file changed on disk): nothing of it stays. */
  function fail(error, title) {
    var failure = core.asGoshuinError(error);
    if (failure.code === "interrupted") {
      showNote("Stopped. The file that was being written was discarded.");
      return;
    }
    if (failure.code === "io" || failure.code === "no_space" || failure.code === "internal") {
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
    document.body.append(link);
    link.click();
    link.remove();
    // The download holds the data once it started; the URL goes after a minute, or when the page is reset.
    if (session) session.downloads.push(url);
    setTimeout(function () {
      URL.revokeObjectURL(url);
    }, 60000);
  }

  function stamp() {
    return session.backup.createdAt.replace(/[-:]/g, "").replace("T", "-").replace("Z", "");
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
        return { name: file.name, size: file.size, crc32: file.crc32, index: index };
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
          entries.push({ name: file.name, data: new Blob(parts), crc32: file.crc32 });
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
