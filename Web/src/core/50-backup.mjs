// Opening a backup: the container (checks 1–10), then the payload in the order of Spec/backup-v1.md §4.1:
// the ZIP's end records and central directory and the manifest from its last chunks, the binding of the
// manifest to the entries, then one streaming pass over every entry in file order (position in the tiling,
// local header, size, CRC-32, SHA-256), each chunk decrypted, used and dropped. Only a backup that passed
// all of it is returned; its entries are read again, and checked again, when they are shown or saved. A
// fault of the payload is reported only once every chunk authenticated (step 0), else the chunk's verdict.

import { GoshuinError, PAYLOAD_FAULTS } from "./01-errors.mjs";
import { kernels } from "./02-kernels.mjs";
import { openContainer } from "./10-container.mjs";
import { checkLocalHeader, MANIFEST_NAME, RECORDS_NAME, scanCentralDirectory } from "./20-zip.mjs";
import { readEntryData } from "./22-entry-data.mjs";
import { createWorkerPool } from "./27-worker-pool.mjs";
import { checkBinding, parseManifest } from "./40-manifest.mjs";
import { CheckedEntries } from "./45-checked-entries.mjs";
import { verifyEntries } from "./51-verify-entries.mjs";
import { describeDamage } from "./55-salvage-backup.mjs";

export async function openBackup(source, passphraseBytes, options) {
  options = options || {};
  // The workers start while the key is derived (they read the file themselves: a Blob's source only).
  var pool = source.blob !== undefined ? createWorkerPool() : null;
  try {
    var backup = await openBackupWith(pool, source, passphraseBytes, options);
    backup.checkedBy = pool ? await pool.describe() : "this thread, " + kernels().implementation;
    return backup;
  } finally {
    if (pool) pool.close();
  }
}

async function openBackupWith(pool, source, passphraseBytes, options) {
  var progress = options.onProgress || function () {};
  var container = await openContainer(source, passphraseBytes, {
    onKeyDerivation: function (header) {
      progress("key", 0, 1, header);
    },
    onKeyProgress: function (fraction) {
      progress("key", fraction, 1);
    },
    onProbe: function (index, failed) {
      progress("probe", index, failed);
    },
  });
  try {
    // The ZIP is read from its end: the final chunk first, which confirms the payload's length (v2 §9.1).
    await container.authenticateFinal();
    try {
      return await readBackup(container, Object.assign({}, options, { pool: pool }));
    } catch (error) {
      // §4.1 step 0: the payload is checked only in a file that opens, so a fault of the payload found
      // before every chunk authenticated is reported only once the rest authenticates.
      if (error instanceof GoshuinError && PAYLOAD_FAULTS.indexOf(error.code) >= 0)
        await container.authenticateRest(options.signal, function (index, count) {
          progress("rest", index, count);
        });
      throw error;
    }
  } catch (error) {
    // §4.2: a damaged backup's error names what the damage touches (every chunk authenticated, from an
    // intact central directory); the verdict stays the container's.
    if (options.describeDamage && error instanceof GoshuinError && error.code === "chunk_damaged") {
      // The opening's workers are done (a failed run closed them, or every run ended): stopped before the
      // damage check starts its own, so that one pool's run at a time.
      if (pool) pool.close();
      try {
        error.damage = await describeDamage(container, options.signal, function (index, count) {
          progress("survey", index, count);
        });
      } catch (surveyError) {
        if (surveyError instanceof GoshuinError && surveyError.code === "interrupted") throw surveyError;
        error.damage = null; // the verdict stands; what the damage touches is not said
      }
    }
    throw error;
  }
}

/**
 * Steps 1–6 of §4.1 on a decrypted payload (the container's reader, or `payloadSource` in the tests):
 * the first failure in that order is the one thrown, so that every reader of the spec gives one code.
 */
export async function readBackup(payload, options) {
  options = options || {};
  var progress = options.onProgress || function () {};
  progress("directory", 0, 1);
  var directory = await scanCentralDirectory(payload); // 1, 2
  var manifest = await readManifest(payload, directory, options.signal); // 3
  checkBinding(manifest, directory.entries); // 4
  var digests = await verifyEntries(payload, directory, manifest, { signal: options.signal, onProgress: progress, pool: options.pool }); // 5, 6
  return new Backup(payload, directory, manifest, digests);
}

/** Step 3: manifest.json present, its local header, its data (size, CRC-32), then the rules of §2. */
export async function readManifest(payload, directory, signal) {
  var manifestEntry = directory.entries.find(function (entry) {
    return entry.name === MANIFEST_NAME;
  });
  if (!manifestEntry) throw new GoshuinError("manifest_mismatch", "the backup has no manifest.json");
  await checkLocalHeader(payload, manifestEntry, directory.directoryOffset);
  var manifestBytes = new Uint8Array(Number(manifestEntry.uncompressedSize));
  var filled = 0;
  await readEntryData(payload, manifestEntry, function (bytes) {
    manifestBytes.set(bytes, filled);
    filled += bytes.length;
  }, { signal: signal });
  return parseManifest(manifestBytes);
}

/** An opened, verified backup: its entries are read (`stream`, `read`) as 45-checked-entries.mjs reads them. */
class Backup extends CheckedEntries {
  constructor(container, directory, manifest, digests) {
    var byName = new Map();
    directory.entries.forEach(function (entry) {
      byName.set(entry.name, entry);
    });
    super(container, byName, digests, "verified when the backup was opened");
    this.createdAt = manifest.createdAt;
    this.records = { name: RECORDS_NAME, size: manifest.records.size };
    this.photos = manifest.photos.map(function (file) {
      return { name: file.name, size: file.size };
    });
    /** Every entry: manifest.json, records.csv, the photos (`describe`). */
    this.files = this.describe(
      [{ name: MANIFEST_NAME, size: Number(byName.get(MANIFEST_NAME).uncompressedSize) }, this.records].concat(this.photos)
    );
  }
}
