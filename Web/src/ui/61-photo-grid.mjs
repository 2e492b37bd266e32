// The photo grid's previews: a photo is read, checked and decoded to a small JPEG when its tile comes near
// the screen, two at a time, and released when far away once the grid holds too much.

import * as core from "../core/index.mjs";
import { PREVIEW_LIMIT } from "./01-page-state.mjs";
import { fail } from "./11-errors.mjs";
import { decodePhoto, judgePhoto, photoBlob } from "./60-photo-decoding.mjs";

var THUMBNAIL_SIZE = 480; // pixels, the longer side of a photo as the grid shows it
var KEPT_BYTES = 64 * 1048576; // what the grid's images may hold, beyond the ones near the screen
var KEPT_PHOTOS = 400;

function setTile(photo, state, text) {
  photo.state = state;
  photo.item.dataset.state = state;
  photo.note.textContent = text;
}

export function observePhotos(current) {
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
        // `data-near` lets only the tiles near the screen pulse (style.css, Spec/decisions/0067).
        if (photo.visible) photo.item.dataset.near = "";
        else delete photo.item.dataset.near;
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
