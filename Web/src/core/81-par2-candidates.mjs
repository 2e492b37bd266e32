// Which file of which recovery set is the backup (Spec/decisions/0048): by what the set protects, never by
// its name.
//
// The candidates are every recoverable file of every set read whose set has its main packet, that file's
// description and its slice checksums (and the descriptions of the set's other recoverable files, which
// place its slices among theirs). A set whose slice size is larger than its longest recoverable file
// (rounded up to 4) and than 64 MiB is refused (Spec/decisions/0049): hashing its padding would cost more
// than the file. Those whose description has the backup's 16 KiB MD5 and length win, the one with the most
// recovery slices first; otherwise every candidate is checked slice by slice (82-par2-survey.mjs) and the
// one with the most intact bytes wins, then the one with the most recovery slices, then the first read.
//
// The winner then needs evidence that the backup is a copy of its file: some part of the backup that is not
// all zeros holds, at its place, what the set says its file held there (at least 16 bytes of it, so that a
// match by chance is at most 2^-128): its first 16 KiB (rule 1); an intact slice (rule 2); or, only when
// neither holds and the set can rebuild every slice, a 512-byte block at a multiple of 512 equal to the file
// rebuilt from the set (rule 3, in 84-par2-rebuild.mjs). A backup all of whose bytes are zero, or an empty
// one, holds nothing of another file: a damaged copy. Otherwise it is another file: recovery_set_mismatch.

import { bytesEqual, formatSize } from "./00-bytes.mjs";
import { GoshuinError } from "./01-errors.mjs";
import { PAR2_MAX_INPUT_SLICES } from "./05-gf16.mjs";
import { PAR2_BUDGET_BASE, PAR2_PEEK, PAR2_SLICE_OVER_FILE } from "./80-par2-packets.mjs";

export var EVIDENCE_BYTES = 16; // the least evidence: 2^-128 for bytes of another file to match by chance
export var EVIDENCE_BLOCK = 512; // rule 3's block: a sector
var SURVEY_GROUPS = 16; // slice sizes surveyed in one pass when no candidate describes the backup exactly
var SURVEY_CANDIDATES = 64; // candidates surveyed in that pass

function roundUp4(n) {
  return Math.ceil(n / 4) * 4;
}

/**
 * The candidates among the sets of `scan`, in the order their sets were first read: { candidates, problems }
 * (why the others are not, for an error when none is). Each set is laid out once (its files' slices, its
 * recovery slices of its slice size), whatever the number of its files; it yields between files (`pace`): a set
 * of PAR2_MAX_FILES files takes tens of milliseconds.
 */
export async function recoveryCandidates(scan, pace) {
  var candidates = [];
  var problems = [];
  for (var set of scan.sets.values()) {
    if (!set.main) {
      problems.push("the main packet of a recovery set is missing or damaged in every copy" + (scan.malformed.length ? " (" + scan.malformed.join("; ") + ")" : ""));
      continue;
    }
    var sliceSize = set.main.sliceSize;
    var fileIds = set.main.fileIds;
    var longest = 0;
    var missing = 0;
    var firstSlices = new Float64Array(fileIds.length);
    var total = 0; // the set's slices, counted over the files described (used only when none is missing)
    for (var i = 0; i < fileIds.length; i++) {
      if (pace.due()) await pace();
      var description = set.descriptions.get(fileIds[i]);
      if (!description) {
        missing++;
        continue;
      }
      longest = Math.max(longest, description.length);
      firstSlices[i] = total;
      total += Math.ceil(description.length / sliceSize);
    }
    if (missing === fileIds.length) {
      problems.push("the recovery set's file descriptions are missing or damaged in every copy");
      continue;
    }
    if (missing > 0) {
      problems.push("the recovery set protects " + fileIds.length + " files and the description of " + (missing === 1 ? "one of them" : missing + " of them") + " is missing or damaged in every copy");
      continue;
    }
    if (sliceSize > roundUp4(longest) && sliceSize > PAR2_SLICE_OVER_FILE) {
      problems.push(
        "the recovery set's slice size, " + sliceSize + " bytes, is larger than its longest file (" + longest + " bytes) and than " +
          PAR2_SLICE_OVER_FILE + " bytes: checking it would hash its padding"
      );
      continue;
    }
    if (total > PAR2_MAX_INPUT_SLICES) {
      problems.push("the recovery set claims more than " + PAR2_MAX_INPUT_SLICES + " slices (PAR 2.0 allows at most that)");
      continue;
    }
    var exponents = setExponents(set);
    for (var position = 0; position < fileIds.length; position++) {
      if (pace.due()) await pace();
      var described = set.descriptions.get(fileIds[position]);
      var checksums = set.checksums.get(fileIds[position]);
      if (!checksums) {
        problems.push("the checksums of the slices of \u201c" + described.name + "\u201d (its IFSC packet) are missing or damaged in every copy");
        continue;
      }
      var sliceCount = Math.ceil(described.length / sliceSize);
      if (checksums.bytes.length !== 20 * sliceCount) {
        problems.push("the checksums packet of \u201c" + described.name + "\u201d lists " + checksums.bytes.length / 20 + " slices; its file description implies " + sliceCount);
        continue;
      }
      candidates.push({
        set: set,
        order: candidates.length,
        description: described,
        sliceSize: sliceSize,
        sliceCount: sliceCount,
        firstSlice: firstSlices[position],
        totalSlices: total,
        otherSliceCount: total - sliceCount, // the other files' slices: otherSlicesOf(candidate)
        files: fileIds.length,
        checksums: checksums.bytes,
        exponents: exponents,
      });
    }
  }
  return { candidates: candidates, problems: problems };
}

/** The recovery slices of a set of its slice size, by increasing exponent: [{ exponent, copies }]. */
function setExponents(set) {
  var exponents = [];
  set.recovery.forEach(function (copies, exponent) {
    var usable = copies.filter(function (copy) {
      return copy.length === PAR2_PEEK + set.main.sliceSize;
    });
    if (usable.length) exponents.push({ exponent: exponent, copies: usable });
  });
  return exponents.sort(function (a, b) {
    return a.exponent - b.exponent;
  });
}

/** The indices in its set of the slices of the set's other files (unknowns of a repair: the page has only the backup). */
export function otherSlicesOf(candidate) {
  var slices = [];
  for (var i = 0; i < candidate.totalSlices; i++) if (i < candidate.firstSlice || i >= candidate.firstSlice + candidate.sliceCount) slices.push(i);
  return slices;
}

/** a before b: more recovery slices, then read first. */
function byRecoverySlices(a, b) {
  return b.exponents.length - a.exponents.length || a.order - b.order;
}

/** The candidates that describe the backup `file` ({ size, md5First16k }) exactly, the best first. */
export function exactCandidates(candidates, file) {
  return candidates
    .filter(function (candidate) {
      return candidate.description.length === file.size && bytesEqual(candidate.description.md5First16k, file.md5First16k);
    })
    .sort(byRecoverySlices);
}

/**
 * The candidates a survey checks when none describes the backup exactly, those whose file has the backup's
 * length, its 16 KiB MD5 or its name first, then in the order read: of a set of several files only those
 * (ADR 0048: such a set is matched by them); at most SURVEY_CANDIDATES, of as many slice sizes as the reading's
 * budget pays a pass over the backup for (64 MiB + 4 × its length: four for a large backup, SURVEY_GROUPS at most).
 */
export function surveyedCandidates(candidates, file) {
  var like = function (candidate) {
    var d = candidate.description;
    return d.length === file.size || bytesEqual(d.md5First16k, file.md5First16k) || (file.name !== undefined && d.name === file.name);
  };
  var sorted = candidates
    .filter(function (candidate) {
      return candidate.files === 1 || like(candidate);
    })
    .sort(function (a, b) {
      return (like(a) ? 0 : 1) - (like(b) ? 0 : 1) || a.order - b.order;
    });
  var groups = Math.max(1, Math.min(SURVEY_GROUPS, Math.floor((PAR2_BUDGET_BASE + 4 * file.size) / Math.max(1, file.size))));
  var sizes = [];
  return sorted
    .filter(function (candidate) {
      if (sizes.indexOf(candidate.sliceSize) >= 0) return true;
      if (sizes.length >= groups) return false;
      sizes.push(candidate.sliceSize);
      return true;
    })
    .slice(0, SURVEY_CANDIDATES);
}

/** The surveyed candidates, the winner first: the most intact bytes, then the most recovery slices, then the first read. */
export function rankSurveyed(results) {
  return results.slice().sort(function (a, b) {
    return b.intactBytes - a.intactBytes || byRecoverySlices(a.candidate, b.candidate);
  });
}

/**
 * Rules 1 and 2 for a surveyed candidate: "start" (its first 16 KiB), "slice" (intact slices holding at
 * least EVIDENCE_BYTES bytes that are not all zeros), or null. `file`: { md5First16k, firstNonZero }.
 */
export function evidenceOf(result, file) {
  var candidate = result.candidate;
  var prefix = Math.min(16384, file.size);
  if (bytesEqual(candidate.description.md5First16k, file.md5First16k) && prefix >= EVIDENCE_BYTES && file.firstNonZero >= 0 && file.firstNonZero < prefix)
    return "start";
  if (result.nonZeroIntactBytes >= EVIDENCE_BYTES) return "slice";
  return null;
}

/** What the sets read protect, for a message: up to four files, their names and lengths. */
function describeFiles(scan) {
  var names = [];
  scan.sets.forEach(function (set) {
    set.descriptions.forEach(function (description) {
      if (names.length < 4) names.push("\u201c" + description.name + "\u201d (" + formatSize(description.length) + ")");
    });
  });
  return names.length ? listOf(names) : "no file described intact";
}

function listOf(items) {
  if (items.length <= 1) return items.join("");
  return items.slice(0, -1).join(", ") + " and " + items[items.length - 1];
}

/** recovery_set_mismatch: the sets read describe other files, not this backup. */
export function anotherFile(scan, why) {
  return new GoshuinError(
    "recovery_set_mismatch",
    "the recovery files were made for another file: " + why + "; they protect " + describeFiles(scan)
  );
}
