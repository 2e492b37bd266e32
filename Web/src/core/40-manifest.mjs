// manifest.json (Spec/backup-v1.md §2, §3.2): exactly these keys at every level, photos sorted by name with
// valid names unique when case-folded; and its binding to the ZIP's entries.

import { utf8Bytes } from "./00-bytes.mjs";
import { GoshuinError } from "./01-errors.mjs";
import { foldCase, isSafeEntryName, MANIFEST_MAX_SIZE, MANIFEST_NAME, RECORDS_NAME } from "./20-zip.mjs";
import { jsonDigits, JsonSyntaxError, parseStrictJson } from "./30-json.mjs";

var PHOTO_EXTENSIONS = ["jpg", "jpeg", "png", "heic", "heif", "webp"];
var DEVICE_NAMES = ["con", "prn", "aux", "nul"];
for (var deviceNumber = 1; deviceNumber <= 9; deviceNumber++) DEVICE_NAMES.push("com" + deviceNumber, "lpt" + deviceNumber);

function manifestInvalid(detail) {
  return new GoshuinError("manifest_invalid", detail);
}

/**
 * §3.2: stem.ext, exactly one dot; the stem 1–100 of A–Z a–z 0–9 _ - starting with a letter or digit,
 * not a Windows device name in any case; the extension jpg, jpeg, png, heic, heif or webp, in any case
 * (IMG_0001.HEIC, as phones export): compared with ASCII letters folded.
 */
export function isValidPhotoName(name) {
  var bytes = utf8Bytes(name);
  if (!isSafeEntryName(bytes)) return false;
  var parts = name.split(".");
  if (parts.length !== 2) return false;
  var stem = parts[0];
  if (!/^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$/.test(stem)) return false;
  if (PHOTO_EXTENSIONS.indexOf(foldCase(parts[1])) < 0) return false;
  return DEVICE_NAMES.indexOf(foldCase(stem)) < 0;
}

function isTimestamp(text) {
  var match = /^([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})Z$/.exec(text);
  if (!match) return false;
  var year = +match[1], month = +match[2], day = +match[3];
  var leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  var days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
  return year >= 1970 && month >= 1 && month <= 12 && day >= 1 && day <= days[month - 1] && +match[4] < 24 && +match[5] < 60 && +match[6] < 60;
}

function manifestObject(node, keys, path) {
  if (!node || node.type !== "object") throw manifestInvalid(path + " is not an object");
  for (var key of node.members.keys())
    if (keys.indexOf(key) < 0) throw manifestInvalid(path + ' has the key "' + key + '", which a backup may not hold');
  for (var i = 0; i < keys.length; i++) if (!node.members.has(keys[i])) throw manifestInvalid(path + ' lacks "' + keys[i] + '"');
  return node.members;
}

function manifestFile(node, path) {
  var members = manifestObject(node, ["name", "size", "sha256"], path);
  var name = members.get("name");
  if (name.type !== "string") throw manifestInvalid(path + ".name is not a string");
  var size = jsonDigits(members.get("size"));
  if (size === null) throw manifestInvalid(path + ".size is not a whole number from 0 to 2^53 − 1 written with digits only");
  var digest = members.get("sha256");
  if (digest.type !== "string" || !/^[0-9a-f]{64}$/.test(digest.value)) throw manifestInvalid(path + ".sha256 is not 64 lower-case hex digits");
  return { name: name.value, size: size, sha256: digest.value };
}

/** Parses manifest.json's bytes strictly; throws manifest_invalid naming the first problem. */
export function parseManifest(bytes) {
  if (bytes.length > MANIFEST_MAX_SIZE) throw manifestInvalid("manifest.json is larger than 16 MiB");
  if (bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf)
    throw manifestInvalid("manifest.json starts with a byte-order mark");
  var document;
  try {
    document = parseStrictJson(bytes);
  } catch (error) {
    if (error instanceof JsonSyntaxError) throw manifestInvalid("manifest.json is not valid JSON: " + error.message);
    throw error;
  }
  var top = manifestObject(document, ["format", "version", "createdAt", "records", "photos"], "manifest");
  var format = top.get("format");
  if (format.type !== "string" || format.value !== "goshuin-backup") throw manifestInvalid('format is not "goshuin-backup"');
  if (jsonDigits(top.get("version")) !== 1) throw manifestInvalid("version is not 1 (written 1)");
  var createdAt = top.get("createdAt");
  if (createdAt.type !== "string") throw manifestInvalid("createdAt is not a string");
  var photoNodes = top.get("photos");
  if (photoNodes.type !== "array") throw manifestInvalid("photos is not an array");
  var records = manifestFile(top.get("records"), "records");
  var photos = photoNodes.elements.map(function (node, position) {
    return manifestFile(node, "photos[" + position + "]");
  });
  if (!isTimestamp(createdAt.value)) throw manifestInvalid('createdAt "' + createdAt.value + '" is not YYYY-MM-DDTHH:MM:SSZ');
  if (records.name !== RECORDS_NAME) throw manifestInvalid("records.name is not records.csv");
  var folded = new Set();
  for (var i = 0; i < photos.length; i++) {
    var name = photos[i].name;
    if (!isValidPhotoName(name)) throw manifestInvalid('photo name "' + name + '" is not allowed');
    if (folded.has(foldCase(name))) throw manifestInvalid('photo name "' + name + '" appears twice (names are compared case-folded)');
    folded.add(foldCase(name));
    if (i > 0 && !(photos[i - 1].name < name)) throw manifestInvalid('photos are not sorted by name at "' + name + '"');
  }
  return { createdAt: createdAt.value, records: records, photos: photos };
}

/** The files the manifest lists, records.csv and the photos, by name: each { name, size, sha256 }. */
export function listedFiles(manifest) {
  var listed = new Map();
  [manifest.records].concat(manifest.photos).forEach(function (file) {
    listed.set(file.name, file);
  });
  return listed;
}

/** The ZIP holds exactly manifest.json and the listed files, each with the listed size. */
export function checkBinding(manifest, entries) {
  var listed = listedFiles(manifest);
  var present = new Set();
  for (var i = 0; i < entries.length; i++) {
    var entry = entries[i];
    present.add(entry.name);
    if (entry.name === MANIFEST_NAME) continue;
    var file = listed.get(entry.name);
    if (!file) throw new GoshuinError("manifest_mismatch", entry.name + " is in the ZIP but not in the manifest");
    if (BigInt(file.size) !== entry.uncompressedSize)
      throw new GoshuinError("manifest_mismatch", entry.name + " declares " + entry.uncompressedSize + " bytes; the manifest says " + file.size);
  }
  for (var name of listed.keys())
    if (!present.has(name)) throw new GoshuinError("manifest_mismatch", name + " is in the manifest but not in the ZIP");
}

/** §4.1 step 5's last check: a file the manifest lists (`listedFiles`) has the SHA-256 it lists (hex). */
export function checkListedDigest(listed, name, digest) {
  var file = listed.get(name);
  if (file && file.sha256 !== digest) throw new GoshuinError("manifest_mismatch", name + " does not have the SHA-256 the manifest lists");
}
