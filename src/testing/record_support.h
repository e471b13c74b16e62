// Helpers shared by unit tests of every layer: a temporary directory, an item with every field
// set, and readable printers. Nothing here needs the engine, so tests below it include this
// header alone (src/testing/test_support.h adds the engine helpers).
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <map>
#include <memory>
#include <string>

#include "codec/item_json.h"
#include "engram/memory.h"

namespace engram {
// Readable failure messages for item and history comparisons.
inline void PrintTo(const MemoryItem& m, std::ostream* os) { *os << ItemToJson(m).dump(); }
inline void PrintTo(const HistoryEntry& h, std::ostream* os) { *os << HistoryToJson(h).dump(); }
}  // namespace engram

namespace engram::testing {

// An item with every field set and the optional ones present, with quotes, escapes, CJK and
// an emoji in its strings: for round trips that must lose nothing.
inline MemoryItem EveryFieldItem() {
  MemoryItem m;
  m.id = "mem_01";
  m.scope = {"acme", "alice", "agent-7", "s-9"};
  m.tier = Tier::kEpisodic;
  m.type = MemoryType::kEvent;
  m.content = "Went to \"Kyoto\"\n去了京都 😀";
  m.entities = {"Kyoto", "京都"};
  m.tags = {"travel", "a\\b"};
  m.metadata = R"({"n":1.5,"nested":{"k":[1,"two",null]},"z":true})";
  m.importance = 0.8;
  m.confidence = 0.9;
  m.source = {{"msg1", "msg2"}, "s-9", "llm:test", "extract-v1"};
  m.created_at = 1'700'000'000'123;
  m.updated_at = 1'700'000'100'000;
  m.valid_from = 1'600'000'000'000;
  m.valid_to = 1'750'000'000'000;
  m.last_accessed = 1'760'000'000'000;
  m.access_count = 42;
  m.status = ItemStatus::kSuperseded;
  m.supersedes = "mem_00";
  m.superseded_by = "mem_02";
  m.embedding_model = "hash-v1-384";
  m.slot = "user/location";
  m.source.role = "Caroline";
  m.source.turn_ids = {"turn_1", "turn_2"};
  m.derived_ids = {"mem_03", "mem_04"};
  m.expires_at = 1'770'000'000'000;
  return m;
}

// With ENGRAM_TEST_PG_URL set (a PostgreSQL server's URL, as scripts/pg_unit_test.sh sets it),
// a fresh database on that server for `name`, dropped by DropPgTestDatabase; empty otherwise.
// (src/testing/pg_test_db.cc)
std::string PgTestDatabase(const std::string& name);
void DropPgTestDatabase(const std::string& url);

// A fresh directory under $TMPDIR, removed with everything in it on destruction.
// File("x.db") names the test's database: with ENGRAM_TEST_PG_URL set it is instead the URL of
// a fresh PostgreSQL database (the same one each time that name is asked for), so the tests
// that open databases by name check the PostgreSQL backend as they check SQLite.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "engram-test-XXXXXX").string();
    char* made = mkdtemp(tmpl.data());
    path_ = made ? made : "";
  }
  ~TempDir() {
    for (const auto& [name, url] : databases_) DropPgTestDatabase(url);
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }
  std::string File(const std::string& name) const {
    if (name.ends_with(".db")) {
      auto it = databases_.find(name);
      if (it != databases_.end()) return it->second;
      std::string url = PgTestDatabase(name);
      if (!url.empty()) return databases_.emplace(name, url).first->second;
    }
    return path_ + "/" + name;
  }
  // The file itself, never a PostgreSQL database: for tests of SQLite's files.
  std::string LocalFile(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
  mutable std::map<std::string, std::string> databases_;
};

}  // namespace engram::testing
