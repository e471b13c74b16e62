// PostgreSQL's numbered migrations (storage/pg_migrations.h). Version 1 is SQLite's schema at
// version 11 in PostgreSQL's types, plus the SQLite functions Engram's portable statements use.
#include "storage/pg_migrations.h"

#include "core/status_macros.h"
#include "storage/postgres.h"

namespace engram {
namespace {

// Every table keyed by `seq` gets it from its sequence when an insert leaves it NULL, as
// SQLite's INTEGER PRIMARY KEY does; an insert that gives one (an import keeping its numbers)
// moves the sequence past it, so later inserts never collide with it.
constexpr std::string_view kV1Core = R"sql(
CREATE FUNCTION engram_fill_seq() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  s regclass := pg_get_serial_sequence(TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME, 'seq');
BEGIN
  IF NEW.seq IS NULL THEN
    NEW.seq := nextval(s);
  ELSE
    PERFORM setval(s, GREATEST(NEW.seq, COALESCE(pg_sequence_last_value(s), 1)));
  END IF;
  RETURN NEW;
END $$;

CREATE FUNCTION instr(a text, b text) RETURNS integer
  LANGUAGE sql IMMUTABLE PARALLEL SAFE AS 'SELECT strpos(a, b)';
CREATE FUNCTION json_quote(a text) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE AS 'SELECT to_json(a)::text';
CREATE FUNCTION max(a bigint, b bigint) RETURNS bigint
  LANGUAGE sql IMMUTABLE PARALLEL SAFE AS 'SELECT GREATEST(a, b)';
CREATE FUNCTION min(a bigint, b bigint) RETURNS bigint
  LANGUAGE sql IMMUTABLE PARALLEL SAFE AS 'SELECT LEAST(a, b)';
CREATE FUNCTION json_each(t text) RETURNS TABLE (value text)
  LANGUAGE sql IMMUTABLE PARALLEL SAFE AS 'SELECT jsonb_array_elements_text(t::jsonb)';

CREATE TABLE scopes (
  id        BIGSERIAL PRIMARY KEY,
  tenant    TEXT NOT NULL,
  user_id   TEXT NOT NULL,
  UNIQUE (tenant, user_id)
);
CREATE TABLE items (
  seq             BIGSERIAL PRIMARY KEY,
  id              TEXT NOT NULL UNIQUE,
  scope_id        BIGINT NOT NULL REFERENCES scopes(id),
  agent_id        TEXT NOT NULL DEFAULT '',
  session_id      TEXT NOT NULL DEFAULT '',
  tier            TEXT NOT NULL,
  type            TEXT NOT NULL,
  content         TEXT NOT NULL,
  entities        TEXT NOT NULL DEFAULT '[]',
  tags            TEXT NOT NULL DEFAULT '[]',
  metadata        TEXT NOT NULL DEFAULT '{}',
  importance      DOUBLE PRECISION NOT NULL,
  confidence      DOUBLE PRECISION NOT NULL,
  source_messages TEXT NOT NULL DEFAULT '[]',
  source_session  TEXT NOT NULL DEFAULT '',
  extractor       TEXT NOT NULL DEFAULT '',
  prompt_version  TEXT NOT NULL DEFAULT '',
  created_at      BIGINT NOT NULL,
  updated_at      BIGINT NOT NULL,
  valid_from      BIGINT NOT NULL,
  valid_to        BIGINT,
  last_accessed   BIGINT,
  access_count    BIGINT NOT NULL DEFAULT 0,
  status          TEXT NOT NULL,
  supersedes      TEXT NOT NULL DEFAULT '',
  superseded_by   TEXT NOT NULL DEFAULT '',
  embedding_model TEXT NOT NULL DEFAULT '',
  slot            TEXT NOT NULL DEFAULT '',
  source_role     TEXT NOT NULL DEFAULT '',
  source_turns    TEXT NOT NULL DEFAULT '[]',
  derived_ids     TEXT NOT NULL DEFAULT '[]',
  expires_at      BIGINT,
  review_at       BIGINT
);
CREATE INDEX items_scope_created ON items (scope_id, created_at DESC, seq DESC);
CREATE INDEX items_scope_slot ON items (scope_id, slot) WHERE slot <> '';
CREATE INDEX items_review ON items (review_at) WHERE review_at IS NOT NULL;
CREATE TABLE item_history (
  seq         BIGSERIAL PRIMARY KEY,
  item_seq    BIGINT NOT NULL REFERENCES items(seq) ON DELETE CASCADE,
  event       TEXT NOT NULL,
  old_content TEXT,
  new_content TEXT,
  previous    TEXT,
  reason      TEXT NOT NULL DEFAULT '',
  at          BIGINT NOT NULL
);
CREATE INDEX item_history_item ON item_history (item_seq, seq);
CREATE TABLE embeddings (
  item_seq   BIGINT NOT NULL REFERENCES items(seq) ON DELETE CASCADE,
  model      TEXT NOT NULL,
  dim        BIGINT NOT NULL,
  vector     BYTEA NOT NULL,
  created_at BIGINT NOT NULL
);
CREATE UNIQUE INDEX embeddings_item_model ON embeddings (item_seq, model);
CREATE TABLE sessions (
  seq          BIGSERIAL PRIMARY KEY,
  scope_id     BIGINT NOT NULL REFERENCES scopes(id),
  session_id   TEXT NOT NULL,
  agent_id     TEXT NOT NULL DEFAULT '',
  started_at   BIGINT NOT NULL,
  last_turn_at BIGINT,
  closed_at    BIGINT,
  summary_id   TEXT NOT NULL DEFAULT '',
  UNIQUE (scope_id, session_id)
);
CREATE TABLE turns (
  seq         BIGSERIAL PRIMARY KEY,
  session_seq BIGINT NOT NULL REFERENCES sessions(seq) ON DELETE CASCADE,
  message_id  TEXT NOT NULL,
  role        TEXT NOT NULL,
  content     TEXT NOT NULL,
  created_at  BIGINT NOT NULL,
  UNIQUE (session_seq, message_id)
);
CREATE TABLE api_keys (
  id            TEXT PRIMARY KEY,
  tenant        TEXT NOT NULL,
  name          TEXT NOT NULL DEFAULT '',
  role          TEXT NOT NULL CHECK (role IN ('tenant', 'admin')),
  secret_sha256 BYTEA NOT NULL UNIQUE,
  prefix        TEXT NOT NULL,
  created_at    BIGINT NOT NULL,
  revoked_at    BIGINT
);
CREATE TABLE jobs (
  seq             BIGSERIAL PRIMARY KEY,
  id              TEXT NOT NULL UNIQUE,
  scope_id        BIGINT NOT NULL REFERENCES scopes(id),
  kind            TEXT NOT NULL,
  payload         TEXT NOT NULL,
  state           TEXT NOT NULL CHECK (state IN ('queued', 'running', 'done', 'failed')),
  attempts        BIGINT NOT NULL DEFAULT 0,
  next_attempt_at BIGINT NOT NULL,
  result          TEXT,
  error           TEXT NOT NULL DEFAULT '',
  created_at      BIGINT NOT NULL,
  updated_at      BIGINT NOT NULL
);
CREATE INDEX jobs_due ON jobs (state, next_attempt_at);
CREATE TABLE item_access (
  item_seq  BIGINT PRIMARY KEY REFERENCES items(seq) ON DELETE CASCADE,
  reads     BIGINT NOT NULL,
  last_read BIGINT NOT NULL
);
CREATE TABLE access_epoch (
  id      BIGINT PRIMARY KEY CHECK (id = 1),
  flushes BIGINT NOT NULL
);
INSERT INTO access_epoch (id, flushes) VALUES (1, 0);
CREATE TABLE lifecycle_log (
  seq      BIGSERIAL PRIMARY KEY,
  scope_id BIGINT NOT NULL REFERENCES scopes(id),
  item_id  TEXT NOT NULL,
  action   TEXT NOT NULL,
  reason   TEXT NOT NULL,
  at       BIGINT NOT NULL
);
CREATE INDEX lifecycle_log_scope ON lifecycle_log (scope_id, seq);
CREATE TABLE lifecycle_scopes (
  scope_id    BIGINT PRIMARY KEY REFERENCES scopes(id),
  history_seq BIGINT NOT NULL,
  last_run_at BIGINT NOT NULL
);
CREATE TABLE profiles (
  scope_id       BIGINT PRIMARY KEY REFERENCES scopes(id),
  summary        TEXT NOT NULL,
  item_ids       TEXT NOT NULL,
  fingerprint    TEXT NOT NULL,
  model          TEXT NOT NULL,
  prompt_version TEXT NOT NULL,
  generated_at   BIGINT NOT NULL
);
CREATE TABLE audit_log (
  seq        BIGSERIAL PRIMARY KEY,
  at         BIGINT NOT NULL,
  request_id TEXT NOT NULL,
  tenant     TEXT NOT NULL,
  key_id     TEXT NOT NULL,
  action     TEXT NOT NULL,
  method     TEXT NOT NULL,
  route      TEXT NOT NULL,
  user_id    TEXT NOT NULL,
  target     TEXT NOT NULL,
  status     BIGINT NOT NULL,
  remote     TEXT NOT NULL
);
CREATE INDEX audit_log_tenant ON audit_log (tenant, seq);
CREATE INDEX audit_log_at ON audit_log (at);

CREATE TRIGGER items_seq BEFORE INSERT ON items
  FOR EACH ROW EXECUTE FUNCTION engram_fill_seq();
CREATE TRIGGER item_history_seq BEFORE INSERT ON item_history
  FOR EACH ROW EXECUTE FUNCTION engram_fill_seq();
CREATE TRIGGER sessions_seq BEFORE INSERT ON sessions
  FOR EACH ROW EXECUTE FUNCTION engram_fill_seq();
CREATE TRIGGER turns_seq BEFORE INSERT ON turns
  FOR EACH ROW EXECUTE FUNCTION engram_fill_seq();
CREATE TRIGGER jobs_seq BEFORE INSERT ON jobs
  FOR EACH ROW EXECUTE FUNCTION engram_fill_seq();
CREATE TRIGGER lifecycle_log_seq BEFORE INSERT ON lifecycle_log
  FOR EACH ROW EXECUTE FUNCTION engram_fill_seq();
CREATE TRIGGER audit_log_seq BEFORE INSERT ON audit_log
  FOR EACH ROW EXECUTE FUNCTION engram_fill_seq();
)sql";

// Every committed change of an item tells the replicas whose scope changed (storage/postgres.h
// PgChangeListener): a NOTIFY on engram_changes with "tenant<US>user" (US = chr(31), which no
// identifier holds). PostgreSQL sends it at commit, once per transaction and payload.
constexpr std::string_view kV2ChangeNotices = R"sql(
CREATE FUNCTION engram_notify_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  sid BIGINT;
BEGIN
  IF TG_OP = 'DELETE' THEN sid := OLD.scope_id; ELSE sid := NEW.scope_id; END IF;
  PERFORM pg_notify('engram_changes',
                    COALESCE((SELECT tenant || chr(31) || user_id FROM scopes WHERE id = sid), ''));
  RETURN NULL;
END $$;
CREATE TRIGGER items_changed AFTER INSERT OR UPDATE OR DELETE ON items
  FOR EACH ROW EXECUTE FUNCTION engram_notify_change();
)sql";

const std::vector<Migration>& PgMigrations() {
  static const std::vector<Migration> kAll = {
      {1, "the schema of SQLite version 11, and SQLite's functions", kV1Core},
      {2, "change notices for other replicas' indexes", kV2ChangeNotices},
  };
  return kAll;
}

// Migrations from several replicas starting at once run one after the other.
constexpr std::string_view kMigrationLock = "SELECT pg_advisory_xact_lock(4995915263428431954)";

Result<int> PgSchemaVersion(Database* db) {
  ENGRAM_ASSIGN_OR_RETURN(
      auto has, db->PrepareUncached("SELECT count(*) FROM information_schema.tables WHERE "
                                    "table_schema = current_schema() AND table_name = ?"));
  has->Bind(1, std::string_view("schema_version"));
  ENGRAM_ASSIGN_OR_RETURN(bool row, has->Step());
  const bool versioned = row && has->Int(0) > 0;
  has->Reset();
  if (!versioned) {
    ENGRAM_ASSIGN_OR_RETURN(
        auto any, db->PrepareUncached("SELECT count(*) FROM information_schema.tables WHERE "
                                      "table_schema = current_schema()"));
    ENGRAM_ASSIGN_OR_RETURN(row, any->Step());
    if (row && any->Int(0) > 0) {
      return Status::Corruption(db->path() + ": the schema " +
                                "holds tables but is not an Engram database");
    }
    return 0;
  }
  ENGRAM_ASSIGN_OR_RETURN(auto st, db->PrepareUncached("SELECT coalesce(max(version), 0) FROM "
                                                       "schema_version"));
  ENGRAM_ASSIGN_OR_RETURN(row, st->Step());
  return row ? static_cast<int>(st->Int(0)) : 0;
}

}  // namespace

int LatestPgSchemaVersion() { return PgMigrations().back().version; }

Result<int> ReadPgSchemaVersion(Database* db) { return PgSchemaVersion(db); }

Status MigratePostgres(Database* db, TimestampMs now, int target) {
  if (target < 0) target = LatestPgSchemaVersion();
  for (const Migration& m : PgMigrations()) {
    if (m.version > target) break;
    Transaction txn(db);
    ENGRAM_RETURN_IF_ERROR(txn.Begin());
    ENGRAM_RETURN_IF_ERROR(db->Exec(kMigrationLock));
    // A schema holding tables of something else is refused before anything is created in it.
    ENGRAM_ASSIGN_OR_RETURN(int current, PgSchemaVersion(db));
    ENGRAM_RETURN_IF_ERROR(
        db->Exec("CREATE TABLE IF NOT EXISTS schema_version (version BIGINT PRIMARY KEY, "
                 "name TEXT NOT NULL, applied_at BIGINT NOT NULL)"));
    if (current > LatestPgSchemaVersion()) {
      return Status::Corruption(db->path() + ": database schema version " +
                                std::to_string(current) + " is newer than this Engram supports (" +
                                std::to_string(LatestPgSchemaVersion()) + "); upgrade Engram");
    }
    if (m.version <= current) continue;  // the transaction rolls back: nothing was changed
    ENGRAM_RETURN_IF_ERROR(db->Exec(m.sql).WithContext("migration " + std::to_string(m.version)));
    ENGRAM_ASSIGN_OR_RETURN(auto ins, db->PrepareUncached("INSERT INTO schema_version(version, "
                                                          "name, applied_at) VALUES (?, ?, ?)"));
    ENGRAM_RETURN_IF_ERROR(
        ins->Bind(1, int64_t{m.version}).Bind(2, m.name).Bind(3, int64_t{now}).Run());
    ins.reset();
    ENGRAM_RETURN_IF_ERROR(txn.Commit());
  }
  // A database newer than this build, with nothing left to apply, is refused as well.
  ENGRAM_ASSIGN_OR_RETURN(int current, PgSchemaVersion(db));
  if (current > LatestPgSchemaVersion()) {
    return Status::Corruption(db->path() + ": database schema version " + std::to_string(current) +
                              " is newer than this Engram supports (" +
                              std::to_string(LatestPgSchemaVersion()) + "); upgrade Engram");
  }
  return Status::Ok();
}

}  // namespace engram
