// Verifying a backup against its PAR 2.0 recovery set and repairing it in memory. No passphrase: the
// slices' MD5s and CRC-32s locate the damage, the Reed-Solomon code of PAR 2.0 rebuilds it.
//
// 1. `readRecoverySet`: the picked files scanned (80-par2-packets.js), the set and the file in it that is
//    this backup.
// 2. `verifyWithRecovery`: one pass over the backup; each slice at its offset (slice i at i · sliceSize)
//    checked by its CRC-32 and MD5 (the last one padded with zeros), and the whole file's MD5 computed
//    up to the first slice that fails. A slice past the end of a cut file is missing; bytes past the length
//    the set gives (a file added to) are not the backup's. Then recovery slices by increasing exponent,
//    their packets' MD5s checked, until as many are intact as there are slices to rebuild.
// 3. `rebuildWithRecovery`: the unknowns are the damaged and missing slices, and the slices of any other
//    file the set protects (the page is given the backup only). Recovery slices are taken by increasing
//    exponent into a Gauss-Jordan elimination over GF(2^16) with pivoting; a slice whose row depends on
//    the rows taken (PAR 2.0's matrix is not always invertible) is passed over for the next one. From the
//    inverse, each slice to rebuild is a sum over the recovery slices taken and the intact slices of the
//    backup (rebuildPlan: by coefficients or by syndromes, one more pass over the backup either way; none
//    for one slice and the recovery slice of exponent 0, from the XOR the check kept). Each rebuilt slice
//    must match its MD5 and CRC-32; the repaired backup is a Blob of the original's intact runs and the
//    rebuilt slices (the file is not copied), accepted only when its whole MD5 is the file description's.
//
// Every step reports progress and stops between reads when asked (options.signal), like the rest of the
// core.

var RECOVERY_WINDOW = 8388608; // bytes read at a time from the backup and the recovery files
var RECOVERY_WORK_PER_READ = 33554432; // multiply-add bytes between two reads, so the page stays responsive
var VERIFY_PART = 65536; // the check's digests read each piece in parts this size, which stay in cache
var SLICE_INTACT = 0;
var SLICE_DAMAGED = 1;
var SLICE_MISSING = 2;

/** Pieces of `source` in [offset, end), each at most `pieceSize` bytes, the next one read while the caller works. */
async function* readPieces(source, offset, end, pieceSize, signal) {
  var read = function (at) {
    var promise = source.read(at, Math.min(pieceSize, end - at));
    promise.catch(function () {}); // a read the caller no longer waits for must not be an unhandled rejection
    return promise;
  };
  var next = offset < end ? read(offset) : null;
  while (next !== null) {
    var bytes = await next;
    if (signal && signal.aborted) throw new GoshuinError("interrupted", "stopped");
    var at = offset;
    offset += bytes.length;
    next = offset < end ? read(offset) : null;
    yield { offset: at, bytes: bytes };
  }
}

/** A piece size for a pass over slices: whole slices when they fit in a window, else windows. */
function slicePieceSize(sliceSize, window) {
  return sliceSize <= window ? Math.floor(window / sliceSize) * sliceSize : window;
}

/**
 * `visit(slice, within, bytes)` for the bytes of [0, end) of `source`, split where slices of `sliceSize`
 * bytes begin: `within` is the offset of `bytes` in its slice.
 */
async function forEachSlicePiece(source, sliceSize, end, pieceSize, signal, visit) {
  for await (var piece of readPieces(source, 0, end, pieceSize, signal)) {
    var bytes = piece.bytes;
    for (var at = 0; at < bytes.length; ) {
      var position = piece.offset + at;
      var slice = Math.floor(position / sliceSize);
      var within = position - slice * sliceSize;
      var take = Math.min(bytes.length - at, sliceSize - within);
      visit(slice, within, bytes.subarray(at, at + take));
      at += take;
    }
  }
}

function crc32Zeros(crc, count) {
  while (count > 0) {
    var take = Math.min(count, ZEROS.length);
    crc = crc32Update(crc, ZEROS.subarray(0, take));
    count -= take;
  }
  return crc;
}

/** Whether `md5` and `crc` are slice `index`'s in the checksums packet (MD5 16 bytes, CRC-32 u32le, per slice). */
function sliceMatches(checksums, index, digest, crc) {
  var at = 20 * index;
  return u32le(checksums, at + 16) === crc && bytesEqual(digest, checksums.subarray(at, at + 16));
}

/** Runs of slices that are not intact: [{ first, last, reason }], at most SALVAGE_RUNS_KEPT of them. */
function damagedRuns(status) {
  var runs = [];
  for (var i = 0; i < status.length && runs.length < SALVAGE_RUNS_KEPT; i++) {
    if (status[i] === SLICE_INTACT) continue;
    var reason = status[i] === SLICE_MISSING ? "missing" : "damaged";
    var last = i;
    while (last + 1 < status.length && status[last + 1] === status[i]) last++;
    runs.push({ first: i, last: last, reason: reason });
    i = last;
  }
  return runs;
}

/**
 * The recovery set of `backup` (a Blob or File) among `recoveryFiles` (Blobs or Files: the .par2 files
 * picked; any others are scanned and hold no packet). `options.onProgress("recovery-scan", done, total)`.
 * Throws recovery_set_not_found (no file picked holds a PAR 2.0 packet, intact or not), recovery_set_invalid
 * (no usable set) or recovery_set_mismatch (a set for another file).
 */
async function readRecoverySet(backup, recoveryFiles, options) {
  options = options || {};
  var progress = options.onProgress || function () {};
  var started = now();
  var backupSource = blobSource(backup);
  var sources = recoveryFiles.map(blobSource);
  var total = sources.reduce(function (sum, source) {
    return sum + source.size;
  }, 0);
  var scan = new RecoveryScan(total);
  var done = 0;
  progress("recovery-scan", 0, total);
  for (var i = 0; i < sources.length; i++) {
    await scanRecoveryFile(scan, sources[i], i, options.signal, function (count) {
      done += count;
      progress("recovery-scan", done, total);
    });
  }
  var first = await backupSource.read(0, Math.min(16384, backupSource.size));
  var target = recoveryTarget(scan, { size: backupSource.size, md5First16k: md5(first) });
  return { backup: backup, backupSource: backupSource, sources: sources, scan: scan, target: target, scanMs: now() - started };
}

/**
 * Every slice of the backup checked against the set, and as many recovery slices as a repair needs: the
 * check a repair starts from. Returns { recovery, status (a Uint8Array per slice: 0 intact, 1 damaged,
 * 2 missing), runs, damaged, missing, intact, intactFile, addedBytes, unknowns (slices to rebuild, other
 * files' included), recoverySlices (present), usable and damagedRecovery (of those checked), repairable,
 * … }. `options.onProgress(stage, done, total)`: "recovery-verify" (bytes), then "recovery-slices"
 * (recovery slices found intact, of those needed). Throws recovery_set_mismatch when no slice of the
 * backup matches a set matched by its length alone (and able to rebuild every slice) or by nothing.
 */
async function verifyWithRecovery(recovery, options) {
  options = options || {};
  var progress = options.onProgress || function () {};
  var started = now();
  var target = recovery.target;
  var size = recovery.backupSource.size;
  var length = target.description.length;
  var sliceSize = target.sliceSize;
  var end = Math.min(size, length);
  var status = new Uint8Array(target.sliceCount).fill(SLICE_MISSING);
  // The whole file's MD5 goes on while every slice so far matched; it stops at the start of the first that
  // does not, where the repair resumes it over the rebuilt slice.
  var fileDigest = new Md5();
  var digestStopped = false;
  var atSliceStart = null;
  var open = -1; // the slice begun and not yet whole
  var crc = 0;
  var digest = null;
  var done = 0;
  var stopDigest = function () {
    if (digestStopped) return;
    digestStopped = true;
    fileDigest = atSliceStart;
  };
  // The XOR of the intact slices, the known share of the recovery slice of exponent 0 (every constant to
  // the power 0 is 1): with one slice to rebuild it is rebuilt from that alone, without a second pass.
  // A slice's bytes are added as they pass and taken out again when it fails.
  var parity = null;
  if (target.otherSlices.length === 0 && target.exponents.length > 0 && target.exponents[0].exponent === 0 && sliceSize <= limits.recoveryMemory)
    parity = new Uint8Array(sliceSize);
  var openParts = [];
  var takeOut = function () {
    for (var p = 0; p < openParts.length; p++) gf16MultiplyAdd(1, openParts[p].bytes, parity.subarray(openParts[p].within));
  };
  progress("recovery-verify", 0, end);
  await forEachSlicePiece(recovery.backupSource, sliceSize, end, slicePieceSize(sliceSize, RECOVERY_WINDOW), options.signal, function (slice, within, bytes) {
    if (within === 0) {
      open = slice;
      openParts = [];
      status[slice] = SLICE_DAMAGED; // until it is whole and matches
      crc = 0;
      digest = new Md5();
      if (!digestStopped) atSliceStart = fileDigest.clone();
    }
    // In parts that stay in the processor's cache while the three digests read them.
    for (var at = 0; at < bytes.length; at += VERIFY_PART) {
      var part = bytes.subarray(at, Math.min(bytes.length, at + VERIFY_PART));
      crc = crc32Update(crc, part);
      digest.update(part);
      if (!digestStopped) fileDigest.update(part);
      if (parity) gf16MultiplyAdd(1, part, parity.subarray(within + at));
    }
    if (parity) openParts.push({ within: within, bytes: bytes });
    var realLength = Math.min(sliceSize, length - slice * sliceSize);
    if (within + bytes.length === realLength) {
      open = -1;
      crc = crc32Zeros(crc, sliceSize - realLength);
      digest.updateZeros(sliceSize - realLength);
      if (sliceMatches(target.checksums, slice, digest.digest(), crc)) status[slice] = SLICE_INTACT;
      else {
        stopDigest();
        if (parity) takeOut();
      }
      openParts = [];
    }
    done += bytes.length;
    progress("recovery-verify", done, end);
  });
  if (open >= 0) {
    stopDigest(); // the file ends inside this slice
    if (parity) takeOut();
  }
  var damaged = 0;
  var missing = 0;
  var firstBad = -1;
  for (var i = 0; i < status.length; i++) {
    if (status[i] === SLICE_INTACT) continue;
    if (firstBad < 0) firstBad = i;
    if (status[i] === SLICE_MISSING) missing++;
    else damaged++;
  }
  var intact = status.length - damaged - missing;
  // Other files' slices are unknowns only when there is something to rebuild.
  var unknowns = damaged + missing === 0 ? 0 : damaged + missing + target.otherSlices.length;
  var intactFile = false;
  if (firstBad < 0) {
    if (!bytesEqual(fileDigest.digest(), target.description.md5))
      throw recoveryInvalid("every slice matches its checksum but the whole file's MD5 is not the one of the file description: the recovery set contradicts itself");
    intactFile = true;
  }
  // Recovery slices by increasing exponent, until as many are intact as there are unknowns: the count a
  // repair can rely on (the solver takes them from here, and checks no packet twice).
  var usable = 0;
  var damagedRecovery = 0;
  for (var r = 0; r < target.exponents.length && usable < unknowns; r++) {
    var intactCopy = false;
    for (var c = 0; c < target.exponents[r].copies.length && !intactCopy; c++)
      intactCopy = await recoveryCopyIntact(recovery, target.exponents[r].copies[c], options.signal);
    if (intactCopy) usable++;
    else damagedRecovery++;
    progress("recovery-slices", usable, unknowns);
  }
  // A set matched by its length alone, or by nothing, must be proved by a slice of the backup: else it
  // may be another file's, and a "repair" would hand out that file.
  if (intact === 0 && (target.match === "sole" || (target.match === "size" && usable >= unknowns)))
    throw new GoshuinError(
      "recovery_set_mismatch",
      "no slice of this backup matches the recovery set, whose file has other first 16 KiB" +
        (target.match === "sole" ? " and another length" : "") + ": it was made for another file"
    );
  return {
    recovery: recovery,
    status: status,
    runs: damagedRuns(status),
    damaged: damaged,
    missing: missing,
    intact: intact,
    intactFile: intactFile, // every slice intact and the file's MD5 right (there may be bytes added to it)
    addedBytes: Math.max(0, size - length),
    fileDigest: fileDigest, // the whole file's MD5 over slices 0 … resumeSlice − 1
    resumeSlice: firstBad < 0 ? status.length : firstBad,
    unknowns: unknowns,
    recoverySlices: target.exponents.length, // present; those checked: usable + damagedRecovery
    usable: usable,
    damagedRecovery: damagedRecovery,
    repairable: usable >= unknowns,
    parity: parity, // the XOR of the intact slices, or null
    verifyMs: now() - started,
  };
}

function insufficient(check, available, damagedRecovery) {
  var target = check.recovery.target;
  var bad = check.damaged + check.missing;
  var error = new GoshuinError(
    "not_repairable",
    bad + " slice" + (bad === 1 ? " is" : "s are") + " damaged or missing" +
      (target.otherSlices.length ? " (and the set protects " + target.otherSlices.length + " slices of other files, which count as missing here)" : "") +
      ", and the recovery files hold " + available + " usable recovery slice" + (available === 1 ? "" : "s") +
      (damagedRecovery ? " (" + damagedRecovery + " more are damaged)" : "") +
      ": " + check.unknowns + (check.unknowns === 1 ? " is" : " are") + " needed"
  );
  if (check.intact === 0 && target.match !== "exact" && target.match !== "start")
    error.detail += "; no slice of the backup matches the set either: if these recovery files are another file's, pick the backup's";
  error.message = error.code + ": " + error.detail;
  error.damagedSlices = bad;
  error.recoverySlices = available;
  error.neededSlices = check.unknowns;
  return error;
}

/** The MD5 of a recovery slice packet, checked once; false when it fails. Charged to the scan's budget. */
async function recoveryCopyIntact(recovery, copy, signal) {
  if (copy.verified !== null) return copy.verified;
  var scan = recovery.scan;
  scan.hashed += copy.length;
  if (scan.hashed > scan.budget)
    throw recoveryInvalid("the recovery files hold too many damaged recovery slices to check (more than " + scan.budget + " bytes hashed)");
  var digest = new Md5();
  for await (var piece of readPieces(recovery.sources[copy.source], copy.offset + 32, copy.offset + copy.length, RECOVERY_WINDOW, signal))
    digest.update(piece.bytes);
  copy.verified = bytesEqual(digest.digest(), copy.hash);
  return copy.verified;
}
