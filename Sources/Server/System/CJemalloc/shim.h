#ifndef HERALD_CJEMALLOC_SHIM_H
#define HERALD_CJEMALLOC_SHIM_H

#include <stddef.h>

/* jemalloc (Debian's libjemalloc2, built without a symbol prefix) replaces malloc and free for the whole process
   when linked in. Only its control interface is declared here: <jemalloc/jemalloc.h> would declare malloc and free
   a second time beside the C library's. */
int mallctl(const char *name, void *oldp, size_t *oldlenp, void *newp, size_t newlen);

#endif
