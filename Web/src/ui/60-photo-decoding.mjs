// A photo's bytes judged by their header (what it is, how many pixels), then decoded within a bound of
// pixels at once, for the grid and the viewer alike.

import * as core from "../core/index.mjs";

var PREVIEW_PIXELS = 64000000; // the largest photo decoded for a preview (a 48-megapixel phone photo is 49)
var DECODE_PIXELS = 64000000; // pixels being decoded at once, the grid and the viewer together

var PHOTO_TYPES = { jpg: "image/jpeg", jpeg: "image/jpeg", png: "image/png", heic: "image/heic", heif: "image/heif", webp: "image/webp" };
var SNIFFED_TYPES = { JPEG: "image/jpeg", PNG: "image/png", WebP: "image/webp", GIF: "image/gif", BMP: "image/bmp", HEIC: "image/heic", HEIF: "image/heif", AVIF: "image/avif" };

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
export function judgePhoto(name, bytes) {
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
export async function decodePhoto(blob, info, maxSide) {
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
export function photoBlob(name, bytes, info) {
  var extension = name.split(".")[1].toLowerCase();
  return new Blob([bytes], { type: (info && SNIFFED_TYPES[info.type]) || PHOTO_TYPES[extension] || "application/octet-stream" });
}
