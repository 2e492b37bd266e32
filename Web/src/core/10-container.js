// The .goshuin container, versions 1 (Spec/container-v1.md) and 2 (Spec/container-v2.md), chosen by the
// version byte alone and never the one after the other failed (decisions/0030): the header and its bounds,
// the file size and, in version 1, every length prefix (checks 1–9 of version 1, 1–8 of version 2) before
// any key is derived; in version 2 the header MAC (check 9) before any record is read; then a random-access
// reader that authenticates each chunk before any byte of it is used and gives one verdict per file for
// damage or a wrong passphrase (v1 §7.1, v2 §7.1: "one verdict per file").

var HEADER_SIZE = 45; // version 1's header; also the first bytes every version shares
var HEADER_SIZE_V2 = 77;
var MAC_INPUT_SIZE = 45; // v2 §2: the MAC covers header bytes 0 … 44
var MIN_ITERATIONS = 1000;
var MAX_ITERATIONS = 2000000;
var MIN_CHUNK_SIZE = 1024;
var MAX_CHUNK_SIZE = 67108864;
var MAX_CHUNK_COUNT = 4294967296n;
var TAG_SIZE = 16;
var INFO_HEADER_MAC = utf8Bytes("goshuin/v2/header-mac"); // v2 §4: ASCII, no terminator, no length
var INFO_PAYLOAD = utf8Bytes("goshuin/v2/payload");

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

function tooShort(fileSize, needed) {
  return new GoshuinError("short_header", "the file has " + fileSize + " bytes; a .goshuin file " + (needed === HEADER_SIZE ? "has at least 45" : "of version 2 has at least 77"));
}

/**
 * Checks 1–3, common to both versions (v2 §7: the first five bytes are version 1's): the size for the
 * shared 45 bytes, the magic, and the version byte, which alone chooses the rules. Returns 1 or 2.
 */
function containerVersion(bytes, fileSize) {
  if (fileSize < HEADER_SIZE || bytes.length < HEADER_SIZE) throw tooShort(fileSize, HEADER_SIZE);
  if (bytes[0] !== 0x47 || bytes[1] !== 0x53 || bytes[2] !== 0x48 || bytes[3] !== 0x4e)
    throw new GoshuinError("bad_magic", "the file does not start with GSHN");
  if (bytes[4] !== 1 && bytes[4] !== 2)
    throw new GoshuinError("unsupported_version", "the file has format version " + bytes[4] + "; this page reads versions 1 and 2");
  return bytes[4];
}

function checkIterations(iterations) {
  if (iterations < MIN_ITERATIONS || iterations > MAX_ITERATIONS)
    throw new GoshuinError("iterations_out_of_range", "the header asks for " + iterations + " PBKDF2 iterations (1,000 to 2,000,000 are allowed)");
}

function checkChunkSize(chunkSize) {
  if (chunkSize < MIN_CHUNK_SIZE || chunkSize > MAX_CHUNK_SIZE)
    throw new GoshuinError("chunk_size_out_of_range", "the header gives a chunk size of " + chunkSize + " bytes (1 KiB to 64 MiB are allowed)");
}

/**
 * Version 1, checks 4–7 on its 45-byte header: the fields and the layout they imply (container-v1.md §3).
 * Check 8 (the exact file size) is the caller's: a salvaging reader does not apply it (§7.4).
 */
function parseHeaderV1(bytes) {
  var iterations = u32be(bytes, 5);
  checkIterations(iterations);
  var chunkSize = u32be(bytes, 33);
  checkChunkSize(chunkSize);
  var plaintextLength = u64be(bytes, 37);
  if (plaintextLength === 0n) throw new GoshuinError("empty_payload", "the header says the backup is empty");
  var chunkCount = (plaintextLength - 1n) / BigInt(chunkSize) + 1n;
  if (chunkCount > MAX_CHUNK_COUNT)
    throw new GoshuinError("too_many_chunks", "the header implies " + chunkCount + " chunks; at most 2^32 are possible");
  return {
    version: 1,
    bytes: bytes.slice(0, HEADER_SIZE), // the AAD of every chunk
    headerSize: HEADER_SIZE,
    prefixSize: 4,
    iterations: iterations,
    salt: bytes.slice(9, 25),
    nonceBase: bytes.slice(25, 33),
    chunkSize: chunkSize,
    plaintextLengthBig: plaintextLength,
    chunkCountBig: chunkCount,
    expectedFileSize: 45n + 20n * chunkCount + plaintextLength, // below 2^59 after check 7
  };
}

/** Version 1's check 8 passed: every value is below the file size, itself below 2^53. */
function withNumbers(header, fileSize) {
  header.plaintextLength = Number(header.plaintextLengthBig);
  header.chunkCount = Number(header.chunkCountBig);
  header.fileSize = fileSize;
  return header;
}

/**
 * Version 2, checks 4–6 on its 77-byte header (container-v2.md §2, §7). The layout (checks 7, 8) comes
 * from the file size: `layoutV2`.
 */
function parseHeaderV2(bytes, fileSize) {
  if (fileSize < HEADER_SIZE_V2 || bytes.length < HEADER_SIZE_V2) throw tooShort(fileSize, HEADER_SIZE_V2);
  var iterations = u32be(bytes, 5);
  checkIterations(iterations);
  var chunkSize = u32be(bytes, 41);
  checkChunkSize(chunkSize);
  return {
    version: 2,
    bytes: bytes.slice(0, HEADER_SIZE_V2), // the AAD of every record, headerMac included
    headerSize: HEADER_SIZE_V2,
    prefixSize: 0,
    iterations: iterations,
    salt: bytes.slice(9, 25), // kdfSalt
    payloadSalt: bytes.slice(25, 41),
    chunkSize: chunkSize,
    mac: bytes.slice(45, 77),
  };
}

/**
 * Version 2, §3 and checks 7–8, in integers (BigInt: a file size past 2^53 stays exact): S = chunkSize + 16,
 * B = fileSize − 77, n = ⌊B / S⌋ + 1 records, the last of r = B − (n − 1)·S bytes. Returns { n, r }.
 */
function layoutV2(chunkSize, fileSize) {
  var stride = BigInt(chunkSize) + 16n;
  var body = BigInt(fileSize) - BigInt(HEADER_SIZE_V2);
  var count = body / stride + 1n;
  if (count > MAX_CHUNK_COUNT)
    throw new GoshuinError("too_many_chunks", "the file's size implies " + count + " records; at most 2^32 are possible");
  var last = body - (count - 1n) * stride;
  return { count: count, last: last };
}

/**
 * Checks 1–8 of the file's version on its first bytes (77, or fewer when the file is shorter) and its
 * size; returns the header's fields and layout. Version 1: checks 1–8 (the length prefixes, check 9, are
 * read by `checkLengthPrefixes`). Version 2: checks 1–8 (the MAC, check 9, needs the key).
 */
function parseHeader(bytes, fileSize) {
  var version = containerVersion(bytes, fileSize);
  if (version === 1) {
    var header = parseHeaderV1(bytes);
    var actual = BigInt(fileSize);
    if (actual < header.expectedFileSize) throw new GoshuinError("truncated", "the file has " + fileSize + " bytes; its header says " + header.expectedFileSize);
    if (actual > header.expectedFileSize) throw new GoshuinError("trailing_data", "the file has " + fileSize + " bytes; its header says " + header.expectedFileSize);
    return withNumbers(header, fileSize);
  }
  var v2 = parseHeaderV2(bytes, fileSize);
  var layout = layoutV2(v2.chunkSize, fileSize);
  if (layout.last < BigInt(TAG_SIZE))
    throw new GoshuinError(
      "truncated",
      layout.last === 0n
        ? "the file ends at a record boundary, without its final record: it was cut"
        : "the file's last record has " + layout.last + " bytes, fewer than a tag: it was cut"
    );
  // From here n ≤ 2^32 and every offset is below the file size, itself below 2^53.
  v2.chunkCount = Number(layout.count);
  v2.lastRecordLength = Number(layout.last);
  v2.plaintextLength = (v2.chunkCount - 1) * v2.chunkSize + v2.lastRecordLength - TAG_SIZE;
  v2.fileSize = fileSize;
  return v2;
}

/** The offset of chunk `index`'s record (in version 1, of its length prefix). */
function chunkOffset(header, index) {
  return header.headerSize + index * (header.chunkSize + header.prefixSize + TAG_SIZE);
}

function chunkPlaintextLength(header, index) {
  return index < header.chunkCount - 1
    ? header.chunkSize
    : header.plaintextLength - header.chunkSize * (header.chunkCount - 1);
}

/**
 * The nonce of chunk `index`: version 1, nonceBase ‖ u32be(i); version 2, 00×7 ‖ u32be(i) ‖ f, f = 01 for
 * the final record (its position, `final`, decides: never both flags on one record, v2 §10.4).
 */
function chunkNonce(header, index, final) {
  var iv = new Uint8Array(12);
  var at = 8;
  if (header.version === 1) iv.set(header.nonceBase, 0);
  else {
    at = 7;
    iv[11] = final ? 1 : 0;
  }
  iv[at] = index >>> 24;
  iv[at + 1] = (index >>> 16) & 0xff;
  iv[at + 2] = (index >>> 8) & 0xff;
  iv[at + 3] = index & 0xff;
  return iv;
}

/**
 * AES-256-GCM decryption of one record (ciphertext ‖ 16-byte tag) with the whole header as AAD: the
 * plaintext, or null when it does not authenticate. A tag is always 16 bytes (tagLength 128, v2 §10.5).
 */
async function openRecord(key, header, index, final, sealed) {
  try {
    var plaintext = await crypto.subtle.decrypt(
      { name: "AES-GCM", iv: chunkNonce(header, index, final), additionalData: header.bytes, tagLength: 128 },
      key,
      sealed
    );
    return new Uint8Array(plaintext);
  } catch (error) {
    if (error && error.name === "OperationError") return null;
    throw asGoshuinError(error);
  }
}

/** Version 1's check 9: every length prefix at its computed offset, in order, before any tag is verified. */
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

/** HKDF-SHA256 (RFC 5869, extract then expand) by WebCrypto: `length` bytes. An empty salt is HashLen zeros. */
async function hkdfSha256(ikm, salt, info, length) {
  var base = await crypto.subtle.importKey("raw", ikm, "HKDF", false, ["deriveBits"]);
  var bits = await crypto.subtle.deriveBits({ name: "HKDF", hash: "SHA-256", salt: salt, info: info }, base, length * 8);
  return new Uint8Array(bits);
}

/**
 * HMAC-SHA256 by WebCrypto (for the tests' RFC 5869 cases: PRK = HMAC(salt, IKM)). WebCrypto refuses an
 * empty HMAC key; HMAC pads a short key with zeros to its block, so the empty key is 32 zero bytes.
 */
async function hmacSha256(key, message) {
  var raw = key.length === 0 ? new Uint8Array(32) : key;
  var imported = await crypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return new Uint8Array(await crypto.subtle.sign("HMAC", imported, message));
}

/** Version 2's two keys from K_pw (§4): K_header and K_payload, HKDF-SHA256 with payloadSalt as its salt. */
async function deriveKeysV2(passwordKey, payloadSalt) {
  return {
    headerKey: await hkdfSha256(passwordKey, payloadSalt, INFO_HEADER_MAC, 32),
    payloadKey: await hkdfSha256(passwordKey, payloadSalt, INFO_PAYLOAD, 32),
  };
}

/**
 * K_pw, PBKDF2-HMAC-SHA256 of the passphrase's bytes as given. WebCrypto has no progress callback, so
 * `onProgress(fraction)` is driven by the time a short calibration run predicts.
 */
async function derivePasswordKey(passphraseBytes, header, onProgress) {
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
    return await pbkdf2(passphraseBytes, header.salt, header.iterations);
  } finally {
    if (timer !== null) clearInterval(timer);
    if (onProgress) onProgress(1);
  }
}

function importPayloadKey(bits) {
  return crypto.subtle.importKey("raw", bits, { name: "AES-GCM" }, false, ["decrypt"]);
}

/**
 * The key of the chunks. Version 1 (check 10): the PBKDF2 key. Version 2: K_pw, then K_header and K_payload,
 * then check 9, the header MAC over bytes 0 … 44, by WebCrypto's HMAC verify (a comparison whose time does
 * not depend on where the bytes differ); `auth_failed` when it does not verify, before any record is read.
 */
async function deriveKey(passphraseBytes, header, onProgress) {
  var passwordKey = await derivePasswordKey(passphraseBytes, header, onProgress);
  try {
    if (header.version === 1) return await importPayloadKey(passwordKey);
    var keys = await deriveKeysV2(passwordKey, header.payloadSalt);
    try {
      var macKey = await crypto.subtle.importKey("raw", keys.headerKey, { name: "HMAC", hash: "SHA-256" }, false, ["verify"]);
      var valid = await crypto.subtle.verify("HMAC", macKey, header.mac, header.bytes.subarray(0, MAC_INPUT_SIZE));
      if (!valid) throw new GoshuinError("auth_failed", "the header MAC does not verify: wrong passphrase, or the header was altered");
      return await importPayloadKey(keys.payloadKey);
    } finally {
      keys.headerKey.fill(0);
      keys.payloadKey.fill(0);
    }
  } finally {
    passwordKey.fill(0);
  }
}

/**
 * Reads chunks by index, each authenticated before use; a few recent ones are kept. A chunk that fails
 * gives the verdict of the whole file (`verdict`), whatever order the chunks were asked for in.
 */
/**
 * `length` payload bytes at `offset`, copied out of the chunks `reader.chunk(index)` gives (each
 * `reader.header.chunkSize` bytes but the last): the one read loop of the strict and the salvaging reader.
 */
async function readFromChunks(reader, offset, length) {
  var out = new Uint8Array(length);
  var done = 0;
  var size = reader.header.chunkSize;
  while (done < length) {
    var position = offset + done;
    var index = Math.floor(position / size);
    var bytes = await reader.chunk(index);
    var from = position - index * size;
    var take = Math.min(bytes.length - from, length - done);
    out.set(bytes.subarray(from, from + take), done);
    done += take;
  }
  return out;
}

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
    var record = await this.source.read(chunkOffset(header, index), header.prefixSize + length);
    if (header.prefixSize && u32be(record, 0) !== length) throw new GoshuinError("io", "the file changed while it was open");
    var plaintext = await openRecord(this.key, header, index, index === header.chunkCount - 1, record.subarray(header.prefixSize));
    if (plaintext === null) return null;
    this.authenticated[index >> 3] |= 1 << (index & 7);
    return plaintext;
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
   * One verdict per file: L is the lowest chunk that fails authentication. Version 1: L > 0 is
   * chunk_damaged at L; L = 0 is chunk_damaged at 0 when one of chunks 1–3 authenticates, and auth_failed
   * otherwise. Version 2 (the header MAC verified): chunk_damaged at L, no probe window. Called with a
   * chunk `failed` known to fail: chunks 0 … failed−1 are authenticated in order.
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
    var count = this.header.chunkCount;
    if (this.header.version === 2) {
      var damaged = new GoshuinError(
        "chunk_damaged",
        "record " + lowest + " of " + count + " fails authentication; the header MAC verified, so the passphrase is right" +
          (lowest === count - 1 ? " (it is the last record: the file may also have been cut, or added to)" : ""),
        lowest
      );
      // A version 2 file's size is its layout: a cut leaves a last record that fails, as damage to it does.
      if (lowest === count - 1) damaged.atEnd = true;
      return damaged;
    }
    if (lowest > 0)
      return new GoshuinError("chunk_damaged", "chunk " + lowest + " of " + count + " fails authentication while chunk 0 authenticates", lowest);
    for (var j = 1; j <= 3 && j < count; j++) {
      if (this.isAuthenticated(j) || (await this.tryDecrypt(j)) !== null)
        return new GoshuinError("chunk_damaged", "chunk 0 fails authentication while chunk " + j + " authenticates", 0);
    }
    return new GoshuinError("auth_failed", "no chunk authenticates: wrong passphrase, or the header was altered");
  }

  /**
   * The final chunk, authenticated first by a reader whose use of the payload depends on its length (a ZIP
   * read from its end): in version 2 only the record sealed as the last authenticates with the final flag,
   * which confirms the length the file size implies (v2 §9.1); in version 1 it confirms plaintextLength.
   */
  async authenticateFinal() {
    await this.chunk(this.header.chunkCount - 1);
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
    return readFromChunks(this, offset, length);
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
 * The checks of the file's version up to the key: version 1, checks 1–10; version 2, checks 1–9 (the header
 * MAC). Returns the reader of its payload. `options.onKeyProgress(fraction)` follows the key derivation;
 * `options.onKeyDerivation(header)` is called when it starts.
 */
async function openContainer(source, passphraseBytes, options) {
  options = options || {};
  if (source.size < HEADER_SIZE) throw tooShort(source.size, HEADER_SIZE);
  var header = parseHeader(await source.read(0, Math.min(source.size, HEADER_SIZE_V2)), source.size);
  if (header.version === 1) await checkLengthPrefixes(source, header);
  if (options.onKeyDerivation) options.onKeyDerivation(header);
  var key = await deriveKey(passphraseBytes, header, options.onKeyProgress);
  return new ContainerReader(source, header, key, options);
}
