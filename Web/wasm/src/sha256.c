/* SHA-256 (FIPS 180-4), incremental, one stream. Scalar: one SHA-256 is a single chain of dependent rounds,
   and SIMD128 has neither SHA instructions nor a rotate, so vectors would help only the message schedule
   (a small part of the work); WebCrypto's digest, with the processor's SHA instructions where it has them,
   stays the faster choice for a whole buffer (bench.mjs measures both). */

#include "block_hash.h"

static const uint32_t round_constant[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static const uint32_t initial_words[8] = {
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
};

typedef struct {
    uint32_t words[8]; /* H0 … H7 */
    block_progress progress;
    uint8_t buffer[BLOCK_BYTES];
} sha256_state;

static void compress(void *state_words, const uint8_t *const *blocks, size_t count) {
    uint32_t *h = state_words;
    const uint8_t *block = blocks[0];
    for (; count > 0; count--, block += BLOCK_BYTES) {
        uint32_t w[16]; /* the message schedule's last 16 words, w[t mod 16] */
        for (int t = 0; t < 16; t++) w[t] = load32_be(block + 4 * t);
        uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
        /* Unrolled, the schedule lives in locals and the eight words' roles rotate through renamed
           registers instead of moves. */
#pragma clang loop unroll(full)
        for (int t = 0; t < 64; t++) {
            if (t >= 16) {
                uint32_t w15 = w[(t - 15) & 15], w2 = w[(t - 2) & 15];
                uint32_t s0 = rotate_right(w15, 7) ^ rotate_right(w15, 18) ^ (w15 >> 3);
                uint32_t s1 = rotate_right(w2, 17) ^ rotate_right(w2, 19) ^ (w2 >> 10);
                w[t & 15] += s0 + w[(t - 7) & 15] + s1;
            }
            uint32_t sum1 = rotate_right(e, 6) ^ rotate_right(e, 11) ^ rotate_right(e, 25);
            uint32_t choose = g ^ (e & (f ^ g));
            uint32_t t1 = hh + sum1 + choose + round_constant[t] + w[t & 15];
            uint32_t sum0 = rotate_right(a, 2) ^ rotate_right(a, 13) ^ rotate_right(a, 22);
            uint32_t majority = (a & b) | (c & (a | b));
            hh = g;
            g = f;
            f = e;
            e = d + t1;
            d = c;
            c = b;
            b = a;
            a = t1 + sum0 + majority;
        }
        h[0] += a;
        h[1] += b;
        h[2] += c;
        h[3] += d;
        h[4] += e;
        h[5] += f;
        h[6] += g;
        h[7] += hh;
    }
}

EXPORT(sha256_state_bytes) size_t sha256_state_bytes(void) { return sizeof(sha256_state); }

EXPORT(sha256_init) void sha256_init(sha256_state *state) {
    for (int k = 0; k < 8; k++) state->words[k] = initial_words[k];
    state->progress = (block_progress){0};
}

EXPORT(sha256_update) void sha256_update(sha256_state *state, const uint8_t *data, size_t length) {
    block_hash_update(state->words, &state->progress, state->buffer, 1, &data, length, compress);
}

EXPORT(sha256_update_zeros) void sha256_update_zeros(sha256_state *state, double count) {
    block_hash_update_zeros(state->words, &state->progress, state->buffer, 1, count_of(count), compress);
}

EXPORT(sha256_final) void sha256_final(sha256_state *state, uint8_t digest[32]) {
    block_hash_finish(state->words, &state->progress, state->buffer, 1, 1, compress);
    for (int k = 0; k < 8; k++) store32_be(digest + 4 * k, state->words[k]);
}
