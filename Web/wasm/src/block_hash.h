/* What MD5 and SHA-256 share, for one stream or several equally long ones hashed in lockstep (md5.c's four
   lanes): the input taken in whole 64-byte blocks straight from the caller's memory, the rest kept in a
   buffer per stream until the next update, and the padding of RFC 1321 §3.1-3.2 and FIPS 180-4 §5.1.1
   (0x80, zeros, the length in bits as 8 bytes: little-endian for MD5, big-endian for SHA-256).

   A hash's state is one struct in linear memory: its chaining words (laid out as its compression function
   likes), a block_progress, and a 64-byte buffer per stream. JavaScript keeps a copy of the struct's bytes
   between calls, so the module holds no per-hash allocation. */

#ifndef GOSHUIN_WASM_BLOCK_HASH_H
#define GOSHUIN_WASM_BLOCK_HASH_H

#include "kernels.h"

#define BLOCK_BYTES 64
#define MAXIMUM_STREAMS 4

typedef struct {
    uint64_t length;   /* bytes taken by each stream so far */
    uint32_t buffered; /* of them, those waiting in each stream's buffer for a whole block */
    uint32_t unused;
} block_progress;

/* Folds `count` whole blocks of each stream, stream i's at blocks[i], into the chaining words. */
typedef void compress_function(void *words, const uint8_t *const *blocks, size_t count);

/* Takes `length` bytes of each of `streams` streams (stream i's at data[i]). */
static inline void block_hash_update(void *words, block_progress *progress, uint8_t *buffers, size_t streams,
                                     const uint8_t *const *data, size_t length, compress_function *compress) {
    const uint8_t *next[MAXIMUM_STREAMS];
    for (size_t i = 0; i < streams; i++) next[i] = data[i];
    progress->length += length;
    if (progress->buffered > 0) {
        size_t take = BLOCK_BYTES - progress->buffered;
        if (take > length) take = length;
        for (size_t i = 0; i < streams; i++) {
            __builtin_memcpy(buffers + i * BLOCK_BYTES + progress->buffered, next[i], take);
            next[i] += take;
        }
        progress->buffered += (uint32_t)take;
        length -= take;
        if (progress->buffered < BLOCK_BYTES) return;
        const uint8_t *full[MAXIMUM_STREAMS];
        for (size_t i = 0; i < streams; i++) full[i] = buffers + i * BLOCK_BYTES;
        compress(words, full, 1);
        progress->buffered = 0;
    }
    size_t whole = length / BLOCK_BYTES;
    if (whole > 0) {
        compress(words, next, whole);
        for (size_t i = 0; i < streams; i++) next[i] += whole * BLOCK_BYTES;
        length -= whole * BLOCK_BYTES;
    }
    for (size_t i = 0; i < streams; i++) __builtin_memcpy(buffers + i * BLOCK_BYTES, next[i], length);
    progress->buffered = (uint32_t)length;
}

/* As block_hash_update with `count` zero bytes in every stream (PAR 2.0 pads a file's last slice with zeros). */
static inline void block_hash_update_zeros(void *words, block_progress *progress, uint8_t *buffers, size_t streams,
                                           uint64_t count, compress_function *compress) {
    static const uint8_t zeros[4096];
    const uint8_t *data[MAXIMUM_STREAMS];
    for (size_t i = 0; i < streams; i++) data[i] = zeros;
    while (count > 0) {
        size_t take = count < sizeof zeros ? (size_t)count : sizeof zeros;
        block_hash_update(words, progress, buffers, streams, data, take, compress);
        count -= take;
    }
}

/* The padding and the length folded into every stream; the state is spent. */
static inline void block_hash_finish(void *words, block_progress *progress, uint8_t *buffers, size_t streams,
                                     int big_endian_length, compress_function *compress) {
    uint64_t bits = progress->length * 8;
    size_t at = progress->buffered;
    const uint8_t *blocks[MAXIMUM_STREAMS];
    for (size_t i = 0; i < streams; i++) blocks[i] = buffers + i * BLOCK_BYTES;
    for (size_t i = 0; i < streams; i++) buffers[i * BLOCK_BYTES + at] = 0x80;
    at++;
    if (at > BLOCK_BYTES - 8) { /* no room for the length: one more block */
        for (size_t i = 0; i < streams; i++) __builtin_memset(buffers + i * BLOCK_BYTES + at, 0, BLOCK_BYTES - at);
        compress(words, blocks, 1);
        at = 0;
    }
    for (size_t i = 0; i < streams; i++) {
        uint8_t *block = buffers + i * BLOCK_BYTES;
        __builtin_memset(block + at, 0, BLOCK_BYTES - 8 - at);
        for (int k = 0; k < 8; k++) block[big_endian_length ? 63 - k : 56 + k] = (uint8_t)(bits >> (8 * k));
    }
    compress(words, blocks, 1);
    progress->buffered = 0;
}

#endif
