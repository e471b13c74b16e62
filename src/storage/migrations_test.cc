#include "storage/migrations.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "storage/sqlite.h"
#include "testing/test_support.h"

namespace engram {
namespace {

using testing::TempDir;

std::unique_ptr<Database> OpenRaw(const std::string& path) {
  auto db = Database::Open(path, DatabaseOptions{});
  EXPECT_TRUE(db.ok()) << db.status().ToString();
  return std::move(db).value();
}

int64_t QueryInt(Database* db, const std::string& sql) {
  auto st = db->PrepareUncached(sql);
  EXPECT_TRUE(st.ok()) << st.status().ToString();
  auto row = (*st)->Step();
  EXPECT_TRUE(row.ok() && *row) << sql;
  return (*st)->Int(0);
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(MigrationsTest, VersionsAreNumberedFromOneWithoutGaps) {
  const auto& all = AllMigrations();
  for (size_t i = 0; i < all.size(); ++i) EXPECT_EQ(all[i].version, static_cast<int>(i) + 1);
  EXPECT_EQ(LatestSchemaVersion(), static_cast<int>(all.size()));
}

TEST(MigrationsTest, FreshDatabaseReachesLatestVersion) {
  TempDir dir;
  auto db = OpenRaw(dir.File("e.db"));
  ASSERT_TRUE(Migrate(db.get(), 1000).ok());
  EXPECT_EQ(*ReadSchemaVersion(db.get()), LatestSchemaVersion());
  EXPECT_EQ(QueryInt(db.get(), "PRAGMA application_id"), kApplicationId);
  EXPECT_EQ(QueryInt(db.get(), "PRAGMA user_version"), LatestSchemaVersion());
  EXPECT_EQ(QueryInt(db.get(), "SELECT count(*) FROM schema_version"), LatestSchemaVersion());
  for (const char* table : {"scopes", "items", "item_history", "embeddings", "sessions", "turns"}) {
    EXPECT_EQ(QueryInt(db.get(), std::string("SELECT count(*) FROM sqlite_schema WHERE name='") +
                                     table + "'"),
              1)
        << table;
  }
  // Running again changes nothing.
  ASSERT_TRUE(Migrate(db.get(), 2000).ok());
  EXPECT_EQ(QueryInt(db.get(), "SELECT count(*) FROM schema_version"), LatestSchemaVersion());
}

// A database left at every earlier version, holding data, migrates to the latest and keeps it.
TEST(MigrationsTest, EngineDatabasesUseWal) {
  TempDir dir;
  ASSERT_NE(testing::OpenEngine(dir.File("w.db")), nullptr);
  auto db = OpenRaw(dir.File("w.db"));
  auto mode = db->PrepareUncached("PRAGMA journal_mode");
  ASSERT_TRUE(mode.ok() && *(*mode)->Step());
  EXPECT_EQ((*mode)->String(0), "wal");
}

TEST(MigrationsTest, UpgradesFromEveryEarlierVersionKeepingData) {
  for (int from = 0; from < LatestSchemaVersion(); ++from) {
    SCOPED_TRACE("from version " + std::to_string(from));
    TempDir dir;
    const std::string path = dir.File("old.db");
    {
      auto db = OpenRaw(path);
      ASSERT_TRUE(Migrate(db.get(), 1000, from).ok());
      EXPECT_EQ(*ReadSchemaVersion(db.get()), from);
      if (from >= 1) {
        ASSERT_TRUE(db->Exec("INSERT INTO scopes(tenant, user_id) VALUES ('default', 'u1')").ok());
        ASSERT_TRUE(db->Exec("INSERT INTO items(id, scope_id, tier, type, content, importance, "
                             "confidence, created_at, updated_at, valid_from, status) VALUES "
                             "('old-1', 1, 'semantic', 'fact', 'kept across upgrades', 0.5, 1.0, "
                             "5, 5, 5, 'active')")
                        .ok());
        ASSERT_TRUE(db->Exec("INSERT INTO item_history(item_seq, event, new_content, at) "
                             "VALUES (1, 'ADD', 'kept across upgrades', 5)")
                        .ok());
        // Two models' vectors of the item (1.0, 2.0 and 3.0, 4.0, 5.0 as float32).
        ASSERT_TRUE(db->Exec("INSERT INTO embeddings(item_seq, model, dim, vector, created_at) "
                             "VALUES (1, 'model-b', 3, x'000040400000804000a0a040', 6), "
                             "(1, 'model-a', 2, x'0000803f00000040', 5)")
                        .ok());
      }
    }
    auto engine = testing::OpenEngine(path);
    ASSERT_NE(engine, nullptr);
    Scope scope{"default", "u1", "", ""};
    if (from >= 1) {
      auto item = engine->Get(scope, "old-1");
      ASSERT_TRUE(item.ok()) << item.status().ToString();
      EXPECT_EQ(item->content, "kept across upgrades");
      EXPECT_EQ(engine->History(scope, "old-1")->size(), 1u);
    }
    EXPECT_TRUE(engine->Add(scope, testing::Text("written after upgrade")).ok());
    engine.reset();
    auto db = OpenRaw(path);
    EXPECT_EQ(*ReadSchemaVersion(db.get()), LatestSchemaVersion());
    if (from >= 1) {
      auto st = db->PrepareUncached(
          "SELECT model, dim, hex(vector), created_at FROM embeddings WHERE item_seq = 1 "
          "ORDER BY model");
      ASSERT_TRUE(st.ok());
      std::vector<std::string> rows;
      while (*(*st)->Step()) {
        rows.push_back((*st)->String(0) + " " + std::to_string((*st)->Int(1)) + " " +
                       (*st)->String(2) + " " + std::to_string((*st)->Int(3)));
      }
      EXPECT_EQ(rows, (std::vector<std::string>{"model-a 2 0000803F00000040 5",
                                                "model-b 3 000040400000804000A0A040 6"}));
    }
    // Both vectors of one item and model cannot exist: the unique key survives the upgrade.
    EXPECT_FALSE(db->Exec("INSERT INTO embeddings(item_seq, model, dim, vector, created_at) "
                          "SELECT item_seq, model, dim, vector, created_at FROM embeddings "
                          "LIMIT 1")
                     .ok());
  }
}

// Migrations keep their temporary data in files (a whole-table rewrite's statement journal
// held gigabytes in memory), and the connection gets its in-memory setting back afterwards.
TEST(MigrationsTest, TheConnectionKeepsTemporaryDataInMemoryAfterMigrating) {
  TempDir dir;
  auto db = OpenRaw(dir.File("t.db"));
  EXPECT_EQ(QueryInt(db.get(), "PRAGMA temp_store"), 2);  // MEMORY, as Database::Open sets it
  ASSERT_TRUE(Migrate(db.get(), 1000, 6).ok());
  EXPECT_EQ(QueryInt(db.get(), "PRAGMA temp_store"), 2);
  ASSERT_TRUE(Migrate(db.get(), 1000).ok());
  EXPECT_EQ(*ReadSchemaVersion(db.get()), LatestSchemaVersion());
  EXPECT_EQ(QueryInt(db.get(), "PRAGMA temp_store"), 2);
}

// Vectors of the default embedder (384 float32, 1,536 bytes) stay on their table rows: no
// overflow pages, and two vectors share a page (as a WITHOUT ROWID table, before version 7,
// each took an overflow page of its own).
TEST(MigrationsTest, VectorsOfTheDefaultDimensionNeedNoOverflowPages) {
  TempDir dir;
  const std::string path = dir.File("v.db");
  {
    auto engine = testing::OpenEngine(path);
    ASSERT_NE(engine, nullptr);
    Scope scope{"default", "u1", "", ""};
    for (int i = 0; i < 200; ++i) {
      ASSERT_TRUE(engine->Add(scope, testing::Text("memory number " + std::to_string(i))).ok());
    }
  }
  auto db = OpenRaw(path);
  EXPECT_EQ(QueryInt(db.get(), "SELECT count(*) FROM embeddings WHERE dim = 384"), 200);
  EXPECT_EQ(QueryInt(db.get(), "SELECT count(*) FROM dbstat WHERE name = 'embeddings' AND "
                               "pagetype = 'overflow'"),
            0);
  EXPECT_LE(QueryInt(db.get(), "SELECT count(*) FROM dbstat WHERE name = 'embeddings'"), 110);
}

TEST(MigrationsTest, RefusesADatabaseFromANewerEngram) {
  TempDir dir;
  const std::string path = dir.File("new.db");
  {
    auto db = OpenRaw(path);
    ASSERT_TRUE(Migrate(db.get(), 1000).ok());
    ASSERT_TRUE(db->Exec("INSERT INTO schema_version VALUES (" +
                         std::to_string(LatestSchemaVersion() + 1) + ", 'future', 1)")
                    .ok());
  }
  EngineOptions options;
  options.path = path;
  auto engine = Engine::Open(options);
  ASSERT_FALSE(engine.ok());
  EXPECT_EQ(engine.status().code(), StatusCode::kCorruption);
  EXPECT_NE(engine.status().message().find("newer"), std::string::npos);
}

TEST(MigrationsTest, RefusesAForeignSqliteFileWithoutTouchingIt) {
  TempDir dir;
  const std::string path = dir.File("other.db");
  {
    auto db = OpenRaw(path);
    ASSERT_TRUE(db->Exec("CREATE TABLE notes(x TEXT); INSERT INTO notes VALUES ('mine')").ok());
  }
  EngineOptions options;
  options.path = path;
  auto engine = Engine::Open(options);
  ASSERT_FALSE(engine.ok());
  EXPECT_EQ(engine.status().code(), StatusCode::kCorruption);
  auto db = OpenRaw(path);
  EXPECT_EQ(QueryInt(db.get(), "SELECT count(*) FROM sqlite_schema WHERE name='schema_version'"), 0);
  EXPECT_EQ(QueryInt(db.get(), "SELECT count(*) FROM notes"), 1);
}

TEST(MigrationsTest, RefusesAFileThatIsNotADatabase) {
  TempDir dir;
  const std::string path = dir.File("notes.txt");
  {
    std::ofstream out(path);
    out << "these are my notes, not a database\n";
  }
  EngineOptions options;
  options.path = path;
  auto engine = Engine::Open(options);
  ASSERT_FALSE(engine.ok());
  EXPECT_EQ(engine.status().code(), StatusCode::kCorruption) << engine.status().ToString();
  EXPECT_EQ(ReadFile(path), "these are my notes, not a database\n");
}

}  // namespace
}  // namespace engram
