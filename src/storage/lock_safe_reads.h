// Reads of the files SQLite locks (a database, its -wal and -shm) from inside a process that
// may have connections to them: the key check of a connection being opened (page 1), and the
// byte scan that proves a purge.
//
// Why: POSIX advisory locks belong to the process and the file, and closing *any* descriptor of
// the file drops all of them, SQLite's included. A server opening a reader connection used to
// read page 1 through a descriptor of its own and close it, so its connections lost the shared
// lock that tells another process (`engram keys create`) not to checkpoint and delete the WAL
// at its exit; the server's next write met a deleted WAL ("disk I/O error"). So while this
// process has a connection to a database, reads of its files go through one descriptor per file
// that is closed only once the last connection to it has closed (SQLite closes its own then).
//
// Database (storage/sqlite.h) registers each connection it opens and closes here. Thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "engram/status.h"

namespace engram {

// A connection to the database at `db_path` opened / closed in this process.
void NoteConnectionOpened(const std::string& db_path);
void NoteConnectionClosed(const std::string& db_path);

// Reads up to `n` bytes of `path` (a database or a file beside it: -wal, -shm, -journal) at
// `offset` into `out`; the count read (0 at the end). NotFound when the file does not exist.
Result<size_t> ReadFileAt(const std::string& path, int64_t offset, char* out, size_t n);

}  // namespace engram
