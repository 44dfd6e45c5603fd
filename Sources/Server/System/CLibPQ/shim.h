#ifndef HERALD_CLIBPQ_SHIM_H
#define HERALD_CLIBPQ_SHIM_H
#include <libpq-fe.h>
#include <poll.h>

/// The PG_DIAG_* field codes are character-literal macros: spelled here as constants Swift imports.
static const int herald_pg_diag_sqlstate = PG_DIAG_SQLSTATE;
static const int herald_pg_diag_message_primary = PG_DIAG_MESSAGE_PRIMARY;
static const int herald_pg_diag_constraint_name = PG_DIAG_CONSTRAINT_NAME;
static const int herald_pg_diag_table_name = PG_DIAG_TABLE_NAME;
static const int herald_pg_diag_column_name = PG_DIAG_COLUMN_NAME;

/// A notice processor that drops notices ("relation already exists, skipping"): libpq's default prints them
/// to stderr, and Herald reports what matters through its errors.
static void herald_pq_ignore_notice(void *arg, const char *message) {
    (void)arg;
    (void)message;
}

static inline void herald_pq_silence_notices(PGconn *connection) {
    PQsetNoticeProcessor(connection, herald_pq_ignore_notice, NULL);
}
#endif
