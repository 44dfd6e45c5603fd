#ifndef HERALD_CSQLITE_SHIM_H
#define HERALD_CSQLITE_SHIM_H
#include <sqlite3.h>

/// SQLITE_TRANSIENT is a casting macro Swift cannot import: bind copies of the bytes.
static inline int herald_sqlite3_bind_text(sqlite3_stmt *stmt, int index, const char *text, int length) {
    return sqlite3_bind_text(stmt, index, text, length, SQLITE_TRANSIENT);
}

static inline int herald_sqlite3_bind_blob(sqlite3_stmt *stmt, int index, const void *bytes, int length) {
    return sqlite3_bind_blob(stmt, index, bytes, length, SQLITE_TRANSIENT);
}
/// sqlite3_config is variadic, which Swift cannot call. Turns off SQLite's count of the memory it holds, which
/// takes a process-wide mutex on every allocation; only sqlite3_memory_used and the soft heap limit read it.
/// Works only before SQLite is initialized (SQLITE_MISUSE after).
static inline int herald_sqlite3_disable_memstatus(void) {
    return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

/// Extended result codes are expression macros Swift does not import.
static const int herald_sqlite_constraint_unique = SQLITE_CONSTRAINT_UNIQUE;
static const int herald_sqlite_constraint_primarykey = SQLITE_CONSTRAINT_PRIMARYKEY;
#endif
