#ifndef GOSHUIN_COPENSSL_SHIM_H
#define GOSHUIN_COPENSSL_SHIM_H

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/sha.h>
#include <openssl/err.h>

#endif
