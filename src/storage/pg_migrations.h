// Numbered schema migrations for the PostgreSQL store (storage/postgres.h): the same policy as
// SQLite's (storage/migrations.h): append-only, one transaction each, a newer schema refused.
// Replicas that start together take turns (an advisory lock held by each migration's
// transaction), so each migration runs once.
#pragma once

#include "engram/memory.h"
#include "engram/status.h"
#include "storage/migrations.h"
#include "storage/sqlite.h"

namespace engram {

int LatestPgSchemaVersion();
// The version in the schema's schema_version table; 0 for an empty schema; Corruption for a
// schema that holds other tables.
Result<int> ReadPgSchemaVersion(Database* db);
// How the tenant-owned tables are laid out, chosen when migration 3 runs (docs/deploy.md,
// "Sharding by tenant"). partitions 0: plain tables; N >= 2: each PARTITION BY HASH (tenant)
// with N partitions.
struct PgLayout {
  int partitions = 0;
};
// ENGRAM_PG_PARTITIONS (unset or empty: 0); InvalidArgument for anything but 0 or 2..1024.
Result<PgLayout> PgLayoutFromEnvironment();
// Brings the database to `target` (default: latest), the layout from the environment.
Status MigratePostgres(Database* db, TimestampMs now, int target = -1);
Status MigratePostgres(Database* db, TimestampMs now, const PgLayout& layout, int target = -1);

}  // namespace engram
