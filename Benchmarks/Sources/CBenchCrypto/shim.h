#ifndef GOSHUIN_BENCH_CRYPTO_SHIM_H
#define GOSHUIN_BENCH_CRYPTO_SHIM_H
/* The SHA-256 block function, to measure the floor the fast PBKDF2 can reach. */
#define OPENSSL_SUPPRESS_DEPRECATED 1
#include <openssl/sha.h>
#endif
