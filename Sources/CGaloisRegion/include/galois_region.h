#ifndef GOSHUIN_GALOIS_REGION_H
#define GOSHUIN_GALOIS_REGION_H

/* Region arithmetic in GF(2^16), the field of PAR 2.0 (generator polynomial 0x1100B), over buffers of 16-bit
   little-endian words: dst ^= c * src, for one destination or several at once. Multiplying a word by a
   constant is linear in the word's bits, so it is the XOR of the products of its four nibbles; each nibble's
   16 products are split into a table of their low bytes and one of their high bytes, looked up 16 or 32 at a
   time with PSHUFB (the split-table method of ISA-L and ParPar). Kernels: portable C, SSSE3 and AVX2, chosen
   at run time by galois_region_best_kernel(). Every length is a number of bytes and must be even. */

#include <stddef.h>
#include <stdint.h>

/* The products of one constant with every nibble value at every nibble position of a word. */
typedef struct {
    uint8_t low[4][16];  /* low[k][v]: the low byte of constant * (v << 4k) */
    uint8_t high[4][16]; /* high[k][v]: its high byte */
} galois_region_tables;

typedef enum {
    GALOIS_REGION_PORTABLE = 0,
    GALOIS_REGION_SSSE3 = 1,
    GALOIS_REGION_AVX2 = 2,
} galois_region_kernel;

/* Fills `tables` for multiplying by `constant`. */
void galois_region_prepare(uint16_t constant, galois_region_tables *tables);

/* Whether this processor (and its operating system) runs `kernel`. */
int galois_region_kernel_available(galois_region_kernel kernel);

/* The fastest kernel this processor runs. */
galois_region_kernel galois_region_best_kernel(void);

/* For d in 0 ..< count: destinations[d][0 ..< length] ^= constant_d * source[0 ..< length], where
   tables[d] was prepared for constant_d. Each source byte is loaded once for all destinations. `length` is
   even; the buffers need no alignment; a destination must not overlap the source or another destination. An
   unavailable kernel falls back to the portable one. */
void galois_region_multiply_add(galois_region_kernel kernel, const galois_region_tables *tables,
                                const uint8_t *source, uint8_t *const *destinations, size_t count, size_t length);

/* For d in 0 ..< count: destinations[d][0 ..< length] ^= constants[d] * source[0 ..< length], a word at a
   time through logarithm tables, without split tables: for short regions (a few words), where preparing a
   split table per constant would cost more than the multiplications. Same rules as
   galois_region_multiply_add. */
void galois_word_multiply_add(const uint16_t *constants, const uint8_t *source, uint8_t *const *destinations,
                              size_t count, size_t length);

/* out[d] = base^exponents[d] for d in 0 ..< count (0^0 = 1): the coefficients of one input slice in
   several recovery slices. */
void galois_powers(uint16_t base, const uint32_t *exponents, size_t count, uint16_t *out);

#endif
