/* CRC-32 of ISO 3309 / ITU-T V.42 (ZIP, zlib, PAR 2.0): reflected, polynomial 0xEDB88320, register
   preset to ones and inverted at the end; incremental (crc32_update(0, …) starts one).

   Slicing by 16: 16 bytes a step through 16 tables of 256 entries, table k giving a byte's effect on the
   register as if k zero bytes followed it, so that the 16 lookups of a step are independent of one another
   and only the first four depend on the register. SIMD128 has no carry-less multiply (x86's PCLMULQDQ, the
   folding method's engine), and emulating one with nibble tables costs more swizzles a byte than this costs
   loads.

   Zero extension and combination are multiplications by x^(8n) modulo the polynomial, with x^(2^k) from a
   table of 64 squares: O(log n) instead of hashing n zero bytes. */

#include "kernels.h"

#define POLYNOMIAL 0xEDB88320u /* x^32 + x^26 + … + 1, reflected: bit 31 is x^0 */
#define SLICES 16

static uint32_t slice_table[SLICES][256];
static uint32_t power_of_x[64]; /* x^(2^k) modulo the polynomial, reflected */
static int tables_ready;

/* a·b modulo the polynomial, both reflected. */
static uint32_t multiply_modulo(uint32_t a, uint32_t b) {
    uint32_t product = 0;
    for (uint32_t bit = 0x80000000u; bit != 0; bit >>= 1) { /* a's terms from x^0 up */
        if (a & bit) product ^= b;
        b = (b & 1) ? (b >> 1) ^ POLYNOMIAL : b >> 1; /* b · x */
    }
    return product;
}

static void prepare_tables(void) {
    for (uint32_t byte = 0; byte < 256; byte++) {
        uint32_t value = byte;
        for (int bit = 0; bit < 8; bit++) value = (value & 1) ? (value >> 1) ^ POLYNOMIAL : value >> 1;
        slice_table[0][byte] = value;
    }
    for (int k = 1; k < SLICES; k++)
        for (int byte = 0; byte < 256; byte++) {
            uint32_t previous = slice_table[k - 1][byte];
            slice_table[k][byte] = (previous >> 8) ^ slice_table[0][previous & 0xFF];
        }
    power_of_x[0] = 0x40000000u; /* x^1 */
    for (int k = 1; k < 64; k++) power_of_x[k] = multiply_modulo(power_of_x[k - 1], power_of_x[k - 1]);
    tables_ready = 1;
}

EXPORT(crc32_update) uint32_t crc32_update(uint32_t crc, const uint8_t *data, size_t length) {
    if (!tables_ready) prepare_tables();
    const uint32_t(*t)[256] = slice_table;
    uint32_t r = ~crc;
    for (; length >= SLICES; length -= SLICES, data += SLICES) {
        uint32_t w0 = load32_le(data) ^ r, w1 = load32_le(data + 4);
        uint32_t w2 = load32_le(data + 8), w3 = load32_le(data + 12);
        r = t[15][w0 & 0xFF] ^ t[14][(w0 >> 8) & 0xFF] ^ t[13][(w0 >> 16) & 0xFF] ^ t[12][w0 >> 24] ^
            t[11][w1 & 0xFF] ^ t[10][(w1 >> 8) & 0xFF] ^ t[9][(w1 >> 16) & 0xFF] ^ t[8][w1 >> 24] ^
            t[7][w2 & 0xFF] ^ t[6][(w2 >> 8) & 0xFF] ^ t[5][(w2 >> 16) & 0xFF] ^ t[4][w2 >> 24] ^
            t[3][w3 & 0xFF] ^ t[2][(w3 >> 8) & 0xFF] ^ t[1][(w3 >> 16) & 0xFF] ^ t[0][w3 >> 24];
    }
    for (; length > 0; length--, data++) r = (r >> 8) ^ t[0][(r ^ *data) & 0xFF];
    return ~r;
}

/* x^(8·count) modulo the polynomial. */
static uint32_t shift_of(uint64_t count) {
    if (!tables_ready) prepare_tables();
    uint32_t power = 0x80000000u; /* x^0 */
    uint64_t exponent = count * 8; /* below 2^56 for any count JavaScript can state */
    for (int k = 0; exponent != 0; k++, exponent >>= 1)
        if (exponent & 1) power = multiply_modulo(power, power_of_x[k]);
    return power;
}

/* The CRC-32 of the bytes `crc` covers followed by `count` zero bytes. */
EXPORT(crc32_zeros) uint32_t crc32_zeros(uint32_t crc, double count) {
    return ~multiply_modulo(~crc, shift_of(count_of(count)));
}

/* The CRC-32 of A followed by B from crc(A), crc(B) and B's length. */
EXPORT(crc32_combine) uint32_t crc32_combine(uint32_t crc_a, uint32_t crc_b, double length_b) {
    return multiply_modulo(crc_a, shift_of(count_of(length_b))) ^ crc_b;
}
