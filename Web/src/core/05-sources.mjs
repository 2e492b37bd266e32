// Sources: what the readers read a file, or bytes in memory, through: `size` and `read(offset, length)`
// (and, for a decrypted payload in memory, `stream` as the container's reader gives it).

import { SpareBuffers } from "./00-bytes.mjs";
import { asGoshuinError, GoshuinError } from "./01-errors.mjs";

/**
 * With `streamed`, reads of at least STREAMED_READ bytes go through a byte stream of the Blob (`Blob.stream`,
 * read into our own buffer), kept open for the read that follows on where this one ends: reading 1 GiB so took
 * Chromium and Firefox ESR a quarter to a third less time than reads of slices (`File.slice().arrayBuffer()`,
 * Spec/decisions/0062). A stream covers STREAM_SPAN bytes at most from where it starts (or the read, when
 * longer). Only a worker's task streams, and it closes its sources when it ends: streams left open in the
 * page's thread (a reader that jumps, a file read in part) hung Chromium's reads of other files. Where a Blob's
 * stream is not a byte stream (WebKitGTK), every read is of a slice: its streams made the page slower there.
 */
var STREAMED_READ = 1048576;
var STREAM_SPAN = 33554432;

/**
 * The buffers streamed reads fill, used again by this thread's later reads (Spec/decisions/0068): each of a
 * worker's readers reads ahead a group of chunks at a time, and gives the group's bytes back once every chunk
 * in it is being decrypted (10-container.mjs). Each exactly the read's size: Chromium's byte stream of a Blob
 * now and then never answered a read into a view that ends before its buffer does.
 */
var spareReads = new SpareBuffers(4, 1);
var streamedBuffers = new WeakSet(); // only these are kept: a buffer no stream of this thread fills would only take room

/**
 * A random-access source over a Blob or File: only the bytes asked for are read. `blob` is what a worker is
 * sent to read the same file (a File is sent by reference, never copied). With `options.streamed`, reads of
 * STREAMED_READ bytes or more are served one after the other, in the order asked, from a byte stream of the Blob
 * where there is one, until `close()`.
 */
export function blobSource(blob, options) {
  var streams = !!(options && options.streamed) && typeof blob.stream === "function";
  var stream = null; // { reader, position, end }
  var queue = Promise.resolve();
  var fileChanged = function () {
    return new GoshuinError("io", "the file changed while it was open");
  };
  var sliceRead = async function (offset, length) {
    var buffer;
    try {
      buffer = await blob.slice(offset, offset + length).arrayBuffer();
    } catch (error) {
      // Nothing here aborts a read: Firefox ESR fails one of a file deleted since it was picked with AbortError.
      if (error && error.name === "AbortError") throw new GoshuinError("io", "the file could not be read (AbortError)");
      throw asGoshuinError(error);
    }
    if (buffer.byteLength !== length) throw fileChanged();
    return new Uint8Array(buffer);
  };
  var endStream = function () {
    if (stream === null) return;
    stream.reader.cancel().catch(function () {});
    stream = null;
  };
  /** A byte stream from `offset`, or null (and slices from now on) where the Blob has none. */
  var startStream = function (offset, length) {
    var end = Math.min(blob.size, offset + Math.max(length, STREAM_SPAN));
    var readable = blob.slice(offset, end).stream();
    try {
      return { reader: readable.getReader({ mode: "byob" }), position: offset, end: end };
    } catch (error) {
      readable.cancel().catch(function () {});
      streams = false;
      return null;
    }
  };
  /** One read of a stream: an engine that fails it as a TypeError (a file gone or changed) gives `io`, as a slice's NotReadableError does. */
  var readStep = function (reader, view) {
    return reader.read(view).catch(function (error) {
      if (error && error.name === "TypeError") throw new GoshuinError("io", "the file could not be read (" + String(error.message || error) + ")");
      throw error;
    });
  };
  var streamRead = async function (offset, length) {
    if (stream !== null && (stream.position !== offset || offset + length > stream.end)) endStream();
    if (stream === null) stream = startStream(offset, length);
    if (stream === null) return sliceRead(offset, length);
    var current = stream;
    var buffer = spareReads.take(length).buffer;
    var filled = 0;
    try {
      while (filled < length) {
        var step = await readStep(current.reader, new Uint8Array(buffer, filled, length - filled));
        if (step.done) throw fileChanged();
        buffer = step.value.buffer; // the view's buffer was moved into the read and comes back with it
        filled += step.value.length;
      }
    } catch (error) {
      if (stream === current) endStream();
      throw asGoshuinError(error);
    }
    current.position = offset + length;
    if (current.position >= current.end) endStream();
    streamedBuffers.add(buffer);
    return new Uint8Array(buffer, 0, length);
  };
  return {
    blob: blob,
    size: blob.size,
    /**
     * Takes back the bytes of a read that no one uses any more, for a later read of this thread to fill again
     * (only a stream reads into a buffer of ours).
     */
    keep: function (bytes) {
      if (streamedBuffers.has(bytes.buffer)) spareReads.keep(bytes);
    },
    /** Ends the stream kept open, if any (its reader's next long read starts another). */
    close: function () {
      queue = queue.then(endStream);
    },
    read: function (offset, length) {
      if (length < STREAMED_READ || !streams) return sliceRead(offset, length);
      var reading = queue.then(function () {
        return streamRead(offset, length);
      });
      queue = reading.catch(function () {});
      return reading;
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
