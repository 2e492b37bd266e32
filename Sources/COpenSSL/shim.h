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
#include <openssl/hmac.h>
#include <openssl/kdf.h>
#include <openssl/core_names.h>
#include <openssl/params.h>

/* HKDF-SHA256 (RFC 5869) through EVP_KDF "HKDF". In C because an OSSL_PARAM keeps pointers to its name and
   value: the static strings here outlive the call, as Swift's temporary C strings would not. Returns 1 on
   success, as EVP calls do. An empty salt or info may be NULL. */
static inline int goshuin_hkdf_sha256(const unsigned char *key, size_t key_length, const unsigned char *salt,
                                      size_t salt_length, const unsigned char *info, size_t info_length,
                                      unsigned char *output, size_t output_length) {
    EVP_KDF *kdf = EVP_KDF_fetch(NULL, "HKDF", NULL);
    if (kdf == NULL) return 0;
    EVP_KDF_CTX *context = EVP_KDF_CTX_new(kdf);
    EVP_KDF_free(kdf);
    if (context == NULL) return 0;
    static unsigned char none = 0;
    OSSL_PARAM parameters[5];
    parameters[0] = OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, (char *)"SHA256", 0);
    parameters[1] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, (void *)(key ? key : &none), key_length);
    parameters[2] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SALT, (void *)(salt ? salt : &none), salt_length);
    parameters[3] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, (void *)(info ? info : &none), info_length);
    parameters[4] = OSSL_PARAM_construct_end();
    int result = EVP_KDF_derive(context, output, output_length, parameters);
    EVP_KDF_CTX_free(context);
    return result;
}

#endif
