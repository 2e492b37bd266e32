// One file read once for several tasks that read the same bytes at the same time (the survey of a backup
// against its recovery sets: one worker computes the whole file's MD5 while others check its slices). Reading
// a file costs a browser about as much as hashing it (Benchmarks/results.md, issue 36), so each block is read
// from the file once, kept while a reader may still ask for it, and every reader gets its own copy of what it
// asks for (a worker is handed it, moved). A reader that runs ahead of the slowest by more than `ahead`
// bytes waits for it, so the blocks kept stay few.

import { giveBack } from "./00-bytes.mjs";
import { GoshuinError } from "./01-errors.mjs";

/** Reads of `source` shared among readers; `options`: { blockSize, ahead, readAhead } in bytes. */
export class SharedReads {
  constructor(source, options) {
    this.source = source;
    this.size = source.size;
    this.blockSize = options.blockSize;
    this.ahead = Math.max(options.ahead, 2 * this.blockSize);
    this.readAhead = options.readAhead; // bytes read before a reader asks for them
    this.blocks = new Map(); // block index → its entry (`block`)
    this.readers = new Set();
    this.waiting = []; // reads held back until the slowest reader moves: { until, resume }
    this.lowest = 0; // the first byte an open reader may still ask for
    this.closed = false;
  }

  /**
   * A reader that asks for bytes at increasing offsets: { read(offset, length), close() }. It holds back the
   * freeing of blocks from its first read on (or from `from`).
   */
  reader(from) {
    var shared = this;
    var reader = {
      position: from,
      read: function (offset, length) {
        return shared.read(reader, offset, length);
      },
      close: function () {
        shared.readers.delete(reader);
        shared.moved();
      },
    };
    this.readers.add(reader);
    this.moved();
    return reader;
  }

  async read(reader, offset, length) {
    if (offset < reader.position) throw new GoshuinError("internal", "a shared read went back");
    reader.position = offset;
    this.moved();
    if (offset + length > this.lowest + this.ahead && !this.closed) {
      var shared = this;
      await new Promise(function (resume) {
        shared.waiting.push({ until: offset + length - shared.ahead, resume: resume });
      });
    }
    if (this.closed) throw new GoshuinError("interrupted", "stopped");
    var bytes = new Uint8Array(length);
    var first = Math.floor(offset / this.blockSize);
    var last = Math.floor((offset + length - 1) / this.blockSize);
    // The blocks after these read while the readers work, as far as the slowest lets them.
    for (var ahead = last + 1; ahead <= last + this.readAhead / this.blockSize; ahead++)
      if (ahead * this.blockSize < this.size && (ahead + 1) * this.blockSize <= this.lowest + this.ahead) this.block(ahead);
    for (var b = first; b <= last && length > 0; b++) {
      var entry = this.block(b);
      entry.users++;
      try {
        var block = await entry.bytes;
        if (this.closed) throw new GoshuinError("interrupted", "stopped");
        var start = b * this.blockSize;
        var from = Math.max(offset, start);
        var to = Math.min(offset + length, start + block.length);
        bytes.set(block.subarray(from - start, to - start), from - offset);
      } finally {
        entry.users--;
        if (entry.dropped) release(entry);
      }
    }
    return bytes;
  }

  /**
   * Block `index`: { bytes (a promise), users (reads copying from it), dropped }, kept while a reader may
   * ask for it, else read again for the one who asks and dropped after.
   */
  block(index) {
    var start = index * this.blockSize;
    var kept = this.blocks.get(index);
    if (kept) return kept;
    var entry = { bytes: this.source.read(start, Math.min(this.blockSize, this.size - start)), users: 0, dropped: false };
    entry.bytes.catch(function () {});
    if (start + this.blockSize > this.lowest && !this.closed) this.blocks.set(index, entry);
    else entry.dropped = true;
    return entry;
  }

  /** After a reader moved, opened or closed: the blocks no one asks for again freed, the reads held back let go. */
  moved() {
    var lowest = Infinity;
    this.readers.forEach(function (reader) {
      lowest = Math.min(lowest, reader.position);
    });
    this.lowest = lowest; // Infinity with no reader open: nothing is kept
    var blockSize = this.blockSize;
    var shared = this;
    this.blocks.forEach(function (entry, index) {
      if ((index + 1) * blockSize > lowest && !shared.closed) return;
      shared.blocks.delete(index);
      entry.dropped = true;
      release(entry);
    });
    this.waiting = this.waiting.filter(function (held) {
      if (held.until > lowest && !shared.closed) return true;
      held.resume();
      return false;
    });
  }

  /** Frees every block; the reads held back end with `interrupted`. */
  close() {
    this.closed = true;
    this.moved();
  }
}

/**
 * A dropped block's memory given back once no read copies from it, at once where the engine can
 * (ArrayBuffer.prototype.transfer): Firefox ESR otherwise kept gigabytes of them until a collection.
 */
function release(entry) {
  if (entry.users > 0 || entry.released) return;
  entry.released = true;
  entry.bytes.then(giveBack, function () {});
}
