// PostgreSQL's numbered migrations (storage/pg_migrations.h). Version 1 is SQLite's schema at
// version 11 in PostgreSQL's types, plus the SQLite functions Engram's portable statements use.
#include "storage/pg_migrations.h"

#include <cstdlib>

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

// The tables a tenant owns: each gets a `tenant` column leading its primary key (migration 3)
// and a row-level security policy (migration 4). How migration 3 rebuilds each: the SELECT
// that yields the old rows, their columns in order and then the tenant (parents before
// children, so a child finds its tenant in its parent's rebuilt table), and the sequence of
// its key column, which the rebuilt table takes over.
struct TenantTable {
  std::string_view name;
  std::string_view rows;
  std::string_view sequence;  // "" for none
  std::string_view key_column;
  bool has_tenant;  // the table had a tenant column already (its rows are SELECT *)
};
constexpr TenantTable kTenantTables[] = {
    {"scopes", "SELECT * FROM scopes", "scopes_id_seq", "id", true},
    {"items", "SELECT x.*, s.tenant FROM items x JOIN scopes_v3 s ON s.id = x.scope_id",
     "items_seq_seq", "seq", false},
    {"item_history",
     "SELECT x.*, i.tenant FROM item_history x JOIN items_v3 i ON i.seq = x.item_seq",
     "item_history_seq_seq", "seq", false},
    {"embeddings", "SELECT x.*, i.tenant FROM embeddings x JOIN items_v3 i ON i.seq = x.item_seq",
     "", "", false},
    {"sessions", "SELECT x.*, s.tenant FROM sessions x JOIN scopes_v3 s ON s.id = x.scope_id",
     "sessions_seq_seq", "seq", false},
    {"turns", "SELECT x.*, p.tenant FROM turns x JOIN sessions_v3 p ON p.seq = x.session_seq",
     "turns_seq_seq", "seq", false},
    {"jobs", "SELECT x.*, s.tenant FROM jobs x JOIN scopes_v3 s ON s.id = x.scope_id",
     "jobs_seq_seq", "seq", false},
    {"item_access", "SELECT x.*, i.tenant FROM item_access x JOIN items_v3 i ON i.seq = x.item_seq",
     "", "", false},
    {"lifecycle_log",
     "SELECT x.*, s.tenant FROM lifecycle_log x JOIN scopes_v3 s ON s.id = x.scope_id",
     "lifecycle_log_seq_seq", "seq", false},
    {"lifecycle_scopes",
     "SELECT x.*, s.tenant FROM lifecycle_scopes x JOIN scopes_v3 s ON s.id = x.scope_id", "", "",
     false},
    {"profiles", "SELECT x.*, s.tenant FROM profiles x JOIN scopes_v3 s ON s.id = x.scope_id", "",
     "", false},
    {"audit_log", "SELECT * FROM audit_log", "audit_log_seq_seq", "seq", true},
};

// A row inserted without its tenant (the store's statements are SQLite's, which have no tenant
// column) takes the tenant bound to the connection (Database::BindTenant). Not a trigger
// reading the parent row: PostgreSQL routes a row to its partition before BEFORE triggers run,
// and refuses a trigger that changes the partition key; a default is evaluated before routing.
// A row written with no tenant bound is an error, never a row of tenant ''.
constexpr std::string_view kV3Functions = R"sql(
CREATE FUNCTION engram_bound_tenant() RETURNS text LANGUAGE plpgsql STABLE AS $$
DECLARE
  t text := current_setting('engram.tenant', true);
BEGIN
  IF coalesce(t, '') = '' THEN
    RAISE EXCEPTION 'engram: a row of a tenant''s table written with no tenant bound';
  END IF;
  RETURN t;
END $$;

-- The sequence comes from the trigger's argument: on a partitioned table the trigger runs on
-- the partition, whose column owns no sequence.
CREATE OR REPLACE FUNCTION engram_fill_seq() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  s regclass := coalesce(TG_ARGV[0],
                         pg_get_serial_sequence(TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME, 'seq'));
BEGIN
  IF NEW.seq IS NULL THEN
    NEW.seq := nextval(s);
  ELSE
    PERFORM setval(s, GREATEST(NEW.seq, COALESCE(pg_sequence_last_value(s), 1)));
  END IF;
  RETURN NEW;
END $$;

CREATE OR REPLACE FUNCTION engram_notify_change() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  t TEXT;
  sid BIGINT;
BEGIN
  IF TG_OP = 'DELETE' THEN t := OLD.tenant; sid := OLD.scope_id;
  ELSE t := NEW.tenant; sid := NEW.scope_id; END IF;
  PERFORM pg_notify('engram_changes', COALESCE((SELECT tenant || chr(31) || user_id FROM scopes
                                                WHERE tenant = t AND id = sid), ''));
  RETURN NULL;
END $$;
)sql";

// Keys, once the rebuilt tables have their names. Every primary and unique key leads with the
// tenant: a table partitioned (or distributed) by tenant can only enforce keys that hold it.
// So an item id is unique within its tenant here (SQLite: overall). Foreign keys carry the
// tenant too: a row can only point at a parent of its own tenant, so a row written with a
// forged scope_id of another tenant fails. The plain indexes on seq and id serve lookups that
// do not name the tenant (the store's statements, which are SQLite's, and row-level security's
// OR for all tenants, which no (tenant, ...) index can serve).
constexpr std::string_view kV3Keys = R"sql(
ALTER TABLE scopes ADD PRIMARY KEY (tenant, user_id), ADD UNIQUE (tenant, id);
CREATE INDEX scopes_id ON scopes (id);
ALTER TABLE items ADD PRIMARY KEY (tenant, seq), ADD UNIQUE (tenant, id),
  ADD FOREIGN KEY (tenant, scope_id) REFERENCES scopes (tenant, id);
CREATE INDEX items_seq ON items (seq);
CREATE INDEX items_id ON items (id);
CREATE INDEX items_scope_created ON items (scope_id, created_at DESC, seq DESC);
CREATE INDEX items_scope_slot ON items (scope_id, slot) WHERE slot <> '';
CREATE INDEX items_review ON items (review_at) WHERE review_at IS NOT NULL;
ALTER TABLE item_history ADD PRIMARY KEY (tenant, seq),
  ADD FOREIGN KEY (tenant, item_seq) REFERENCES items (tenant, seq) ON DELETE CASCADE;
CREATE INDEX item_history_item ON item_history (item_seq, seq);
CREATE INDEX item_history_seq ON item_history (seq);
ALTER TABLE embeddings ADD PRIMARY KEY (tenant, item_seq, model),
  ADD FOREIGN KEY (tenant, item_seq) REFERENCES items (tenant, seq) ON DELETE CASCADE;
CREATE INDEX embeddings_item_model ON embeddings (item_seq, model);
ALTER TABLE sessions ADD PRIMARY KEY (tenant, seq), ADD UNIQUE (tenant, scope_id, session_id),
  ADD FOREIGN KEY (tenant, scope_id) REFERENCES scopes (tenant, id);
CREATE INDEX sessions_seq ON sessions (seq);
CREATE INDEX sessions_scope ON sessions (scope_id, session_id);
ALTER TABLE turns ADD PRIMARY KEY (tenant, seq), ADD UNIQUE (tenant, session_seq, message_id),
  ADD FOREIGN KEY (tenant, session_seq) REFERENCES sessions (tenant, seq) ON DELETE CASCADE;
CREATE INDEX turns_session ON turns (session_seq, message_id);
ALTER TABLE jobs ADD PRIMARY KEY (tenant, seq), ADD UNIQUE (tenant, id),
  ADD FOREIGN KEY (tenant, scope_id) REFERENCES scopes (tenant, id);
CREATE INDEX jobs_due ON jobs (state, next_attempt_at);
CREATE INDEX jobs_seq ON jobs (seq);
CREATE INDEX jobs_id ON jobs (id);
ALTER TABLE item_access ADD PRIMARY KEY (tenant, item_seq),
  ADD FOREIGN KEY (tenant, item_seq) REFERENCES items (tenant, seq) ON DELETE CASCADE;
CREATE INDEX item_access_item ON item_access (item_seq);
ALTER TABLE lifecycle_log ADD PRIMARY KEY (tenant, seq),
  ADD FOREIGN KEY (tenant, scope_id) REFERENCES scopes (tenant, id);
CREATE INDEX lifecycle_log_scope ON lifecycle_log (scope_id, seq);
ALTER TABLE lifecycle_scopes ADD PRIMARY KEY (tenant, scope_id),
  ADD FOREIGN KEY (tenant, scope_id) REFERENCES scopes (tenant, id);
CREATE INDEX lifecycle_scopes_scope ON lifecycle_scopes (scope_id);
ALTER TABLE profiles ADD PRIMARY KEY (tenant, scope_id),
  ADD FOREIGN KEY (tenant, scope_id) REFERENCES scopes (tenant, id);
CREATE INDEX profiles_scope ON profiles (scope_id);
ALTER TABLE audit_log ADD PRIMARY KEY (tenant, seq);
CREATE INDEX audit_log_seq ON audit_log (seq);
CREATE INDEX audit_log_at ON audit_log (at);
ALTER TABLE api_keys DROP CONSTRAINT api_keys_pkey, ADD PRIMARY KEY (tenant, id), ADD UNIQUE (id);

CREATE TRIGGER items_changed AFTER INSERT OR UPDATE OR DELETE ON items
  FOR EACH ROW EXECUTE FUNCTION engram_notify_change();
)sql";

// Migration 3: every tenant-owned table rebuilt with a `tenant` column leading its keys, its
// rows kept (seqs too; the sequences go on from where they were). With layout.partitions ≥ 2
// the rebuilt tables are PARTITION BY HASH (tenant), partitions <table>_p0 ... The layout is
// chosen here, once: a later ENGRAM_PG_PARTITIONS does not repartition (docs/deploy.md,
// "Sharding by tenant"). api_keys stays one plain table, keyed (tenant, id): a key is found by
// its secret before any tenant is known. access_epoch and schema_version hold no tenant's rows.
std::string V3TenantKeys(const PgLayout& layout) {
  const bool partitioned = layout.partitions >= 2;
  std::string sql(kV3Functions);
  for (const TenantTable& t : kTenantTables) {
    const std::string name(t.name);
    sql +=
        "CREATE TABLE " + name + "_v3 (LIKE " + name + " INCLUDING DEFAULTS INCLUDING CONSTRAINTS";
    if (!t.has_tenant) sql += ", tenant TEXT NOT NULL DEFAULT engram_bound_tenant()";
    sql += partitioned ? ") PARTITION BY HASH (tenant);\n" : ");\n";
    for (int p = 0; partitioned && p < layout.partitions; ++p) {
      sql += "CREATE TABLE " + name + "_p" + std::to_string(p) + " PARTITION OF " + name +
             "_v3 FOR VALUES WITH (MODULUS " + std::to_string(layout.partitions) + ", REMAINDER " +
             std::to_string(p) + ");\n";
    }
    sql += "INSERT INTO " + name + "_v3 " + std::string(t.rows) + ";\n";
    // The old table owns the sequence: released, it outlives the table.
    if (!t.sequence.empty())
      sql += "ALTER SEQUENCE " + std::string(t.sequence) + " OWNED BY NONE;\n";
  }
  sql += "DROP TABLE ";
  for (size_t i = 0; i < std::size(kTenantTables); ++i) {
    sql += std::string(i ? ", " : "") + std::string(kTenantTables[i].name);
  }
  sql += ";\n";
  for (const TenantTable& t : kTenantTables) {
    const std::string name(t.name);
    sql += "ALTER TABLE " + name + "_v3 RENAME TO " + name + ";\n";
    if (t.sequence.empty()) continue;
    sql += "ALTER SEQUENCE " + std::string(t.sequence) + " OWNED BY " + name + "." +
           std::string(t.key_column) + ";\n";
    if (t.key_column == "seq") {
      sql += "CREATE TRIGGER " + name + "_seq BEFORE INSERT ON " + name +
             " FOR EACH ROW EXECUTE FUNCTION engram_fill_seq('" + std::string(t.sequence) + "');\n";
    }
  }
  sql += kV3Keys;
  return sql;
}

// Migration 4: row-level security, the second wall behind the store's own scope filters. A
// tenant's rows are visible and writable only while that tenant is bound to the connection
// (Database::BindTenant: engram.tenant), or while every tenant is (Database::BindAllTenants:
// engram.all_tenants, for what spans tenants: job claiming, maintenance's work list, access
// counts, metrics). A connection that bound nothing sees nothing. FORCE: the tables' owner,
// the role Engram connects as, is held to the policies too (superusers and BYPASSRLS roles
// never are: run Engram as an ordinary role). Partitions get the policy as well, for whoever
// reads one directly. audit_log (written for requests of every tenant and of none) and
// api_keys (read before a tenant is known) have none.
constexpr std::string_view kV4RowSecurity = R"sql(
DO $$
DECLARE
  owned text[] := ARRAY['scopes', 'items', 'item_history', 'embeddings', 'sessions', 'turns',
                        'jobs', 'item_access', 'lifecycle_log', 'lifecycle_scopes', 'profiles'];
  t regclass;
BEGIN
  -- Each table and its partitions (one level: hash partitions).
  FOR t IN SELECT x::regclass FROM unnest(owned) x
           UNION SELECT inhrelid::regclass FROM pg_inherits
                 WHERE inhparent IN (SELECT x::regclass FROM unnest(owned) x)
  LOOP
    EXECUTE format('ALTER TABLE %s ENABLE ROW LEVEL SECURITY', t);
    EXECUTE format('ALTER TABLE %s FORCE ROW LEVEL SECURITY', t);
    EXECUTE format('CREATE POLICY engram_tenant ON %s USING (tenant = current_setting('
                   '''engram.tenant'', true) OR current_setting(''engram.all_tenants'', true) '
                   '= ''on'')', t);
  END LOOP;
END $$;
)sql";

// Migration 5: a seq column keeps no default of its own. A default (BIGSERIAL's nextval, and
// the one LIKE ... INCLUDING DEFAULTS copied in migration 3) fills the column before the
// BEFORE INSERT trigger runs, which then took it for a seq the insert gave and set the
// sequence back to it: two replicas inserting at once could get the same seq (a duplicate key).
// Without the default the trigger sees NULL and takes nextval, which never goes back.
constexpr std::string_view kV5SeqFromTrigger = R"sql(
ALTER TABLE items ALTER COLUMN seq DROP DEFAULT;
ALTER TABLE item_history ALTER COLUMN seq DROP DEFAULT;
ALTER TABLE sessions ALTER COLUMN seq DROP DEFAULT;
ALTER TABLE turns ALTER COLUMN seq DROP DEFAULT;
ALTER TABLE jobs ALTER COLUMN seq DROP DEFAULT;
ALTER TABLE lifecycle_log ALTER COLUMN seq DROP DEFAULT;
ALTER TABLE audit_log ALTER COLUMN seq DROP DEFAULT;
)sql";

// Migration 6: the knowledge tier (SQLite version 12), built as migration 3 left the tenant
// tables: the tenant leads every key, a row written without it takes the bound tenant, seqs
// come from the insert trigger, and the tables are hash-partitioned by tenant when `items` is
// (the layout chosen once, at migration 3). Row-level security as migration 4 gives the others.
constexpr std::string_view kV6Knowledge = R"sql(
DO $$
DECLARE
  parts int := (SELECT count(*) FROM pg_inherits WHERE inhparent = 'items'::regclass);
  spec text := CASE WHEN parts >= 2 THEN ' PARTITION BY HASH (tenant)' ELSE '' END;
  t text;
  p regclass;
BEGIN
  EXECUTE 'CREATE TABLE knowledge_docs (
    tenant         TEXT NOT NULL DEFAULT engram_bound_tenant(),
    seq            BIGINT NOT NULL,
    agent_id       TEXT NOT NULL DEFAULT '''',
    doc_id         TEXT NOT NULL,
    title          TEXT NOT NULL,
    format         TEXT NOT NULL,
    source         TEXT NOT NULL DEFAULT '''',
    metadata       TEXT NOT NULL DEFAULT ''{}'',
    bytes          BIGINT NOT NULL,
    chars          BIGINT NOT NULL,
    content_hash   TEXT NOT NULL,
    version        BIGINT NOT NULL,
    chunk_tokens   BIGINT NOT NULL,
    overlap_tokens BIGINT NOT NULL,
    created_at     BIGINT NOT NULL,
    updated_at     BIGINT NOT NULL,
    PRIMARY KEY (tenant, seq),
    UNIQUE (tenant, agent_id, doc_id))' || spec;
  EXECUTE 'CREATE TABLE knowledge_chunks (
    tenant          TEXT NOT NULL DEFAULT engram_bound_tenant(),
    seq             BIGINT NOT NULL,
    doc_seq         BIGINT NOT NULL,
    ordinal         BIGINT NOT NULL,
    title_path      TEXT NOT NULL DEFAULT ''[]'',
    char_start      BIGINT NOT NULL,
    char_end        BIGINT NOT NULL,
    tokens          BIGINT NOT NULL,
    content         TEXT NOT NULL,
    embedding_model TEXT NOT NULL,
    vector          BYTEA NOT NULL,
    PRIMARY KEY (tenant, seq),
    UNIQUE (tenant, doc_seq, ordinal),
    FOREIGN KEY (tenant, doc_seq) REFERENCES knowledge_docs (tenant, seq) ON DELETE CASCADE)'
    || spec;
  FOREACH t IN ARRAY ARRAY['knowledge_docs', 'knowledge_chunks'] LOOP
    FOR i IN 0 .. parts - 1 LOOP
      EXIT WHEN parts < 2;
      EXECUTE format('CREATE TABLE %I PARTITION OF %I FOR VALUES WITH (MODULUS %s, REMAINDER %s)',
                     t || '_p' || i, t, parts, i);
    END LOOP;
    EXECUTE format('CREATE SEQUENCE %I OWNED BY %I.seq', t || '_seq_seq', t);
    EXECUTE format('CREATE TRIGGER %I BEFORE INSERT ON %I FOR EACH ROW '
                   'EXECUTE FUNCTION engram_fill_seq(%L)', t || '_seq', t, t || '_seq_seq');
    EXECUTE format('CREATE INDEX %I ON %I (seq)', t || '_seq_key', t);
    FOR p IN SELECT t::regclass UNION SELECT inhrelid::regclass FROM pg_inherits
                                      WHERE inhparent = t::regclass LOOP
      EXECUTE format('ALTER TABLE %s ENABLE ROW LEVEL SECURITY', p);
      EXECUTE format('ALTER TABLE %s FORCE ROW LEVEL SECURITY', p);
      EXECUTE format('CREATE POLICY engram_tenant ON %s USING (tenant = current_setting('
                     '''engram.tenant'', true) OR current_setting(''engram.all_tenants'', true) '
                     '= ''on'')', p);
    END LOOP;
  END LOOP;
  CREATE INDEX knowledge_chunks_doc ON knowledge_chunks (doc_seq, ordinal);
END $$;
)sql";

// Migration 7: the entity graph (SQLite's version 13, storage/migrations.cc), with the tenant
// leading every key and each foreign key as the other tables have them (migration 3), row-level
// security (migration 4), and the same triggers that drop an edge no item states and an entity
// nothing names or touches, once an item's hard delete has cascaded to its links. Not
// partitioned by tenant even where the older tables are (ENGRAM_PG_PARTITIONS): the graph is a
// few rows per memory, and a foreign key from it into a partitioned table works either way.
constexpr std::string_view kV7EntityGraph = R"sql(
CREATE TABLE graph_entities (
  tenant     TEXT NOT NULL DEFAULT engram_bound_tenant(),
  id         TEXT NOT NULL,
  scope_id   BIGINT NOT NULL,
  kind       TEXT NOT NULL,
  name       TEXT NOT NULL,
  norm       TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  PRIMARY KEY (tenant, id),
  UNIQUE (tenant, scope_id, kind, norm),
  FOREIGN KEY (tenant, scope_id) REFERENCES scopes (tenant, id)
);
CREATE INDEX graph_entities_id ON graph_entities (id);
CREATE INDEX graph_entities_norm ON graph_entities (scope_id, norm);
CREATE TABLE graph_aliases (
  tenant    TEXT NOT NULL DEFAULT engram_bound_tenant(),
  entity_id TEXT NOT NULL,
  scope_id  BIGINT NOT NULL,
  alias     TEXT NOT NULL,
  norm      TEXT NOT NULL,
  item_seq  BIGINT NOT NULL,
  PRIMARY KEY (tenant, entity_id, norm, item_seq),
  FOREIGN KEY (tenant, entity_id) REFERENCES graph_entities (tenant, id) ON DELETE CASCADE,
  FOREIGN KEY (tenant, item_seq) REFERENCES items (tenant, seq) ON DELETE CASCADE
);
CREATE INDEX graph_aliases_norm ON graph_aliases (scope_id, norm);
CREATE INDEX graph_aliases_item ON graph_aliases (item_seq);
CREATE INDEX graph_aliases_entity ON graph_aliases (entity_id);
CREATE TABLE graph_mentions (
  tenant    TEXT NOT NULL DEFAULT engram_bound_tenant(),
  entity_id TEXT NOT NULL,
  item_seq  BIGINT NOT NULL,
  PRIMARY KEY (tenant, entity_id, item_seq),
  FOREIGN KEY (tenant, entity_id) REFERENCES graph_entities (tenant, id) ON DELETE CASCADE,
  FOREIGN KEY (tenant, item_seq) REFERENCES items (tenant, seq) ON DELETE CASCADE
);
CREATE INDEX graph_mentions_item ON graph_mentions (item_seq);
CREATE INDEX graph_mentions_entity ON graph_mentions (entity_id);
CREATE TABLE graph_edges (
  tenant     TEXT NOT NULL DEFAULT engram_bound_tenant(),
  id         TEXT NOT NULL,
  scope_id   BIGINT NOT NULL,
  subject_id TEXT NOT NULL,
  predicate  TEXT NOT NULL,
  object_id  TEXT NOT NULL,
  valid_from BIGINT NOT NULL,
  valid_to   BIGINT,
  created_at BIGINT NOT NULL,
  expired_at BIGINT,
  ended_by   TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (tenant, id),
  FOREIGN KEY (tenant, scope_id) REFERENCES scopes (tenant, id),
  FOREIGN KEY (tenant, subject_id) REFERENCES graph_entities (tenant, id) ON DELETE CASCADE,
  FOREIGN KEY (tenant, object_id) REFERENCES graph_entities (tenant, id) ON DELETE CASCADE
);
CREATE INDEX graph_edges_id ON graph_edges (id);
CREATE INDEX graph_edges_subject ON graph_edges (subject_id, predicate);
CREATE INDEX graph_edges_object ON graph_edges (object_id);
CREATE TABLE graph_edge_sources (
  tenant   TEXT NOT NULL DEFAULT engram_bound_tenant(),
  edge_id  TEXT NOT NULL,
  item_seq BIGINT NOT NULL,
  PRIMARY KEY (tenant, edge_id, item_seq),
  FOREIGN KEY (tenant, edge_id) REFERENCES graph_edges (tenant, id) ON DELETE CASCADE,
  FOREIGN KEY (tenant, item_seq) REFERENCES items (tenant, seq) ON DELETE CASCADE
);
CREATE INDEX graph_edge_sources_item ON graph_edge_sources (item_seq);
CREATE INDEX graph_edge_sources_edge ON graph_edge_sources (edge_id);

CREATE FUNCTION engram_graph_edge_unstated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM graph_edges WHERE tenant = OLD.tenant AND id = OLD.edge_id
    AND NOT EXISTS (SELECT 1 FROM graph_edge_sources
                    WHERE tenant = OLD.tenant AND edge_id = OLD.edge_id);
  RETURN NULL;
END $$;
CREATE FUNCTION engram_graph_entity_unused(t text, e text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM graph_entities x WHERE x.tenant = t AND x.id = e
    AND NOT EXISTS (SELECT 1 FROM graph_mentions m WHERE m.tenant = t AND m.entity_id = e)
    AND NOT EXISTS (SELECT 1 FROM graph_edges g WHERE g.tenant = t
                    AND (g.subject_id = e OR g.object_id = e));
END $$;
CREATE FUNCTION engram_graph_edge_gone() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM engram_graph_entity_unused(OLD.tenant, OLD.subject_id);
  PERFORM engram_graph_entity_unused(OLD.tenant, OLD.object_id);
  RETURN NULL;
END $$;
CREATE FUNCTION engram_graph_mention_gone() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM engram_graph_entity_unused(OLD.tenant, OLD.entity_id);
  RETURN NULL;
END $$;
CREATE TRIGGER graph_edge_unstated AFTER DELETE ON graph_edge_sources
  FOR EACH ROW EXECUTE FUNCTION engram_graph_edge_unstated();
CREATE TRIGGER graph_edge_gone AFTER DELETE ON graph_edges
  FOR EACH ROW EXECUTE FUNCTION engram_graph_edge_gone();
CREATE TRIGGER graph_mention_gone AFTER DELETE ON graph_mentions
  FOR EACH ROW EXECUTE FUNCTION engram_graph_mention_gone();

DO $$
DECLARE
  t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['graph_entities', 'graph_aliases', 'graph_mentions', 'graph_edges',
                           'graph_edge_sources']
  LOOP
    EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', t);
    EXECUTE format('ALTER TABLE %I FORCE ROW LEVEL SECURITY', t);
    EXECUTE format('CREATE POLICY engram_tenant ON %I USING (tenant = current_setting('
                   '''engram.tenant'', true) OR current_setting(''engram.all_tenants'', true) '
                   '= ''on'')', t);
  END LOOP;
END $$;
)sql";

struct PgMigration {
  int version;
  std::string_view name;
  std::string sql;
};

std::vector<PgMigration> PgMigrations(const PgLayout& layout) {
  std::vector<PgMigration> all;
  all.push_back(
      {1, "the schema of SQLite version 11, and SQLite's functions", std::string(kV1Core)});
  all.push_back({2, "change notices for other replicas' indexes", std::string(kV2ChangeNotices)});
  all.push_back({3, "keys led by the tenant (shardable by tenant)", V3TenantKeys(layout)});
  all.push_back({4, "row-level security by tenant", std::string(kV4RowSecurity)});
  all.push_back({5, "seqs from the insert trigger only", std::string(kV5SeqFromTrigger)});
  all.push_back({6, "knowledge documents and chunks", std::string(kV6Knowledge)});
  all.push_back({7, "entity graph", std::string(kV7EntityGraph)});
  return all;
}

constexpr int kLatestPgVersion = 7;

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

int LatestPgSchemaVersion() { return kLatestPgVersion; }

Result<PgLayout> PgLayoutFromEnvironment() {
  const char* v = std::getenv("ENGRAM_PG_PARTITIONS");
  if (v == nullptr || *v == '\0') return PgLayout{};
  char* end = nullptr;
  const long n = std::strtol(v, &end, 10);
  if (*end != '\0' || n < 0 || n == 1 || n > 1024) {
    return Status::InvalidArgument(
        "ENGRAM_PG_PARTITIONS must be 0 (plain tables) or 2..1024 "
        "(hash partitions by tenant), not '" +
        std::string(v) + "'");
  }
  return PgLayout{.partitions = static_cast<int>(n)};
}

Status MigratePostgres(Database* db, TimestampMs now, int target) {
  ENGRAM_ASSIGN_OR_RETURN(PgLayout layout, PgLayoutFromEnvironment());
  return MigratePostgres(db, now, layout, target);
}

Result<int> ReadPgSchemaVersion(Database* db) { return PgSchemaVersion(db); }

Status MigratePostgres(Database* db, TimestampMs now, const PgLayout& layout, int target) {
  if (target < 0) target = LatestPgSchemaVersion();
  for (const PgMigration& m : PgMigrations(layout)) {
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
