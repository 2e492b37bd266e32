// The photo names a records.csv mentions (Spec/backup-v1.md §4.2, walk mode), so that a salvage whose
// manifest is lost still names the photos it did not find. records.csv's content is the app's business:
// every run of bytes between two separators (space, tab, CR, LF, '"', ',', ';', '|', or the ends) that is a
// valid photo name (§3.2) is a mention, after a leading UTF-8 byte-order mark. The Swift reader does the same.

import { foldCase, isSafeEntryName } from "./20-zip.mjs";
import { isValidPhotoName } from "./40-manifest.mjs";

/** The most of records.csv read for mentions, and the most names kept (as many photos as a backup holds). */
export var MENTIONS_MAX_BYTES = 64 * 1048576;
var MENTIONS_MAX_NAMES = 49998;

function isMentionSeparator(byte) {
  return byte === 0x20 || byte === 0x09 || byte === 0x0d || byte === 0x0a || byte === 0x22 || byte === 0x2c || byte === 0x3b || byte === 0x7c;
}

/** The photo names `bytes` (records.csv) mentions, each once (case-folded), in the order of first mention. */
export function photoMentions(bytes) {
  var end = Math.min(bytes.length, MENTIONS_MAX_BYTES);
  var at = end >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  var names = [];
  var seen = new Set();
  while (at < end && names.length < MENTIONS_MAX_NAMES) {
    while (at < end && isMentionSeparator(bytes[at])) at++;
    var start = at;
    while (at < end && !isMentionSeparator(bytes[at])) at++;
    var length = at - start;
    if (length === 0 || length > 255) continue;
    var word = bytes.subarray(start, at);
    if (!isSafeEntryName(word)) continue; // ASCII name bytes only: a name is then its code units
    var name = String.fromCharCode.apply(null, word);
    var key = foldCase(name);
    if (!isValidPhotoName(name) || seen.has(key)) continue;
    seen.add(key);
    names.push(name);
  }
  return names;
}
