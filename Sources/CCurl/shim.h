#ifndef HERALD_CCURL_SHIM_H
#define HERALD_CCURL_SHIM_H
#include <curl/curl.h>

/* curl_easy_setopt, curl_multi_setopt and curl_easy_getinfo are variadic: Swift cannot call them.
   One typed wrapper per argument kind. */
static inline CURLcode herald_curl_easy_setopt_long(CURL *h, CURLoption o, long v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode herald_curl_easy_setopt_ptr(CURL *h, CURLoption o, const void *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode herald_curl_easy_setopt_off(CURL *h, CURLoption o, curl_off_t v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode herald_curl_easy_setopt_write(CURL *h, CURLoption o, curl_write_callback v) { return curl_easy_setopt(h, o, v); }
static inline CURLMcode herald_curl_multi_setopt_long(CURLM *m, CURLMoption o, long v) { return curl_multi_setopt(m, o, v); }
static inline CURLcode herald_curl_easy_getinfo_long(CURL *h, CURLINFO i, long *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode herald_curl_easy_getinfo_ptr(CURL *h, CURLINFO i, void **v) { return curl_easy_getinfo(h, i, v); }
/* CURLMsg carries its CURLcode in a union: read it in C. */
static inline CURLcode herald_curl_msg_result(const CURLMsg *m) { return m->data.result; }

#if defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>
/* An anonymous in-memory file (MFD_CLOEXEC) for the CA bundle curl reads by path (/proc/self/fd/N).
   memfd_create(2) is declared only under _GNU_SOURCE, so it is reached through syscall(2). -1 if unsupported. */
static inline int herald_memfd_create(const char *name) {
#ifdef SYS_memfd_create
    return (int)syscall(SYS_memfd_create, name, 1u);
#else
    (void)name;
    return -1;
#endif
}
#endif
#endif
