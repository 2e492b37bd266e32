// Sources: what the readers read a file, or bytes in memory, through: `size` and `read(offset, length)`
// (and, for a decrypted payload in memory, `stream` as the container's reader gives it).

import { asGoshuinError, GoshuinError } from "./01-errors.mjs";

/**
 * A random-access source over a Blob or File: only the bytes asked for are read (`File.slice`). `blob` is
 * what a worker is sent to read the same file (a File is sent by reference, never copied).
 */
export function blobSource(blob) {
  return {
    blob: blob,
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
export function bytesSource(bytes) {
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
export function payloadSource(bytes, pieceSize) {
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
