/* GF(2^16) region multiply-accumulate for PAR 2.0's Reed-Solomon code: target ^= c · source over a region of
   16-bit little-endian words, for one source and several (target, c) pairs at once, so that a repair reads
   each intact slice once for all the slices it rebuilds. The field is PAR 2.0's: generator polynomial
   x^16 + x^12 + x^3 + x + 1 (0x1100B).

   Split tables (as the toolkit's Sources/CGaloisRegion and ParPar's shuffle kernels): multiplication by c
   is linear over GF(2), so c·w is the XOR of c·(each 4-bit nibble of w in its place), and each of those
   has 16 possible values, a table that i8x16.swizzle looks up for 16 bytes at once. Four nibbles, two
   bytes of product each: 8 tables of 16 bytes per coefficient. A step takes 32 bytes (16 words), parts
   them into a vector of low bytes and one of high bytes, looks up the four nibbles of each, and interleaves
   the two product vectors back into words. */

#include "kernels.h"

#define POLYNOMIAL 0x1100Bu
#define STEP_BYTES 32
#define MAXIMUM_TARGETS 32 /* per call; gf16_multiply_add's caller splits longer lists */

typedef struct {
    v128_t low[4];  /* low[n][v]: the low byte of c · (v << 4n) */
    v128_t high[4]; /* its high byte */
} product_tables;

static product_tables tables[MAXIMUM_TARGETS];

static void prepare(uint16_t c, product_tables *t) {
    uint16_t basis[16]; /* c · x^b for each bit b of a word */
    uint32_t value = c;
    for (int bit = 0; bit < 16; bit++) {
        basis[bit] = (uint16_t)value;
        value <<= 1;
        if (value & 0x10000u) value ^= POLYNOMIAL;
    }
    for (int nibble = 0; nibble < 4; nibble++) {
        uint8_t low[16], high[16];
        uint16_t product[16] = {0};
        for (int v = 1; v < 16; v++) {
            int lowest = __builtin_ctz((unsigned)v); /* v's other bits make a smaller v done before */
            product[v] = product[v & (v - 1)] ^ basis[4 * nibble + lowest];
        }
        for (int v = 0; v < 16; v++) {
            low[v] = (uint8_t)product[v];
            high[v] = (uint8_t)(product[v] >> 8);
        }
        t->low[nibble] = wasm_v128_load(low);
        t->high[nibble] = wasm_v128_load(high);
    }
}

static inline uint8_t table_byte(v128_t table, int index) {
    uint8_t bytes[16];
    wasm_v128_store(bytes, table);
    return bytes[index];
}

/* One word, the scalar way: the region's last words that make no whole step. */
static inline uint16_t multiply_word(const product_tables *t, uint8_t low, uint8_t high) {
    int n0 = low & 15, n1 = low >> 4, n2 = high & 15, n3 = high >> 4;
    uint8_t product_low = table_byte(t->low[0], n0) ^ table_byte(t->low[1], n1) ^ table_byte(t->low[2], n2) ^
                          table_byte(t->low[3], n3);
    uint8_t product_high = table_byte(t->high[0], n0) ^ table_byte(t->high[1], n1) ^ table_byte(t->high[2], n2) ^
                           table_byte(t->high[3], n3);
    return (uint16_t)(product_low | product_high << 8);
}

/* 16 lookups of one table; every index is a nibble, so no lane falls out of range. */
static inline v128_t lookup(v128_t table, v128_t nibbles) { return wasm_i8x16_swizzle(table, nibbles); }

/* For i < count: targets[i][0, length) ^= coefficients[i] · source[0, length). An odd length ends with a
   word whose high byte is 0: its product's two bytes are added to targets[i][length - 1] and [length], so
   each target holds length + 1 bytes then. Coefficient 0 leaves its target as it is, 1 adds the source. */
EXPORT(gf16_multiply_add)
void gf16_multiply_add(const uint8_t *source, size_t length, size_t count, uint8_t *const *targets,
                       const uint16_t *coefficients) {
    uint8_t *multiplied[MAXIMUM_TARGETS], *added[MAXIMUM_TARGETS];
    size_t multiplies = 0, adds = 0;
    if (count > MAXIMUM_TARGETS) count = MAXIMUM_TARGETS;
    for (size_t i = 0; i < count; i++) {
        if (coefficients[i] == 1) {
            added[adds++] = targets[i];
        } else if (coefficients[i] != 0) {
            prepare(coefficients[i], &tables[multiplies]);
            multiplied[multiplies++] = targets[i];
        }
    }
    const v128_t nibble_mask = wasm_i8x16_splat(0x0F);
    size_t at = 0;
    for (; at + STEP_BYTES <= length; at += STEP_BYTES) {
        v128_t first = wasm_v128_load(source + at), second = wasm_v128_load(source + at + 16);
        for (size_t i = 0; i < adds; i++) {
            uint8_t *target = added[i] + at;
            wasm_v128_store(target, wasm_v128_xor(wasm_v128_load(target), first));
            wasm_v128_store(target + 16, wasm_v128_xor(wasm_v128_load(target + 16), second));
        }
        if (multiplies == 0) continue;
        v128_t low = wasm_i8x16_shuffle(first, second, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
        v128_t high = wasm_i8x16_shuffle(first, second, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
        v128_t n0 = wasm_v128_and(low, nibble_mask), n1 = wasm_u8x16_shr(low, 4);
        v128_t n2 = wasm_v128_and(high, nibble_mask), n3 = wasm_u8x16_shr(high, 4);
        for (size_t i = 0; i < multiplies; i++) {
            const product_tables *t = &tables[i];
            v128_t product_low = wasm_v128_xor(wasm_v128_xor(lookup(t->low[0], n0), lookup(t->low[1], n1)),
                                               wasm_v128_xor(lookup(t->low[2], n2), lookup(t->low[3], n3)));
            v128_t product_high = wasm_v128_xor(wasm_v128_xor(lookup(t->high[0], n0), lookup(t->high[1], n1)),
                                                wasm_v128_xor(lookup(t->high[2], n2), lookup(t->high[3], n3)));
            uint8_t *target = multiplied[i] + at;
            v128_t words_low = wasm_i8x16_shuffle(product_low, product_high, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5,
                                                  21, 6, 22, 7, 23);
            v128_t words_high = wasm_i8x16_shuffle(product_low, product_high, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28,
                                                   13, 29, 14, 30, 15, 31);
            wasm_v128_store(target, wasm_v128_xor(wasm_v128_load(target), words_low));
            wasm_v128_store(target + 16, wasm_v128_xor(wasm_v128_load(target + 16), words_high));
        }
    }
    for (; at < length; at += 2) {
        uint8_t low = source[at], high = at + 1 < length ? source[at + 1] : 0;
        for (size_t i = 0; i < adds; i++) {
            added[i][at] ^= low;
            added[i][at + 1] ^= high;
        }
        for (size_t i = 0; i < multiplies; i++) {
            uint16_t product = multiply_word(&tables[i], low, high);
            multiplied[i][at] ^= (uint8_t)product;
            multiplied[i][at + 1] ^= (uint8_t)(product >> 8);
        }
    }
}
