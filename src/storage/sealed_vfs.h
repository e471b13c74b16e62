// The sealing SQLite VFS: encryption at rest for the database file, its WAL and its rollback
// journal (docs/storage-format.md, "Encryption at rest"). A shim over the default VFS that
// seals every page with XChaCha20-Poly1305 (libsodium) as it is written and opens it as it is
// read; the 24-byte nonce and 16-byte tag live in the last kSealReserveBytes of the page, which
// SQLite is told to leave unused (its "reserved bytes per page"). Chosen over field-level
// sealing because it covers everything SQLite writes (full-text postings, indexes, freed pages,
// the WAL) without the schema knowing, and keeps every query as it is.
//
// Page 1 keeps its first 24 bytes readable: a magic ("EngramS1") and the key id in place of
// SQLite's "SQLite format 3", then SQLite's page size, versions and reserve, so a sealed file is
// recognised, and a wrong key is told apart from damage, before SQLite reads it. The shm file
// (WAL index: page numbers and checksums, no content) passes through. Temporary files are
// refused: Engram keeps them in memory (temp_store=MEMORY), and the refusal makes a change that
// would spill them to disk fail loudly instead of writing plaintext.
#pragma once

#include <string>

#include "engram/encryption.h"
#include "engram/status.h"

namespace engram {

inline constexpr int kSealedPageSize = 4096;
inline constexpr int kSealReserveBytes = 40;  // 24-byte nonce + 16-byte tag

// The name of a VFS sealing with `key`, registered once per key for the process's life.
std::string SealedVfsName(const EncryptionKey& key);

enum class FileSealing { kMissing, kEmpty, kPlain, kSealed, kUnknown };
struct FileSealState {
  FileSealing sealing = FileSealing::kMissing;
  std::string key_id;  // kSealed: the id of the key it was sealed with
};
// What is at `path`: nothing, an empty file, an SQLite database, a sealed one, or something
// else. Reads the first 24 bytes only.
Result<FileSealState> InspectDatabaseFile(const std::string& path);

// Checks that `key` may open the database at `path`, with a message a person can act on:
// a sealed file and no key, a plain file and a key, a key of another id, or page 1 failing
// authentication (damage). OK for a missing or empty file.
Status CheckDatabaseKey(const std::string& path, const EncryptionKey* key);

}  // namespace engram
