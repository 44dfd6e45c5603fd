#ifndef HERALD_CMICROHTTPD_SHIM_H
#define HERALD_CMICROHTTPD_SHIM_H
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <microhttpd.h>

/* MHD_start_daemon and MHD_get_*_info are variadic: Swift cannot call them. */

/// Where libmicrohttpd's own messages go: defined in Swift (HeraldHTTP, `@_cdecl`), which hands them to the server's
/// logger; `cls` is the server.
extern void herald_mhd_log_message(void *cls, const char *message);

/// libmicrohttpd's logger callback: the message formatted (at most 511 bytes kept), then handed to Swift.
static inline void herald_mhd_log(void *cls, const char *format, va_list arguments) {
    char message[512];
    vsnprintf(message, sizeof message, format, arguments);
    herald_mhd_log_message(cls, message);
}

/// Starts an epoll daemon with a thread pool serving `listen_fd`, a socket already bound and listening (so the
/// caller chose its options: no SO_REUSEPORT unless asked for), with the limits Herald sets.
static inline struct MHD_Daemon *herald_mhd_start(
    unsigned int flags, int listen_fd, MHD_AccessHandlerCallback handler, void *handler_cls,
    MHD_RequestCompletedCallback completed, void *completed_cls,
    void *(*uri_logger)(void *cls, const char *uri, struct MHD_Connection *con), void *uri_logger_cls,
    MHD_NotifyConnectionCallback notify_connection, void *notify_connection_cls,
    unsigned int thread_pool_size,
    unsigned int connection_timeout, size_t connection_memory_limit, unsigned int connection_limit, void *log_cls)
{
    return MHD_start_daemon(flags, 0, NULL, NULL, handler, handler_cls,
        MHD_OPTION_EXTERNAL_LOGGER, herald_mhd_log, log_cls,
        MHD_OPTION_LISTEN_SOCKET, (MHD_socket)listen_fd,
        MHD_OPTION_NOTIFY_COMPLETED, completed, completed_cls,
        MHD_OPTION_URI_LOG_CALLBACK, uri_logger, uri_logger_cls,
        MHD_OPTION_NOTIFY_CONNECTION, notify_connection, notify_connection_cls,
        /* 1 is the daemon's own thread alone: said as 0, which libmicrohttpd takes without a warning. */
        MHD_OPTION_THREAD_POOL_SIZE, thread_pool_size > 1 ? thread_pool_size : 0,
        MHD_OPTION_CONNECTION_TIMEOUT, connection_timeout,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, connection_memory_limit,
        MHD_OPTION_CONNECTION_LIMIT, connection_limit,
        MHD_OPTION_END);
}

/// The port the daemon is bound to (useful after binding port 0).
static inline uint16_t herald_mhd_bound_port(struct MHD_Daemon *d) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

/// The peer address of a connection, or NULL.
static inline const struct sockaddr *herald_mhd_client_addr(struct MHD_Connection *c) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info == NULL ? NULL : info->client_addr;
}

/// The socket of a connection, or -1.
static inline int herald_mhd_connection_fd(struct MHD_Connection *c) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : info->connect_fd;
}

/// The length of the request head in libmicrohttpd's buffer, from the request line's first byte to the end of the
/// empty line that closes it, or 0.
static inline size_t herald_mhd_header_size(struct MHD_Connection *c) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE);
    return info == NULL ? 0 : info->header_size;
}

/// Lets `r` carry the Content-Length its handler sets (MHD_set_response_options is variadic): a 304 names the
/// length of the 200 it stands for, where MHD would write "Content-Length: 0", which RFC 9110 §8.6 forbids.
static inline int herald_mhd_allow_content_length(struct MHD_Response *r) {
    return MHD_set_response_options(r, MHD_RF_INSANITY_HEADER_CONTENT_LENGTH, MHD_RO_END) == MHD_YES;
}
#endif
