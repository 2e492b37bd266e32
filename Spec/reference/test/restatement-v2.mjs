// An independent restatement of the version 2 reading rules (container-v2.md §7, §8), for the fuzz loop.
// Written from the text and the spec, not from goshuin.mjs: it imports nothing from the
// reference, uses node's hkdfSync (the reference writes HKDF out over HMAC) and computes the layout
// with plain subtraction loops where the reference divides. Returns
//   { code: 'success', plaintext } or { code, chunkIndex?, released }   (released: the in-order prefix)
// or { code: 'v1' } for a file whose version byte is 1 (not restated here).

import crypto from 'node:crypto';

const toBig = (n) => BigInt(n);

export function restatedOpenV2(file, passphrase) {
  const size = toBig(file.length);
  const none = Buffer.alloc(0);
  // (1) at least 45 bytes
  if (size < 45n) return { code: 'short_header', released: none };
  // (2) magic
  if (file.toString('latin1', 0, 4) !== 'GSHN') return { code: 'bad_magic', released: none };
  // (3) version: 1 is another format, 2 goes on, anything else is unsupported
  const version = file[4];
  if (version === 1) return { code: 'v1' };
  if (version !== 2) return { code: 'unsupported_version', released: none };
  // (4) the whole 77-byte header
  if (size < 77n) return { code: 'short_header', released: none };
  const iterations = file.readUInt32BE(5);
  const kdfSalt = file.subarray(9, 25);
  const payloadSalt = file.subarray(25, 41);
  const chunkSize = file.readUInt32BE(41);
  const mac = file.subarray(45, 77);
  // (5), (6) bounds
  if (iterations < 1000 || iterations > 2000000) return { code: 'iterations_out_of_range', released: none };
  if (chunkSize < 1024 || chunkSize > 67108864) return { code: 'chunk_size_out_of_range', released: none };
  // (7) records: every record but the last is exactly S bytes, the last is what remains (fewer than S)
  const S = toBig(chunkSize) + 16n;
  let remaining = size - 77n;
  const lengths = [];
  while (remaining >= S) { lengths.push(S); remaining -= S; }
  lengths.push(remaining);
  if (toBig(lengths.length) > 2n ** 32n) return { code: 'too_many_chunks', released: none };
  // (8) the last record holds at least a tag
  if (remaining < 16n) return { code: 'truncated', released: none };
  // keys
  const passwordKey = crypto.pbkdf2Sync(passphrase, kdfSalt, iterations, 32, 'sha256');
  const headerKey = Buffer.from(crypto.hkdfSync('sha256', passwordKey, payloadSalt, Buffer.from('goshuin/v2/header-mac'), 32));
  const payloadKey = Buffer.from(crypto.hkdfSync('sha256', passwordKey, payloadSalt, Buffer.from('goshuin/v2/payload'), 32));
  // (9) the MAC over bytes 0 … 44
  const expected = crypto.createHmac('sha256', headerKey).update(file.subarray(0, 45)).digest();
  if (!crypto.timingSafeEqual(expected, mac)) return { code: 'auth_failed', released: none };
  // (10) records in order; nonce 00×7 ‖ u32be(i) ‖ f
  const aad = file.subarray(0, 77);
  const released = [];
  let offset = 77;
  for (let i = 0; i < lengths.length; i++) {
    const record = file.subarray(offset, offset + Number(lengths[i]));
    offset += Number(lengths[i]);
    const nonce = Buffer.alloc(12);
    nonce.writeUInt32BE(i, 7);
    nonce[11] = i === lengths.length - 1 ? 1 : 0;
    const decipher = crypto.createDecipheriv('aes-256-gcm', payloadKey, nonce, { authTagLength: 16 });
    decipher.setAAD(aad);
    decipher.setAuthTag(record.subarray(record.length - 16));
    const plaintext = decipher.update(record.subarray(0, record.length - 16));
    try {
      decipher.final();
    } catch {
      return { code: 'chunk_damaged', chunkIndex: i, released: Buffer.concat(released) };
    }
    if (i < lengths.length - 1 && plaintext.length !== chunkSize) throw new Error('restatement: a non-final record with a short plaintext');
    released.push(plaintext);
  }
  if (offset !== file.length) throw new Error('restatement: bytes left after the last record');
  return { code: 'success', plaintext: Buffer.concat(released) };
}
