// What a photo is and how large it is, from its first bytes, before any decoder sees it: a browser decodes
// an image at full size (4 bytes a pixel) whatever size it is shown at, so a 196 KB PNG of 20,000 × 20,000
// pixels costs 1.6 GB. The page previews only photos whose type and size it read here and found within
// its bound; the others get a tile that says so. Browsers pick the decoder by content, not by name, so the
// type is sniffed from the bytes (a PNG named .jpg is a PNG), the extension used only to name what was not
// recognised.

import { u16le, u32be, u32le, u64be } from "./00-bytes.mjs";

var IMAGE_TYPE_NAMES = { jpg: "JPEG", jpeg: "JPEG", png: "PNG", heic: "HEIC", heif: "HEIF", webp: "WebP" };

/** The type of a photo named `name` as people call it (IMG_0001.HEIC: "HEIC"), from its extension. */
export function photoTypeFromName(name) {
  var dot = name.lastIndexOf(".");
  var extension = dot < 0 ? "" : name.slice(dot + 1).toLowerCase();
  return IMAGE_TYPE_NAMES[extension] || extension.toUpperCase() || "This";
}

function u16be(bytes, at) {
  return (bytes[at] << 8) | bytes[at + 1];
}

function u24le(bytes, at) {
  return bytes[at] | (bytes[at + 1] << 8) | (bytes[at + 2] << 16);
}

function ascii(bytes, at, length) {
  var text = "";
  for (var i = 0; i < length && at + i < bytes.length; i++) text += String.fromCharCode(bytes[at + i]);
  return text;
}

/** JPEG: the first start-of-frame segment (SOF0–SOF15 but DHT, JPG, DAC), found by walking the segments. */
function jpegSize(bytes) {
  var at = 2;
  while (at + 4 <= bytes.length) {
    if (bytes[at] !== 0xff) return null;
    var marker = bytes[at + 1];
    if (marker === 0xff) {
      at++; // fill byte
      continue;
    }
    if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      at += 2; // no length
      continue;
    }
    if (marker === 0xd9 || marker === 0xda) return null; // the image ends or its data starts before a frame header
    var length = u16be(bytes, at + 2);
    if (length < 2) return null;
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      if (at + 9 > bytes.length) return null;
      return { width: u16be(bytes, at + 7), height: u16be(bytes, at + 5) };
    }
    at += 2 + length;
  }
  return null;
}

/**
 * GIF: the logical screen, grown to every frame's extent (some decoders make the canvas as large as the
 * largest frame, whatever the screen says).
 */
function gifSize(bytes) {
  if (bytes.length < 13) return null;
  var width = u16le(bytes, 6);
  var height = u16le(bytes, 8);
  var at = 13 + (bytes[10] & 0x80 ? 3 << ((bytes[10] & 7) + 1) : 0);
  function skipBlocks() {
    while (at < bytes.length && bytes[at] !== 0) at += bytes[at] + 1;
    at++;
  }
  while (at < bytes.length) {
    var kind = bytes[at];
    if (kind === 0x3b) break; // the trailer
    if (kind === 0x21) {
      at += 2;
      skipBlocks();
    } else if (kind === 0x2c) {
      if (at + 10 > bytes.length) return null;
      width = Math.max(width, u16le(bytes, at + 1) + u16le(bytes, at + 5));
      height = Math.max(height, u16le(bytes, at + 3) + u16le(bytes, at + 7));
      var flags = bytes[at + 9];
      at += 10 + (flags & 0x80 ? 3 << ((flags & 7) + 1) : 0) + 1; // local color table, LZW code size
      skipBlocks();
    } else {
      return null;
    }
  }
  return { width: width, height: height };
}

/** WebP: the first chunk after the RIFF header, VP8 (lossy), VP8L (lossless) or VP8X (extended). */
function webpSize(bytes) {
  var chunk = ascii(bytes, 12, 4);
  if (chunk === "VP8 " && bytes.length >= 30) {
    if (bytes[23] !== 0x9d || bytes[24] !== 0x01 || bytes[25] !== 0x2a) return null;
    return { width: u16le(bytes, 26) & 0x3fff, height: u16le(bytes, 28) & 0x3fff };
  }
  if (chunk === "VP8L" && bytes.length >= 25) {
    if (bytes[20] !== 0x2f) return null;
    var bits = u32le(bytes, 21);
    return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
  }
  if (chunk === "VP8X" && bytes.length >= 30) return { width: u24le(bytes, 24) + 1, height: u24le(bytes, 27) + 1 };
  return null;
}

/**
 * HEIF (HEIC, AVIF): the largest image spatial extent ("ispe") in meta/iprp/ipco. A HEIC from a phone is a
 * grid of tiles with an ispe each and one for the whole image; the largest is what a decoder makes.
 */
function heifSize(bytes) {
  var best = null;
  function boxes(start, end, visit) {
    var at = start;
    while (at + 8 <= end) {
      var size = u32be(bytes, at);
      var type = ascii(bytes, at + 4, 4);
      var header = 8;
      if (size === 1) {
        if (at + 16 > end) return;
        var large = Number(u64be(bytes, at + 8));
        size = large;
        header = 16;
      } else if (size === 0) {
        size = end - at;
      }
      if (size < header || at + size > end) size = end - at; // a cut box: read what is there
      visit(type, at + header, at + size);
      at += size;
    }
  }
  function container(start, end, depth) {
    if (depth > 4) return; // meta/iprp/ipco/ispe: boxes nested deeper are no image property of a photo
    boxes(start, end, function (type, from, to) {
      if (type === "meta") container(from + 4, to, depth + 1); // a full box: version and flags first
      else if (type === "iprp" || type === "ipco") container(from, to, depth + 1);
      else if (type === "ispe" && to - from >= 12) {
        var width = u32be(bytes, from + 4);
        var height = u32be(bytes, from + 8);
        if (best === null || width * height > best.width * best.height) best = { width: width, height: height };
      }
    });
  }
  container(0, bytes.length, 0);
  return best;
}

var HEIF_BRANDS = { heic: "HEIC", heix: "HEIC", heim: "HEIC", heis: "HEIC", hevc: "HEIC", hevx: "HEIC", hevm: "HEIC", hevs: "HEIC", mif1: "HEIF", msf1: "HEIF", avif: "AVIF", avis: "AVIF" };

/**
 * A photo's type and pixel size from its bytes: { type, width, height }, the size null when it could not be
 * read; the type null when the bytes are none of JPEG, PNG, WebP, GIF, BMP, HEIF (HEIC, AVIF).
 */
export function imageInfo(bytes) {
  var size = null;
  var type = null;
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) {
    type = "JPEG";
    size = jpegSize(bytes);
  } else if (bytes.length >= 8 && bytes[0] === 0x89 && ascii(bytes, 1, 7) === "PNG\r\n\x1a\n") {
    type = "PNG";
    if (bytes.length >= 24 && ascii(bytes, 12, 4) === "IHDR") size = { width: u32be(bytes, 16), height: u32be(bytes, 20) };
  } else if (bytes.length >= 12 && ascii(bytes, 0, 4) === "RIFF" && ascii(bytes, 8, 4) === "WEBP") {
    type = "WebP";
    size = webpSize(bytes);
  } else if (bytes.length >= 6 && (ascii(bytes, 0, 6) === "GIF87a" || ascii(bytes, 0, 6) === "GIF89a")) {
    type = "GIF";
    size = gifSize(bytes);
  } else if (bytes.length >= 2 && bytes[0] === 0x42 && bytes[1] === 0x4d) {
    type = "BMP";
    if (bytes.length >= 26) size = { width: Math.abs(u32le(bytes, 18) | 0), height: Math.abs(u32le(bytes, 22) | 0) };
  } else if (bytes.length >= 12 && ascii(bytes, 4, 4) === "ftyp") {
    // The major brand, then the compatible ones.
    var end = Math.min(bytes.length, u32be(bytes, 0));
    for (var at = 8; at + 4 <= end && type === null; at += at === 8 ? 8 : 4) type = HEIF_BRANDS[ascii(bytes, at, 4)] || null;
    if (type !== null) size = heifSize(bytes);
  }
  if (size !== null && !(size.width > 0 && size.height > 0)) size = null;
  return { type: type, width: size ? size.width : null, height: size ? size.height : null };
}
