// Which file of which recovery set is the backup (Spec/decisions/0048): by what the set protects, never by
// its name.
//
// The candidates are every recoverable file of every set read whose set has its main packet, that file's
// description and its slice checksums (and the descriptions of the set's other recoverable files, which
// place its slices among theirs). A set whose slice size is larger than its longest recoverable file
// (rounded up to 4) and than 64 MiB is refused (Spec/decisions/0049): hashing its padding would cost more
// than the file. Those whose description has the backup's 16 KiB MD5 and length win, the one with the most
// recovery slices first; otherwise every candidate is checked slice by slice (82-par2-verify.js) and the
// one with the most intact bytes wins, then the one with the most recovery slices, then the first read.
//
// The winner then needs evidence that the backup is a copy of its file: some part of the backup that is not
// all zeros holds, at its place, what the set says its file held there (at least 16 bytes of it, so that a
// match by chance is at most 2^-128): its first 16 KiB (rule 1); an intact slice (rule 2); or, only when
// neither holds and the set can rebuild every slice, a 512-byte block at a multiple of 512 equal to the file
// rebuilt from the set (rule 3, in 84-par2-rebuild.js). A backup all of whose bytes are zero, or an empty
// one, holds nothing of another file: a damaged copy. Otherwise it is another file: recovery_set_mismatch.

var EVIDENCE_BYTES = 16; // the least evidence: 2^-128 for bytes of another file to match by chance
var EVIDENCE_BLOCK = 512; // rule 3's block: a sector
var SURVEY_GROUPS = 16; // slice sizes surveyed in one pass when no candidate describes the backup exactly

function roundUp4(n) {
  return Math.ceil(n / 4) * 4;
}

/**
 * The candidates among the sets of `scan`, in the order their sets were first read: { candidates, problems }
 * (why the others are not, for an error when none is).
 */
function recoveryCandidates(scan) {
  var candidates = [];
  var problems = [];
  scan.sets.forEach(function (set) {
    if (!set.main) {
      problems.push("the main packet of a recovery set is missing or damaged in every copy" + (scan.malformed.length ? " (" + scan.malformed.join("; ") + ")" : ""));
      return;
    }
    var sliceSize = set.main.sliceSize;
    var longest = 0;
    var missing = 0;
    set.main.fileIds.forEach(function (fileId) {
      var description = set.descriptions.get(fileId);
      if (description) longest = Math.max(longest, description.length);
      else missing++;
    });
    if (missing === set.main.fileIds.length) {
      problems.push("the recovery set's file descriptions are missing or damaged in every copy");
      return;
    }
    if (sliceSize > roundUp4(longest) && sliceSize > PAR2_SLICE_OVER_FILE) {
      problems.push(
        "the recovery set's slice size, " + sliceSize + " bytes, is larger than its longest file (" + longest + " bytes) and than " +
          PAR2_SLICE_OVER_FILE + " bytes: checking it would hash its padding"
      );
      return;
    }
    set.main.fileIds.forEach(function (fileId, position) {
      var description = set.descriptions.get(fileId);
      if (!description) return;
      var checksums = set.checksums.get(fileId);
      if (!checksums) {
        problems.push("the checksums of the slices of \u201c" + description.name + "\u201d (its IFSC packet) are missing or damaged in every copy");
        return;
      }
      if (missing > 0) {
        problems.push("the recovery set protects " + set.main.fileIds.length + " files and the description of " + (missing === 1 ? "one of them" : "some of them") + " is missing or damaged in every copy");
        return;
      }
      try {
        candidates.push(candidateLayout(set, position, description, checksums.bytes, candidates.length));
      } catch (error) {
        if (!(error instanceof GoshuinError)) throw error;
        problems.push(error.detail);
      }
    });
  });
  return { candidates: candidates, problems: problems };
}

/** The slices of the set, where the candidate's lie among them, its checksums and the recovery slices of its size. */
function candidateLayout(set, position, description, checksums, order) {
  var sliceSize = set.main.sliceSize;
  var firstSlice = 0;
  var totalSlices = 0;
  var otherSlices = [];
  for (var i = 0; i < set.main.fileIds.length; i++) {
    var length = set.descriptions.get(set.main.fileIds[i]).length;
    var slices = Math.ceil(length / sliceSize);
    if (totalSlices + slices > PAR2_MAX_INPUT_SLICES)
      throw recoveryInvalid("the recovery set claims more than " + PAR2_MAX_INPUT_SLICES + " slices (PAR 2.0 allows at most that)");
    if (i === position) firstSlice = totalSlices;
    else for (var s = 0; s < slices; s++) otherSlices.push(totalSlices + s);
    totalSlices += slices;
  }
  var sliceCount = Math.ceil(description.length / sliceSize);
  if (checksums.length !== 20 * sliceCount)
    throw recoveryInvalid("the checksums packet of \u201c" + description.name + "\u201d lists " + checksums.length / 20 + " slices; its file description implies " + sliceCount);
  var exponents = [];
  set.recovery.forEach(function (copies, exponent) {
    var usable = copies.filter(function (copy) {
      return copy.length === PAR2_PEEK + sliceSize;
    });
    if (usable.length) exponents.push({ exponent: exponent, copies: usable });
  });
  exponents.sort(function (a, b) {
    return a.exponent - b.exponent;
  });
  return {
    set: set,
    order: order,
    description: description,
    sliceSize: sliceSize,
    sliceCount: sliceCount,
    firstSlice: firstSlice,
    totalSlices: totalSlices,
    otherSlices: otherSlices,
    checksums: checksums,
    exponents: exponents,
  };
}

/** a before b: more recovery slices, then read first. */
function byRecoverySlices(a, b) {
  return b.exponents.length - a.exponents.length || a.order - b.order;
}

/** The candidates that describe the backup `file` ({ size, md5First16k }) exactly, the best first. */
function exactCandidates(candidates, file) {
  return candidates
    .filter(function (candidate) {
      return candidate.description.length === file.size && bytesEqual(candidate.description.md5First16k, file.md5First16k);
    })
    .sort(byRecoverySlices);
}

/**
 * The candidates a survey checks when none describes the backup exactly: the slice sizes of at most
 * SURVEY_GROUPS sets, those whose file has the backup's length, its 16 KiB MD5 or its name first, in the
 * order read. (A survey pass costs the backup's length per slice size.)
 */
function surveyedCandidates(candidates, file) {
  var rank = function (candidate) {
    var d = candidate.description;
    return d.length === file.size || bytesEqual(d.md5First16k, file.md5First16k) || (file.name !== undefined && d.name === file.name) ? 0 : 1;
  };
  var sorted = candidates.slice().sort(function (a, b) {
    return rank(a) - rank(b) || a.order - b.order;
  });
  var sizes = [];
  return sorted.filter(function (candidate) {
    if (sizes.indexOf(candidate.sliceSize) >= 0) return true;
    if (sizes.length >= SURVEY_GROUPS) return false;
    sizes.push(candidate.sliceSize);
    return true;
  });
}

/** The surveyed candidates, the winner first: the most intact bytes, then the most recovery slices, then the first read. */
function rankSurveyed(results) {
  return results.slice().sort(function (a, b) {
    return b.intactBytes - a.intactBytes || byRecoverySlices(a.candidate, b.candidate);
  });
}

/**
 * Rules 1 and 2 for a surveyed candidate: "start" (its first 16 KiB), "slice" (intact slices holding at
 * least EVIDENCE_BYTES bytes that are not all zeros), or null. `file`: { md5First16k, firstNonZero }.
 */
function evidenceOf(result, file) {
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
function anotherFile(scan, why) {
  return new GoshuinError(
    "recovery_set_mismatch",
    "the recovery files were made for another file: " + why + "; they protect " + describeFiles(scan)
  );
}
