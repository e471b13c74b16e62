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

// Version 8 added who said a kept turn and the links between turns and what was extracted
// from them: old rows read with none, and new links survive a reopen.
TEST(MigrationsTest, Version8AddsTurnLinksAndOldItemsHaveNone) {
  TempDir dir;
  const std::string path = dir.File("v7.db");
  {
    auto db = OpenRaw(path);
    ASSERT_TRUE(Migrate(db.get(), 1000, 7).ok());
    ASSERT_TRUE(db->Exec("INSERT INTO scopes(tenant, user_id) VALUES ('default', 'u1')").ok());
    ASSERT_TRUE(db->Exec("INSERT INTO items(id, scope_id, tier, type, content, importance, "
                         "confidence, created_at, updated_at, valid_from, status, slot) VALUES "
                         "('old-1', 1, 'semantic', 'fact', 'User lives in Oslo', 0.5, 1.0, "
                         "1781517600000, 1781517600000, 1781517600000, 'active', 'user/location')")
                    .ok());
  }
  Scope scope{"default", "u1", "", ""};
  std::string turn_id, fact_id;
  {
    auto engine = testing::OpenEngine(path);
    ASSERT_NE(engine, nullptr);
    auto old = engine->Get(scope, "old-1");
    ASSERT_TRUE(old.ok()) << old.status().ToString();
    EXPECT_EQ(old->slot, "user/location");
    EXPECT_EQ(old->source.role, "");
    EXPECT_TRUE(old->source.turn_ids.empty());
    EXPECT_TRUE(old->derived_ids.empty());
    // A turn and the fact extracted from it, linked as the write path links them.
    NewMemory turn = testing::Text("I moved to Bergen");
    turn.type = MemoryType::kMessage;
    turn.tier = Tier::kEpisodic;
    turn.source.extractor = std::string(kTurnExtractor);
    turn.source.role = "user";
    auto t = engine->Add(scope, turn);
    ASSERT_TRUE(t.ok()) << t.status().ToString();
    turn_id = t->id;
    PlannedWrite w;
    w.memory = testing::Text("User lives in Bergen");
    w.memory.slot = "user/location";
    w.memory.source.turn_ids = {turn_id};
    w.turn_ids = {turn_id};
    w.decision = WriteDecision::kSupersede;
    w.target_id = "old-1";
    w.reason = "moved";
    auto applied = engine->ApplyWrite(scope, w);
    ASSERT_TRUE(applied.ok()) << applied.status().ToString();
    fact_id = applied->memory.id;
  }
  auto db = OpenRaw(path);
  EXPECT_EQ(*ReadSchemaVersion(db.get()), LatestSchemaVersion());
  db.reset();
  auto engine = testing::OpenEngine(path);
  ASSERT_NE(engine, nullptr);
  auto turn = engine->Get(scope, turn_id);
  ASSERT_TRUE(turn.ok());
  EXPECT_TRUE(IsKeptTurn(*turn));
  EXPECT_EQ(turn->source.role, "user");
  EXPECT_EQ(turn->derived_ids, std::vector<std::string>{fact_id});
  auto fact = engine->Get(scope, fact_id);
  ASSERT_TRUE(fact.ok());
  EXPECT_EQ(fact->source.turn_ids, std::vector<std::string>{turn_id});
  EXPECT_EQ(fact->supersedes, "old-1");
  EXPECT_EQ(engine->Get(scope, "old-1")->status, ItemStatus::kSuperseded);
}

// Migrations keep their temporary data in files (a whole-table rewrite's statement journal
// held gigabytes in memory), and the connection gets its in-memory setting back afterwards.
// Version 12 added the knowledge tier to a database of version 11 holding memories: the
// memories stay, and documents are written and read back through the store.
TEST(MigrationsTest, Version12AddsKnowledgeTablesBesideTheMemories) {
  TempDir dir;
  const std::string path = dir.File("v11.db");
  {
    auto db = OpenRaw(path);
    ASSERT_TRUE(Migrate(db.get(), 1000, 11).ok());
    ASSERT_TRUE(db->Exec("INSERT INTO scopes(tenant, user_id) VALUES ('acme', 'u1')").ok());
    ASSERT_TRUE(db->Exec("INSERT INTO items(id, scope_id, tier, type, content, importance, "
                         "confidence, created_at, updated_at, valid_from, status) VALUES "
                         "('old-1', 1, 'semantic', 'fact', 'kept', 0.5, 1.0, 5, 5, 5, 'active')")
                    .ok());
    EXPECT_EQ(QueryInt(db.get(), "SELECT count(*) FROM sqlite_schema WHERE name LIKE 'knowledge%'"),
              0);
  }
  ManualClock clock(1'796'515'200'000);  // 2026-12-06
  auto engine = testing::OpenEngine(path, &clock);
  ASSERT_NE(engine, nullptr);
  EXPECT_EQ(engine->Get(Scope{"acme", "u1", "", ""}, "old-1")->content, "kept");
  NewDocument doc;
  doc.doc_id = "faq";
  doc.format = DocumentFormat::kMarkdown;
  doc.content = "# FAQ\n\nWe ship on Mondays.";
  auto ingested = engine->IngestDocument(KnowledgeScope{"acme", ""}, doc);
  ASSERT_TRUE(ingested.ok()) << ingested.status().ToString();
  engine.reset();
  auto db = OpenRaw(path);
  EXPECT_EQ(*ReadSchemaVersion(db.get()), LatestSchemaVersion());  // 12 and the ones after
  EXPECT_EQ(QueryInt(db.get(), "SELECT count(*) FROM knowledge_chunks"), 1);
  // A chunk's (document, ordinal) is unique, and a chunk cannot outlive its document.
  EXPECT_FALSE(db->Exec("INSERT INTO knowledge_chunks(doc_seq, ordinal, char_start, char_end, "
                        "tokens, content, embedding_model, vector) SELECT doc_seq, ordinal, 0, 0, "
                        "0, 'x', 'm', x'00' FROM knowledge_chunks")
                   .ok());
  ASSERT_TRUE(db->Exec("DELETE FROM knowledge_docs").ok());
  EXPECT_EQ(QueryInt(db.get(), "SELECT count(*) FROM knowledge_chunks"), 0);
}

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
  EXPECT_EQ(QueryInt(db.get(),
                     "SELECT count(*) FROM dbstat WHERE name = 'embeddings' AND "
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
  EXPECT_EQ(QueryInt(db.get(), "SELECT count(*) FROM sqlite_schema WHERE name='schema_version'"),
            0);
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
