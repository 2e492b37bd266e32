#!/usr/bin/env node
// The kernels of kernels.mjs, both implementations (wasm and plain JavaScript), against references of their
// own: Node's crypto (MD5, SHA-256), zlib's CRC-32 (and a bit-at-a-time one), known-answer vectors, GF(2^16)
// by log/antilog tables; at every length around the block, padding and step boundaries, at unaligned
// offsets, in pieces of every size, in the module's memory and outside it; then the two implementations
// against each other, the allocator, the errors, and proof that these checks see a broken kernel.
//
//   node Web/wasm/test.mjs [--seed N]      last line: "wasm-kernels: N passed, N failed"

import crypto from "node:crypto";
import zlib from "node:zlib";
import { createJsKernels, createKernels, createWasmKernels, MD5_LANES } from "./kernels.mjs";

// ---- A small runner and a seeded generator

let passed = 0;
let failed = 0;

function test(name, body) {
  try {
    body();
    passed++;
  } catch (error) {
    failed++;
    console.log(`FAIL ${name}: ${error && error.message}`);
  }
}

function check(condition, message) {
  if (!condition) throw new Error(message);
}

function throws(body, kind, message) {
  try {
    body();
  } catch (error) {
    check(error instanceof kind, `${message}: threw ${error}, not a ${kind.name}`);
    return;
  }
  throw new Error(`${message}: did not throw`);
}

const seedArgument = process.argv.indexOf("--seed");
let seed = seedArgument > 0 ? Number(process.argv[seedArgument + 1]) : 20240607;

function random32() {
  // xorshift32
  seed ^= seed << 13;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return seed >>> 0;
}

function randomBelow(n) {
  return random32() % n;
}

function randomBytes(length) {
  const bytes = new Uint8Array(length);
  for (let i = 0; i < length; i++) bytes[i] = random32() & 0xff;
  return bytes;
}

const hex = (bytes) => Buffer.from(bytes).toString("hex");
const nodeDigest = (algorithm, bytes) => crypto.createHash(algorithm).update(bytes).digest("hex");

/** Pieces of `length` in random sizes (some 0, some past a block), as [start, end) pairs. */
function randomPieces(length) {
  const pieces = [];
  for (let at = 0; at < length; ) {
    const size = Math.min(length - at, randomBelow(4) === 0 ? randomBelow(8) : randomBelow(300));
    pieces.push([at, at + size]);
    at += size;
  }
  return pieces;
}

// ---- References

/** CRC-32 a bit at a time, straight from the definition (reflected 0xEDB88320, preset and final ~). */
function crc32Bitwise(bytes, crc = 0) {
  let r = ~crc;
  for (const byte of bytes) {
    r ^= byte;
    for (let k = 0; k < 8; k++) r = r & 1 ? (r >>> 1) ^ 0xedb88320 : r >>> 1;
  }
  return ~r >>> 0;
}

/**
 * crc32Zeros by polynomials over GF(2) as BigInts, in the usual bit order (bit k is x^k): the register
 * (the CRC inverted) reflected, times x^(8·count) modulo the generator, reflected back and inverted.
 */
function crc32ZerosReference(crc, count) {
  const generator = 0x104c11db7n;
  const reduce = (value) => {
    for (let bit = BigInt(value.toString(2).length - 1); bit >= 32n; bit--) if ((value >> bit) & 1n) value ^= generator << (bit - 32n);
    return value;
  };
  const multiply = (a, b) => {
    let product = 0n;
    for (let bit = 0n; b >> bit; bit++) if ((b >> bit) & 1n) product ^= a << bit;
    return reduce(product);
  };
  const reflect = (value) => BigInt(Number.parseInt(value.toString(2).padStart(32, "0").split("").reverse().join(""), 2));
  let power = 1n;
  for (let base = 2n, exponent = BigInt(count) * 8n; exponent > 0n; exponent >>= 1n, base = multiply(base, base))
    if (exponent & 1n) power = multiply(power, base);
  return ~Number(reflect(multiply(reflect(BigInt(~crc >>> 0)), power))) >>> 0;
}

const crc32Reference = typeof zlib.crc32 === "function" ? (bytes) => zlib.crc32(bytes) : (bytes) => crc32Bitwise(bytes);

/** GF(2^16) of PAR 2.0 by log/antilog tables: 2 generates the multiplicative group modulo 0x1100B. */
function galoisField(polynomial) {
  const exp = new Uint16Array(2 * 65535);
  const log = new Uint16Array(65536);
  for (let i = 0, x = 1; i < 65535; i++) {
    exp[i] = exp[i + 65535] = x;
    log[x] = i;
    x <<= 1;
    if (x & 0x10000) x ^= polynomial;
  }
  return (a, b) => (a === 0 || b === 0 ? 0 : exp[log[a] + log[b]]);
}

const gfMultiply = galoisField(0x1100b);

/** target ^= c · source, a word at a time; an odd length ends with a word whose high byte is 0. */
function mulAddReference(c, source, target, multiply = gfMultiply) {
  for (let at = 0; at < source.length; at += 2) {
    const word = source[at] | (at + 1 < source.length ? source[at + 1] << 8 : 0);
    const product = multiply(c, word);
    target[at] ^= product & 0xff;
    target[at + 1] ^= product >> 8;
  }
}

// ---- The implementations, and where their inputs live

const wasm = createWasmKernels();
const javascript = createJsKernels();
const implementations = [wasm, javascript];

/**
 * `bytes` as `kernels` will read them from `place`: "array" (an ordinary Uint8Array, `shift` bytes into a
 * bigger one, so that its offset is unaligned), or "memory" (a buffer of the kernels' own, same shift).
 */
function placed(kernels, bytes, place, shift) {
  if (place === "memory") {
    const buffer = kernels.allocate(bytes.length + shift);
    buffer.bytes.set(bytes, shift);
    // Taken again at each use: a later allocation may grow the memory, which detaches earlier views.
    return { get view() { return buffer.bytes.subarray(shift); }, free: () => buffer.free() };
  }
  const view = new Uint8Array(bytes.length + shift).subarray(shift);
  view.set(bytes);
  return { view, free() {} };
}

const PLACES = ["array", "memory"];
const BOUNDARY_LENGTHS = [
  ...Array.from({ length: 201 }, (_, i) => i),
  ...[4096, 16384, 65536].flatMap((n) => [n - 65, n - 64, n - 63, n - 17, n - 16, n - 15, n - 1, n, n + 1, n + 15, n + 16, n + 17, n + 55, n + 56, n + 63, n + 64, n + 65]),
  (1 << 20) + 3,
];
const big = randomBytes((1 << 20) + 64 + 3);

// ---- Known answers

const RFC1321_SUITE = [
  ["", "d41d8cd98f00b204e9800998ecf8427e"],
  ["a", "0cc175b9c0f1b6a831c399e269772661"],
  ["abc", "900150983cd24fb0d6963f7d28e17f72"],
  ["message digest", "f96b697d7cb7938d525a2f31aaf161d0"],
  ["abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b"],
  ["ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", "d174ab98d277d9f5a5611c2c9f419d9f"],
  ["12345678901234567890123456789012345678901234567890123456789012345678901234567890", "57edf4a22be3c955ac49da2e2107b67a"],
];
const FIPS180_VECTORS = [
  ["", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"],
  ["abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"],
  ["abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"],
  [
    "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
    "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1",
  ],
];
const ascii = (text) => new TextEncoder().encode(text);

for (const kernels of implementations) {
  const label = kernels.implementation;
  test(`${label}: MD5 of RFC 1321's suite`, () => {
    for (const [text, digest] of RFC1321_SUITE) check(hex(kernels.md5(ascii(text))) === digest, `MD5("${text}")`);
  });
  test(`${label}: SHA-256 of FIPS 180's examples, and of a million "a"`, () => {
    for (const [text, digest] of FIPS180_VECTORS) check(hex(kernels.sha256(ascii(text))) === digest, `SHA-256("${text}")`);
    const million = new kernels.Sha256();
    for (let i = 0; i < 1000; i++) million.update(ascii("a".repeat(1000)));
    check(hex(million.digest()) === "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0", "a million a");
  });
  test(`${label}: CRC-32 of "123456789" is 0xCBF43926`, () => {
    check(kernels.crc32Update(0, ascii("123456789")) === 0xcbf43926, "the check value");
  });
}

test("the references agree with each other: bit-at-a-time CRC-32 and zlib's", () => {
  for (const length of [0, 1, 7, 64, 1000]) check(crc32Bitwise(big.subarray(3, 3 + length)) === crc32Reference(big.subarray(3, 3 + length)), `length ${length}`);
});

test("the references agree with each other: polynomial zero extension and hashing zeros", () => {
  for (const count of [0, 1, 5, 64, 1000]) {
    const crc = crc32Reference(big.subarray(0, 10));
    const withZeros = new Uint8Array(10 + count);
    withZeros.set(big.subarray(0, 10));
    check(crc32ZerosReference(crc, count) === crc32Reference(withZeros), `${count} zeros`);
  }
});

test("the references agree with each other: GF(2^16) log/antilog and shift-and-add", () => {
  const shiftAndAdd = (a, b) => {
    let product = 0;
    for (let bit = 15; bit >= 0; bit--) {
      product <<= 1;
      if (product & 0x10000) product ^= 0x1100b;
      if ((b >> bit) & 1) product ^= a;
    }
    return product;
  };
  for (let i = 0; i < 20000; i++) {
    const a = random32() & 0xffff;
    const b = random32() & 0xffff;
    check(gfMultiply(a, b) === shiftAndAdd(a, b), `${a} · ${b}`);
  }
});

// ---- CRC-32

for (const kernels of implementations) {
  for (const place of PLACES) {
    const label = `${kernels.implementation}, ${place}`;
    test(`${label}: CRC-32 at every boundary length and offsets 0-3, against zlib`, () => {
      for (const length of BOUNDARY_LENGTHS) {
        for (const shift of length > 70000 ? [1] : [0, 1, 2, 3]) {
          const bytes = big.subarray(shift, shift + length);
          const input = placed(kernels, bytes, place, shift);
          check(kernels.crc32Update(0, input.view) === crc32Reference(bytes), `length ${length}, offset ${shift}`);
          input.free();
        }
      }
    });
    test(`${label}: CRC-32 in random pieces`, () => {
      for (const length of [0, 1, 15, 16, 17, 4099, 70001]) {
        const bytes = big.subarray(5, 5 + length);
        const input = placed(kernels, bytes, place, 5);
        let crc = 0;
        for (const [start, end] of randomPieces(length)) crc = kernels.crc32Update(crc, input.view.subarray(start, end));
        check(crc === crc32Reference(bytes), `length ${length}`);
        input.free();
      }
    });
  }
  test(`${kernels.implementation}: CRC-32 zero extension and combination`, () => {
    for (const count of [0, 1, 2, 3, 7, 8, 15, 16, 17, 63, 64, 65, 1000, 4096, 65537, 1 << 20]) {
      const prefix = big.subarray(0, randomBelow(100));
      const withZeros = new Uint8Array(prefix.length + count);
      withZeros.set(prefix);
      check(kernels.crc32Zeros(crc32Reference(prefix), count) === crc32Reference(withZeros), `${count} zeros after ${prefix.length} bytes`);
      const a = big.subarray(0, randomBelow(3000));
      const b = big.subarray(7, 7 + count);
      const both = new Uint8Array(a.length + b.length);
      both.set(a);
      both.set(b, a.length);
      check(kernels.crc32Combine(crc32Reference(a), crc32Reference(b), b.length) === crc32Reference(both), `combine ${a.length} + ${b.length}`);
    }
  });
  test(`${kernels.implementation}: CRC-32 zero extension by up to 2^52 bytes, against polynomial arithmetic`, () => {
    for (const count of [2 ** 32 - 1, 2 ** 32, 2 ** 32 + 5, 2 ** 40 + 12345, 2 ** 52 + 1, Number.MAX_SAFE_INTEGER]) {
      const crc = random32();
      check(kernels.crc32Zeros(crc, count) === crc32ZerosReference(crc, count), `${count} zeros`);
      check(kernels.crc32Combine(crc, 0x1234, count) === (crc32ZerosReference(crc, count) ^ crc32ZerosReference(0, count) ^ 0x1234) >>> 0, `combine with ${count} bytes`);
    }
  });
}

// ---- MD5 and SHA-256, one stream

const SINGLE_HASHES = [
  ["MD5", "md5", (kernels) => new kernels.Md5()],
  ["SHA-256", "sha256", (kernels) => new kernels.Sha256()],
];

for (const kernels of implementations) {
  for (const [name, algorithm, create] of SINGLE_HASHES) {
    for (const place of PLACES) {
      const label = `${kernels.implementation}, ${place}: ${name}`;
      test(`${label} at every boundary length and offsets 0-3, against node:crypto`, () => {
        for (const length of BOUNDARY_LENGTHS) {
          for (const shift of length > 70000 ? [3] : [0, 1, 2, 3]) {
            const bytes = big.subarray(shift, shift + length);
            const input = placed(kernels, bytes, place, shift);
            check(hex(create(kernels).update(input.view).digest()) === nodeDigest(algorithm, bytes), `length ${length}, offset ${shift}`);
            input.free();
          }
        }
      });
      test(`${label} in random pieces, cloned half-way`, () => {
        for (const length of [0, 1, 55, 56, 63, 64, 65, 119, 120, 4099, 70001]) {
          const bytes = big.subarray(1, 1 + length);
          const input = placed(kernels, bytes, place, 1);
          const hash = create(kernels);
          let copy = hash.clone();
          let copied = 0; // the bytes the copy holds
          for (const [start, end] of randomPieces(length)) {
            hash.update(input.view.subarray(start, end));
            if (copied === 0 && end >= length / 2) [copy, copied] = [hash.clone(), end];
          }
          check(hex(hash.digest()) === nodeDigest(algorithm, bytes), `length ${length}`);
          check(hex(copy.digest()) === nodeDigest(algorithm, bytes.subarray(0, copied)), `length ${length}, cloned after ${copied}`);
          input.free();
        }
      });
    }
    test(`${kernels.implementation}: ${name} of a clone goes on independently`, () => {
      const first = big.subarray(0, 100);
      const hash = create(kernels).update(first);
      const copy = hash.clone();
      hash.update(big.subarray(100, 300));
      copy.update(big.subarray(500, 777));
      const joined = (a, b) => Buffer.concat([a, b]);
      check(hex(hash.digest()) === nodeDigest(algorithm, joined(first, big.subarray(100, 300))), "the original");
      check(hex(copy.digest()) === nodeDigest(algorithm, joined(first, big.subarray(500, 777))), "the copy");
    });
    test(`${kernels.implementation}: ${name} updateZeros equals hashing zeros`, () => {
      for (const count of [0, 1, 63, 64, 65, 4095, 4096, 4097, 100000]) {
        const prefix = big.subarray(0, randomBelow(130));
        const hash = create(kernels).update(prefix).updateZeros(count);
        check(hex(hash.digest()) === nodeDigest(algorithm, Buffer.concat([prefix, new Uint8Array(count)])), `${count} zeros`);
      }
    });
    test(`${kernels.implementation}: ${name} refuses updates once spent, and non-bytes`, () => {
      const hash = create(kernels);
      hash.digest();
      throws(() => hash.update(new Uint8Array(1)), Error, "update after digest");
      throws(() => hash.digest(), Error, "a second digest");
      throws(() => create(kernels).update([1, 2, 3]), TypeError, "an Array");
      throws(() => create(kernels).updateZeros(-1), RangeError, "a negative count");
    });
    test(`${kernels.implementation}: ${name}'s saved state goes on in both implementations, and a bad state is refused`, () => {
      const Hash = name === "MD5" ? "Md5" : "Sha256";
      for (const length of [0, 1, 55, 63, 64, 65, 127, 128, 4099, 70001]) {
        const hash = create(kernels).update(big.subarray(0, length));
        const state = hash.saveState();
        check(state.length === (name === "MD5" ? 16 : 32) + 80, `a state of ${state.length} bytes`);
        for (const other of implementations) {
          const resumed = other[Hash].fromState(state).update(big.subarray(length, length + 333));
          check(hex(resumed.digest()) === nodeDigest(algorithm, big.subarray(0, length + 333)), `length ${length}, taken up by ${other.implementation}`);
        }
        check(hex(hash.update(big.subarray(length, length + 1)).digest()) === nodeDigest(algorithm, big.subarray(0, length + 1)), `length ${length}, the saved hash goes on`);
      }
      const state = create(kernels).update(big.subarray(0, 70)).saveState();
      throws(() => kernels[Hash].fromState(state.subarray(1)), RangeError, "a state a byte short");
      const skewed = state.slice();
      skewed[state.length - 72]++; // the buffered count no longer the length's remainder
      throws(() => kernels[Hash].fromState(skewed), RangeError, "a buffered count that disagrees with the length");
      throws(() => kernels[Hash].fromState([...state]), TypeError, "an Array");
      const spent = create(kernels);
      spent.digest();
      throws(() => spent.saveState(), Error, "the state of a spent hash");
    });
  }
}

// ---- MD5 lanes

for (const kernels of implementations) {
  test(`${kernels.implementation}: Md5Lanes of 1-4 different streams at every boundary length, against node:crypto`, () => {
    for (const length of BOUNDARY_LENGTHS) {
      const streams = 1 + (length % MD5_LANES);
      const places = Array.from({ length: streams }, (_, i) => PLACES[(length + i) % 2]);
      const inputs = places.map((place, i) => placed(kernels, big.subarray(i * 13 + 1, i * 13 + 1 + length), place, i));
      const digests = new kernels.Md5Lanes(streams).update(inputs.map((input) => input.view)).digest();
      check(digests.length === streams, "one digest a stream");
      for (let i = 0; i < streams; i++) check(hex(digests[i]) === nodeDigest("md5", big.subarray(i * 13 + 1, i * 13 + 1 + length)), `length ${length}, stream ${i}`);
      inputs.forEach((input) => input.free());
    }
  });
  test(`${kernels.implementation}: Md5Lanes in random pieces, with zeros and a clone`, () => {
    for (const length of [0, 1, 63, 64, 65, 4097, 70001]) {
      const data = Array.from({ length: MD5_LANES }, (_, i) => big.subarray(i * 1000 + i, i * 1000 + i + length));
      const inputs = data.map((bytes, i) => placed(kernels, bytes, PLACES[i % 2], i));
      const lanes = new kernels.Md5Lanes();
      for (const [start, end] of randomPieces(length)) lanes.update(inputs.map((input) => input.view.subarray(start, end)));
      const copy = lanes.clone();
      lanes.updateZeros(length % 200);
      const digests = lanes.digest();
      const copies = copy.digest();
      for (let i = 0; i < MD5_LANES; i++) {
        check(hex(digests[i]) === nodeDigest("md5", Buffer.concat([data[i], new Uint8Array(length % 200)])), `length ${length}, stream ${i}`);
        check(hex(copies[i]) === nodeDigest("md5", data[i]), `length ${length}, stream ${i}'s clone`);
      }
      inputs.forEach((input) => input.free());
    }
  });
  test(`${kernels.implementation}: Md5Lanes refuses unequal streams, a wrong count, and updates once spent`, () => {
    throws(() => new kernels.Md5Lanes(2).update([new Uint8Array(3), new Uint8Array(4)]), RangeError, "unequal lengths");
    throws(() => new kernels.Md5Lanes(2).update([new Uint8Array(3)]), RangeError, "one array for two streams");
    throws(() => new kernels.Md5Lanes(0), RangeError, "no stream");
    throws(() => new kernels.Md5Lanes(MD5_LANES + 1), RangeError, "too many streams");
    const lanes = new kernels.Md5Lanes(1);
    lanes.digest();
    throws(() => lanes.update([new Uint8Array(1)]), Error, "update after digest");
  });
}

// ---- GF(2^16) multiply-add

const SPECIAL_COEFFICIENTS = [0, 1, 2, 0x8000, 0xffff, 0x100b];
const GUARD = 9; // bytes past each target's region that must stay as they were

/** gf16MulAdd of `source` into targets.length targets, against the reference, in the places given. */
function checkMulAdd(kernels, coefficients, source, targetPlaces, sourcePlace, shift) {
  const extent = source.length + (source.length & 1);
  const initial = targetPlaces.map(() => randomBytes(extent + GUARD));
  const targets = targetPlaces.map((place, i) => placed(kernels, initial[i], place, (shift + i) & 3));
  const input = placed(kernels, source, sourcePlace, shift);
  kernels.gf16MulAdd(coefficients, input.view, targets.map((target) => target.view.subarray(0, extent)));
  for (let i = 0; i < targets.length; i++) {
    const expected = initial[i].slice();
    mulAddReference(coefficients[i], source, expected);
    const actual = targets[i].view;
    for (let at = 0; at < expected.length; at++)
      if (actual[at] !== expected[at])
        throw new Error(`length ${source.length}, target ${i} (c = ${coefficients[i]}), byte ${at}: ${actual[at]} ≠ ${expected[at]}`);
  }
  targets.forEach((target) => target.free());
  input.free();
}

for (const kernels of implementations) {
  for (const place of PLACES) {
    const label = `${kernels.implementation}, ${place}`;
    test(`${label}: GF(2^16) multiply-add at every boundary length and offsets, special and random coefficients`, () => {
      for (const length of BOUNDARY_LENGTHS) {
        const c = length < SPECIAL_COEFFICIENTS.length ? SPECIAL_COEFFICIENTS[length] : random32() & 0xffff;
        const shift = length & 3;
        checkMulAdd(kernels, [c], big.subarray(shift, shift + length), [place], place, shift);
      }
    });
  }
  test(`${kernels.implementation}: GF(2^16) multiply-add into many targets (past a call's 32), mixed places`, () => {
    for (const count of [2, 5, 31, 32, 33, 70]) {
      for (const length of [0, 1, 31, 32, 33, 95, 4096 + 7, 65536 + 2]) {
        const coefficients = Array.from({ length: count }, (_, i) => (i < SPECIAL_COEFFICIENTS.length ? SPECIAL_COEFFICIENTS[i] : random32() & 0xffff));
        const places = Array.from({ length: count }, (_, i) => PLACES[(i + length) % 2]);
        checkMulAdd(kernels, coefficients, big.subarray(1, 1 + length), places, PLACES[count % 2], count & 3);
      }
    }
  });
  test(`${kernels.implementation}: GF(2^16) multiply-add of 1 MiB + 3 into 3 targets, odd length`, () => {
    checkMulAdd(kernels, [random32() & 0xffff, 1, 0x8001], big.subarray(2, 2 + (1 << 20) + 3), ["memory", "array", "memory"], "array", 2);
  });
  test(`${kernels.implementation}: GF(2^16) multiply-add, c · (d · s) = (c · d) · s`, () => {
    const source = big.subarray(0, 4000);
    for (let i = 0; i < 20; i++) {
      const c = random32() & 0xffff;
      const d = random32() & 0xffff;
      const once = new Uint8Array(4000);
      kernels.gf16MulAdd([d], source, [once]);
      const twice = new Uint8Array(4000);
      kernels.gf16MulAdd([c], once, [twice]);
      const direct = new Uint8Array(4000);
      kernels.gf16MulAdd([gfMultiply(c, d)], source, [direct]);
      check(hex(twice) === hex(direct), `c = ${c}, d = ${d}`);
    }
  });
  test(`${kernels.implementation}: GF(2^16) multiply-add refuses bad arguments`, () => {
    throws(() => kernels.gf16MulAdd([1, 2], new Uint8Array(4), [new Uint8Array(4)]), RangeError, "two coefficients, one target");
    throws(() => kernels.gf16MulAdd([65536], new Uint8Array(4), [new Uint8Array(4)]), RangeError, "a coefficient past 16 bits");
    throws(() => kernels.gf16MulAdd([1.5], new Uint8Array(4), [new Uint8Array(4)]), RangeError, "a fractional coefficient");
    throws(() => kernels.gf16MulAdd([3], new Uint8Array(5), [new Uint8Array(5)]), RangeError, "an odd length's target without its last byte");
    throws(() => kernels.gf16MulAdd([3], new Uint8Array(8), [new Uint16Array(4)]), TypeError, "a Uint16Array target");
  });
}

// ---- The two implementations against each other

test("wasm and JavaScript agree on every kernel over 3 MiB of random pieces", () => {
  const length = 3 << 20;
  const data = randomBytes(length + 1);
  const inMemory = wasm.allocate(length + 1);
  inMemory.bytes.set(data);
  const quarter = length / 4;
  const pieces = randomPiecesOfSize(quarter, 1 << 18);
  const results = implementations.map((kernels, n) => {
    const bytes = n === 0 ? inMemory.bytes.subarray(1) : data.subarray(1);
    const md5 = new kernels.Md5();
    const sha = new kernels.Sha256();
    const lanes = new kernels.Md5Lanes();
    let crc = 0;
    for (const [start, end] of pieces) {
      for (let q = 0; q < 4; q++) {
        const piece = bytes.subarray(q * quarter + start, q * quarter + end);
        crc = kernels.crc32Update(crc, piece);
        md5.update(piece);
        sha.update(piece);
      }
      lanes.update([0, 1, 2, 3].map((q) => bytes.subarray(q * quarter + start, q * quarter + end)));
    }
    const target = new Uint8Array(length);
    kernels.gf16MulAdd([0x1234], bytes.subarray(0, length - 1), [target]);
    return [crc, hex(md5.digest()), hex(sha.digest()), ...lanes.digest().map(hex), hex(crypto.createHash("md5").update(target).digest())].join(" ");
  });
  inMemory.free();
  check(results[0] === results[1], `wasm ${results[0]}\njs   ${results[1]}`);
});

function randomPiecesOfSize(length, most) {
  const pieces = [];
  for (let at = 0; at < length; ) {
    const size = Math.min(length - at, randomBelow(most));
    pieces.push([at, at + size]);
    at += size;
  }
  return pieces;
}

// ---- The wasm's memory

test("wasm: buffers are distinct, aligned, reused after free, kept when the memory grows", () => {
  const kernels = createWasmKernels();
  const a = kernels.allocate(1000);
  const b = kernels.allocate(3);
  a.bytes.fill(0xaa);
  b.bytes.fill(0xbb);
  check(a.bytes.byteOffset + 1000 <= b.bytes.byteOffset, "b after a, not overlapping");
  check(a.bytes.byteOffset % 16 === 0 && b.bytes.byteOffset % 16 === 0, "aligned to 16");
  const bOffset = b.bytes.byteOffset;
  b.free();
  const c = kernels.allocate(16);
  check(c.bytes.byteOffset === bOffset, "the freed place is reused");
  const huge = kernels.allocate(64 << 20);
  const grown = kernels.memoryBytes();
  check(grown >= huge.bytes.byteOffset + (64 << 20), "the memory grew to hold it");
  check(a.bytes.every((x) => x === 0xaa) && a.bytes.length === 1000, "a's bytes survive the growth");
  check(kernels.isInMemory(a.bytes) && !kernels.isInMemory(new Uint8Array(4)), "isInMemory");
  huge.free();
  const again = kernels.allocate(32 << 20);
  check(kernels.memoryBytes() === grown, "a freed place is reused before the memory grows");
  for (const buffer of [a, c, again]) buffer.free();
  throws(() => a.bytes, Error, "a freed buffer's bytes");
});

test("wasm: the staging area and the buffers handed out do not overlap", () => {
  const kernels = createWasmKernels();
  const buffer = kernels.allocate(3 << 20);
  const data = randomBytes(3 << 20);
  buffer.bytes.set(data);
  kernels.crc32Update(0, randomBytes(3 << 20)); // staged through the staging area
  new kernels.Md5Lanes().update([0, 1, 2, 3].map(() => randomBytes(1 << 20)));
  kernels.gf16MulAdd(Array(40).fill(7), randomBytes(1 << 16), Array.from({ length: 40 }, () => new Uint8Array(1 << 16)));
  check(hex(buffer.bytes) === hex(data), "the buffer's bytes are as they were put");
});

test("wasm: after a free, neighbouring holes merge and hold a bigger buffer", () => {
  const kernels = createWasmKernels();
  const parts = [kernels.allocate(4096), kernels.allocate(4096), kernels.allocate(4096)];
  const first = parts[0].bytes.byteOffset;
  const before = kernels.memoryBytes();
  parts[1].free();
  parts[0].free();
  parts[2].free();
  const whole = kernels.allocate(3 * 4096);
  check(whole.bytes.byteOffset === first && kernels.memoryBytes() === before, "the three holes are one again");
});

test("wasm: a kernel's view taken before the memory grew is refused, not read stale", () => {
  const kernels = createWasmKernels();
  const buffer = kernels.allocate(100);
  const stale = buffer.bytes;
  kernels.allocate(16 << 20);
  throws(() => kernels.crc32Update(0, stale), TypeError, "a view of the memory before it grew");
  check(kernels.crc32Update(0, buffer.bytes) === crc32Reference(new Uint8Array(100)), "the view taken again");
});

// ---- Which kernels createKernels gives

test("createKernels: the wasm where it instantiates, JavaScript when asked or when instantiation is refused", () => {
  check(createKernels().implementation === "wasm-simd128", "by default");
  check(createKernels({ javascript: true }).implementation === "javascript", "asked for JavaScript");
  const instance = WebAssembly.Instance;
  // WebKit compiles the module under a policy without 'wasm-unsafe-eval' and refuses only here.
  WebAssembly.Instance = function () {
    throw new WebAssembly.CompileError("refused by the page's Content-Security-Policy");
  };
  try {
    check(createKernels().implementation === "javascript", "instantiation refused");
  } finally {
    WebAssembly.Instance = instance;
  }
});

// ---- These checks see a broken kernel

test("the GF(2^16) check fails a kernel with another polynomial", () => {
  const wrongMultiply = galoisField(0x1002d); // another primitive polynomial of degree 16
  const broken = {
    allocate: (n) => javascript.allocate(n),
    gf16MulAdd: (coefficients, source, targets) => targets.forEach((t, i) => mulAddReference(coefficients[i], source, t, wrongMultiply)),
  };
  throws(() => checkMulAdd(broken, [0x1234], big.subarray(0, 100), ["array"], "array", 0), Error, "a wrong field");
});

test("the hash checks fail a hash that drops the buffered tail", () => {
  const broken = createJsKernels();
  const digest = (bytes) => new broken.Md5().update(bytes.subarray(0, bytes.length & ~63)).digest();
  check(hex(digest(big.subarray(0, 64))) === nodeDigest("md5", big.subarray(0, 64)), "whole blocks agree");
  check(hex(digest(big.subarray(0, 65))) !== nodeDigest("md5", big.subarray(0, 65)), "a dropped byte is seen");
});

console.log(`wasm-kernels: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
