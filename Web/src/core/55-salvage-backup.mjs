// Salvage of a damaged or cut backup, entry by entry (Spec/backup-v1.md §4.2), over a SalvageContainer
// (12-salvage-container.mjs): every entry whose bytes are all intact and that passes every check it can still
// be given is restored, every other one it knows of is named lost with its reason. Directory mode when the
// end records, the central directory and manifest.json are intact and pass steps 1–4 of §4.1; otherwise walk
// mode (56-salvage-walk.mjs), the local headers walked from offset 0 through intact bytes only. Names are
// those of §3 (walk mode: records.csv or a photo name), so nothing restored can name a place outside the
// destination.
//
// Also `describeDamage`: the entries whose spans the damaged chunks touch, for the error of a strict reader
// (§4.2, "A reader that refuses a damaged backup SHOULD…"), whose verdict it never changes.

import { toHex } from "./00-bytes.mjs";
import { GoshuinError, PAYLOAD_FAULTS } from "./01-errors.mjs";
import { interrupted } from "./08-pacing.mjs";
import { salvageContainer, SalvageContainer } from "./12-salvage-container.mjs";
import { chunkRunsIn } from "./13-chunk-runs.mjs";
import {
  checkLocalHeader, inFileOrder, MANIFEST_NAME, RECORDS_NAME, scanCentralDirectory, zipMalformed,
} from "./20-zip.mjs";
import { readEntryData } from "./22-entry-data.mjs";
import { createWorkerPool } from "./27-worker-pool.mjs";
import { checkBinding, checkListedDigest, listedFiles } from "./40-manifest.mjs";
import { CheckedEntries } from "./45-checked-entries.mjs";
import { readManifest } from "./50-backup.mjs";
import { entryRunTask, entryRuns } from "./51-verify-entries.mjs";
import { salvageByWalk } from "./56-salvage-walk.mjs";

/** Runs of damaged chunks a salvage report keeps (a file damaged every other chunk has millions). */
export var SALVAGE_RUNS_KEPT = 1000;

/** A fault that sends salvage from directory mode to walk mode, or makes one entry lost. */
export function isSalvageFault(error) {
  return error instanceof GoshuinError && (error.code === "not_intact" || PAYLOAD_FAULTS.indexOf(error.code) >= 0);
}

/**
 * Steps 1–4 of §4.1 on intact bytes only: { directory, manifest }, or null when one of those bytes is not
 * intact, the payload's end is unknown, or a check fails (walk mode, then).
 */
async function salvageDirectory(container, signal) {
  if (container.size === null) return null;
  try {
    var directory = await scanCentralDirectory(container); // 1, 2
    var manifest = await readManifest(container, directory, signal); // 3
    checkBinding(manifest, directory.entries); // 4
    return { directory: directory, manifest: manifest };
  } catch (error) {
    if (isSalvageFault(error)) return null;
    throw error;
  }
}

/** Each entry's span in directory mode: from its local header to the next one's (the last: the central directory). */
function entrySpans(directory) {
  var ordered = inFileOrder(directory.entries);
  return ordered.map(function (entry, i) {
    var end = i + 1 < ordered.length ? ordered[i + 1].localHeaderOffset : BigInt(directory.directoryOffset);
    return { entry: entry, start: entry.localHeaderOffset, end: end };
  });
}

export function lostEntry(container, name, reason, start, end) {
  var lost = { name: name, reason: reason };
  if (reason === "damaged" || reason === "missing") lost.chunks = container.lostChunksOf(start, end, reason);
  return lost;
}

/** The code an entry's failed check gives; bytes past its span that are not intact are its own fault. */
export function entryFaultCode(error) {
  return error.code === "not_intact" ? "zip_malformed" : error.code;
}

/**
 * Directory mode: the central directory's entries in file order, each lost when a byte of its span is not
 * intact (its state is the reason) or when a check of step 5 fails on it (its code), else restored. With
 * `options.pool`, every entry whose span is intact is first checked by the workers (checkInWorkers); an entry
 * they could not pass is checked here again, so that its reason is the one this thread gives.
 */
async function salvageByDirectory(container, found, options) {
  var listed = listedFiles(found.manifest);
  var directoryOffset = found.directory.directoryOffset;
  var spans = entrySpans(found.directory);
  var passed = options.pool ? await checkInWorkers(container, spans, directoryOffset, options) : null;
  var restored = [];
  var lost = [];
  for (var i = 0; i < spans.length; i++) {
    var span = spans[i];
    var entry = span.entry;
    if (options.onEntry && !passed) options.onEntry(i, spans.length);
    if (entry.name === MANIFEST_NAME) continue; // it lists what the backup held: neither restored nor written
    var state = container.stateOf(span.start, span.end);
    if (state === "damaged" || state === "missing") {
      lost.push(lostEntry(container, entry.name, state, span.start, span.end));
      continue;
    }
    var checked = passed ? passed.get(entry) : undefined;
    try {
      if (span.end < span.start) throw zipMalformed(entry.name + "'s local header is outside the archive's entries");
      if (checked) entry.dataOffset = checked.dataOffset;
      else await checkLocalHeader(container, entry, directoryOffset);
      if (BigInt(entry.dataOffset) + entry.compressedSize !== span.end)
        throw zipMalformed(entry.name + "'s data does not end where the next entry starts");
      var digest = checked ? checked.digest : toHex(await readEntryData(container, entry, null, { signal: options.signal }));
      checkListedDigest(listed, entry.name, digest);
      restored.push({ name: entry.name, sha256: digest, entry: entry });
    } catch (error) {
      if (!isSalvageFault(error)) throw error;
      lost.push(lostEntry(container, entry.name, entryFaultCode(error), span.start, span.end));
    }
  }
  if (options.onEntry && passed && spans.length > 0) options.onEntry(spans.length - 1, spans.length);
  return { restored: restored, lost: lost };
}

/**
 * Whether a salvage's entries can be checked by the page's workers: a Blob's whole version 1 file, which a
 * worker's ContainerReader reads as the salvage does (as 71-sealing-runs.mjs's sealsInWorkers says).
 */
function checksInWorkers(container) {
  return container.source.blob !== undefined && container.header.version === 1 && container.presentCount === container.header.chunkCount;
}

/**
 * Step 5 for every entry whose span is intact, by the workers ("verify-entries", as an opening's: local
 * header, size, CRC-32 and SHA-256, every chunk read authenticated). Returns a Map: entry → { dataOffset,
 * digest } for each entry that passed; an entry that failed, and the rest of its run, are not in it. A chunk
 * that no longer authenticates only leaves its entries to this thread, whose reads judge them.
 */
async function checkInWorkers(container, spans, directoryOffset, options) {
  var pool = options.pool;
  var intact = spans
    .filter(function (span) {
      return span.entry.name !== MANIFEST_NAME && span.end >= span.start && container.stateOf(span.start, span.end) === "intact";
    })
    .map(function (span) {
      return span.entry;
    });
  var passed = new Map();
  var done = 0;
  await Promise.all(
    entryRuns(intact, pool.size).map(function (run) {
      return pool.run(entryRunTask(container, pool, run, directoryOffset, options.signal)).then(function (outcome) {
        outcome.entries.forEach(function (checked, i) {
          passed.set(run[i], checked);
        });
        done += run.length;
        // As this thread's: the index of the entry under way (the page says "done + 1 of total").
        if (options.onEntry) options.onEntry(Math.min(done, intact.length - 1), intact.length);
      });
    })
  );
  if (options.signal && options.signal.aborted) throw interrupted();
  return passed;
}

/**
 * §4.2 on a salvaged container: directory mode when it can, else walk mode. Returns a SalvagedBackup.
 * `options.onProgress(stage, done, total)`: "salvage-directory", then "salvage-entries"; `options.pool`, a
 * pool of the page's workers to use (else one is made when checksInWorkers).
 */
export async function salvageEntries(container, options) {
  options = options || {};
  var progress = options.onProgress || function () {};
  progress("salvage-directory", 0, 1);
  var found = await salvageDirectory(container, options.signal);
  var result;
  if (found) {
    var pool = checksInWorkers(container) ? options.pool || createWorkerPool({ signal: options.signal }) : null;
    try {
      result = await salvageByDirectory(container, found, {
        signal: options.signal,
        pool: pool,
        onEntry: function (index, total) {
          progress("salvage-entries", index, total);
        },
      });
    } finally {
      if (pool && pool !== options.pool) pool.close();
    }
  } else {
    result = await salvageByWalk(container, {
      signal: options.signal,
      onEntry: function (position, total) {
        progress("salvage-walk", position, total);
      },
    });
  }
  return new SalvagedBackup(container, found, result);
}

/**
 * §7.4 and §4.2 on `source`: the container salvaged, then its entries; a Blob's by the page's workers (its
 * chunks, and its entries when salvageEntries can).
 */
export async function salvageBackup(source, passphraseBytes, options) {
  options = options || {};
  var pool = source.blob !== undefined ? createWorkerPool({ signal: options.signal }) : null;
  try {
    var inPool = Object.assign({}, options, { pool: pool, rest: pool ? chunkRunsIn(pool) : null });
    var container = await salvageContainer(source, passphraseBytes, inPool);
    return await salvageEntries(container, inPool);
  } finally {
    if (pool) pool.close();
  }
}

function byteOrder(a, b) {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0; // names are ASCII: code units are bytes
}

/**
 * What salvage restored, read as a verified Backup is (`files`, `records`, `photos`, and `stream`, `read` as
 * 45-checked-entries.mjs reads them), and what it says (`salvage`): the mode, each entry restored and lost,
 * whether the manifest is lost, the lost chunks, the bytes ignored after the end.
 */
class SalvagedBackup extends CheckedEntries {
  constructor(container, found, result) {
    var byName = new Map();
    var digests = new Map();
    result.restored.forEach(function (item) {
      byName.set(item.name, item.entry);
      digests.set(item.name, item.sha256);
    });
    super(container, byName, digests, "it had when the backup was salvaged");
    this.createdAt = found ? found.manifest.createdAt : null;
    var size = function (name) {
      return Number(byName.get(name).uncompressedSize);
    };
    this.records = byName.has(RECORDS_NAME) ? { name: RECORDS_NAME, size: size(RECORDS_NAME) } : null;
    this.photos = result.restored
      .filter(function (item) {
        return item.name !== RECORDS_NAME && item.name !== MANIFEST_NAME;
      })
      .map(function (item) {
        return { name: item.name, size: size(item.name) };
      })
      .sort(byteOrder);
    var named = [];
    if (byName.has(MANIFEST_NAME)) named.push({ name: MANIFEST_NAME, size: size(MANIFEST_NAME) });
    if (this.records) named.push(this.records);
    this.files = this.describe(named.concat(this.photos));
    this.salvage = {
      mode: found ? "directory" : "walk",
      restored: result.restored.map(function (item) {
        return { name: item.name, sha256: item.sha256 };
      }),
      lost: result.lost,
      manifestLost: !found,
      lostRuns: container.lostRuns(SALVAGE_RUNS_KEPT), // the damaged ones: the first SALVAGE_RUNS_KEPT runs
      damagedChunks: container.damagedCount,
      trailingBytes: container.trailingBytes,
      complete: container.complete && result.lost.length === 0 && !!found,
    };
  }

  /**
   * Each lost chunk, ascending: [{ index, state }] (the corpus's `lostChunks`). A cut file's header may
   * claim 2^32 chunks: past a million this throws rather than list them (`salvage.lostRuns` says it in runs).
   */
  lostChunkList() {
    var total = this.container.lostCount;
    if (total > 1000000) throw new GoshuinError("internal", total + " lost chunks: too many to list one by one");
    return this.container.lostChunks();
  }
}

/**
 * For the error of a strict reader that found a damaged chunk (its key known, so the passphrase right):
 * every chunk authenticated, and, when the end records, the central directory and the manifest are intact
 * and pass steps 1–4, the entries whose spans each run of damaged chunks touches, each as "whole", "start",
 * "end" or "part". Returns { runs: [{ first, last, state, entries: [{ name, part }] }], named } or null.
 */
export async function describeDamage(reader, signal, onProgress) {
  var container = new SalvageContainer(reader.source, reader.header, reader.key);
  var pool = reader.source.blob !== undefined ? createWorkerPool({ signal: signal }) : null;
  try {
    // The chunks the strict reader authenticated are intact here too: the same key, header and records.
    await container.authenticateAll(signal, onProgress, { rest: pool ? chunkRunsIn(pool) : null, known: reader.isAuthenticated.bind(reader) });
  } catch (error) {
    if (error instanceof GoshuinError && error.code === "auth_failed") return null;
    throw error;
  } finally {
    if (pool) pool.close();
  }
  var found = await salvageDirectory(container, signal);
  var chunkSize = BigInt(container.header.chunkSize);
  var spans = found ? entrySpans(found.directory) : [];
  var runs = container.lostRuns().map(function (run) {
    var start = BigInt(run.first) * chunkSize;
    var end = run.last === null ? null : (BigInt(run.last) + 1n) * chunkSize;
    var entries = [];
    spans.forEach(function (span) {
      if (span.end <= span.start || span.end <= start || (end !== null && span.start >= end)) return;
      var before = span.start < start;
      var after = end === null ? false : span.end > end;
      entries.push({ name: span.entry.name, part: before && after ? "part" : before ? "end" : after ? "start" : "whole" });
    });
    return { first: run.first, last: run.last, state: run.state, entries: entries };
  });
  var damage = { runs: runs, named: !!found };
  // The container, every present chunk authenticated: a salvage of the same file with the same key asked for
  // next (Show what is intact) goes on from it (salvageEntries) instead of authenticating them all again.
  Object.defineProperty(damage, "container", { value: container });
  return damage;
}
