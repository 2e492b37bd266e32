// A repair from start to end: the set read (82-par2-verify.mjs), the backup checked against the file of the
// set that is this backup (81-par2-candidates.mjs: by what it protects, with evidence), the recovery slices
// checked, then the repair (83-par2-solve.mjs, 84-par2-rebuild.mjs) and the repaired backup, in memory, as a Blob.

import { bytesEqual } from "./00-bytes.mjs";
import { GoshuinError } from "./01-errors.mjs";
import { now } from "./07-keys.mjs";
import { pacer } from "./08-pacing.mjs";
import { recoveryInvalid } from "./80-par2-packets.mjs";
import {
  anotherFile, EVIDENCE_BYTES, evidenceOf, exactCandidates, rankSurveyed, surveyedCandidates,
} from "./81-par2-candidates.mjs";
import { surveyBackup } from "./82-par2-survey.mjs";
import { damagedRuns, readRecoverySet, recoveryCopyIntact, SLICE_INTACT, SLICE_MISSING } from "./82-par2-verify.mjs";
import { equalBlockBytes, rebuildEverything, rebuildWithRecovery } from "./84-par2-rebuild.mjs";

/**
 * The intact recovery slices of the chosen set by increasing exponent, each packet's MD5 checked, until k
 * consecutive ones are intact (k = `needed`: then the repair needs no elimination) or there are no more:
 * { usable ([{ exponent, copy }]), damaged, consecutive }. `progress("recovery-slices", done, needed)`.
 */
async function checkRecoverySlices(recovery, needed, progress, pace) {
  var usable = [];
  var damaged = 0;
  var run = 0;
  var exponents = recovery.target.exponents;
  if (needed > 0) progress("recovery-slices", 0, needed);
  for (var r = 0; r < exponents.length && needed > 0 && run < needed; r++) {
    var copy = null;
    for (var c = 0; c < exponents[r].copies.length && copy === null; c++)
      if (await recoveryCopyIntact(recovery, exponents[r].copies[c], pace)) copy = exponents[r].copies[c];
    if (copy === null) {
      damaged++;
      run = 0;
    } else {
      var previous = usable.length ? usable[usable.length - 1].exponent : -2;
      run = previous === exponents[r].exponent - 1 && run > 0 ? run + 1 : 1;
      usable.push({ exponent: exponents[r].exponent, copy: copy });
    }
    progress("recovery-slices", run >= needed ? needed : Math.min(usable.length, needed - 1), needed);
  }
  if (needed > 0 && run < needed && usable.length >= needed) progress("recovery-slices", needed, needed); // an elimination decides
  return { usable: usable, damaged: damaged, consecutive: run >= needed };
}

/** What a repair found in the picked files, for the page to say before the result (see repairBackup). */
function recoverySetSummary(recovery) {
  var target = recovery.target;
  var set = target.set;
  var scan = recovery.scan;
  return {
    name: target.description.name,
    creator: set.creators.length ? set.creators[0].text : "",
    size: target.description.length,
    sliceSize: target.sliceSize,
    sliceCount: target.sliceCount,
    recoverySlices: target.exponents.length,
    otherFiles: set.main.fileIds.length - 1,
    match: recovery.match,
    files: recovery.sources.length,
    notReadToEnd: scan.notReadToEnd.length,
    skipped: { damaged: scan.damaged, unknown: scan.unknown, duplicates: scan.duplicates, otherSets: scan.otherSets, dropped: scan.dropped },
  };
}

/** The check of the backup against one surveyed candidate (see verifyWithRecovery), its recovery slices checked. */
async function checkAgainst(recovery, result, evidence, progress, pace) {
  var target = result.candidate;
  recovery.target = target;
  var file = recovery.file;
  var status = result.status;
  var damaged = 0;
  var missing = 0;
  var firstBad = -1;
  for (var i = 0; i < status.length; i++) {
    if (status[i] === SLICE_INTACT) continue;
    if (firstBad < 0) firstBad = i;
    if (status[i] === SLICE_MISSING) missing++;
    else damaged++;
  }
  // Other files' slices are unknowns only when there is something to rebuild.
  var unknowns = damaged + missing === 0 ? 0 : damaged + missing + target.otherSliceCount;
  // Without evidence, rule 3 needs every slice rebuilt: as many recovery slices as that.
  var slices = await checkRecoverySlices(recovery, evidence ? unknowns : target.sliceCount + target.otherSliceCount, progress, pace);
  return {
    recovery: recovery,
    status: status,
    runs: damagedRuns(status),
    damaged: damaged,
    missing: missing,
    intact: status.length - damaged - missing,
    firstBad: firstBad,
    intactFile: false, // every slice intact and the file's MD5 right (there may be bytes added to it)
    addedBytes: Math.max(0, file.size - target.description.length),
    fileDigest: result.fileDigest, // the whole file's MD5 over slices 0 … resumeSlice − 1
    resumeSlice: result.resumeSlice,
    unknowns: unknowns,
    recoverySlices: target.exponents.length, // present; those checked: usable + damagedRecovery
    usable: slices.usable,
    damagedRecovery: slices.damaged,
    repairable: slices.usable.length >= unknowns,
    cutOnly: file.size < target.description.length && (firstBad < 0 || firstBad >= Math.floor(file.size / target.sliceSize)),
    // Shorter than the set describes: `truncated` whoever reports it, damaged elsewhere or not (spec §7.2).
    cut: file.size < target.description.length,
    parity: result.parity, // the XOR of the intact slices, or null
    evidence: evidence,
    rebuiltAll: null,
    verifyMs: 0,
  };
}

var RULE3_TRIES = 4; // candidates rebuilt whole (rule 3) when none has other evidence

/**
 * The backup checked against the set read for it (`recovery`, from readRecoverySet): the set chosen by what
 * it protects (Spec/decisions/0048), every slice checked, the evidence that the backup is a copy of the set's
 * file, and as many recovery slices as a repair needs. The candidates are ranked (81-par2-candidates.mjs) and
 * the first with evidence is the backup's set: when the first has none (a tie: no intact slice anywhere, as
 * in a one-slice backup picked with several sets), rule 3 is tried on the next ones too. Returns the check a
 * repair starts from: { recovery, status (a Uint8Array per slice: 0 intact, 1 damaged, 2 missing), runs,
 * damaged, missing, intact, intactFile, addedBytes, unknowns, recoverySlices (present), usable ([{ exponent,
 * copy }], intact), damagedRecovery, repairable, cutOnly, cut, evidence ("start", "slice", "block", "zeros"), … }.
 * `options.onProgress(stage, done, total)`: "recovery-verify" (bytes), "recovery-slices";
 * `options.onRecoverySet(summary)` once the set is chosen. Throws recovery_set_mismatch (another file),
 * recovery_set_invalid (a set that contradicts itself), browser_limit.
 */
export async function verifyWithRecovery(recovery, options) {
  options = options || {};
  var progress = options.onProgress || function () {};
  var pace = pacer(options.signal);
  var started = now();
  var file = recovery.file;
  var exact = exactCandidates(recovery.candidates, file);
  recovery.match = exact.length ? "exact" : "content";
  var announce = function (candidate) {
    recovery.target = candidate;
    if (options.onRecoverySet) options.onRecoverySet(recoverySetSummary(recovery));
  };
  if (exact.length) announce(exact[0]);
  var surveyed = exact.length ? exact.slice(0, 1) : surveyedCandidates(recovery.candidates, file);
  if (surveyed.length === 0)
    throw anotherFile(recovery.scan, "they protect several files each, none with this backup's name, length or first 16 KiB");
  var results = await surveyBackup(recovery, surveyed, progress, pace);
  var ranked = exact.length ? results : rankSurveyed(results);
  var allZero = file.firstNonZero < 0;
  var check = null;
  for (var r = 0; r < ranked.length && check === null; r++) {
    var length = ranked[r].candidate.description.length;
    var evidence = allZero && length > 0 ? "zeros" : length === 0 ? null : evidenceOf(ranked[r], file);
    if (evidence) check = await checkAgainst(recovery, ranked[r], evidence, progress, pace);
  }
  // Rule 3: only when nothing else matched and the set can rebuild every slice.
  for (var t = 0; t < Math.min(ranked.length, RULE3_TRIES) && check === null; t++) {
    var trial = await checkAgainst(recovery, ranked[t], null, progress, pace);
    var rebuilt = await rebuildEverything(trial, pace);
    if (rebuilt !== null && (await equalBlockBytes(trial, rebuilt, pace)) >= EVIDENCE_BYTES) {
      trial.evidence = "block";
      trial.rebuiltAll = rebuilt;
      trial.repairable = true;
      check = trial;
    }
  }
  if (check === null) {
    recovery.target = ranked[0].candidate;
    throw anotherFile(
      recovery.scan,
      "no part of this backup that is not zeros holds what the set says its file held there (its first 16 KiB, " +
        (ranked[0].candidate.sliceCount === 1 ? "its one part" : "any of its " + partsOf(ranked[0].candidate.sliceCount)) +
        ", or, where the recovery files can rebuild every part, any 512-byte block of it)"
    );
  }
  var target = check.recovery.target;
  if (!exact.length) announce(target);
  var chosen = ranked.find(function (result) {
    return result.candidate === target;
  });
  if (check.firstBad < 0 && file.size >= target.description.length) {
    if (!bytesEqual(chosen.digestAtEnd.digest(), target.description.md5))
      throw recoveryInvalid("every part of the file matches its checksum but the whole file's MD5 is not the one of the file description: the recovery set contradicts itself");
    check.intactFile = true;
  }
  check.verifyMs = now() - started;
  return check;
}

/** The numbers of a repair not possible, on an error: damagedSlices, recoverySlices, neededSlices. */
export function withRepairNumbers(error, check, available) {
  error.damagedSlices = check.damaged + check.missing;
  error.recoverySlices = available;
  error.neededSlices = check.unknowns;
  error.missingSlices = check.missing;
  error.otherFileSlices = check.recovery.target.otherSliceCount;
  return error;
}

export function partsOf(n) {
  return n.toLocaleString("en-US") + (n === 1 ? " part" : " parts");
}

/** not_repairable: more unknown slices than intact recovery slices. */
export function insufficient(check, available, damagedRecovery) {
  var target = check.recovery.target;
  var bad = check.damaged + check.missing;
  var unchecked = check.recovery.scan.unchecked || 0;
  return withRepairNumbers(
    new GoshuinError(
      "not_repairable",
      partsOf(bad) + " of the file " + (bad === 1 ? "is" : "are") + " damaged or missing" +
        (target.otherSliceCount ? " (and the set protects " + partsOf(target.otherSliceCount) + " of other files, which count as missing here)" : "") +
        ", and the recovery files can rebuild " + available.toLocaleString("en-US") +
        (damagedRecovery ? " (the data for " + damagedRecovery + " more is damaged" + (unchecked ? ", or past what the page checks" : "") + ")" : "") +
        ": " + check.unknowns + (check.unknowns === 1 ? " is" : " are") + " needed"
    ),
    check,
    available
  );
}

/** truncated: a file cut short (damaged elsewhere too, or not), whose lost parts the recovery files cannot rebuild. */
export function cutShort(check) {
  var target = check.recovery.target;
  var size = check.recovery.file.size;
  return withRepairNumbers(
    new GoshuinError(
      "truncated",
      "the file is cut short: it has " + size.toLocaleString("en-US") + " bytes, and the recovery files describe it with " +
        target.description.length.toLocaleString("en-US") + "; the " + partsOf(check.damaged + check.missing) + " it lost are more than the recovery files can rebuild (" +
        check.usable.length.toLocaleString("en-US") + ")"
    ),
    check,
    check.usable.length
  );
}

/**
 * Repairs `backup` (a Blob or File) with its PAR 2.0 recovery files `recoveryFiles` (Blobs or Files), in
 * memory, without a passphrase. Resolves to
 *   { outcome: "intact" | "repaired", blob (exactly the protected file's bytes: the original itself when
 *     intact), size, originalSize, addedBytes (bytes past the end that were dropped), sliceSize, sliceCount,
 *     damagedSlices, runs ([{ first, last, reason: "damaged" | "missing" }]), recoverySlices (present),
 *     recoverySlicesUsed, otherFileSlices, match ("exact": by the 16 KiB MD5 and the length; "content": by the
 *     slices), evidence, name and creator (escaped text from the set, for messages), skipped, notReadToEnd,
 *     scanMs, verifyMs, rebuildMs, checkMs }.
 * Throws GoshuinError: recovery_set_not_found, recovery_set_invalid, recovery_set_mismatch, not_repairable
 * (with damagedSlices, recoverySlices, neededSlices when the recovery slices are too few), truncated (a file
 * cut short that its recovery files cannot rebuild, with the same numbers), repair_check_failed,
 * browser_limit, interrupted, io.
 * `options`: { signal, onProgress(stage, done, total), onRecoverySet(summary), backupName, checkLater (a repaired
 * backup handed out with `checked`, the promise of its MD5's check: rebuildWithRecovery) } with the stages
 * "recovery-scan", "recovery-verify", "recovery-slices", "recovery-rebuild", "recovery-check"; onRecoverySet
 * gets recoverySetSummary's once the set is chosen (before the backup is checked when it describes the
 * backup's start and length).
 */
export async function repairBackup(backup, recoveryFiles, options) {
  options = options || {};
  var recovery = await readRecoverySet(backup, recoveryFiles, options);
  var check = await verifyWithRecovery(recovery, options);
  var result = await rebuildWithRecovery(check, options);
  var summary = recoverySetSummary(recovery);
  return Object.assign(result, {
    match: summary.match,
    evidence: check.evidence,
    name: summary.name,
    creator: summary.creator,
    skipped: summary.skipped,
    notReadToEnd: summary.notReadToEnd,
    scanMs: recovery.scanMs,
  });
}
