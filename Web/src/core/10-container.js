// The .goshuin container (Spec/container-v1.md): the header and its bounds, the exact size and every
// length prefix (checks 1–9) before the key derivation, then a random-access reader that authenticates
// each chunk before any byte of it is used and gives one verdict per file for damage or a wrong
// passphrase (§7.1, "one verdict per file").

var HEADER_SIZE = 45;
var MIN_ITERATIONS = 1000;
var MAX_ITERATIONS = 2000000;
var MIN_CHUNK_SIZE = 1024;
var MAX_CHUNK_SIZE = 67108864;
var MAX_CHUNK_COUNT = 4294967296n;
var TAG_SIZE = 16;

function now() {
  return typeof performance !== "undefined" ? performance.now() : Date.now();
}

/** A random-access source over a Blob or File: only the bytes asked for are read (`File.slice`). */
function blobSource(blob) {
  return {
    size: blob.size,
    read: async function (offset, length) {
      var buffer;
      try {
        buffer = await blob.slice(offset, offset + length).arrayBuffer();
      } catch (error) {
        throw asGoshuinError(error);
      }
      if (buffer.byteLength !== length) throw new GoshuinError("io", "the file changed while it was open");
      return new Uint8Array(buffer);
    },
  };
}

/** A source over bytes in memory (tests, and archives built in memory). */
function bytesSource(bytes) {
  return {
    size: bytes.length,
    read: async function (offset, length) {
      return bytes.slice(offset, offset + length);
    },
  };
}

/**
 * A decrypted payload in memory, read like the container's reader (`read`, `stream` in pieces of
 * `pieceSize` bytes): for the tests and the shared archive corpus (Tests/ArchiveCorpus), which run the
 * ZIP reading of §4 on raw ZIPs.
 */
function payloadSource(bytes, pieceSize) {
  pieceSize = pieceSize || 4096;
  function check(offset, length) {
    if (!(offset >= 0 && length >= 0 && offset + length <= bytes.length))
      throw new GoshuinError("zip_malformed", "a read past the end of the archive");
  }
  return {
    size: bytes.length,
    read: async function (offset, length) {
      check(offset, length);
      return bytes.slice(offset, offset + length);
    },
    stream: async function* (offset, length, signal) {
      check(offset, length);
      for (var at = offset; at < offset + length; at += pieceSize) {
        if (signal && signal.aborted) throw new GoshuinError("interrupted", "stopped");
        yield bytes.subarray(at, Math.min(offset + length, at + pieceSize));
      }
    },
  };
}

/** Checks 1–8 on the first 45 bytes and the file size; returns the header's fields. */
function parseHeader(bytes, fileSize) {
  if (fileSize < HEADER_SIZE || bytes.length < HEADER_SIZE)
    throw new GoshuinError("short_header", "the file has " + fileSize + " bytes; a .goshuin file has at least 45");
  if (bytes[0] !== 0x47 || bytes[1] !== 0x53 || bytes[2] !== 0x48 || bytes[3] !== 0x4e)
    throw new GoshuinError("bad_magic", "the file does not start with GSHN");
  if (bytes[4] !== 1) throw new GoshuinError("unsupported_version", "the file has format version " + bytes[4] + "; this page reads version 1");
  var iterations = u32be(bytes, 5);
  if (iterations < MIN_ITERATIONS || iterations > MAX_ITERATIONS)
    throw new GoshuinError("iterations_out_of_range", "the header asks for " + iterations + " PBKDF2 iterations (1,000 to 2,000,000 are allowed)");
  var chunkSize = u32be(bytes, 33);
  if (chunkSize < MIN_CHUNK_SIZE || chunkSize > MAX_CHUNK_SIZE)
    throw new GoshuinError("chunk_size_out_of_range", "the header gives a chunk size of " + chunkSize + " bytes (1 KiB to 64 MiB are allowed)");
  var plaintextLength = u64be(bytes, 37);
  if (plaintextLength === 0n) throw new GoshuinError("empty_payload", "the header says the backup is empty");
  var chunkCount = (plaintextLength - 1n) / BigInt(chunkSize) + 1n;
  if (chunkCount > MAX_CHUNK_COUNT)
    throw new GoshuinError("too_many_chunks", "the header implies " + chunkCount + " chunks; at most 2^32 are possible");
  var expected = 45n + 20n * chunkCount + plaintextLength;
  var actual = BigInt(fileSize);
  if (actual < expected) throw new GoshuinError("truncated", "the file has " + fileSize + " bytes; its header says " + expected);
  if (actual > expected) throw new GoshuinError("trailing_data", "the file has " + fileSize + " bytes; its header says " + expected);
  // From here every value is below the file size, itself below 2^53.
  return {
    bytes: bytes.slice(0, HEADER_SIZE),
    iterations: iterations,
    salt: bytes.slice(9, 25),
    nonceBase: bytes.slice(25, 33),
    chunkSize: chunkSize,
    plaintextLength: Number(plaintextLength),
    chunkCount: Number(chunkCount),
    fileSize: fileSize,
  };
}

function chunkOffset(header, index) {
  return HEADER_SIZE + index * (header.chunkSize + 20);
}

function chunkPlaintextLength(header, index) {
  return index < header.chunkCount - 1
    ? header.chunkSize
    : header.plaintextLength - header.chunkSize * (header.chunkCount - 1);
}

/** Check 9: every length prefix at its computed offset, in order, before any tag is verified. */
async function checkLengthPrefixes(source, header) {
  var stride = header.chunkSize + 20;
  var count = header.chunkCount;
  // Chunks of 256 KiB or more: read each 4-byte prefix. Smaller ones: read windows of about 8 MiB, so a
  // file of many small chunks does not cost one read call per chunk.
  var perWindow = stride >= 262144 ? 1 : Math.max(1, Math.floor(8388608 / stride));
  for (var first = 0; first < count; first += perWindow) {
    var last = Math.min(count, first + perWindow);
    var start = chunkOffset(header, first);
    var bytes = await source.read(start, chunkOffset(header, last - 1) + 4 - start);
    for (var i = first; i < last; i++) {
      var expected = chunkPlaintextLength(header, i) + TAG_SIZE;
      var found = u32be(bytes, chunkOffset(header, i) - start);
      if (found !== expected)
        throw new GoshuinError("chunk_length_invalid", "chunk " + i + " has the length prefix " + found + "; the header implies " + expected, i);
    }
  }
}

async function pbkdf2(passphraseBytes, salt, iterations) {
  var base = await crypto.subtle.importKey("raw", passphraseBytes, "PBKDF2", false, ["deriveBits"]);
  var bits = await crypto.subtle.deriveBits({ name: "PBKDF2", hash: "SHA-256", salt: salt, iterations: iterations }, base, 256);
  return new Uint8Array(bits);
}

/**
 * Check 10: the AES-256-GCM key, PBKDF2-HMAC-SHA256 of the passphrase's bytes as given. WebCrypto has no
 * progress callback, so `onProgress(fraction)` is driven by the time a short calibration run predicts.
 */
async function deriveKey(passphraseBytes, header, onProgress) {
  var timer = null;
  try {
    if (onProgress) {
      var probe = Math.min(header.iterations, 20000);
      var began = now();
      await pbkdf2(new Uint8Array(1), header.salt, probe);
      var estimate = Math.max(1, ((now() - began) / probe) * header.iterations);
      var start = now();
      onProgress(0);
      timer = setInterval(function () {
        onProgress(Math.min(0.97, (now() - start) / estimate));
      }, 80);
    }
    var bits = await pbkdf2(passphraseBytes, header.salt, header.iterations);
    try {
      return await crypto.subtle.importKey("raw", bits, { name: "AES-GCM" }, false, ["decrypt"]);
    } finally {
      bits.fill(0);
    }
  } finally {
    if (timer !== null) clearInterval(timer);
    if (onProgress) onProgress(1);
  }
}

/**
 * Reads chunks by index, each authenticated before use; a few recent ones are kept. A chunk that fails
 * gives the verdict of the whole file (`verdict`), whatever order the chunks were asked for in.
 */
class ContainerReader {
  constructor(source, header, key, options) {
    this.source = source;
    this.header = header;
    this.key = key;
    this.authenticated = new Uint8Array(Math.ceil(header.chunkCount / 8));
    this.cache = [];
    this.cacheLimit = 3 * 4194304;
    this.onProbe = (options && options.onProbe) || null;
    this.size = header.plaintextLength;
  }

  isAuthenticated(index) {
    return (this.authenticated[index >> 3] & (1 << (index & 7))) !== 0;
  }

  /** The chunk's plaintext, or null when it does not authenticate; read errors are thrown. */
  async tryDecrypt(index) {
    var header = this.header;
    var length = chunkPlaintextLength(header, index) + TAG_SIZE;
    var record = await this.source.read(chunkOffset(header, index), 4 + length);
    if (u32be(record, 0) !== length) throw new GoshuinError("io", "the file changed while it was open");
    var iv = new Uint8Array(12);
    iv.set(header.nonceBase, 0);
    iv[8] = index >>> 24;
    iv[9] = (index >>> 16) & 0xff;
    iv[10] = (index >>> 8) & 0xff;
    iv[11] = index & 0xff;
    var plaintext;
    try {
      plaintext = await crypto.subtle.decrypt(
        { name: "AES-GCM", iv: iv, additionalData: header.bytes, tagLength: 128 },
        this.key,
        record.subarray(4)
      );
    } catch (error) {
      if (error && error.name === "OperationError") return null;
      throw asGoshuinError(error);
    }
    this.authenticated[index >> 3] |= 1 << (index & 7);
    return new Uint8Array(plaintext);
  }

  /** Chunk `index`'s plaintext, authenticated; throws the file's verdict when it does not authenticate. */
  async chunk(index) {
    for (var i = 0; i < this.cache.length; i++) if (this.cache[i].index === index) return this.cache[i].bytes;
    var bytes = await this.tryDecrypt(index);
    if (bytes === null) throw await this.verdict(index);
    this.remember(index, bytes);
    return bytes;
  }

  remember(index, bytes) {
    this.cache.push({ index: index, bytes: bytes });
    var total = 0;
    for (var i = 0; i < this.cache.length; i++) total += this.cache[i].bytes.length;
    while (this.cache.length > 1 && total > this.cacheLimit) total -= this.cache.shift().bytes.length;
  }

  /**
   * One verdict per file: L is the lowest chunk that fails authentication. L > 0 is chunk_damaged at L;
   * L = 0 is chunk_damaged at 0 when one of chunks 1–3 authenticates, and auth_failed otherwise.
   * Called with a chunk `failed` known to fail: chunks 0 … failed−1 are authenticated in order.
   */
  async verdict(failed) {
    var lowest = failed;
    for (var i = 0; i < failed; i++) {
      if (this.isAuthenticated(i)) continue;
      if (this.onProbe) this.onProbe(i, failed);
      if ((await this.tryDecrypt(i)) === null) {
        lowest = i;
        break;
      }
    }
    if (lowest > 0)
      return new GoshuinError("chunk_damaged", "chunk " + lowest + " of " + this.header.chunkCount + " fails authentication while chunk 0 authenticates", lowest);
    for (var j = 1; j <= 3 && j < this.header.chunkCount; j++) {
      if (this.isAuthenticated(j) || (await this.tryDecrypt(j)) !== null)
        return new GoshuinError("chunk_damaged", "chunk 0 fails authentication while chunk " + j + " authenticates", 0);
    }
    return new GoshuinError("auth_failed", "no chunk authenticates: wrong passphrase, or the header was altered");
  }

  /**
   * Spec/backup-v1.md §4.1 step 0, for a fault of the payload found before every chunk was read: every
   * chunk not yet authenticated, in index order, each dropped at once; the first that fails throws the
   * file's verdict. `onChunk(index, count)` follows it; `signal` stops between chunks.
   */
  async authenticateRest(signal, onChunk) {
    var count = this.header.chunkCount;
    for (var i = 0; i < count; i++) {
      if (this.isAuthenticated(i)) continue;
      if (signal && signal.aborted) throw new GoshuinError("interrupted", "stopped");
      if (onChunk) onChunk(i, count);
      if ((await this.tryDecrypt(i)) === null) throw await this.verdict(i);
    }
  }

  /** `length` plaintext bytes at `offset`, copied. */
  async read(offset, length) {
    if (!(offset >= 0 && length >= 0 && offset + length <= this.size))
      throw new GoshuinError("zip_malformed", "a read past the end of the archive");
    var out = new Uint8Array(length);
    var done = 0;
    var size = this.header.chunkSize;
    while (done < length) {
      var position = offset + done;
      var index = Math.floor(position / size);
      var bytes = await this.chunk(index);
      var from = position - index * size;
      var take = Math.min(bytes.length - from, length - done);
      out.set(bytes.subarray(from, from + take), done);
      done += take;
    }
    return out;
  }

  /**
   * The plaintext bytes [offset, offset + length) as pieces, each a view of one chunk, in order; the next
   * chunk is decrypted while the current piece is used. `signal` (an AbortSignal) stops between chunks.
   */
  async *stream(offset, length, signal) {
    if (length === 0) return;
    if (!(offset >= 0 && length > 0 && offset + length <= this.size))
      throw new GoshuinError("zip_malformed", "a read past the end of the archive");
    var size = this.header.chunkSize;
    var end = offset + length;
    var index = Math.floor(offset / size);
    var lastIndex = Math.floor((end - 1) / size);
    var pending = this.chunk(index);
    while (true) {
      var bytes = await pending;
      if (signal && signal.aborted) throw new GoshuinError("interrupted", "stopped");
      var next = index < lastIndex ? this.chunk(index + 1) : null;
      if (next) next.catch(function () {});
      var base = index * size;
      var from = Math.max(offset, base) - base;
      var to = Math.min(end, base + bytes.length) - base;
      yield bytes.subarray(from, to);
      if (next === null) return;
      pending = next;
      index++;
    }
  }
}

/**
 * Checks 1–10 on `source`; returns the reader of its payload. `options.onKeyProgress(fraction)` follows
 * the key derivation; `options.onKeyDerivation(header)` is called when it starts.
 */
async function openContainer(source, passphraseBytes, options) {
  options = options || {};
  if (source.size < HEADER_SIZE)
    throw new GoshuinError("short_header", "the file has " + source.size + " bytes; a .goshuin file has at least 45");
  var header = parseHeader(await source.read(0, HEADER_SIZE), source.size);
  await checkLengthPrefixes(source, header);
  if (options.onKeyDerivation) options.onKeyDerivation(header);
  var key = await deriveKey(passphraseBytes, header, options.onKeyProgress);
  return new ContainerReader(source, header, key, options);
}
