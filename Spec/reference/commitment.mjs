// Ciphertexts that AES-256-GCM accepts under two keys (Albertini, Duong, Gueron, Kölbl, Luykx, Schmieg,
// "How to Abuse and Fix Authenticated Encryption Without Key Commitment", USENIX Security 2022): the tag
// is E_K(J0) ⊕ GHASH_H(A, C) with H = E_K(0^128), and GHASH is linear in every ciphertext block, so one free
// 16-byte block of C solves the one equation tag(K1) = tag(K2) in GF(2^128). Used by the generator for
// the v1 file that opens under two passphrases and its v2 twin (vectors-v1.md §4, §5.6).

import crypto from 'node:crypto';

// --- GF(2^128) in GCM's bit order (NIST SP 800-38D §6.3): a block is a 128-bit big-endian integer whose
// most significant bit is the coefficient of x^0; the field polynomial is x^128 + x^7 + x^2 + x + 1.

const R = 0xe1n << 120n;

export function gfMultiply(x, y) {
  let z = 0n;
  let v = y;
  for (let i = 127n; i >= 0n; i--) {
    if ((x >> i) & 1n) z ^= v;
    v = v & 1n ? (v >> 1n) ^ R : v >> 1n;
  }
  return z;
}

export function gfPower(x, exponent) {
  let result = 1n << 127n; // the field's 1: the coefficient of x^0 is the most significant bit
  let base = x;
  for (let e = BigInt(exponent); e > 0n; e >>= 1n) {
    if (e & 1n) result = gfMultiply(result, base);
    base = gfMultiply(base, base);
  }
  return result;
}

// x^(2^128 − 2) = x^(−1) in a field of 2^128 elements.
export function gfInverse(x) {
  if (x === 0n) throw new RangeError('0 has no inverse');
  return gfPower(x, 2n ** 128n - 2n);
}

export const blockToInteger = (bytes) => BigInt(`0x${Buffer.from(bytes).toString('hex')}`);
export const integerToBlock = (value) => Buffer.from(value.toString(16).padStart(32, '0'), 'hex');

// --- GCM pieces, each from node:crypto's AES (the same primitive as the container)

function aesBlock(key, block) {
  const cipher = crypto.createCipheriv('aes-256-ecb', key, null);
  cipher.setAutoPadding(false);
  return Buffer.concat([cipher.update(block), cipher.final()]);
}

// The GCM keystream of a 96-bit nonce: the encryption of zeros (counter blocks from inc32(J0)).
export function gcmKeystream(key, nonce, length) {
  return crypto.createCipheriv('aes-256-gcm', key, nonce, { authTagLength: 16 }).update(Buffer.alloc(length));
}

// GHASH's input blocks: A and C, each padded with zeros to whole blocks, then u64be(8·|A|) ‖ u64be(8·|C|).
function ghashBlocks(aad, ciphertext) {
  const padded = (bytes) => Buffer.concat([bytes, Buffer.alloc((16 - (bytes.length % 16)) % 16)]);
  const lengths = Buffer.alloc(16);
  lengths.writeBigUInt64BE(BigInt(aad.length) * 8n, 0);
  lengths.writeBigUInt64BE(BigInt(ciphertext.length) * 8n, 8);
  const all = Buffer.concat([padded(aad), padded(ciphertext), lengths]);
  const blocks = [];
  for (let offset = 0; offset < all.length; offset += 16) blocks.push(blockToInteger(all.subarray(offset, offset + 16)));
  return blocks;
}

function ghash(h, blocks) {
  let y = 0n;
  for (const block of blocks) y = gfMultiply(y ^ block, h);
  return y;
}

// The GCM tag computed from the definition (checked against node's in `twoKeyCiphertext`).
export function gcmTag(key, nonce, aad, ciphertext) {
  const h = blockToInteger(aesBlock(key, Buffer.alloc(16)));
  const j0 = blockToInteger(aesBlock(key, Buffer.concat([nonce, Buffer.from([0, 0, 0, 1])])));
  return integerToBlock(j0 ^ ghash(h, ghashBlocks(aad, ciphertext)));
}

// Given `ciphertext` (a multiple of 16 bytes; block `freeBlock` is overwritten), returns { ciphertext,
// tag } such that (ciphertext, tag) authenticates under both (key1, nonce) and (key2, nonce) with `aad`.
// GHASH_H(A, C) = Σ X_j·H^(m−j+1) over its m blocks X_1 … X_m, so with block X_p free:
//   E_K1(J0) ⊕ G_1 ⊕ x·H1^e = E_K2(J0) ⊕ G_2 ⊕ x·H2^e,  e = m − p + 1,
// where G_k is GHASH_Hk with X_p = 0; hence x = (E_K1(J0) ⊕ E_K2(J0) ⊕ G_1 ⊕ G_2) · (H1^e ⊕ H2^e)^(−1).
export function twoKeyCiphertext({ key1, key2, nonce, aad, ciphertext, freeBlock }) {
  if (ciphertext.length % 16 !== 0 || 16 * (freeBlock + 1) > ciphertext.length) throw new RangeError('ciphertext must be whole blocks including the free one');
  const c = Buffer.from(ciphertext);
  Buffer.alloc(16).copy(c, 16 * freeBlock);
  const blocks = ghashBlocks(aad, c);
  const position = Math.ceil(aad.length / 16) + freeBlock + 1; // 1-based index of the free block among the m
  const exponent = BigInt(blocks.length - position + 1);
  const [h1, h2] = [key1, key2].map((key) => blockToInteger(aesBlock(key, Buffer.alloc(16))));
  const [e1, e2] = [key1, key2].map((key) => blockToInteger(aesBlock(key, Buffer.concat([nonce, Buffer.from([0, 0, 0, 1])]))));
  const difference = gfPower(h1, exponent) ^ gfPower(h2, exponent);
  const x = gfMultiply(e1 ^ e2 ^ ghash(h1, blocks) ^ ghash(h2, blocks), gfInverse(difference));
  integerToBlock(x).copy(c, 16 * freeBlock);
  const tag = gcmTag(key1, nonce, aad, c);
  if (!tag.equals(gcmTag(key2, nonce, aad, c))) throw new Error('the two tags differ: the algebra is wrong');
  // Node's own GCM must agree: the tag authenticates under both keys.
  for (const key of [key1, key2]) {
    const decipher = crypto.createDecipheriv('aes-256-gcm', key, nonce, { authTagLength: 16 });
    decipher.setAAD(aad);
    decipher.setAuthTag(tag);
    decipher.update(c);
    decipher.final(); // throws if it does not authenticate
  }
  return { ciphertext: c, tag };
}
