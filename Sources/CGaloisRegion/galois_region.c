/* GF(2^16) region kernels for PAR 2.0: see include/galois_region.h. */

#include "galois_region.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define GALOIS_REGION_X86 1
#endif

/* x * value in GF(2^16) with PAR 2.0's generator polynomial x^16 + x^12 + x^3 + x + 1 (0x1100B). */
static inline uint32_t times_x(uint32_t value) {
    value <<= 1;
    return (value & 0x10000u) ? (value ^ 0x1100Bu) : value;
}

/* exponentials[i] = x^i for i in 0 ..< 2 * 65535 (twice over, so that a sum of two logarithms needs no
   reduction); logarithms[v] for v != 0. Filled before main by the constructor below. */
static uint16_t exponentials[2 * 65535];
static uint16_t logarithms[65536];

__attribute__((constructor)) static void fill_logarithm_tables(void) {
    uint32_t value = 1;
    for (uint32_t power = 0; power < 65535; power++) {
        exponentials[power] = (uint16_t)value;
        exponentials[power + 65535] = (uint16_t)value;
        logarithms[value] = (uint16_t)power;
        value = times_x(value);
    }
}

void galois_word_multiply_add(const uint16_t *constants, const uint8_t *source, uint8_t *const *destinations,
                              size_t count, size_t length) {
    length &= ~(size_t)1;
    for (size_t position = 0; position < length; position += 2) {
        uint16_t word = (uint16_t)(source[position] | (source[position + 1] << 8));
        if (word == 0) continue;
        uint32_t logarithm = logarithms[word];
        for (size_t d = 0; d < count; d++) {
            if (constants[d] == 0) continue;
            uint16_t product = exponentials[logarithm + logarithms[constants[d]]];
            destinations[d][position] ^= (uint8_t)(product & 0xFF);
            destinations[d][position + 1] ^= (uint8_t)(product >> 8);
        }
    }
}

void galois_powers(uint16_t base, const uint32_t *exponents, size_t count, uint16_t *out) {
    for (size_t d = 0; d < count; d++) {
        if (exponents[d] == 0) {
            out[d] = 1;
        } else if (base == 0) {
            out[d] = 0;
        } else {
            out[d] = exponentials[(uint64_t)logarithms[base] * exponents[d] % 65535u];
        }
    }
}

void galois_region_prepare(uint16_t constant, galois_region_tables *tables) {
    /* basis[b] = constant * x^b: the product with each single bit of a word. */
    uint32_t basis[16];
    uint32_t value = constant;
    for (int bit = 0; bit < 16; bit++) {
        basis[bit] = value;
        value = times_x(value);
    }
    for (int nibble = 0; nibble < 4; nibble++) {
        uint32_t products[16];
        products[0] = 0;
        for (int v = 1; v < 16; v++) {
            int lowest = __builtin_ctz((unsigned)v);
            products[v] = products[v & (v - 1)] ^ basis[4 * nibble + lowest];
        }
        for (int v = 0; v < 16; v++) {
            tables->low[nibble][v] = (uint8_t)(products[v] & 0xFF);
            tables->high[nibble][v] = (uint8_t)(products[v] >> 8);
        }
    }
}

/* Bytes [first, end) of the region (an even count), one at a time: the reference the vector kernels are tested against,
   and their tail. */
static void multiply_add_portable(const galois_region_tables *tables, const uint8_t *source,
                                  uint8_t *const *destinations, size_t count, size_t first, size_t end) {
    for (size_t position = first; position < end; position += 2) {
        uint8_t low = source[position], high = source[position + 1];
        uint8_t n0 = low & 0x0F, n1 = low >> 4, n2 = high & 0x0F, n3 = high >> 4;
        for (size_t d = 0; d < count; d++) {
            const galois_region_tables *t = &tables[d];
            destinations[d][position] ^= t->low[0][n0] ^ t->low[1][n1] ^ t->low[2][n2] ^ t->low[3][n3];
            destinations[d][position + 1] ^= t->high[0][n0] ^ t->high[1][n1] ^ t->high[2][n2] ^ t->high[3][n3];
        }
    }
}

#ifdef GALOIS_REGION_X86

/* From `position`, 32 bytes (16 words) a step while 32 remain; returns where it stopped. Each 16-byte half
   is shuffled so that its 8 low bytes come first and its 8 high bytes after; the two halves' low parts then
   make one vector of low bytes and their high parts one of high bytes, in word order. The products come out
   in the same order, and interleaving their low and high bytes gives words 0-7 and 8-15 back. */
__attribute__((target("ssse3"))) static size_t multiply_add_ssse3(const galois_region_tables *tables,
                                                                  const uint8_t *source,
                                                                  uint8_t *const *destinations, size_t count,
                                                                  size_t position, size_t length) {
    const __m128i split = _mm_setr_epi8(0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15);
    const __m128i nibble = _mm_set1_epi8(0x0F);
    for (; position + 32 <= length; position += 32) {
        __m128i a = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(source + position)), split);
        __m128i b = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(source + position + 16)), split);
        __m128i low = _mm_unpacklo_epi64(a, b);
        __m128i high = _mm_unpackhi_epi64(a, b);
        __m128i n0 = _mm_and_si128(low, nibble);
        __m128i n1 = _mm_and_si128(_mm_srli_epi16(low, 4), nibble);
        __m128i n2 = _mm_and_si128(high, nibble);
        __m128i n3 = _mm_and_si128(_mm_srli_epi16(high, 4), nibble);
        for (size_t d = 0; d < count; d++) {
            const galois_region_tables *t = &tables[d];
            __m128i product_low = _mm_xor_si128(
                _mm_xor_si128(_mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)t->low[0]), n0),
                              _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)t->low[1]), n1)),
                _mm_xor_si128(_mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)t->low[2]), n2),
                              _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)t->low[3]), n3)));
            __m128i product_high = _mm_xor_si128(
                _mm_xor_si128(_mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)t->high[0]), n0),
                              _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)t->high[1]), n1)),
                _mm_xor_si128(_mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)t->high[2]), n2),
                              _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)t->high[3]), n3)));
            uint8_t *destination = destinations[d] + position;
            __m128i first = _mm_loadu_si128((const __m128i *)destination);
            __m128i second = _mm_loadu_si128((const __m128i *)(destination + 16));
            _mm_storeu_si128((__m128i *)destination,
                             _mm_xor_si128(first, _mm_unpacklo_epi8(product_low, product_high)));
            _mm_storeu_si128((__m128i *)(destination + 16),
                             _mm_xor_si128(second, _mm_unpackhi_epi8(product_low, product_high)));
        }
    }
    return position;
}

/* From `position`, 64 bytes (32 words) a step while 64 remain, returning where it stopped: the same method
   in both 128-bit lanes (PSHUFB and the unpacks work within a lane): after the per-lane split, the low-byte
   vector holds words 0-7 and 16-23 in its first lane and 8-15 and 24-31 in its second, and interleaving the
   products within each lane gives bytes 0-31 (the first load's words) and 32-63 back, with no lane
   crossing. */
__attribute__((target("avx2"))) static size_t multiply_add_avx2(const galois_region_tables *tables,
                                                                const uint8_t *source,
                                                                uint8_t *const *destinations, size_t count,
                                                                size_t position, size_t length) {
    const __m256i split = _mm256_setr_epi8(0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15, 0, 2, 4, 6, 8, 10,
                                           12, 14, 1, 3, 5, 7, 9, 11, 13, 15);
    const __m256i nibble = _mm256_set1_epi8(0x0F);
    for (; position + 64 <= length; position += 64) {
        __m256i a = _mm256_shuffle_epi8(_mm256_loadu_si256((const __m256i *)(source + position)), split);
        __m256i b = _mm256_shuffle_epi8(_mm256_loadu_si256((const __m256i *)(source + position + 32)), split);
        __m256i low = _mm256_unpacklo_epi64(a, b);
        __m256i high = _mm256_unpackhi_epi64(a, b);
        __m256i n0 = _mm256_and_si256(low, nibble);
        __m256i n1 = _mm256_and_si256(_mm256_srli_epi16(low, 4), nibble);
        __m256i n2 = _mm256_and_si256(high, nibble);
        __m256i n3 = _mm256_and_si256(_mm256_srli_epi16(high, 4), nibble);
        for (size_t d = 0; d < count; d++) {
            const galois_region_tables *t = &tables[d];
#define GALOIS_TABLE(row) _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)(row)))
            __m256i product_low =
                _mm256_xor_si256(_mm256_xor_si256(_mm256_shuffle_epi8(GALOIS_TABLE(t->low[0]), n0),
                                                  _mm256_shuffle_epi8(GALOIS_TABLE(t->low[1]), n1)),
                                 _mm256_xor_si256(_mm256_shuffle_epi8(GALOIS_TABLE(t->low[2]), n2),
                                                  _mm256_shuffle_epi8(GALOIS_TABLE(t->low[3]), n3)));
            __m256i product_high =
                _mm256_xor_si256(_mm256_xor_si256(_mm256_shuffle_epi8(GALOIS_TABLE(t->high[0]), n0),
                                                  _mm256_shuffle_epi8(GALOIS_TABLE(t->high[1]), n1)),
                                 _mm256_xor_si256(_mm256_shuffle_epi8(GALOIS_TABLE(t->high[2]), n2),
                                                  _mm256_shuffle_epi8(GALOIS_TABLE(t->high[3]), n3)));
#undef GALOIS_TABLE
            uint8_t *destination = destinations[d] + position;
            __m256i first = _mm256_loadu_si256((const __m256i *)destination);
            __m256i second = _mm256_loadu_si256((const __m256i *)(destination + 32));
            _mm256_storeu_si256((__m256i *)destination,
                                _mm256_xor_si256(first, _mm256_unpacklo_epi8(product_low, product_high)));
            _mm256_storeu_si256((__m256i *)(destination + 32),
                                _mm256_xor_si256(second, _mm256_unpackhi_epi8(product_low, product_high)));
        }
    }
    return position;
}

#endif

int galois_region_kernel_available(galois_region_kernel kernel) {
    switch (kernel) {
    case GALOIS_REGION_PORTABLE:
        return 1;
#ifdef GALOIS_REGION_X86
    case GALOIS_REGION_SSSE3:
        return __builtin_cpu_supports("ssse3") ? 1 : 0;
    case GALOIS_REGION_AVX2:
        return __builtin_cpu_supports("avx2") ? 1 : 0;
#endif
    default:
        return 0;
    }
}

galois_region_kernel galois_region_best_kernel(void) {
    if (galois_region_kernel_available(GALOIS_REGION_AVX2)) return GALOIS_REGION_AVX2;
    if (galois_region_kernel_available(GALOIS_REGION_SSSE3)) return GALOIS_REGION_SSSE3;
    return GALOIS_REGION_PORTABLE;
}

void galois_region_multiply_add(galois_region_kernel kernel, const galois_region_tables *tables,
                                const uint8_t *source, uint8_t *const *destinations, size_t count, size_t length) {
    size_t done = 0;
    length &= ~(size_t)1;
    if (count == 0 || length == 0) return;
#ifdef GALOIS_REGION_X86
    if (kernel == GALOIS_REGION_AVX2 && galois_region_kernel_available(GALOIS_REGION_AVX2)) {
        done = multiply_add_avx2(tables, source, destinations, count, done, length);
    }
    /* The AVX2 kernel's tail of 32 bytes or more, and the SSSE3 kernel's whole region. */
    if (kernel != GALOIS_REGION_PORTABLE && galois_region_kernel_available(GALOIS_REGION_SSSE3)) {
        done = multiply_add_ssse3(tables, source, destinations, count, done, length);
    }
#endif
    multiply_add_portable(tables, source, destinations, count, done, length);
}
