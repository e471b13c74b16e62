// What only the PostgreSQL backend has: its connection errors, its schema versions, its
// isolation from other schemas' tables, the refusal of a byte-level purge verification, a
// server that goes away and comes back. Built into engram_pg_tests, which
// scripts/pg_unit_test.sh runs against a real server (ENGRAM_TEST_PG_URL); the rest of the
// backend's behaviour is checked by the whole unit suite run on PostgreSQL by the same script.
#include "storage/postgres.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
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

TEST(PostgresUrlTest, PasswordsNeverReachMessages) {
  EXPECT_EQ(RedactedUrl("postgres://u:secret@h:5432/db"), "postgres://u:***@h:5432/db");
  EXPECT_EQ(RedactedUrl("postgres://u@h/db"), "postgres://u@h/db");
  EXPECT_EQ(RedactedUrl("postgresql://h/db?x=1"), "postgresql://h/db?x=1");
  EXPECT_TRUE(IsPostgresUrl("postgresql://h/db"));
  EXPECT_FALSE(IsPostgresUrl("./engram-data/engram.db"));
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
  const auto written = std::chrono::steady_clock::now();
  bool found = false;
  while (!found && std::chrono::steady_clock::now() - written < std::chrono::seconds(5)) {
    auto again = a->Search(alice, q);
    ASSERT_TRUE(again.ok());
    for (const SearchHit& h : *again) found |= h.item.id == second->id;
    if (!found) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_TRUE(found) << "a never saw b's write";
  // b rewrites the memory a has cached from its searches: a's hits show the new text.
  MemoryPatch patch;
  patch.content = "I also play the piano, badly";
  ASSERT_TRUE(b->Update(alice, second->id, patch).ok());
  bool rewritten = false;
  const auto updated = std::chrono::steady_clock::now();
  while (!rewritten && std::chrono::steady_clock::now() - updated < std::chrono::seconds(5)) {
    auto again = a->Search(alice, q);
    ASSERT_TRUE(again.ok());
    for (const SearchHit& h : *again) rewritten |= h.item.content == patch.content;
    if (!rewritten) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_TRUE(rewritten) << "a still shows the text b replaced";
  // b's own delete leaves a's searches as soon as a hears of it, too.
  ASSERT_TRUE(b->Delete(alice, second->id).ok());
  bool gone = false;
  const auto deleted = std::chrono::steady_clock::now();
  while (!gone && std::chrono::steady_clock::now() - deleted < std::chrono::seconds(5)) {
    auto again = a->Search(alice, q);
    ASSERT_TRUE(again.ok());
    gone = true;
    for (const SearchHit& h : *again) gone &= h.item.id != second->id;
    if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_TRUE(gone) << "a still finds what b deleted";
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
