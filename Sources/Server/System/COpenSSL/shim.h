#ifndef HERALD_COPENSSL_SHIM_H
#define HERALD_COPENSSL_SHIM_H
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/rsa.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <openssl/err.h>
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/sha.h>
#include <openssl/crypto.h>
#include <openssl/core_names.h>
#include <openssl/kdf.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

/* TLS settings that OpenSSL declares as macros over SSL_CTX_ctrl / SSL_ctrl: Swift cannot call them. */
static inline int herald_SSL_CTX_set_min_proto_version(SSL_CTX *ctx, int version) {
    return (int)SSL_CTX_set_min_proto_version(ctx, version);
}
static inline long herald_SSL_CTX_set_mode(SSL_CTX *ctx, long mode) { return SSL_CTX_set_mode(ctx, mode); }
static inline int herald_SSL_set_tlsext_host_name(SSL *ssl, const char *name) {
    return (int)SSL_set_tlsext_host_name(ssl, name);
}
/* A peer that closes without close_notify (many servers do) reads as an orderly close, not an error. */
static inline void herald_SSL_CTX_ignore_unexpected_eof(SSL_CTX *ctx) {
    SSL_CTX_set_options(ctx, SSL_OP_IGNORE_UNEXPECTED_EOF | SSL_OP_NO_RENEGOTIATION);
}
/* Reads take every record the socket holds (up to the buffer), not one record's header and then its body in two
   read(2) calls: a server answering each stream in a record of its own cost two system calls an answer. */
static inline void herald_SSL_CTX_set_read_ahead(SSL_CTX *ctx) { SSL_CTX_set_read_ahead(ctx, 1); }
static inline long herald_SSL_MODE_PARTIAL_WRITES(void) {
    return SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER;
}
#endif
