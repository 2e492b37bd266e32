/* MD5 (RFC 1321), incremental: one stream, and four equally long streams at once, one per 32-bit lane of a
   v128. PAR 2.0 names every slice by its MD5 and all slices of a set have the same length, so the page can
   hash four slices in lockstep: one MD5 is a chain of dependent steps that leaves most of a core idle, and the
   four lanes do four chains' steps with the same instructions (the multi-buffer method of ISA-L and ParPar;
   the toolkit's Sources/CMD5Lanes does eight with AVX2).

   Both compression functions are RFC 1321 §3.4's 64 steps written once as a loop that clang unrolls fully:
   after unrolling, the round's function, the message word, the constant and the rotation of every step are
   constants, and the roles of A, B, C and D rotate through renamed registers. Each step adds first what
   does not depend on B, the word the step before made, so that only the round's function of B, an add, the
   rotation and an add wait for it; G is written as two disjoint halves added, (~d & c) + (d & b), so that
   one AND waits for B instead of three operations (one stream 18 %, four lanes 15 % faster in V8).

   Four lanes, not eight: two interleaved groups of four ran only 8 % faster in V8, which then runs out of
   vector registers, and the page reads four slices at a time more easily than eight. */

#include "block_hash.h"

/* T[i] = floor(|sin(i + 1)| · 2^32), once for both tables below. */
#define STEP_CONSTANTS(X) \
    X(0xd76aa478) X(0xe8c7b756) X(0x242070db) X(0xc1bdceee) \
    X(0xf57c0faf) X(0x4787c62a) X(0xa8304613) X(0xfd469501) \
    X(0x698098d8) X(0x8b44f7af) X(0xffff5bb1) X(0x895cd7be) \
    X(0x6b901122) X(0xfd987193) X(0xa679438e) X(0x49b40821) \
    X(0xf61e2562) X(0xc040b340) X(0x265e5a51) X(0xe9b6c7aa) \
    X(0xd62f105d) X(0x02441453) X(0xd8a1e681) X(0xe7d3fbc8) \
    X(0x21e1cde6) X(0xc33707d6) X(0xf4d50d87) X(0x455a14ed) \
    X(0xa9e3e905) X(0xfcefa3f8) X(0x676f02d9) X(0x8d2a4c8a) \
    X(0xfffa3942) X(0x8771f681) X(0x6d9d6122) X(0xfde5380c) \
    X(0xa4beea44) X(0x4bdecfa9) X(0xf6bb4b60) X(0xbebfbc70) \
    X(0x289b7ec6) X(0xeaa127fa) X(0xd4ef3085) X(0x04881d05) \
    X(0xd9d4d039) X(0xe6db99e5) X(0x1fa27cf8) X(0xc4ac5665) \
    X(0xf4292244) X(0x432aff97) X(0xab9423a7) X(0xfc93a039) \
    X(0x655b59c3) X(0x8f0ccc92) X(0xffeff47d) X(0x85845dd1) \
    X(0x6fa87e4f) X(0xfe2ce6e0) X(0xa3014314) X(0x4e0811a1) \
    X(0xf7537e82) X(0xbd3af235) X(0x2ad7d2bb) X(0xeb86d391)

#define SCALAR(t) t,
static const uint32_t step_constant[64] = {STEP_CONSTANTS(SCALAR)};

/* The same, each in all four lanes, for compress_lanes. Not const, and not static: clang then cannot fold
   the loads into v128.const, which V8 builds anew at every use (the lanes ran 14 percent slower so). */
#define SPLAT(t) {(int32_t)t, (int32_t)t, (int32_t)t, (int32_t)t},
v128_t md5_lane_constants[64] = {STEP_CONSTANTS(SPLAT)};

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
            /* What does not depend on b (the word the step before made) first, off the critical path. */
            uint32_t sum = a + step_constant[i] + x[message_word(i)];
            if (i < 16) sum += d ^ (b & (c ^ d));      /* F: b ? c : d */
            else if (i < 32) sum += (~d & c) + (d & b); /* G: d ? b : c, its two halves disjoint */
            else if (i < 48) sum += (c ^ d) ^ b;        /* H */
            else sum += c ^ (b | ~d);                   /* I */
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

/* SIMD128 has no rotation: two shifts and an OR. */
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
        for (int i = 0; i < 64; i++) { /* compress_one's step, in four lanes */
            v128_t sum = wasm_i32x4_add(a, wasm_i32x4_add(x[message_word(i)], md5_lane_constants[i]));
            if (i < 16) sum = wasm_i32x4_add(sum, wasm_v128_xor(d, wasm_v128_and(b, wasm_v128_xor(c, d))));
            else if (i < 32) sum = wasm_i32x4_add(wasm_i32x4_add(sum, wasm_v128_andnot(c, d)), wasm_v128_and(d, b));
            else if (i < 48) sum = wasm_i32x4_add(sum, wasm_v128_xor(wasm_v128_xor(c, d), b));
            else sum = wasm_i32x4_add(sum, wasm_v128_xor(c, wasm_v128_or(b, wasm_v128_not(d))));
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
