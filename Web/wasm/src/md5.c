/* MD5 (RFC 1321), incremental: one stream, and four equally long streams at once, one per 32-bit lane of a
   v128. PAR 2.0 names every slice by its MD5 and all slices of a set have the same length, so the page can
   hash four slices in lockstep: one MD5 is a chain of dependent steps that leaves most of a core idle, and the
   four lanes do four chains' steps with the same instructions (the multi-buffer method of ISA-L and ParPar;
   the toolkit's Sources/CMD5Lanes does eight with AVX2).

   Both compression functions are RFC 1321 §3.4's 64 steps written once as a loop that clang unrolls fully:
   after unrolling, the round's function, the message word, the constant and the rotation of every step are
   constants, and the roles of A, B, C and D rotate through renamed registers. */

#include "block_hash.h"

/* T[i] = floor(|sin(i + 1)| · 2^32) */
static const uint32_t step_constant[64] = {
    0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501,
    0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821,
    0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
    0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a,
    0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70,
    0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
    0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
    0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391,
};

/* Each round's four rotations, step i using round_shift[i / 16][i % 4]. */
static const int round_shift[4][4] = {{7, 12, 17, 22}, {5, 9, 14, 20}, {4, 11, 16, 23}, {6, 10, 15, 21}};

/* The message word of step i: rounds 1-4 take words i, 5i + 1, 3i + 5 and 7i, modulo 16. */
static inline int message_word(int step) {
    static const int multiplier[4] = {1, 5, 3, 7}, offset[4] = {0, 1, 5, 0};
    return (multiplier[step / 16] * step + offset[step / 16]) % 16;
}

static const uint32_t initial_words[4] = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476};

/* ---- One stream ---- */

typedef struct {
    uint32_t words[4]; /* A, B, C, D */
    block_progress progress;
    uint8_t buffer[BLOCK_BYTES];
} md5_state;

static void compress_one(void *state_words, const uint8_t *const *blocks, size_t count) {
    uint32_t *words = state_words;
    const uint8_t *block = blocks[0];
    uint32_t a0 = words[0], b0 = words[1], c0 = words[2], d0 = words[3];
    for (; count > 0; count--, block += BLOCK_BYTES) {
        uint32_t x[16];
        for (int k = 0; k < 16; k++) x[k] = load32_le(block + 4 * k);
        uint32_t a = a0, b = b0, c = c0, d = d0;
#pragma clang loop unroll(full)
        for (int i = 0; i < 64; i++) {
            uint32_t f = i < 16 ? d ^ (b & (c ^ d)) /* F: b ? c : d */
                       : i < 32 ? c ^ (d & (b ^ c)) /* G: d ? b : c */
                       : i < 48 ? b ^ c ^ d         /* H */
                                : c ^ (b | ~d);     /* I */
            uint32_t sum = a + f + step_constant[i] + x[message_word(i)];
            a = d;
            d = c;
            c = b;
            b = b + rotate_left(sum, round_shift[i / 16][i % 4]);
        }
        a0 += a;
        b0 += b;
        c0 += c;
        d0 += d;
    }
    words[0] = a0;
    words[1] = b0;
    words[2] = c0;
    words[3] = d0;
}

EXPORT(md5_state_bytes) size_t md5_state_bytes(void) { return sizeof(md5_state); }

EXPORT(md5_init) void md5_init(md5_state *state) {
    for (int k = 0; k < 4; k++) state->words[k] = initial_words[k];
    state->progress = (block_progress){0};
}

EXPORT(md5_update) void md5_update(md5_state *state, const uint8_t *data, size_t length) {
    block_hash_update(state->words, &state->progress, state->buffer, 1, &data, length, compress_one);
}

EXPORT(md5_update_zeros) void md5_update_zeros(md5_state *state, double count) {
    block_hash_update_zeros(state->words, &state->progress, state->buffer, 1, count_of(count), compress_one);
}

EXPORT(md5_final) void md5_final(md5_state *state, uint8_t digest[16]) {
    block_hash_finish(state->words, &state->progress, state->buffer, 1, 0, compress_one);
    for (int k = 0; k < 4; k++) store32_le(digest + 4 * k, state->words[k]);
}

/* ---- Four streams, one per lane ---- */

#define LANES 4

typedef struct {
    v128_t words[4]; /* A, B, C, D, each holding that word of every lane */
    block_progress progress;
    uint8_t buffers[LANES][BLOCK_BYTES];
} md5_lanes_state;

/* Words 4q … 4q + 3 of the four lanes' blocks at `offset`, transposed: x[4q + j] holds word 4q + j of lane
   i in its element i. Each step is one 32- or 64-bit interleave (punpck* on x86). */
static inline void load_transposed(const uint8_t *const *lanes, size_t offset, v128_t x[16]) {
    for (int q = 0; q < 4; q++) {
        v128_t r0 = wasm_v128_load(lanes[0] + offset + 16 * q), r1 = wasm_v128_load(lanes[1] + offset + 16 * q);
        v128_t r2 = wasm_v128_load(lanes[2] + offset + 16 * q), r3 = wasm_v128_load(lanes[3] + offset + 16 * q);
        v128_t low01 = wasm_i32x4_shuffle(r0, r1, 0, 4, 1, 5), high01 = wasm_i32x4_shuffle(r0, r1, 2, 6, 3, 7);
        v128_t low23 = wasm_i32x4_shuffle(r2, r3, 0, 4, 1, 5), high23 = wasm_i32x4_shuffle(r2, r3, 2, 6, 3, 7);
        x[4 * q + 0] = wasm_i64x2_shuffle(low01, low23, 0, 2);
        x[4 * q + 1] = wasm_i64x2_shuffle(low01, low23, 1, 3);
        x[4 * q + 2] = wasm_i64x2_shuffle(high01, high23, 0, 2);
        x[4 * q + 3] = wasm_i64x2_shuffle(high01, high23, 1, 3);
    }
}

static inline v128_t rotate_lanes(v128_t value, int count) {
    return wasm_v128_or(wasm_i32x4_shl(value, count), wasm_u32x4_shr(value, 32 - count));
}

static void compress_lanes(void *state_words, const uint8_t *const *lanes, size_t count) {
    v128_t *words = state_words;
    v128_t a0 = words[0], b0 = words[1], c0 = words[2], d0 = words[3];
    for (size_t offset = 0; offset < count * BLOCK_BYTES; offset += BLOCK_BYTES) {
        v128_t x[16];
        load_transposed(lanes, offset, x);
        v128_t a = a0, b = b0, c = c0, d = d0;
#pragma clang loop unroll(full)
        for (int i = 0; i < 64; i++) {
            v128_t f = i < 16 ? wasm_v128_bitselect(c, d, b)
                     : i < 32 ? wasm_v128_bitselect(b, c, d)
                     : i < 48 ? wasm_v128_xor(wasm_v128_xor(b, c), d)
                              : wasm_v128_xor(c, wasm_v128_or(b, wasm_v128_not(d)));
            v128_t sum = wasm_i32x4_add(wasm_i32x4_add(a, f),
                                        wasm_i32x4_add(x[message_word(i)], wasm_i32x4_splat((int32_t)step_constant[i])));
            a = d;
            d = c;
            c = b;
            b = wasm_i32x4_add(b, rotate_lanes(sum, round_shift[i / 16][i % 4]));
        }
        a0 = wasm_i32x4_add(a0, a);
        b0 = wasm_i32x4_add(b0, b);
        c0 = wasm_i32x4_add(c0, c);
        d0 = wasm_i32x4_add(d0, d);
    }
    words[0] = a0;
    words[1] = b0;
    words[2] = c0;
    words[3] = d0;
}

EXPORT(md5_lanes_state_bytes) size_t md5_lanes_state_bytes(void) { return sizeof(md5_lanes_state); }

EXPORT(md5_lanes_init) void md5_lanes_init(md5_lanes_state *state) {
    for (int k = 0; k < 4; k++) state->words[k] = wasm_i32x4_splat((int32_t)initial_words[k]);
    state->progress = (block_progress){0};
}

/* `lanes` holds four addresses; a caller with fewer streams repeats one and ignores its extra digests. */
EXPORT(md5_lanes_update)
void md5_lanes_update(md5_lanes_state *state, const uint8_t *const *lanes, size_t length) {
    block_hash_update(state->words, &state->progress, state->buffers[0], LANES, lanes, length, compress_lanes);
}

EXPORT(md5_lanes_update_zeros) void md5_lanes_update_zeros(md5_lanes_state *state, double count) {
    block_hash_update_zeros(state->words, &state->progress, state->buffers[0], LANES, count_of(count), compress_lanes);
}

/* The four digests, lane after lane, into digests[64]. */
EXPORT(md5_lanes_final) void md5_lanes_final(md5_lanes_state *state, uint8_t digests[LANES * 16]) {
    block_hash_finish(state->words, &state->progress, state->buffers[0], LANES, 0, compress_lanes);
    uint32_t words[4][LANES];
    for (int k = 0; k < 4; k++) wasm_v128_store(words[k], state->words[k]);
    for (int lane = 0; lane < LANES; lane++)
        for (int k = 0; k < 4; k++) store32_le(digests + 16 * lane + 4 * k, words[k][lane]);
}
