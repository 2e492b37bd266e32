// Errors with the stable codes of Spec/container-v1.md §8, Spec/container-v2.md §12 and Spec/backup-v1.md, and for each code a
// sentence a person can act on. The page shows `code`, `advice(code)` and `detail`.

export class GoshuinError extends Error {
  constructor(code, detail, chunkIndex) {
    super(code + ": " + detail);
    this.name = "GoshuinError";
    this.code = code;
    this.detail = detail;
    if (chunkIndex !== undefined) this.chunkIndex = chunkIndex;
  }
}

var NOT_A_BACKUP =
  "This file is not a .goshuin backup this page can read, or its first bytes were damaged. " +
  "Check that you picked the backup itself (its name ends in .goshuin) and copy it again from where you keep it.";
var INSIDE_INVALID =
  "The passphrase is right and the file is intact, but what it holds is not a valid backup, so nothing " +
  "from it is shown. Keep the file and make a new backup from the app if you can.";

var ADVICE = {
  short_header: "This file is too short to be a .goshuin backup. Pick the backup itself, and if it is, copy it again: it was cut off.",
  bad_magic: "This is not a .goshuin backup. Pick the file whose name ends in .goshuin.",
  unsupported_version: "This backup uses a format version this page does not read. Get the newest goshuin-open.html.",
  iterations_out_of_range: NOT_A_BACKUP,
  chunk_size_out_of_range: NOT_A_BACKUP,
  empty_payload: NOT_A_BACKUP,
  too_many_chunks: NOT_A_BACKUP,
  truncated: "The file is shorter than it should be: it was cut short, probably while it was copied. Copy it again from where it was saved.",
  trailing_data: "The file is longer than its header says: something was added to its end. Copy it again from where you keep it.",
  chunk_length_invalid: "The file is damaged: a part of it has the wrong length. Copy it again from where you keep it.",
  auth_failed: "The passphrase is wrong, or the file's header was changed. Check the passphrase (capital letters, spaces, the keyboard layout) and try again.",
  chunk_damaged: "The passphrase is right, but a part of the file is damaged: it changed after the backup was made. Copy it again from where you keep it.",
  zip_malformed: INSIDE_INVALID,
  unsafe_entry_name: INSIDE_INVALID + " (A file inside has a name that is not allowed.)",
  duplicate_entry: INSIDE_INVALID + " (Two files inside have the same name.)",
  unsupported_entry: INSIDE_INVALID + " (A file inside is of a kind backups never hold.)",
  zip_limit_exceeded: INSIDE_INVALID + " (It goes beyond a backup's limits.)",
  entry_corrupt: INSIDE_INVALID + " (A file inside does not unpack to what it declares.)",
  manifest_invalid: INSIDE_INVALID + " (Its list of contents, manifest.json, is not valid.)",
  manifest_mismatch: INSIDE_INVALID + " (Its files do not match its list of contents.)",
  io: "The file could not be read: it may have been moved, renamed or changed while it was open. Pick it again.",
  no_space: "There is not enough free space where you are saving. Free some space or pick another place.",
  invalid_argument: "Pick a backup file and type its passphrase.",
  browser_limit: "This browser could not hold that much in memory. Save everything into a folder (Chrome, Edge), or save the photos one at a time.",
  browser_unsupported: "This browser lacks what the page needs (WebCrypto, DecompressionStream). Use a current Chrome, Edge, Firefox or Safari.",
  interrupted: "Stopped. Nothing was kept.",
  empty_passphrase: "The new passphrase is empty: a backup sealed with it would protect nothing. Type a new passphrase twice, or leave both fields empty to keep the one you typed to open the backup.",
  passphrase_mismatch: "The two new passphrases differ. Type the same new passphrase in both fields; nothing was saved.",
  internal: "Something unexpected went wrong in this page. Nothing from the backup is shown. Try again, or another browser.",
  recovery_set_not_found: "None of the files picked as recovery files is a PAR 2.0 recovery file. Pick the .par2 files made for this backup (the small one and the .vol files), from where you keep them.",
  recovery_set_invalid: "The recovery files could not be used: they hold no intact PAR 2.0 recovery set. Pick the .par2 files made for this backup, all of them (the small one and the .vol files), from where you keep them.",
  recovery_set_mismatch: "These recovery files were made for another file, not for this backup. Pick the .par2 files made for this backup: their names start with the backup's name.",
  not_repairable: "The backup is damaged more than its recovery files can repair. Pick every .par2 file of the backup (each .vol file holds more recovery data); if there are no more, Show what is intact.",
  repair_check_failed: "The recovery files could not rebuild the backup exactly as it was, so nothing was repaired. Try the .par2 files of another copy, or Show what is intact.",
};

/**
 * Every code the page gives, with its category: "container" (the .goshuin file is malformed or not authentic),
 * "backup" (the payload is not a backup the rules accept), "recovery" (PAR 2.0 recovery files: Spec/recovery-par2.md
 * §8), "usage", "system", and "page" for the page's own.
 * The Swift library declares the same codes in the same categories (a Swift test keeps the two in step).
 */
var CODE_CATEGORY = {
  short_header: "container", bad_magic: "container", unsupported_version: "container",
  iterations_out_of_range: "container", chunk_size_out_of_range: "container", empty_payload: "container",
  too_many_chunks: "container", truncated: "container", trailing_data: "container",
  chunk_length_invalid: "container", auth_failed: "container", chunk_damaged: "container",
  zip_malformed: "backup", unsafe_entry_name: "backup", duplicate_entry: "backup", unsupported_entry: "backup",
  zip_limit_exceeded: "backup", entry_corrupt: "backup", manifest_invalid: "backup", manifest_mismatch: "backup",
  invalid_argument: "usage", empty_passphrase: "usage",
  io: "system", no_space: "system", interrupted: "system",
  browser_limit: "page", browser_unsupported: "page", internal: "page", passphrase_mismatch: "page",
  recovery_set_not_found: "recovery", recovery_set_invalid: "recovery", recovery_set_mismatch: "recovery",
  not_repairable: "recovery", repair_check_failed: "recovery",
};

/** The faults of a backup's payload (Spec/backup-v1.md §4.1 step 0: reported only if every chunk authenticates). */
export var PAYLOAD_FAULTS = Object.keys(CODE_CATEGORY).filter(function (code) {
  return CODE_CATEGORY[code] === "backup";
});

export function advice(code) {
  return ADVICE[code] || ADVICE.internal;
}

/** The last record of a version 2 file failing: what a cut looks like as much as damage (container-v2.md §7.3). */
var ADVICE_END_DAMAGED =
  "The passphrase is right, but the end of the file is damaged or cut short (an interrupted copy or download?). " +
  "Copy it again from where you keep it.";

/** The advice for `error`: its code's, or for a version 2 file's failing last record, that it may be a cut. */
export function errorAdvice(error) {
  return error.code === "chunk_damaged" && error.atEnd ? ADVICE_END_DAMAGED : advice(error.code);
}

/** Any thrown value as a GoshuinError: file read failures are `io`, anything unexpected `internal`. */
export function asGoshuinError(error) {
  if (error instanceof GoshuinError) return error;
  var name = error && error.name;
  if (name === "NotReadableError" || name === "NotFoundError" || name === "SecurityError")
    return new GoshuinError("io", "the file could not be read (" + name + ")");
  if (name === "QuotaExceededError") return new GoshuinError("no_space", "the destination is full");
  if (name === "AbortError") return new GoshuinError("interrupted", "stopped");
  return new GoshuinError("internal", String((error && error.message) || error));
}
