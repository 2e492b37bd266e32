// What both implementations of the kernels share: the checks of their arguments, and the state of an
// incremental hash that has given its digest.

var MD5_LANES = 4; // streams one Md5Lanes hashes together: the 32-bit lanes of a v128
var GF16_TARGETS_PER_CALL = 32; // (target, coefficient) pairs one wasm call takes; longer lists are split
var LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

function requireBytes(value, what) {
  if (!(value instanceof Uint8Array)) throw new TypeError(what + " must be a Uint8Array");
  return value;
}

function requireCount(value, what) {
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(what + " must be an integer from 0 to 2^53 - 1");
  return value;
}

/** The byte length every stream of an Md5Lanes update shares; throws unless there is one array a stream. */
function laneLength(arrays, streams) {
  if (!Array.isArray(arrays) || arrays.length !== streams) throw new RangeError("expected " + streams + " arrays, one a stream");
  var length = requireBytes(arrays[0], "each stream's bytes").length;
  for (var i = 1; i < streams; i++)
    if (requireBytes(arrays[i], "each stream's bytes").length !== length) throw new RangeError("the streams of an Md5Lanes update must be equally long");
  return length;
}

/**
 * The checks of gf16MulAdd: one coefficient a target, each coefficient a 16-bit integer, each target
 * holding the source's bytes (and one more when their count is odd: the last word's high byte).
 */
function checkMulAddArguments(coefficients, source, targets) {
  requireBytes(source, "the source");
  if (!Array.isArray(targets)) throw new TypeError("the targets must be an array of Uint8Arrays");
  if (coefficients.length !== targets.length) throw new RangeError("one coefficient a target");
  var needed = source.length + (source.length & 1);
  for (var i = 0; i < targets.length; i++) {
    var c = coefficients[i];
    if (!Number.isInteger(c) || c < 0 || c > 0xffff) throw new RangeError("a coefficient must be an integer from 0 to 65535");
    if (requireBytes(targets[i], "a target").length < needed) throw new RangeError("a target is shorter than the source");
  }
}

function throwIfSpent(hash) {
  if (hash.spent) throw new Error("this hash has given its digest; start a new one");
}

/**
 * A hash's saved state (saveState: the chaining words, the length as u64le, the buffered count as u32le, 4
 * unused bytes, the 64-byte buffer): { length, buffered } once its size and its counts are checked.
 */
function savedStateCounts(state, stateBytes) {
  requireBytes(state, "a hash's state");
  if (state.length !== stateBytes) throw new RangeError("a hash's state is " + stateBytes + " bytes, not " + state.length);
  var view = new DataView(state.buffer, state.byteOffset, state.length);
  var at = stateBytes - 80;
  var length = view.getUint32(at, true) + view.getUint32(at + 4, true) * 0x100000000;
  var buffered = view.getUint32(at + 8, true);
  if (buffered > 63 || length % 64 !== buffered || !Number.isSafeInteger(length)) throw new RangeError("a hash's state whose length and buffered bytes disagree");
  return { length: length, buffered: buffered };
}
