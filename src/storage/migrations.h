// Numbered schema migrations for the embedded SQLite store. docs/storage-format.md describes
// every table and the policy: migrations are append-only, each runs in its own transaction,
// and a database written by a newer Engram is refused rather than guessed at.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engram/memory.h"
#include "engram/status.h"
#include "storage/sqlite.h"

namespace engram {

// 'ENGR': written to PRAGMA application_id so other tools (and Engram) can tell the file apart.
inline constexpr int32_t kApplicationId = 0x454E4752;

struct Migration {
  int version;
  std::string_view name;
  std::string_view sql;
};

// All migrations in order; the last one's version is the current schema version.
const std::vector<Migration>& AllMigrations();
int LatestSchemaVersion();

// The version recorded in the database's schema_version table (0 for an empty file).
// Corruption if the file is not an Engram database.
Result<int> ReadSchemaVersion(Database* db);

// Brings the database to `target` (default: latest), one transaction per migration.
// Corruption if the database is newer than this build knows or is not an Engram database.
Status Migrate(Database* db, TimestampMs now, int target = -1);

// Opens a read-write connection to the Engram database at `path` (creating it), refusing a
// foreign file before writing anything to it, then switches it to WAL and migrates it.
Result<std::unique_ptr<Database>> OpenEngramDatabase(const std::string& path,
                                                     const DatabaseOptions& options,
                                                     TimestampMs now);

}  // namespace engram
