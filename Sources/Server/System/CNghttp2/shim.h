#ifndef HERALD_CNGHTTP2_SHIM_H
#define HERALD_CNGHTTP2_SHIM_H
#include <sys/types.h>
#include <nghttp2/nghttp2.h>

#if defined(__linux__)
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>

/* The HTTP/2 client's event loop drives its nghttp2 sessions with epoll and wakes through an eventfd; Swift's Glibc
   module exports neither, and struct epoll_event is packed on x86-64, so it is only touched here, in C. */
static inline int herald_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }
static inline int herald_eventfd(void) { return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC); }
static inline uint32_t herald_epoll_in(void) { return EPOLLIN; }
static inline uint32_t herald_epoll_out(void) { return EPOLLOUT; }
static inline uint32_t herald_epoll_err_or_hup(void) { return EPOLLERR | EPOLLHUP; }
/* op: 0 add, 1 modify, 2 delete. */
static inline int herald_epoll_ctl(int epfd, int op, int fd, uint32_t events, uint64_t key) {
    struct epoll_event event;
    event.events = events;
    event.data.u64 = key;
    int ops[3] = {EPOLL_CTL_ADD, EPOLL_CTL_MOD, EPOLL_CTL_DEL};
    return epoll_ctl(epfd, ops[op], fd, &event);
}
static inline void *herald_epoll_events_new(int count) { return calloc((size_t)count, sizeof(struct epoll_event)); }
static inline int herald_epoll_wait(int epfd, void *events, int count, int timeout) {
    return epoll_wait(epfd, (struct epoll_event *)events, count, timeout);
}
static inline uint32_t herald_epoll_event_flags(const void *events, int index) {
    return ((const struct epoll_event *)events)[index].events;
}
static inline uint64_t herald_epoll_event_key(const void *events, int index) {
    return ((const struct epoll_event *)events)[index].data.u64;
}
#endif

/* nghttp2_frame is a union: its fields are read here, in C, rather than through Swift's view of the union. */
static inline uint8_t herald_nghttp2_frame_type(const nghttp2_frame *frame) { return frame->hd.type; }
static inline uint8_t herald_nghttp2_frame_flags(const nghttp2_frame *frame) { return frame->hd.flags; }
static inline int32_t herald_nghttp2_frame_stream_id(const nghttp2_frame *frame) { return frame->hd.stream_id; }
static inline int herald_nghttp2_headers_category(const nghttp2_frame *frame) { return (int)frame->headers.cat; }
static inline int32_t herald_nghttp2_goaway_last_stream_id(const nghttp2_frame *frame) {
    return frame->goaway.last_stream_id;
}
static inline uint32_t herald_nghttp2_goaway_error_code(const nghttp2_frame *frame) { return frame->goaway.error_code; }
static inline const uint8_t *herald_nghttp2_goaway_debug_data(const nghttp2_frame *frame) {
    return frame->goaway.opaque_data;
}
static inline size_t herald_nghttp2_goaway_debug_length(const nghttp2_frame *frame) {
    return frame->goaway.opaque_data_len;
}

/* The data source of a request body is the request's id, carried in the union's pointer. */
static inline nghttp2_data_provider herald_nghttp2_data_provider(void *source, nghttp2_data_source_read_callback read) {
    nghttp2_data_provider provider;
    provider.source.ptr = source;
    provider.read_callback = read;
    return provider;
}
static inline void *herald_nghttp2_data_source_pointer(const nghttp2_data_source *source) { return source->ptr; }
#endif
