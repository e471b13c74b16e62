// What only the PostgreSQL backend has: its connection errors, its schema versions (version 2
// with rows migrated to keys led by the tenant, plain and partitioned), row-level security
// against a forged scope, its isolation from other schemas' tables, the refusal of a byte-level
// purge verification, a server that goes away and comes back. Built into engram_pg_tests, which
// scripts/pg_unit_test.sh runs against a real server (ENGRAM_TEST_PG_URL); the rest of the
// backend's behaviour is checked by the whole unit suite run on PostgreSQL by the same script.
#include "storage/postgres.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <map>
#include <thread>

#include "engram/engine.h"
#include "storage/job_store.h"
#include "storage/memory_store.h"
#include "storage/pg_migrations.h"
#include "testing/test_support.h"

namespace engram {
namespace {

constexpr TimestampMs kNow = 1'764'892'800'000;  // 2025-12-05

std::string ServerUrl() {
  const char* url = std::getenv("ENGRAM_TEST_PG_URL");
  return url ? url : "";
}

class PostgresTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(ServerUrl().empty())
        << "ENGRAM_TEST_PG_URL is not set: run scripts/pg_unit_test.sh";
    url_ = dir_.File("pg.db");
    ASSERT_TRUE(IsPostgresUrl(url_)) << url_;
  }

  testing::TempDir dir_;
  std::string url_;
};

// One number a query returns (the first column of its first row); -1 when it fails.
int64_t Number(Database* db, const std::string& sql) {
  auto st = db->PrepareUncached(sql);
  if (!st.ok()) return -1;
  auto row = (*st)->Step();
  if (!row.ok()) {
    ADD_FAILURE() << sql << ": " << row.status().ToString();
    return -1;
  }
  return *row ? (*st)->Int(0) : -1;
}

// Rows of every kind a tenant owns, written as a version 2 database held them (no tenant
// column), for two tenants.
constexpr std::string_view kVersion2Rows = R"sql(
INSERT INTO scopes (tenant, user_id) VALUES ('acme', 'alice'), ('globex', 'bob');
INSERT INTO items (id, scope_id, tier, type, content, importance, confidence, created_at,
                   updated_at, valid_from, status)
  SELECT 'm_' || user_id, id, 'semantic', 'fact', user_id || ' lives in Lisbon', 0.5, 0.9,
         1000, 1000, 1000, 'active' FROM scopes;
INSERT INTO item_history (item_seq, event, new_content, reason, at)
  SELECT seq, 'ADD', content, 'written at version 2', 1000 FROM items;
INSERT INTO embeddings (item_seq, model, dim, vector, created_at)
  SELECT seq, 'test-model', 2, '\x0000803f00000040'::bytea, 1000 FROM items;
INSERT INTO sessions (scope_id, session_id, started_at) SELECT id, 's1', 1000 FROM scopes;
INSERT INTO turns (session_seq, message_id, role, content, created_at)
  SELECT seq, 'msg1', 'user', 'hello', 1000 FROM sessions;
INSERT INTO jobs (id, scope_id, kind, payload, state, next_attempt_at, created_at, updated_at)
  SELECT 'job_' || user_id, id, 'echo', '{}', 'queued', 1000, 1000, 1000 FROM scopes;
INSERT INTO item_access (item_seq, reads, last_read) SELECT seq, 3, 2000 FROM items;
INSERT INTO profiles (scope_id, summary, item_ids, fingerprint, model, prompt_version,
                      generated_at)
  SELECT id, 'profile of ' || user_id, '', 'fp', 'model', 'v1', 1000 FROM scopes;
INSERT INTO lifecycle_log (scope_id, item_id, action, reason, at)
  SELECT id, 'm_gone', 'archive', 'old', 1000 FROM scopes;
INSERT INTO lifecycle_scopes (scope_id, history_seq, last_run_at) SELECT id, 5, 1000 FROM scopes;
INSERT INTO audit_log (at, request_id, tenant, key_id, action, method, route, user_id, target,
                       status, remote)
  VALUES (1000, 'r1', 'acme', 'k1', 'memory.add', 'POST', '/v1/memories', 'alice', '', 200, '');
INSERT INTO api_keys (id, tenant, name, role, secret_sha256, prefix, created_at)
  VALUES ('k1', 'acme', 'test', 'tenant', '\x00'::bytea, 'eng_', 1000);
)sql";

constexpr const char* kTenantTablesForTests[] = {
    "scopes",      "items",    "item_history",  "embeddings",       "sessions",  "turns",   "jobs",
    "item_access", "profiles", "lifecycle_log", "lifecycle_scopes", "audit_log", "api_keys"};

// Version 2 with rows, then migrated: every row is there, with its tenant, under keys that
// lead with it, plain or partitioned by tenant; the store reads each kind of row back, and
// the sequences go on past the rows kept.
void MigratesAVersion2DatabaseWithRows(const std::string& url, int partitions) {
  SCOPED_TRACE("partitions " + std::to_string(partitions));
  auto opened = Database::Open(url, DatabaseOptions{});
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  Database* db = opened->get();
  ASSERT_TRUE(MigratePostgres(db, kNow, PgLayout{partitions}, 2).ok());
  ASSERT_TRUE(db->Exec(kVersion2Rows).ok());
  std::map<std::string, int64_t> before;
  for (const char* t : kTenantTablesForTests) {
    before[t] = Number(db, std::string("SELECT count(*) FROM ") + t);
    EXPECT_GT(before[t], 0) << t;
  }
  const int64_t max_seq = Number(db, "SELECT max(seq) FROM items");

  Status migrated = MigratePostgres(db, kNow, PgLayout{partitions});
  ASSERT_TRUE(migrated.ok()) << migrated.ToString();
  ASSERT_EQ(*ReadPgSchemaVersion(db), LatestPgSchemaVersion());
  ASSERT_TRUE(db->BindAllTenants().ok());
  for (const char* t : kTenantTablesForTests) {
    EXPECT_EQ(Number(db, std::string("SELECT count(*) FROM ") + t), before[t]) << t;
    // Each table's primary key leads with the tenant.
    EXPECT_EQ(Number(db, std::string("SELECT count(*) FROM pg_index x JOIN pg_attribute a ON "
                                     "a.attrelid = x.indrelid AND a.attnum = x.indkey[0] "
                                     "WHERE x.indisprimary AND a.attname = 'tenant' AND "
                                     "x.indrelid = '") +
                             t + "'::regclass"),
              1)
        << t;
    if (std::string_view(t) == "api_keys") continue;  // one plain table: see migration 3
    EXPECT_EQ(Number(db, std::string("SELECT count(*) FROM pg_partitioned_table WHERE "
                                     "partrelid = '") +
                             t + "'::regclass"),
              partitions >= 2 ? 1 : 0)
        << t;
    EXPECT_EQ(Number(db, std::string("SELECT count(*) FROM pg_inherits WHERE inhparent = '") + t +
                             "'::regclass"),
              partitions >= 2 ? partitions : 0)
        << t;
  }
  EXPECT_EQ(Number(db, "SELECT count(*) FROM turns WHERE tenant = 'globex'"), 1);
  EXPECT_EQ(Number(db, "SELECT count(*) FROM embeddings WHERE tenant = 'acme'"), 1);

  auto store = MemoryStore::Open(StoreOptions{.path = url}, kNow);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  const Scope alice{"acme", "alice", "", ""};
  auto item = (*store)->Get(alice, "m_alice");
  ASSERT_TRUE(item.ok()) << item.status().ToString();
  EXPECT_EQ(item->content, "alice lives in Lisbon");
  EXPECT_EQ(item->access_count, 3);  // its counted reads came along
  auto history = (*store)->History(alice, "m_alice");
  ASSERT_TRUE(history.ok());
  ASSERT_EQ(history->size(), 1u);
  EXPECT_EQ((*history)[0].reason, "written at version 2");
  auto vector = (*store)->GetVector(alice, "m_alice", "test-model");
  ASSERT_TRUE(vector.ok()) << vector.status().ToString();
  EXPECT_EQ(*vector, (std::vector<float>{1.0f, 2.0f}));
  auto session = (*store)->GetSession(Scope{"acme", "alice", "", "s1"}, 10);
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  ASSERT_EQ(session->recent.size(), 1u);
  EXPECT_EQ(session->recent[0].content, "hello");
  auto profile = (*store)->GetProfileSummary(alice);
  ASSERT_TRUE(profile.ok() && profile->has_value());
  EXPECT_EQ((*profile)->text, "profile of alice");
  auto log = (*store)->LifecycleLog(alice, 10);
  ASSERT_TRUE(log.ok());
  EXPECT_EQ(log->size(), 1u);
  EXPECT_EQ((*store)->Get(Scope{"globex", "bob", "", ""}, "m_alice").status().code(),
            StatusCode::kNotFound);
  auto jobs = JobStore::Open(url, kNow);
  ASSERT_TRUE(jobs.ok());
  EXPECT_TRUE((*jobs)->Get(alice, "job_alice").ok());
  EXPECT_FALSE((*jobs)->Get(alice, "job_bob").ok());

  // New rows take seqs past the kept ones, in either tenant.
  ManualClock clock(kNow);
  auto engine = testing::OpenEngine(url, &clock);
  ASSERT_NE(engine, nullptr);
  auto added = engine->Add(Scope{"globex", "bob", "", ""}, testing::Text("bob plays chess"));
  ASSERT_TRUE(added.ok()) << added.status().ToString();
  EXPECT_GT(Number(db, "SELECT seq FROM items WHERE id = '" + added->id + "'"), max_seq);
  EXPECT_EQ(Number(db, "SELECT count(*) FROM items WHERE tenant = 'globex'"), 2);
}

TEST_F(PostgresTest, AVersion2DatabaseKeepsEveryRowUnderKeysLedByTheTenant) {
  MigratesAVersion2DatabaseWithRows(url_, 0);
}

TEST_F(PostgresTest, AVersion2DatabaseKeepsEveryRowInTablesPartitionedByTenant) {
  MigratesAVersion2DatabaseWithRows(dir_.File("partitioned.db"), 3);
}

// Migration 6 on a database at version 5 holding memories, plain and partitioned by tenant:
// the knowledge tables follow the layout of `items`, lead their keys with the tenant, and
// row-level security keeps one tenant's documents from a connection bound to another.
void AddsKnowledgeToAVersion5Database(const std::string& url, int partitions) {
  SCOPED_TRACE("partitions " + std::to_string(partitions));
  auto opened = Database::Open(url, DatabaseOptions{});
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  Database* db = opened->get();
  ASSERT_TRUE(MigratePostgres(db, kNow, PgLayout{partitions}, 5).ok());
  ASSERT_TRUE(db->BindAllTenants().ok());
  ASSERT_TRUE(db->Exec("INSERT INTO scopes (tenant, user_id) VALUES ('acme', 'alice')").ok());
  ASSERT_TRUE(MigratePostgres(db, kNow, PgLayout{partitions}, 6).ok());
  ASSERT_EQ(*ReadPgSchemaVersion(db), 6);
  for (const char* t : {"knowledge_docs", "knowledge_chunks"}) {
    EXPECT_EQ(Number(db, std::string("SELECT count(*) FROM pg_index x JOIN pg_attribute a ON "
                                     "a.attrelid = x.indrelid AND a.attnum = x.indkey[0] "
                                     "WHERE x.indisprimary AND a.attname = 'tenant' AND "
                                     "x.indrelid = '") +
                             t + "'::regclass"),
              1)
        << t;
    EXPECT_EQ(Number(db, std::string("SELECT count(*) FROM pg_inherits WHERE inhparent = '") + t +
                             "'::regclass"),
              partitions >= 2 ? partitions : 0)
        << t;
    EXPECT_EQ(Number(db, std::string("SELECT count(*) FROM pg_class WHERE relname = '") + t +
                             "' AND relrowsecurity AND relforcerowsecurity"),
              1)
        << t;
  }
  EXPECT_EQ(Number(db, "SELECT count(*) FROM scopes WHERE tenant = 'acme'"), 1);
  auto store = MemoryStore::Open(StoreOptions{.path = url}, kNow);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  KnowledgeDocument doc;
  doc.doc_id = "faq";
  doc.title = "FAQ";
  doc.content_hash = "h";
  PendingChunk chunk;
  chunk.chunk.text = "ships on mondays";
  chunk.vector = {1.0f, 0.0f};
  ASSERT_TRUE((*store)->ReplaceDocument({"acme", ""}, doc, {chunk}, kNow, nullptr).ok());
  ASSERT_TRUE((*store)->ReplaceDocument({"globex", ""}, doc, {chunk}, kNow, nullptr).ok());
  // Bound to globex, a statement naming no tenant sees only globex's rows.
  ASSERT_TRUE(db->BindTenant("globex").ok());
  EXPECT_EQ(Number(db, "SELECT count(*) FROM knowledge_docs"), 1);
  EXPECT_EQ(Number(db, "SELECT count(*) FROM knowledge_chunks"), 1);
  EXPECT_EQ(Number(db, "SELECT count(*) FROM knowledge_docs WHERE tenant = 'acme'"), 0);
  ASSERT_TRUE(db->BindAllTenants().ok());
  // The chunks took their tenant from the bound one, and distinct seqs from the trigger.
  EXPECT_EQ(Number(db, "SELECT count(DISTINCT tenant) FROM knowledge_chunks"), 2);
  EXPECT_EQ(Number(db, "SELECT count(DISTINCT seq) FROM knowledge_chunks"), 2);
}

TEST_F(PostgresTest, Migration6AddsKnowledgeTablesLedByTheTenant) {
  AddsKnowledgeToAVersion5Database(url_, 0);
}

TEST_F(PostgresTest, Migration6AddsKnowledgeTablesPartitionedLikeItems) {
  AddsKnowledgeToAVersion5Database(dir_.File("partitioned-knowledge.db"), 3);
}

// The suite's partitioned run (ctest unit.postgres_partitioned) runs on what it asks for.
TEST_F(PostgresTest, TheTenantTablesHaveTheLayoutTheEnvironmentAsks) {
  auto layout = PgLayoutFromEnvironment();
  ASSERT_TRUE(layout.ok());
  ASSERT_TRUE(MemoryStore::Open(StoreOptions{.path = url_}, kNow).ok());
  auto db = Database::Open(url_, DatabaseOptions{});
  ASSERT_TRUE(db.ok());
  for (const char* t : {"scopes", "items", "item_history", "jobs", "audit_log"}) {
    EXPECT_EQ(Number(db->get(), std::string("SELECT count(*) FROM pg_inherits WHERE "
                                            "inhparent = '") +
                                    t + "'::regclass"),
              layout->partitions)
        << t;
  }
}

TEST(PgLayoutTest, PartitionsComeFromTheEnvironmentAndABadCountIsRefused) {
  const char* was = std::getenv("ENGRAM_PG_PARTITIONS");
  const std::string saved = was ? was : "";
  auto layout_for = [](const char* value) {
    if (value) {
      setenv("ENGRAM_PG_PARTITIONS", value, 1);
    } else {
      unsetenv("ENGRAM_PG_PARTITIONS");
    }
    return PgLayoutFromEnvironment();
  };
  EXPECT_EQ(layout_for(nullptr)->partitions, 0);
  EXPECT_EQ(layout_for("")->partitions, 0);
  EXPECT_EQ(layout_for("8")->partitions, 8);
  for (const char* bad : {"1", "-2", "eight", "4x", "5000"}) {
    auto refused = layout_for(bad);
    ASSERT_FALSE(refused.ok()) << bad;
    EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(refused.status().message().find("ENGRAM_PG_PARTITIONS"), std::string::npos);
  }
  if (was) {
    setenv("ENGRAM_PG_PARTITIONS", saved.c_str(), 1);
  } else {
    unsetenv("ENGRAM_PG_PARTITIONS");
  }
}

// Row-level security is a second wall behind the store's scope filters: a statement that
// names another tenant's scope_id outright (as a bug or an injected condition would) finds,
// changes and deletes nothing of it while the caller's tenant is bound, and cannot write a
// row into it.
TEST_F(PostgresTest, AStatementForgingAnotherTenantsScopeFindsNothingOfIt) {
  ManualClock clock(kNow);
  auto engine = testing::OpenEngine(url_, &clock);
  ASSERT_NE(engine, nullptr);
  ASSERT_TRUE(engine->Add(Scope{"acme", "alice", "", ""}, testing::Text("alice: Lisbon")).ok());
  auto bobs = engine->Add(Scope{"globex", "bob", "", ""}, testing::Text("bob: the code is 4711"));
  ASSERT_TRUE(bobs.ok());
  engine.reset();

  auto opened = Database::Open(url_, DatabaseOptions{});
  ASSERT_TRUE(opened.ok());
  Database* db = opened->get();
  // Policies bind no superuser: the wall is only tested by an ordinary role (the tests' own).
  ASSERT_EQ(Number(db,
                   "SELECT count(*) FROM pg_roles WHERE rolname = current_user AND "
                   "NOT rolsuper AND NOT rolbypassrls"),
            1);
  EXPECT_EQ(Number(db, "SELECT count(*) FROM items"), 0);  // nothing bound: nothing seen
  ASSERT_TRUE(db->BindAllTenants().ok());
  const int64_t bob_scope = Number(db, "SELECT id FROM scopes WHERE tenant = 'globex'");
  ASSERT_GT(bob_scope, 0);
  const std::string forged = std::to_string(bob_scope);

  ASSERT_TRUE(db->BindTenant("acme").ok());
  EXPECT_EQ(Number(db, "SELECT count(*) FROM items WHERE scope_id = " + forged), 0);
  EXPECT_EQ(Number(db, "SELECT count(*) FROM items"), 1);  // acme's own
  EXPECT_EQ(Number(db,
                   "SELECT count(*) FROM item_history h JOIN items i ON i.seq = h.item_seq "
                   "WHERE i.scope_id = " +
                       forged),
            0);
  EXPECT_EQ(Number(db, "SELECT count(*) FROM scopes WHERE id = " + forged), 0);
  ASSERT_TRUE(db->Exec("UPDATE items SET content = 'x' WHERE scope_id = " + forged).ok());
  EXPECT_EQ(db->Changes(), 0);
  ASSERT_TRUE(db->Exec("DELETE FROM items WHERE scope_id = " + forged).ok());
  EXPECT_EQ(db->Changes(), 0);
  // A row put into bob's scope: as acme's (the bound tenant) it points at no scope of acme's;
  // named as globex's, the policy refuses it.
  const std::string insert =
      "INSERT INTO items (%sid, scope_id, tier, type, content, importance, confidence, "
      "created_at, updated_at, valid_from, status) VALUES (%s'm_forged', " +
      forged + ", 'semantic', 'fact', 'planted', 0.5, 0.5, 1, 1, 1, 'active')";
  auto with_tenant = [&](const std::string& column, const std::string& value) {
    std::string sql = insert;
    sql.replace(sql.find("%s"), 2, column);
    sql.replace(sql.find("%s"), 2, value);
    return sql;
  };
  EXPECT_FALSE(db->Exec(with_tenant("", "")).ok());
  Status named = db->Exec(with_tenant("tenant, ", "'globex', "));
  EXPECT_FALSE(named.ok());
  EXPECT_NE(named.message().find("row-level security"), std::string::npos) << named.ToString();

  // Bound to globex, bob's item is there, untouched.
  ASSERT_TRUE(db->BindTenant("globex").ok());
  EXPECT_EQ(Number(db, "SELECT count(*) FROM items WHERE scope_id = " + forged +
                           " AND content = 'bob: the code is 4711'"),
            1);
}

// A binding made inside a transaction that rolls back is undone by the server; the
// connection must not believe it still holds.
TEST_F(PostgresTest, ATenantBoundInARolledBackTransactionIsBoundAgain) {
  ManualClock clock(kNow);
  auto engine = testing::OpenEngine(url_, &clock);
  ASSERT_NE(engine, nullptr);
  ASSERT_TRUE(engine->Add(Scope{"acme", "alice", "", ""}, testing::Text("alice: Lisbon")).ok());
  engine.reset();
  auto opened = Database::Open(url_, DatabaseOptions{});
  ASSERT_TRUE(opened.ok());
  Database* db = opened->get();
  ASSERT_TRUE(db->BindTenant("globex").ok());
  ASSERT_TRUE(db->Exec("BEGIN").ok());
  ASSERT_TRUE(db->BindTenant("acme").ok());
  EXPECT_EQ(Number(db, "SELECT count(*) FROM items"), 1);
  ASSERT_TRUE(db->Exec("ROLLBACK").ok());
  EXPECT_EQ(Number(db, "SELECT count(*) FROM items"), 0);  // globex again, as the server says
  ASSERT_TRUE(db->BindTenant("acme").ok());
  EXPECT_EQ(Number(db, "SELECT count(*) FROM items"), 1);
}

TEST(PostgresUrlTest, ParametersAreNumberedAsSqliteNumbersThem) {
  int n = 0;
  EXPECT_EQ(TranslateParameters("SELECT ? , ?, ?", &n), "SELECT $1 , $2, $3");
  EXPECT_EQ(n, 3);
  EXPECT_EQ(TranslateParameters("a = ?2 AND b = ?1 AND c = ?", &n), "a = $2 AND b = $1 AND c = $3");
  EXPECT_EQ(n, 3);
  EXPECT_EQ(TranslateParameters("x = '?' AND \"?\" = ?", &n), "x = '?' AND \"?\" = $1");
  EXPECT_EQ(n, 1);
  EXPECT_EQ(TranslateParameters("it''s ? 'a''?' ?", &n), "it''s $1 'a''?' $2");
}

// Network timeouts are added where the URL sets none, and a URL's own value is kept; every
// URL the tests open passes through it, so libpq accepts the parameters.
TEST(PostgresUrlTest, NetworkTimeoutsAreAddedUnlessTheUrlSetsThem) {
  const std::string all =
      "connect_timeout=5&tcp_user_timeout=10000&keepalives=1&keepalives_idle=10&"
      "keepalives_interval=5&keepalives_count=3";
  EXPECT_EQ(WithNetworkTimeouts("postgres://u@h/db"), "postgres://u@h/db?" + all);
  EXPECT_EQ(WithNetworkTimeouts("postgres://u@h/db?sslmode=require"),
            "postgres://u@h/db?sslmode=require&" + all);
  EXPECT_EQ(WithNetworkTimeouts("postgres://h/db?"), "postgres://h/db?" + all);
  const std::string mine = WithNetworkTimeouts(
      "postgres://h/db?connect_timeout=30&keepalives=0&keepalives_idle=1&keepalives_interval=1&"
      "keepalives_count=1&tcp_user_timeout=0");
  EXPECT_EQ(mine,
            "postgres://h/db?connect_timeout=30&keepalives=0&keepalives_idle=1&"
            "keepalives_interval=1&keepalives_count=1&tcp_user_timeout=0");
  // A name that only starts like a parameter is not it.
  EXPECT_NE(WithNetworkTimeouts("postgres://h/db?connect_timeouts=9").find("connect_timeout=5"),
            std::string::npos);
}

TEST(PostgresUrlTest, PasswordsNeverReachMessages) {
  EXPECT_EQ(RedactedUrl("postgres://u:secret@h:5432/db"), "postgres://u:***@h:5432/db");
  EXPECT_EQ(RedactedUrl("postgres://u@h/db"), "postgres://u@h/db");
  EXPECT_EQ(RedactedUrl("postgresql://h/db?x=1"), "postgresql://h/db?x=1");
  EXPECT_TRUE(IsPostgresUrl("postgresql://h/db"));
  EXPECT_FALSE(IsPostgresUrl("./engram-data/engram.db"));
}

// A seq comes from the insert trigger alone: a column default would fill it first, and the
// trigger took that for a given seq and set the sequence back (two writers then got the same
// seq). Four connections inserting at once all get distinct seqs.
TEST_F(PostgresTest, SeqsOfConcurrentInsertsNeverCollide) {
  ASSERT_TRUE(MemoryStore::Open(StoreOptions{.path = url_}, kNow).ok());
  auto admin = Database::Open(url_, DatabaseOptions{});
  ASSERT_TRUE(admin.ok());
  EXPECT_EQ(Number(admin->get(),
                   "SELECT count(*) FROM information_schema.columns WHERE column_name = 'seq' "
                   "AND column_default IS NOT NULL AND table_schema = current_schema()"),
            0);
  constexpr int kWriters = 4, kRows = 300;
  std::vector<std::thread> writers;
  std::atomic<int> failures{0};
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&, w] {
      auto db = Database::Open(url_, DatabaseOptions{});
      if (!db.ok()) {
        ++failures;
        return;
      }
      for (int i = 0; i < kRows; ++i) {
        auto st = (*db)->Prepare(
            "INSERT INTO audit_log(at, request_id, tenant, key_id, action, method, route, "
            "user_id, target, status, remote) VALUES (?, ?, 't', '', 'read', 'GET', '/', 'u', "
            "'', 200, '')");
        if (!st.ok() ||
            !(*st)->Bind(1, kNow).Bind(2, std::to_string(w) + "-" + std::to_string(i)).Run().ok()) {
          ++failures;
        }
      }
    });
  }
  for (auto& t : writers) t.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(Number(admin->get(), "SELECT count(DISTINCT seq) FROM audit_log"), kWriters * kRows);
}

TEST_F(PostgresTest, AFreshDatabaseIsMigratedOnceEvenByTwoOpeners) {
  auto a = MemoryStore::Open(StoreOptions{.path = url_}, kNow);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  auto b = MemoryStore::Open(StoreOptions{.path = url_}, kNow);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  auto db = Database::Open(url_, DatabaseOptions{});
  ASSERT_TRUE(db.ok());
  EXPECT_EQ((*db)->dialect(), SqlDialect::kPostgres);
  auto version = ReadPgSchemaVersion(db->get());
  ASSERT_TRUE(version.ok());
  EXPECT_EQ(*version, LatestPgSchemaVersion());
  auto rows = (*db)->PrepareUncached("SELECT count(*), min(applied_at) FROM schema_version");
  ASSERT_TRUE(rows.ok() && *(*rows)->Step());
  EXPECT_EQ((*rows)->Int(0), LatestPgSchemaVersion());
  EXPECT_EQ((*rows)->Int(1), kNow);
}

TEST_F(PostgresTest, ANewerSchemaIsRefusedByName) {
  ASSERT_TRUE(MemoryStore::Open(StoreOptions{.path = url_}, kNow).ok());
  auto db = Database::Open(url_, DatabaseOptions{});
  ASSERT_TRUE(db.ok());
  ASSERT_TRUE((*db)->Exec("INSERT INTO schema_version VALUES (999, 'from the future', 0)").ok());
  auto again = MemoryStore::Open(StoreOptions{.path = url_}, kNow);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().code(), StatusCode::kCorruption);
  EXPECT_NE(again.status().message().find("999"), std::string::npos);
  EXPECT_NE(again.status().message().find("upgrade Engram"), std::string::npos);
}

TEST_F(PostgresTest, AForeignSchemaIsRefusedAndLeftAlone) {
  auto db = Database::Open(url_, DatabaseOptions{});
  ASSERT_TRUE(db.ok());
  ASSERT_TRUE((*db)->Exec("CREATE TABLE invoices (id BIGINT)").ok());
  auto store = MemoryStore::Open(StoreOptions{.path = url_}, kNow);
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), StatusCode::kCorruption);
  auto tables = (*db)->PrepareUncached(
      "SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema()");
  ASSERT_TRUE(tables.ok() && *(*tables)->Step());
  EXPECT_EQ((*tables)->Int(0), 1);  // nothing was created beside it
}

TEST_F(PostgresTest, AWrongDatabaseOrUserIsAnErrorNamingTheUrlWithoutItsPassword) {
  const std::string base = url_.substr(0, url_.rfind('/'));
  auto missing = Database::Open(base + "/no_such_database_here", DatabaseOptions{});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("no_such_database_here"), std::string::npos);
  std::string with_password = url_;
  with_password.replace(with_password.find("://") + 3, 0, "nobody_here:hunter2@");
  with_password.erase(
      with_password.find('@') + 1,
      with_password.find('@', with_password.find('@') + 1) - with_password.find('@'));
  auto wrong = Database::Open(with_password, DatabaseOptions{});
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.status().message().find("hunter2"), std::string::npos)
      << wrong.status().ToString();
  EXPECT_NE(wrong.status().message().find("***"), std::string::npos) << wrong.status().ToString();
}

TEST_F(PostgresTest, AVerifiedPurgeIsRefusedBeforeAnythingIsErased) {
  ManualClock clock(kNow);
  auto engine = testing::OpenEngine(url_, &clock);
  ASSERT_NE(engine, nullptr);
  const Scope alice{"default", "alice", "", ""};
  ASSERT_TRUE(engine->Add(alice, testing::Text("I live in Lisbon")).ok());
  auto verified = engine->PurgeScopeVerified(alice);
  ASSERT_FALSE(verified.ok());
  EXPECT_EQ(verified.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(verified.status().message().find("VACUUM"), std::string::npos);
  auto still = engine->List(alice, ListQuery{});
  ASSERT_TRUE(still.ok());
  EXPECT_EQ(still->items.size(), 1u);
  auto purged = engine->PurgeScope(alice);  // the plain purge works
  ASSERT_TRUE(purged.ok()) << purged.status().ToString();
  EXPECT_EQ(*purged, 1);
  EXPECT_TRUE(engine->List(alice, ListQuery{})->items.empty());
}

TEST_F(PostgresTest, TwoEnginesOnOneDatabaseSeeEachOthersWritesAndNeverShareSeqs) {
  ManualClock clock(kNow);
  auto a = testing::OpenEngine(url_, &clock);
  auto b = testing::OpenEngine(url_, &clock);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  const Scope alice{"default", "alice", "", ""};
  const Scope bob{"acme", "bob", "", ""};
  auto x = a->Add(alice, testing::Text("I live in Lisbon"));
  auto y = b->Add(bob, testing::Text("I live in Porto"));
  ASSERT_TRUE(x.ok() && y.ok());
  auto read = b->Get(alice, x->id);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(read->content, "I live in Lisbon");
  // Isolation holds across processes as within one: bob's scope does not see alice's item.
  EXPECT_EQ(b->Get(bob, x->id).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(a->Get(Scope{"acme", "alice", "", ""}, x->id).status().code(), StatusCode::kNotFound);
}

// Two engines on one database are two replicas: each keeps its indexes in memory, and a write
// through one is found by the other's searches once the commit's notice arrives.
// Searches `engine` every 20 ms until `done` holds of the hits, for up to 5 s: how long another
// engine's change takes to be heard. False if it never held.
bool SearchesUntil(Engine* engine, const Scope& scope, const SearchQuery& q,
                   const std::function<bool(const std::vector<SearchHit>&)>& done) {
  const auto start = std::chrono::steady_clock::now();
  while (std::chrono::steady_clock::now() - start < std::chrono::seconds(5)) {
    auto hits = engine->Search(scope, q);
    EXPECT_TRUE(hits.ok()) << hits.status().ToString();
    if (hits.ok() && done(*hits)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

auto HasId(const std::string& id) {
  return [id](const std::vector<SearchHit>& hits) {
    return std::any_of(hits.begin(), hits.end(),
                       [&](const SearchHit& h) { return h.item.id == id; });
  };
}

auto HasContent(const std::string& content) {
  return [content](const std::vector<SearchHit>& hits) {
    return std::any_of(hits.begin(), hits.end(),
                       [&](const SearchHit& h) { return h.item.content == content; });
  };
}

TEST_F(PostgresTest, AWriteThroughOneEngineIsFoundBySearchesOfAnotherWithinASecond) {
  ManualClock clock(kNow);
  auto a = testing::OpenEngine(url_, &clock);
  auto b = testing::OpenEngine(url_, &clock);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  const Scope alice{"default", "alice", "", ""};
  ASSERT_TRUE(a->Add(alice, testing::Text("I play the cello on Sundays")).ok());
  SearchQuery q;
  q.text = "what instrument do I play";
  auto hits = a->Search(alice, q);  // a's index of alice is loaded now
  ASSERT_TRUE(hits.ok()) << hits.status().ToString();
  ASSERT_EQ(hits->size(), 1u);
  auto second = b->Add(alice, testing::Text("I also play the piano"));
  ASSERT_TRUE(second.ok());
  EXPECT_TRUE(SearchesUntil(a.get(), alice, q, HasId(second->id))) << "a never saw b's write";
  // b rewrites the memory a has cached from its searches: a's hits show the new text.
  MemoryPatch patch;
  patch.content = "I also play the piano, badly";
  ASSERT_TRUE(b->Update(alice, second->id, patch).ok());
  EXPECT_TRUE(SearchesUntil(a.get(), alice, q, HasContent(*patch.content)))
      << "a still shows the text b replaced";
  // b's own delete leaves a's searches as soon as a hears of it, too.
  ASSERT_TRUE(b->Delete(alice, second->id).ok());
  EXPECT_TRUE(SearchesUntil(a.get(), alice, q, [&](const std::vector<SearchHit>& hits) {
    return !HasId(second->id)(hits);
  })) << "a still finds what b deleted";
}

// A replica hears every other replica's writes, mostly of users it does not serve: such a
// write costs it that user's cached items and index only. Engine a has alice's and bob's
// memories cached and indexed; b writes for alice; once a has heard it (a finds b's write),
// a's search of bob is answered from its cache and its loaded index, with no reload.
TEST_F(PostgresTest, AnotherEnginesWriteForOneUserLeavesOtherUsersCached) {
  ManualClock clock(kNow);
  auto a = testing::OpenEngine(url_, &clock);
  auto b = testing::OpenEngine(url_, &clock);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  const Scope alice{"default", "alice", "", ""}, bob{"default", "bob", "", ""};
  ASSERT_TRUE(a->Add(alice, testing::Text("I play the cello on Sundays")).ok());
  for (const char* text : {"I play the drums", "I play chess on Mondays", "I play golf badly"}) {
    ASSERT_TRUE(a->Add(bob, testing::Text(text)).ok());
  }
  SearchQuery q;
  q.text = "what do I play";
  ASSERT_TRUE(a->Search(alice, q).ok());
  auto bob_hits = a->Search(bob, q);
  ASSERT_TRUE(bob_hits.ok());
  ASSERT_EQ(bob_hits->size(), 3u);
  auto second = b->Add(alice, testing::Text("I also play the piano"));
  ASSERT_TRUE(second.ok());
  ASSERT_TRUE(SearchesUntil(a.get(), alice, q, HasId(second->id))) << "a never saw b's write";
  auto before = a->GetStats();
  ASSERT_TRUE(before.ok());
  EXPECT_EQ(before->loaded_indexes, 2);  // alice's reloaded, bob's kept
  bob_hits = a->Search(bob, q);
  ASSERT_TRUE(bob_hits.ok());
  ASSERT_EQ(bob_hits->size(), 3u);
  auto after = a->GetStats();
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->item_cache_hits - before->item_cache_hits, 3);
  EXPECT_EQ(after->item_cache_misses, before->item_cache_misses);
  // alice's cached rows went: b's change of a row a had cached shows at once.
  MemoryPatch patch;
  patch.content = "I also play the piano, badly";
  ASSERT_TRUE(b->Update(alice, second->id, patch).ok());
  EXPECT_TRUE(SearchesUntil(a.get(), alice, q, HasContent(*patch.content)))
      << "a still shows the text b replaced";
}

TEST_F(PostgresTest, AJobIsClaimedByOneStoreOnly) {
  auto first = JobStore::Open(url_, kNow);
  auto second = JobStore::Open(url_, kNow);
  ASSERT_TRUE(first.ok() && second.ok());
  const Scope alice{"default", "alice", "", ""};
  ASSERT_TRUE((*first)->Insert(alice, "job_1", "echo", "{}", kNow).ok());
  auto a = (*first)->ClaimDue(kNow);
  auto b = (*second)->ClaimDue(kNow);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->has_value() + b->has_value(), 1);
}

}  // namespace
}  // namespace engram
