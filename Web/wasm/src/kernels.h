/* What every kernel of kernels.wasm shares: the export attribute, little-endian loads and stores, and the
   limits of one call. The module is freestanding (no libc): clang's own stdint.h and wasm_simd128.h only.

   The ABI is plain linear-memory addresses and lengths as i32; counts that may pass 2^32 (a run of zeros
   fed to a hash) are f64, which JavaScript passes as a Number without BigInt. */

#ifndef GOSHUIN_WASM_KERNELS_H
#define GOSHUIN_WASM_KERNELS_H

#include <stddef.h>
#include <stdint.h>
#include <wasm_simd128.h>

#define EXPORT(name) __attribute__((export_name(#name), visibility("default")))

static inline uint32_t load32_le(const uint8_t *bytes) {
    uint32_t value;
    __builtin_memcpy(&value, bytes, 4); /* wasm is little-endian and loads need no alignment */
    return value;
}

static inline uint32_t load32_be(const uint8_t *bytes) { return __builtin_bswap32(load32_le(bytes)); }

static inline void store32_le(uint8_t *bytes, uint32_t value) { __builtin_memcpy(bytes, &value, 4); }

static inline void store32_be(uint8_t *bytes, uint32_t value) { store32_le(bytes, __builtin_bswap32(value)); }

static inline uint32_t rotate_left(uint32_t value, int count) { return __builtin_rotateleft32(value, count); }

static inline uint32_t rotate_right(uint32_t value, int count) { return __builtin_rotateright32(value, count); }

/* A count passed as f64 (exact below 2^53), as an integer. */
static inline uint64_t count_of(double count) { return count > 0 ? (uint64_t)count : 0; }

#endif
