// What the strict and the salvaged backup share (50-backup.mjs, 55-salvage-backup.mjs): their entries, each
// read again whenever it is shown or saved and checked again as it streams (its size, its CRC-32, and the
// SHA-256 it had when the backup was opened or salvaged). One way to read an entry, for both.

import { toHex } from "./00-bytes.mjs";
import { GoshuinError } from "./01-errors.mjs";
import { readEntryData } from "./22-entry-data.mjs";

/**
 * The entries of a payload (`container`: the strict reader, the salvaging one, or a payloadSource) by name
 * (`byName`: their ZIP records, each local header checked) with the SHA-256 each had when it was checked
 * (`digests`, hex); `checkedWhen` ends the sentence that says an entry no longer has it.
 */
export class CheckedEntries {
  constructor(container, byName, digests, checkedWhen) {
    this.container = container;
    this.header = container.header; // undefined for a payloadSource
    this.byName = byName;
    this.digests = digests;
    this.checkedWhen = checkedWhen;
  }

  /**
   * `files` ({ name, size }) as `goshuin-tool open --extract` writes them: each with its CRC-32 and its
   * modification time from the ZIP (seconds, UTC, or null).
   */
  describe(files) {
    var byName = this.byName;
    return files.map(function (file) {
      var entry = byName.get(file.name);
      return { name: file.name, size: file.size, crc32: entry.crc32, modified: entry.modified };
    });
  }

  /**
   * Streams the entry `name` to `sink` and checks it again (size, CRC-32, and the SHA-256 it had): the
   * sink sees bytes before the last check, so a caller keeps nothing until this returns.
   */
  async stream(name, sink, signal, onBytes) {
    var entry = this.byName.get(name);
    if (!entry) throw new GoshuinError("internal", "no entry " + name);
    var digest = toHex(await readEntryData(this.container, entry, sink, { signal: signal, onBytes: onBytes }));
    if (digest !== this.digests.get(name))
      throw new GoshuinError("manifest_mismatch", name + " no longer has the SHA-256 " + this.checkedWhen);
  }

  /** The entry's bytes, checked again. */
  async read(name, signal) {
    var entry = this.byName.get(name);
    var bytes = new Uint8Array(Number(entry.uncompressedSize));
    var filled = 0;
    await this.stream(name, function (piece) {
      bytes.set(piece, filled);
      filled += piece.length;
    }, signal);
    return bytes;
  }
}
