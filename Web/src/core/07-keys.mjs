// The keys, by WebCrypto: K_pw by PBKDF2-HMAC-SHA256 of the passphrase (with the progress WebCrypto does not
// give, estimated), the key of version 1's chunks; in version 2, K_header and K_payload by HKDF-SHA256
// (container-v2.md §4) and the header MAC (check 9) verified before any record is read.

import { utf8Bytes } from "./00-bytes.mjs";
import { GoshuinError } from "./01-errors.mjs";

var MAC_INPUT_SIZE = 45; // v2 §2: the MAC covers header bytes 0 … 44
var INFO_HEADER_MAC = utf8Bytes("goshuin/v2/header-mac"); // v2 §4: ASCII, no terminator, no length
var INFO_PAYLOAD = utf8Bytes("goshuin/v2/payload");

export function now() {
  return typeof performance !== "undefined" ? performance.now() : Date.now();
}

export async function pbkdf2(passphraseBytes, salt, iterations) {
  var base = await crypto.subtle.importKey("raw", passphraseBytes, "PBKDF2", false, ["deriveBits"]);
  var bits = await crypto.subtle.deriveBits({ name: "PBKDF2", hash: "SHA-256", salt: salt, iterations: iterations }, base, 256);
  return new Uint8Array(bits);
}

/** HKDF-SHA256 (RFC 5869, extract then expand) by WebCrypto: `length` bytes. An empty salt is HashLen zeros. */
export async function hkdfSha256(ikm, salt, info, length) {
  var base = await crypto.subtle.importKey("raw", ikm, "HKDF", false, ["deriveBits"]);
  var bits = await crypto.subtle.deriveBits({ name: "HKDF", hash: "SHA-256", salt: salt, info: info }, base, length * 8);
  return new Uint8Array(bits);
}

/**
 * HMAC-SHA256 by WebCrypto (for the tests' RFC 5869 cases: PRK = HMAC(salt, IKM)). WebCrypto refuses an
 * empty HMAC key; HMAC pads a short key with zeros to its block, so the empty key is 32 zero bytes.
 */
export async function hmacSha256(key, message) {
  var raw = key.length === 0 ? new Uint8Array(32) : key;
  var imported = await crypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return new Uint8Array(await crypto.subtle.sign("HMAC", imported, message));
}

/** Version 2's two keys from K_pw (§4): K_header and K_payload, HKDF-SHA256 with payloadSalt as its salt. */
export async function deriveKeysV2(passwordKey, payloadSalt) {
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
export async function deriveKey(passphraseBytes, header, onProgress) {
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
