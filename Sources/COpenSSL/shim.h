#ifndef GOSHUIN_COPENSSL_SHIM_H
#define GOSHUIN_COPENSSL_SHIM_H

/* SHA256_Transform, the SHA-256 block function behind the fast PBKDF2, is deprecated as public API in
   OpenSSL 3 but still exported (and still uses the SHA-NI / AVX2 code paths). */
#define OPENSSL_SUPPRESS_DEPRECATED 1

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/sha.h>
#include <openssl/err.h>

#endif
