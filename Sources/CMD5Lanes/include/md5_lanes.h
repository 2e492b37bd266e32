#ifndef GOSHUIN_MD5_LANES_H
#define GOSHUIN_MD5_LANES_H

/* MD5 (RFC 1321) of several equally long streams at once, for PAR 2.0's slice checksums: every slice of a
   recovery set has the same length, so a group of slices can be hashed in lockstep, one stream per lane of a
   vector register. One MD5 stream is a chain of dependent steps that keeps a core's units mostly idle; eight
   lanes of AVX2 do eight chains' steps with the same instructions (the multi-buffer method of ISA-L and
   ParPar). Only the compression of whole 64-byte blocks is here; padding and the digest's bytes are the
   caller's. Kernels: portable C, one lane after another, and AVX2, chosen at run time. */

#include <stddef.h>
#include <stdint.h>

/* The most streams one call advances. */
#define MD5_LANES_MAXIMUM 8

typedef enum {
    MD5_LANES_PORTABLE = 0,
    MD5_LANES_AVX2 = 1,
} md5_lanes_kernel;

/* The state of one stream: RFC 1321's A, B, C and D. */
typedef struct {
    uint32_t words[4];
} md5_lanes_state;

/* Whether this processor (and its operating system) runs `kernel`. */
int md5_lanes_kernel_available(md5_lanes_kernel kernel);

/* The fastest kernel this processor runs. */
md5_lanes_kernel md5_lanes_best_kernel(void);

/* For i in 0 ..< count (at most MD5_LANES_MAXIMUM): compresses `blocks` 64-byte blocks of data[i] into
   states[i]. The data need no alignment. An unavailable kernel falls back to the portable one. */
void md5_lanes_compress(md5_lanes_kernel kernel, md5_lanes_state *states, const uint8_t *const *data, size_t count,
                        size_t blocks);

#endif
