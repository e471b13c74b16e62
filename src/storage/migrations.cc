#include "storage/migrations.h"

#include <algorithm>

#include "core/status_macros.h"
#include "storage/pg_migrations.h"
#include "storage/postgres.h"

namespace engram {
namespace {

// Version 1: scopes, memory items, their history, and vectors kept apart from items.
constexpr std::string_view kV1Core = R"sql(
CREATE TABLE scopes (
  id        INTEGER PRIMARY KEY AUTOINCREMENT,  -- never reused: a stale cached id finds nothing
  tenant    TEXT NOT NULL,
  user_id   TEXT NOT NULL,
  UNIQUE (tenant, user_id)
);
CREATE TABLE items (
  seq             INTEGER PRIMARY KEY,
  id              TEXT NOT NULL UNIQUE,
  scope_id        INTEGER NOT NULL REFERENCES scopes(id),
  agent_id        TEXT NOT NULL DEFAULT '',
  session_id      TEXT NOT NULL DEFAULT '',
  tier            TEXT NOT NULL,
  type            TEXT NOT NULL,
  content         TEXT NOT NULL,
  entities        TEXT NOT NULL DEFAULT '[]',
  tags            TEXT NOT NULL DEFAULT '[]',
  metadata        TEXT NOT NULL DEFAULT '{}',
  importance      REAL NOT NULL,
  confidence      REAL NOT NULL,
  source_messages TEXT NOT NULL DEFAULT '[]',
  source_session  TEXT NOT NULL DEFAULT '',
  extractor       TEXT NOT NULL DEFAULT '',
  prompt_version  TEXT NOT NULL DEFAULT '',
  created_at      INTEGER NOT NULL,
  updated_at      INTEGER NOT NULL,
  valid_from      INTEGER NOT NULL,
  valid_to        INTEGER,
  last_accessed   INTEGER,
  access_count    INTEGER NOT NULL DEFAULT 0,
  status          TEXT NOT NULL,
  supersedes      TEXT NOT NULL DEFAULT '',
  superseded_by   TEXT NOT NULL DEFAULT '',
  embedding_model TEXT NOT NULL DEFAULT ''
);
CREATE INDEX items_scope_created ON items (scope_id, created_at DESC, seq DESC);
CREATE TABLE item_history (
  seq         INTEGER PRIMARY KEY,
  item_seq    INTEGER NOT NULL REFERENCES items(seq) ON DELETE CASCADE,
  event       TEXT NOT NULL,
  old_content TEXT,
  new_content TEXT,
  previous    TEXT,
  reason      TEXT NOT NULL DEFAULT '',
  at          INTEGER NOT NULL
);
CREATE INDEX item_history_item ON item_history (item_seq, seq);
CREATE TABLE embeddings (
  item_seq   INTEGER NOT NULL REFERENCES items(seq) ON DELETE CASCADE,
  model      TEXT NOT NULL,
  dim        INTEGER NOT NULL,
  vector     BLOB NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (item_seq, model)
) WITHOUT ROWID;
)sql";

// Version 2: conversation sessions and their turns (the working → episodic path).
constexpr std::string_view kV2Sessions = R"sql(
CREATE TABLE sessions (
  seq          INTEGER PRIMARY KEY,
  scope_id     INTEGER NOT NULL REFERENCES scopes(id),
  session_id   TEXT NOT NULL,
  agent_id     TEXT NOT NULL DEFAULT '',
  started_at   INTEGER NOT NULL,
  last_turn_at INTEGER,
  closed_at    INTEGER,
  summary_id   TEXT NOT NULL DEFAULT '',
  UNIQUE (scope_id, session_id)
);
CREATE TABLE turns (
  seq         INTEGER PRIMARY KEY,
  session_seq INTEGER NOT NULL REFERENCES sessions(seq) ON DELETE CASCADE,
  message_id  TEXT NOT NULL,
  role        TEXT NOT NULL,
  content     TEXT NOT NULL,
  created_at  INTEGER NOT NULL,
  UNIQUE (session_seq, message_id)
);
)sql";

// Version 3: API keys of the HTTP server. Only a SHA-256 of each secret is stored; the keys
// are 256-bit random, so a plain hash is enough to make a stolen table useless.
constexpr std::string_view kV3ApiKeys = R"sql(
CREATE TABLE api_keys (
  id            TEXT PRIMARY KEY,
  tenant        TEXT NOT NULL,
  name          TEXT NOT NULL DEFAULT '',
  role          TEXT NOT NULL CHECK (role IN ('tenant', 'admin')),
  secret_sha256 BLOB NOT NULL UNIQUE,
  prefix        TEXT NOT NULL,
  created_at    INTEGER NOT NULL,
  revoked_at    INTEGER
);
)sql";

// Version 4: the write path. `slot` names the subject + attribute an extracted item states
// (conflict detection looks up a scope's active items by slot); `jobs` is the persisted queue
// of asynchronous writes, so accepted work survives a restart.
constexpr std::string_view kV4WritePath = R"sql(
ALTER TABLE items ADD COLUMN slot TEXT NOT NULL DEFAULT '';
CREATE INDEX items_scope_slot ON items (scope_id, slot) WHERE slot <> '';
CREATE TABLE jobs (
  seq             INTEGER PRIMARY KEY,
  id              TEXT NOT NULL UNIQUE,
  scope_id        INTEGER NOT NULL REFERENCES scopes(id),
  kind            TEXT NOT NULL,
  payload         TEXT NOT NULL,
  state           TEXT NOT NULL CHECK (state IN ('queued', 'running', 'done', 'failed')),
  attempts        INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER NOT NULL,
  result          TEXT,
  error           TEXT NOT NULL DEFAULT '',
  created_at      INTEGER NOT NULL,
  updated_at      INTEGER NOT NULL
);
CREATE INDEX jobs_due ON jobs (state, next_attempt_at);
)sql";

// Version 5: reads counted since an item's row was last written, in a narrow table of their
// own. Searches return items spread over the whole store; counting them in `items` rewrote a
// wide page per item (a page write for nearly every item a search returns), while ~250 of
// these rows share a page. Readers add them to items.access_count and last_accessed;
// a write of the whole row folds them in and deletes the row.
constexpr std::string_view kV5ItemAccess = R"sql(
CREATE TABLE item_access (
  item_seq  INTEGER PRIMARY KEY REFERENCES items(seq) ON DELETE CASCADE,
  reads     INTEGER NOT NULL,
  last_read INTEGER NOT NULL
);
)sql";

// Version 6: how many chunks of access counts have been committed, written in the same
// transaction as each. A search that reads an item's row from SQLite while a chunk of its
// counts commits reads this too, and so knows whether its snapshot holds that chunk without
// waiting for the commit (the engine's ReadHitRows).
constexpr std::string_view kV6AccessEpoch = R"sql(
CREATE TABLE access_epoch (
  id      INTEGER PRIMARY KEY CHECK (id = 1),
  flushes INTEGER NOT NULL
);
INSERT INTO access_epoch (id, flushes) VALUES (1, 0);
)sql";

// Version 7: embeddings in an ordinary rowid table. As a WITHOUT ROWID table (an index b-tree)
// a row keeps at most ~1,000 bytes on its leaf with 4 KB pages, so every 384-dimension vector
// (1,536 bytes) spilled into an overflow page of its own, mostly empty; and appends to an index
// b-tree rebalance the last leaves instead of starting a new one: each add wrote several
// pages for its vector, and the file held mostly empty overflow pages. A table row keeps up to
// ~4,000 bytes in place. The old table's rows are copied in key order;
// the unique index is built after them.
constexpr std::string_view kV7EmbeddingRows = R"sql(
CREATE TABLE embeddings_v7 (
  item_seq   INTEGER NOT NULL REFERENCES items(seq) ON DELETE CASCADE,
  model      TEXT NOT NULL,
  dim        INTEGER NOT NULL,
  vector     BLOB NOT NULL,
  created_at INTEGER NOT NULL
);
INSERT INTO embeddings_v7 (item_seq, model, dim, vector, created_at)
  SELECT item_seq, model, dim, vector, created_at FROM embeddings ORDER BY item_seq, model;
DROP TABLE embeddings;
ALTER TABLE embeddings_v7 RENAME TO embeddings;
CREATE UNIQUE INDEX embeddings_item_model ON embeddings (item_seq, model);
)sql";

// Version 8: conversation turns kept as episodic items, linked both ways with what was extracted
// from them. `source_role` is who said a kept turn; `source_turns` the kept turns (item ids) an
// extracted item came from; `derived_ids` the items a kept turn produced. JSON text lists, as
// `source_messages`. Adding columns with constant defaults rewrites no row.
constexpr std::string_view kV8KeptTurns = R"sql(
ALTER TABLE items ADD COLUMN source_role TEXT NOT NULL DEFAULT '';
ALTER TABLE items ADD COLUMN source_turns TEXT NOT NULL DEFAULT '[]';
ALTER TABLE items ADD COLUMN derived_ids TEXT NOT NULL DEFAULT '[]';
)sql";

// Version 9: the memory lifecycle. `expires_at` is when an item stops being worth recalling;
// `review_at` when maintenance should look at it again (its retention falls below the archive
// threshold, it expires, or its grace as an archived item ends), so an incremental run reads
// only the items due and those changed since the scope's last run (item_history past
// lifecycle_scopes.history_seq; a scope without a row has never been maintained). `lifecycle_log`
// records each action maintenance took, with its reason: the record of a purged item outlives the
// item's own history. NULL review_at: nothing scheduled (not yet seen by a run, or an item that
// never needs one).
constexpr std::string_view kV9Lifecycle = R"sql(
ALTER TABLE items ADD COLUMN expires_at INTEGER;
ALTER TABLE items ADD COLUMN review_at INTEGER;
CREATE INDEX items_review ON items (review_at) WHERE review_at IS NOT NULL;
CREATE TABLE lifecycle_log (
  seq      INTEGER PRIMARY KEY,
  scope_id INTEGER NOT NULL REFERENCES scopes(id),
  item_id  TEXT NOT NULL,
  action   TEXT NOT NULL,
  reason   TEXT NOT NULL,
  at       INTEGER NOT NULL
);
CREATE INDEX lifecycle_log_scope ON lifecycle_log (scope_id, seq);
CREATE TABLE lifecycle_scopes (
  scope_id    INTEGER PRIMARY KEY REFERENCES scopes(id),
  history_seq INTEGER NOT NULL,
  last_run_at INTEGER NOT NULL
);
)sql";

// Version 10: the profile's summary maintenance writes with an LLM, one per (tenant, user):
// its text, the memories it cites (ids separated by spaces), and the fingerprint of the profile
// lines it was written from (include/engram/profile.h).
constexpr std::string_view kV10Profiles = R"sql(
CREATE TABLE profiles (
  scope_id       INTEGER PRIMARY KEY REFERENCES scopes(id),
  summary        TEXT NOT NULL,
  item_ids       TEXT NOT NULL,
  fingerprint    TEXT NOT NULL,
  model          TEXT NOT NULL,
  prompt_version TEXT NOT NULL,
  generated_at   INTEGER NOT NULL
);
)sql";

// Version 11: the audit log — who (API key id, tenant, address) read, changed, exported,
// purged or administered which user's data, when, through which route, with the request id
// and status. Never content, a query or a secret. Append-only; rows older than the server's
// retention are deleted.
constexpr std::string_view kV11Audit = R"sql(
CREATE TABLE audit_log (
  seq        INTEGER PRIMARY KEY,
  at         INTEGER NOT NULL,
  request_id TEXT NOT NULL,
  tenant     TEXT NOT NULL,
  key_id     TEXT NOT NULL,
  action     TEXT NOT NULL,
  method     TEXT NOT NULL,
  route      TEXT NOT NULL,
  user_id    TEXT NOT NULL,
  target     TEXT NOT NULL,
  status     INTEGER NOT NULL,
  remote     TEXT NOT NULL
);
CREATE INDEX audit_log_tenant ON audit_log (tenant, seq);
CREATE INDEX audit_log_at ON audit_log (at);
)sql";

// Version 12: the knowledge tier (include/engram/knowledge.h): documents shared by a tenant
// (agent_id '') or one of its agents, not by a user, so they carry their tenant themselves
// instead of a scopes row. A document's chunks hold their text, citation (title path as a JSON
// array of headings, code-point range in the document's text) and vector; re-ingesting replaces
// them in one transaction, and deleting the document deletes them (the store deletes them
// explicitly; ON DELETE CASCADE as well).
constexpr std::string_view kV12Knowledge = R"sql(
CREATE TABLE knowledge_docs (
  seq            INTEGER PRIMARY KEY,
  tenant         TEXT NOT NULL,
  agent_id       TEXT NOT NULL DEFAULT '',
  doc_id         TEXT NOT NULL,
  title          TEXT NOT NULL,
  format         TEXT NOT NULL,
  source         TEXT NOT NULL DEFAULT '',
  metadata       TEXT NOT NULL DEFAULT '{}',
  bytes          INTEGER NOT NULL,
  chars          INTEGER NOT NULL,
  content_hash   TEXT NOT NULL,
  version        INTEGER NOT NULL,
  chunk_tokens   INTEGER NOT NULL,
  overlap_tokens INTEGER NOT NULL,
  created_at     INTEGER NOT NULL,
  updated_at     INTEGER NOT NULL,
  UNIQUE (tenant, agent_id, doc_id)
);
CREATE TABLE knowledge_chunks (
  seq             INTEGER PRIMARY KEY,
  doc_seq         INTEGER NOT NULL REFERENCES knowledge_docs(seq) ON DELETE CASCADE,
  ordinal         INTEGER NOT NULL,
  title_path      TEXT NOT NULL DEFAULT '[]',
  char_start      INTEGER NOT NULL,
  char_end        INTEGER NOT NULL,
  tokens          INTEGER NOT NULL,
  content         TEXT NOT NULL,
  embedding_model TEXT NOT NULL,
  vector          BLOB NOT NULL
);
CREATE UNIQUE INDEX knowledge_chunks_doc ON knowledge_chunks (doc_seq, ordinal);
)sql";

// Version 13: the entity graph (issue 39; docs/storage-format.md, "Entity graph"). Per scope
// (tenant, user): entities by kind and normalized name (`norm`, NFKC + case folded), their
// aliases (role words the user gave them: "老公" for 老王), relations as bi-temporal edges
// (valid_from/valid_to in the world, created_at/expired_at in Engram), and which items (memories
// and kept turns) name an entity or state an edge. Those two link tables reference items(seq)
// ON DELETE CASCADE, so every hard delete of an item (purge, maintenance, a scope's erasure)
// takes its links along; the triggers then remove an edge no item states any more, and an
// entity that nothing names and no edge touches: no trace of a purged text stays in the graph.
constexpr std::string_view kV13EntityGraph = R"sql(
CREATE TABLE graph_entities (
  id         TEXT PRIMARY KEY,
  scope_id   INTEGER NOT NULL REFERENCES scopes(id),
  kind       TEXT NOT NULL,
  name       TEXT NOT NULL,
  norm       TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  UNIQUE (scope_id, kind, norm)
);
CREATE INDEX graph_entities_norm ON graph_entities (scope_id, norm);
CREATE TABLE graph_aliases (
  entity_id TEXT NOT NULL REFERENCES graph_entities(id) ON DELETE CASCADE,
  scope_id  INTEGER NOT NULL,
  alias     TEXT NOT NULL,
  norm      TEXT NOT NULL,
  item_seq  INTEGER NOT NULL REFERENCES items(seq) ON DELETE CASCADE,
  PRIMARY KEY (entity_id, norm, item_seq)
);
CREATE INDEX graph_aliases_norm ON graph_aliases (scope_id, norm);
CREATE INDEX graph_aliases_item ON graph_aliases (item_seq);
CREATE TABLE graph_mentions (
  entity_id TEXT NOT NULL REFERENCES graph_entities(id) ON DELETE CASCADE,
  item_seq  INTEGER NOT NULL REFERENCES items(seq) ON DELETE CASCADE,
  PRIMARY KEY (entity_id, item_seq)
);
CREATE INDEX graph_mentions_item ON graph_mentions (item_seq);
CREATE TABLE graph_edges (
  id         TEXT PRIMARY KEY,
  scope_id   INTEGER NOT NULL REFERENCES scopes(id),
  subject_id TEXT NOT NULL REFERENCES graph_entities(id) ON DELETE CASCADE,
  predicate  TEXT NOT NULL,
  object_id  TEXT NOT NULL REFERENCES graph_entities(id) ON DELETE CASCADE,
  valid_from INTEGER NOT NULL,
  valid_to   INTEGER,
  created_at INTEGER NOT NULL,
  expired_at INTEGER,
  ended_by   TEXT NOT NULL DEFAULT ''
);
CREATE INDEX graph_edges_subject ON graph_edges (subject_id, predicate);
CREATE INDEX graph_edges_object ON graph_edges (object_id);
CREATE TABLE graph_edge_sources (
  edge_id  TEXT NOT NULL REFERENCES graph_edges(id) ON DELETE CASCADE,
  item_seq INTEGER NOT NULL REFERENCES items(seq) ON DELETE CASCADE,
  PRIMARY KEY (edge_id, item_seq)
);
CREATE INDEX graph_edge_sources_item ON graph_edge_sources (item_seq);
CREATE TRIGGER graph_edge_unstated AFTER DELETE ON graph_edge_sources BEGIN
  DELETE FROM graph_edges WHERE id = OLD.edge_id
    AND NOT EXISTS (SELECT 1 FROM graph_edge_sources WHERE edge_id = OLD.edge_id);
END;
CREATE TRIGGER graph_edge_gone AFTER DELETE ON graph_edges BEGIN
  DELETE FROM graph_entities WHERE id IN (OLD.subject_id, OLD.object_id)
    AND NOT EXISTS (SELECT 1 FROM graph_mentions m WHERE m.entity_id = graph_entities.id)
    AND NOT EXISTS (SELECT 1 FROM graph_edges e WHERE e.subject_id = graph_entities.id
                                                   OR e.object_id = graph_entities.id);
END;
CREATE TRIGGER graph_mention_gone AFTER DELETE ON graph_mentions BEGIN
  DELETE FROM graph_entities WHERE id = OLD.entity_id
    AND NOT EXISTS (SELECT 1 FROM graph_mentions m WHERE m.entity_id = OLD.entity_id)
    AND NOT EXISTS (SELECT 1 FROM graph_edges e WHERE e.subject_id = OLD.entity_id
                                                   OR e.object_id = OLD.entity_id);
END;
)sql";

Result<bool> TableExists(Database* db, std::string_view name) {
  ENGRAM_ASSIGN_OR_RETURN(ScopedStatement st,
                          db->Prepare("SELECT 1 FROM sqlite_schema WHERE type='table' AND name=?"));
  st->Bind(1, name);
  return st->Step();
}

Result<int64_t> PragmaInt(Database* db, const std::string& pragma) {
  ENGRAM_ASSIGN_OR_RETURN(auto st, db->PrepareUncached("PRAGMA " + pragma));
  ENGRAM_ASSIGN_OR_RETURN(bool row, st->Step());
  return row ? st->Int(0) : 0;
}

Status ApplyOne(Database* db, const Migration& m, TimestampMs now) {
  Transaction txn(db);
  ENGRAM_RETURN_IF_ERROR(txn.Begin());
  ENGRAM_RETURN_IF_ERROR(db->Exec(m.sql).WithContext("migration " + std::to_string(m.version)));
  ENGRAM_ASSIGN_OR_RETURN(ScopedStatement ins,
                          db->Prepare("INSERT INTO schema_version(version, name, applied_at) "
                                      "VALUES (?, ?, ?)"));
  ENGRAM_RETURN_IF_ERROR(ins->Bind(1, int64_t{m.version}).Bind(2, m.name).Bind(3, now).Run());
  ENGRAM_RETURN_IF_ERROR(db->Exec("PRAGMA user_version=" + std::to_string(m.version)));
  return txn.Commit();
}

}  // namespace

const std::vector<Migration>& AllMigrations() {
  static const std::vector<Migration> kAll = {
      {1, "core items, history, embeddings", kV1Core},
      {2, "sessions and turns", kV2Sessions},
      {3, "api keys", kV3ApiKeys},
      {4, "slots and jobs", kV4WritePath},
      {5, "item access counts", kV5ItemAccess},
      {6, "access epoch", kV6AccessEpoch},
      {7, "embeddings in a rowid table", kV7EmbeddingRows},
      {8, "kept turns and their links", kV8KeptTurns},
      {9, "lifecycle: expiry, review times, maintenance log", kV9Lifecycle},
      {10, "profile summaries", kV10Profiles},
      {11, "audit log", kV11Audit},
      {12, "knowledge documents and chunks", kV12Knowledge},
      {13, "entity graph", kV13EntityGraph},
  };
  return kAll;
}

int LatestSchemaVersion() { return AllMigrations().back().version; }

Result<int> ReadSchemaVersion(Database* db) {
  ENGRAM_ASSIGN_OR_RETURN(int64_t app_id, PragmaInt(db, "application_id"));
  ENGRAM_ASSIGN_OR_RETURN(bool has_versions, TableExists(db, "schema_version"));
  if (!has_versions) {
    ENGRAM_ASSIGN_OR_RETURN(ScopedStatement st, db->Prepare("SELECT count(*) FROM sqlite_schema"));
    ENGRAM_ASSIGN_OR_RETURN(bool row, st->Step());
    if (row && st->Int(0) != 0) {
      return Status::Corruption(db->path() + " is an SQLite database but not an Engram one");
    }
    return 0;
  }
  if (app_id != kApplicationId) {
    return Status::Corruption(db->path() + " has a foreign application_id " +
                              std::to_string(app_id));
  }
  ENGRAM_ASSIGN_OR_RETURN(ScopedStatement st,
                          db->Prepare("SELECT coalesce(max(version), 0) FROM schema_version"));
  ENGRAM_ASSIGN_OR_RETURN(bool row, st->Step());
  return row ? static_cast<int>(st->Int(0)) : 0;
}

Status Migrate(Database* db, TimestampMs now, int target) {
  if (target < 0) target = LatestSchemaVersion();
  ENGRAM_ASSIGN_OR_RETURN(int current, ReadSchemaVersion(db));
  // The version query stays on its row; SQLite drops no table (version 7) while a statement of
  // the connection is mid-result.
  db->ResetActiveStatements();
  if (current > LatestSchemaVersion()) {
    return Status::Corruption("database schema version " + std::to_string(current) +
                              " is newer than this Engram supports (" +
                              std::to_string(LatestSchemaVersion()) + "); upgrade Engram");
  }
  if (current == 0) {
    Transaction txn(db);
    ENGRAM_RETURN_IF_ERROR(txn.Begin());
    ENGRAM_RETURN_IF_ERROR(
        db->Exec("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, "
                 "name TEXT NOT NULL, applied_at INTEGER NOT NULL)"));
    ENGRAM_RETURN_IF_ERROR(db->Exec("PRAGMA application_id=" + std::to_string(kApplicationId)));
    ENGRAM_RETURN_IF_ERROR(txn.Commit());
  }
  if (current >= std::min(target, LatestSchemaVersion())) return Status::Ok();
  // Temporary data on disk while migrating: a statement that rewrites a whole table keeps a
  // statement journal, which with the connection's temp_store=MEMORY held ~4.7 GB of memory
  // for version 7 over 1,000,000 vectors (37 MB with files).
  ENGRAM_RETURN_IF_ERROR(db->Exec("PRAGMA temp_store=FILE"));
  Status migrated = Status::Ok();
  for (const Migration& m : AllMigrations()) {
    if (m.version <= current || m.version > target) continue;
    migrated = ApplyOne(db, m, now);
    if (!migrated.ok()) break;
  }
  Status restored = db->Exec("PRAGMA temp_store=MEMORY");
  ENGRAM_RETURN_IF_ERROR(migrated);
  return restored;
}

Result<std::unique_ptr<Database>> OpenEngramDatabase(const std::string& path,
                                                     const DatabaseOptions& options,
                                                     TimestampMs now) {
  if (IsPostgresUrl(path)) {
    if (options.key) {
      return Status::InvalidArgument(
          "encryption at rest (--key-file) is for the embedded database; PostgreSQL encrypts "
          "with its own means (disk encryption, TLS): docs/deploy.md");
    }
    ENGRAM_ASSIGN_OR_RETURN(auto db, OpenPostgres(path, options));
    ENGRAM_RETURN_IF_ERROR(MigratePostgres(db.get(), now));
    return db;
  }
  ENGRAM_ASSIGN_OR_RETURN(auto db, Database::Open(path, options));
  // Refuse foreign files before anything is written to them (WAL mode changes the header).
  ENGRAM_RETURN_IF_ERROR(ReadSchemaVersion(db.get()).status());
  db->ResetActiveStatements();
  ENGRAM_RETURN_IF_ERROR(db->EnableWal());
  ENGRAM_RETURN_IF_ERROR(Migrate(db.get(), now));
  // The version checks leave cached statements on a row; a statement left mid-result keeps a
  // read transaction (an old snapshot, and a lock that blocks checkpoints) open for good.
  db->ResetActiveStatements();
  return db;
}

}  // namespace engram
