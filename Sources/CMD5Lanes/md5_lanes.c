/* MD5 of several streams at once: see include/md5_lanes.h. */

#include "md5_lanes.h"

#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define MD5_LANES_X86 1
#endif

/* RFC 1321's 64 steps, once: the round's function, the roles of the four words, the message word, the
   constant (floor(|sin(i + 1)| · 2^32)) and the rotation. */
#define MD5_STEPS(S)                                                                                                   \
    S(F, a, b, c, d, 0, 0xd76aa478, 7) S(F, d, a, b, c, 1, 0xe8c7b756, 12)                                             \
    S(F, c, d, a, b, 2, 0x242070db, 17) S(F, b, c, d, a, 3, 0xc1bdceee, 22)                                            \
    S(F, a, b, c, d, 4, 0xf57c0faf, 7) S(F, d, a, b, c, 5, 0x4787c62a, 12)                                             \
    S(F, c, d, a, b, 6, 0xa8304613, 17) S(F, b, c, d, a, 7, 0xfd469501, 22)                                            \
    S(F, a, b, c, d, 8, 0x698098d8, 7) S(F, d, a, b, c, 9, 0x8b44f7af, 12)                                             \
    S(F, c, d, a, b, 10, 0xffff5bb1, 17) S(F, b, c, d, a, 11, 0x895cd7be, 22)                                          \
    S(F, a, b, c, d, 12, 0x6b901122, 7) S(F, d, a, b, c, 13, 0xfd987193, 12)                                           \
    S(F, c, d, a, b, 14, 0xa679438e, 17) S(F, b, c, d, a, 15, 0x49b40821, 22)                                          \
    S(G, a, b, c, d, 1, 0xf61e2562, 5) S(G, d, a, b, c, 6, 0xc040b340, 9)                                              \
    S(G, c, d, a, b, 11, 0x265e5a51, 14) S(G, b, c, d, a, 0, 0xe9b6c7aa, 20)                                           \
    S(G, a, b, c, d, 5, 0xd62f105d, 5) S(G, d, a, b, c, 10, 0x02441453, 9)                                             \
    S(G, c, d, a, b, 15, 0xd8a1e681, 14) S(G, b, c, d, a, 4, 0xe7d3fbc8, 20)                                           \
    S(G, a, b, c, d, 9, 0x21e1cde6, 5) S(G, d, a, b, c, 14, 0xc33707d6, 9)                                             \
    S(G, c, d, a, b, 3, 0xf4d50d87, 14) S(G, b, c, d, a, 8, 0x455a14ed, 20)                                            \
    S(G, a, b, c, d, 13, 0xa9e3e905, 5) S(G, d, a, b, c, 2, 0xfcefa3f8, 9)                                             \
    S(G, c, d, a, b, 7, 0x676f02d9, 14) S(G, b, c, d, a, 12, 0x8d2a4c8a, 20)                                           \
    S(H, a, b, c, d, 5, 0xfffa3942, 4) S(H, d, a, b, c, 8, 0x8771f681, 11)                                             \
    S(H, c, d, a, b, 11, 0x6d9d6122, 16) S(H, b, c, d, a, 14, 0xfde5380c, 23)                                          \
    S(H, a, b, c, d, 1, 0xa4beea44, 4) S(H, d, a, b, c, 4, 0x4bdecfa9, 11)                                             \
    S(H, c, d, a, b, 7, 0xf6bb4b60, 16) S(H, b, c, d, a, 10, 0xbebfbc70, 23)                                           \
    S(H, a, b, c, d, 13, 0x289b7ec6, 4) S(H, d, a, b, c, 0, 0xeaa127fa, 11)                                            \
    S(H, c, d, a, b, 3, 0xd4ef3085, 16) S(H, b, c, d, a, 6, 0x04881d05, 23)                                            \
    S(H, a, b, c, d, 9, 0xd9d4d039, 4) S(H, d, a, b, c, 12, 0xe6db99e5, 11)                                            \
    S(H, c, d, a, b, 15, 0x1fa27cf8, 16) S(H, b, c, d, a, 2, 0xc4ac5665, 23)                                           \
    S(I, a, b, c, d, 0, 0xf4292244, 6) S(I, d, a, b, c, 7, 0x432aff97, 10)                                             \
    S(I, c, d, a, b, 14, 0xab9423a7, 15) S(I, b, c, d, a, 5, 0xfc93a039, 21)                                           \
    S(I, a, b, c, d, 12, 0x655b59c3, 6) S(I, d, a, b, c, 3, 0x8f0ccc92, 10)                                            \
    S(I, c, d, a, b, 10, 0xffeff47d, 15) S(I, b, c, d, a, 1, 0x85845dd1, 21)                                           \
    S(I, a, b, c, d, 8, 0x6fa87e4f, 6) S(I, d, a, b, c, 15, 0xfe2ce6e0, 10)                                            \
    S(I, c, d, a, b, 6, 0xa3014314, 15) S(I, b, c, d, a, 13, 0x4e0811a1, 21)                                           \
    S(I, a, b, c, d, 4, 0xf7537e82, 6) S(I, d, a, b, c, 11, 0xbd3af235, 10)                                            \
    S(I, c, d, a, b, 2, 0x2ad7d2bb, 15) S(I, b, c, d, a, 9, 0xeb86d391, 21)

/* One stream, one block after another: the reference the vector kernel is tested against. */
#define SCALAR_F(b, c, d) ((d) ^ ((b) & ((c) ^ (d))))
#define SCALAR_G(b, c, d) ((c) ^ ((d) & ((b) ^ (c))))
#define SCALAR_H(b, c, d) ((b) ^ (c) ^ (d))
#define SCALAR_I(b, c, d) ((c) ^ ((b) | ~(d)))
#define SCALAR_STEP(f, a, b, c, d, k, t, s)                                                                            \
    a += SCALAR_##f(b, c, d) + word[k] + (uint32_t)(t);                                                                \
    a = ((a << s) | (a >> (32 - s))) + b;

static void compress_portable(md5_lanes_state *state, const uint8_t *data, size_t blocks) {
    uint32_t a = state->words[0], b = state->words[1], c = state->words[2], d = state->words[3];
    for (; blocks > 0; blocks--, data += 64) {
        uint32_t word[16];
        for (int k = 0; k < 16; k++) {
            /* Little-endian words, whatever the processor. */
            word[k] = (uint32_t)data[4 * k] | (uint32_t)data[4 * k + 1] << 8 | (uint32_t)data[4 * k + 2] << 16 |
                      (uint32_t)data[4 * k + 3] << 24;
        }
        uint32_t a0 = a, b0 = b, c0 = c, d0 = d;
        MD5_STEPS(SCALAR_STEP)
        a += a0;
        b += b0;
        c += c0;
        d += d0;
    }
    state->words[0] = a;
    state->words[1] = b;
    state->words[2] = c;
    state->words[3] = d;
}

#ifdef MD5_LANES_X86

/* Word k of lane i's block at `offset` into element i of word[k]: two 8×8 transposes of 32-bit elements. */
__attribute__((target("avx2"))) static inline void transpose_avx2(const uint8_t *const *data, size_t offset,
                                                                   __m256i word[16]) {
    for (int half = 0; half < 2; half++) {
        __m256i row[8];
        for (int lane = 0; lane < 8; lane++) {
            row[lane] = _mm256_loadu_si256((const __m256i *)(data[lane] + offset + 32 * half));
        }
        __m256i t0 = _mm256_unpacklo_epi32(row[0], row[1]), t1 = _mm256_unpackhi_epi32(row[0], row[1]);
        __m256i t2 = _mm256_unpacklo_epi32(row[2], row[3]), t3 = _mm256_unpackhi_epi32(row[2], row[3]);
        __m256i t4 = _mm256_unpacklo_epi32(row[4], row[5]), t5 = _mm256_unpackhi_epi32(row[4], row[5]);
        __m256i t6 = _mm256_unpacklo_epi32(row[6], row[7]), t7 = _mm256_unpackhi_epi32(row[6], row[7]);
        __m256i u0 = _mm256_unpacklo_epi64(t0, t2), u1 = _mm256_unpackhi_epi64(t0, t2);
        __m256i u2 = _mm256_unpacklo_epi64(t1, t3), u3 = _mm256_unpackhi_epi64(t1, t3);
        __m256i u4 = _mm256_unpacklo_epi64(t4, t6), u5 = _mm256_unpackhi_epi64(t4, t6);
        __m256i u6 = _mm256_unpacklo_epi64(t5, t7), u7 = _mm256_unpackhi_epi64(t5, t7);
        word[8 * half + 0] = _mm256_permute2x128_si256(u0, u4, 0x20);
        word[8 * half + 1] = _mm256_permute2x128_si256(u1, u5, 0x20);
        word[8 * half + 2] = _mm256_permute2x128_si256(u2, u6, 0x20);
        word[8 * half + 3] = _mm256_permute2x128_si256(u3, u7, 0x20);
        word[8 * half + 4] = _mm256_permute2x128_si256(u0, u4, 0x31);
        word[8 * half + 5] = _mm256_permute2x128_si256(u1, u5, 0x31);
        word[8 * half + 6] = _mm256_permute2x128_si256(u2, u6, 0x31);
        word[8 * half + 7] = _mm256_permute2x128_si256(u3, u7, 0x31);
    }
}

#define VECTOR_F(b, c, d) _mm256_xor_si256(d, _mm256_and_si256(b, _mm256_xor_si256(c, d)))
#define VECTOR_G(b, c, d) _mm256_xor_si256(c, _mm256_and_si256(d, _mm256_xor_si256(b, c)))
#define VECTOR_H(b, c, d) _mm256_xor_si256(_mm256_xor_si256(b, c), d)
#define VECTOR_I(b, c, d) _mm256_xor_si256(c, _mm256_or_si256(b, _mm256_xor_si256(d, all_ones)))
#define VECTOR_STEP(f, a, b, c, d, k, t, s)                                                                            \
    a = _mm256_add_epi32(_mm256_add_epi32(a, _mm256_add_epi32(word[k], _mm256_set1_epi32((int)(t)))),                 \
                         VECTOR_##f(b, c, d));                                                                         \
    a = _mm256_add_epi32(_mm256_or_si256(_mm256_slli_epi32(a, s), _mm256_srli_epi32(a, 32 - s)), b);

/* Eight streams, one per 32-bit lane; fewer are padded with copies of the first, whose results are dropped. */
__attribute__((target("avx2"))) static void compress_avx2(md5_lanes_state *states, const uint8_t *const *data,
                                                          size_t count, size_t blocks) {
    const uint8_t *lanes[8];
    uint32_t start[4][8];
    for (int lane = 0; lane < 8; lane++) {
        size_t source = (size_t)lane < count ? (size_t)lane : 0;
        lanes[lane] = data[source];
        for (int k = 0; k < 4; k++) start[k][lane] = states[source].words[k];
    }
    __m256i a = _mm256_loadu_si256((const __m256i *)start[0]), b = _mm256_loadu_si256((const __m256i *)start[1]);
    __m256i c = _mm256_loadu_si256((const __m256i *)start[2]), d = _mm256_loadu_si256((const __m256i *)start[3]);
    const __m256i all_ones = _mm256_set1_epi32(-1);
    for (size_t block = 0; block < blocks; block++) {
        __m256i word[16];
        transpose_avx2(lanes, 64 * block, word);
        __m256i a0 = a, b0 = b, c0 = c, d0 = d;
        MD5_STEPS(VECTOR_STEP)
        a = _mm256_add_epi32(a, a0);
        b = _mm256_add_epi32(b, b0);
        c = _mm256_add_epi32(c, c0);
        d = _mm256_add_epi32(d, d0);
    }
    _mm256_storeu_si256((__m256i *)start[0], a);
    _mm256_storeu_si256((__m256i *)start[1], b);
    _mm256_storeu_si256((__m256i *)start[2], c);
    _mm256_storeu_si256((__m256i *)start[3], d);
    for (size_t lane = 0; lane < count; lane++) {
        for (int k = 0; k < 4; k++) states[lane].words[k] = start[k][lane];
    }
}

#endif

int md5_lanes_kernel_available(md5_lanes_kernel kernel) {
    switch (kernel) {
    case MD5_LANES_PORTABLE:
        return 1;
#ifdef MD5_LANES_X86
    case MD5_LANES_AVX2:
        return __builtin_cpu_supports("avx2") ? 1 : 0;
#endif
    default:
        return 0;
    }
}

md5_lanes_kernel md5_lanes_best_kernel(void) {
#ifndef __OPTIMIZE__
    /* An unoptimized build (SwiftPM's debug builds compile C at -O0, and a package others depend on cannot
       ask for more) keeps each AVX2 value in memory: 98 MB/s for eight streams, against 308 MB/s for the
       portable kernel. The tests still run the AVX2 kernel by name. */
    return MD5_LANES_PORTABLE;
#else
    return md5_lanes_kernel_available(MD5_LANES_AVX2) ? MD5_LANES_AVX2 : MD5_LANES_PORTABLE;
#endif
}

void md5_lanes_compress(md5_lanes_kernel kernel, md5_lanes_state *states, const uint8_t *const *data, size_t count,
                        size_t blocks) {
    if (count > MD5_LANES_MAXIMUM) count = MD5_LANES_MAXIMUM;
    if (count == 0 || blocks == 0) return;
#ifdef MD5_LANES_X86
    /* One stream goes faster alone than in one lane of eight. */
    if (kernel == MD5_LANES_AVX2 && count > 1 && md5_lanes_kernel_available(MD5_LANES_AVX2)) {
        compress_avx2(states, data, count, blocks);
        return;
    }
#endif
    for (size_t lane = 0; lane < count; lane++) compress_portable(&states[lane], data[lane], blocks);
}
