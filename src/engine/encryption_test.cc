// Encryption at rest, end to end through the engine: with a key, no word, normalized form or
// vector bytes of a stored memory appear in any file the engine writes (database, WAL, shared
// memory, index snapshots), while the same run without a key shows them (so the scan can see);
// a missing, wrong or unneeded key is a clear error and damage is told apart from a wrong key;
// a rekey keeps every memory, plain to sealed, key to key, and back. A clock at a real date.
#include "engram/encryption.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "testing/test_support.h"
#include "text/normalizer.h"

namespace engram {
namespace {

using testing::TempDir;

constexpr TimestampMs kT0 = 1'796'292'000'000;  // 2026-12-03

const std::vector<std::string> kMarkers = {"marker-q7 kumquat jam from Zanzibar",
                                           "标记金桔果酱来自桂林阳朔"};

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Every file under `dir` and what it holds.
std::vector<std::pair<std::string, std::string>> Files(const std::string& dir) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    if (e.is_regular_file()) out.emplace_back(e.path().string(), ReadAll(e.path().string()));
  }
  return out;
}

// The files among `files` holding `needle`.
std::vector<std::string> Holding(const std::vector<std::pair<std::string, std::string>>& files,
                                 const std::string& needle) {
  std::vector<std::string> out;
  for (const auto& [path, data] : files) {
    if (data.find(needle) != std::string::npos) out.push_back(path);
  }
  return out;
}

class EncryptionTest : public ::testing::Test {
 protected:
  EngineOptions Options(std::shared_ptr<const EncryptionKey> key) {
    EngineOptions o;
    o.encryption_key = std::move(key);
    o.hnsw_threshold = 64;  // a graph, hence a snapshot, for the scope below
    return o;
  }
  std::unique_ptr<Engine> Open(const std::string& path, std::shared_ptr<const EncryptionKey> key) {
    return testing::OpenEngine(path, &clock_, Options(std::move(key)));
  }
  Result<std::unique_ptr<Engine>> TryOpen(const std::string& path,
                                          std::shared_ptr<const EncryptionKey> key) {
    EngineOptions o = Options(std::move(key));
    o.path = path;
    o.clock = &clock_;
    return Engine::Open(o);
  }
  // The markers and 150 other memories; returns the markers' needles: text, normalized text,
  // a distinctive token, and 64 bytes of each marker's vector.
  std::vector<std::string> Fill(Engine* engine) {
    std::vector<std::string> needles;
    for (int i = 0; i < 150; ++i) {
      EXPECT_TRUE(engine
                      ->Add(alice_, testing::Text("filler note number " + std::to_string(i) +
                                                  " about errands and weather"))
                      .ok());
    }
    for (const std::string& m : kMarkers) {
      auto added = engine->Add(alice_, testing::Text(m));
      EXPECT_TRUE(added.ok()) << added.status().ToString();
      if (!added.ok()) continue;
      needles.push_back(m);
      needles.push_back(NormalizeForMatching(m));
      auto v = engine->GetVector(alice_, added->id, added->embedding_model);
      EXPECT_TRUE(v.ok());
      for (size_t i = 0; v.ok() && i + 16 <= v->size(); ++i) {
        if ((*v)[i] != 0) {
          needles.emplace_back(reinterpret_cast<const char*>(v->data() + i), 16 * sizeof(float));
          break;
        }
      }
      clock_.Advance(1000);
    }
    needles.push_back("kumquat");
    needles.push_back("金桔果酱");
    return needles;
  }
  bool Finds(Engine* engine, const std::string& query, const std::string& content) {
    SearchQuery q;
    q.text = query;
    auto hits = engine->Search(alice_, q);
    EXPECT_TRUE(hits.ok()) << hits.status().ToString();
    if (!hits.ok()) return false;
    for (const SearchHit& h : *hits) {
      if (h.item.content == content) return true;
    }
    return false;
  }
  int64_t Count(Engine* engine) {
    ListQuery q;
    q.limit = 1000;
    auto page = engine->List(alice_, q);
    EXPECT_TRUE(page.ok()) << page.status().ToString();
    return page.ok() ? static_cast<int64_t>(page->items.size()) : -1;
  }

  TempDir dir_;
  ManualClock clock_{kT0};
  Scope alice_{"acme", "alice", "", ""};
  std::shared_ptr<const EncryptionKey> key_ =
      std::make_shared<const EncryptionKey>(EncryptionKey::Generate());
};

TEST_F(EncryptionTest, NoStoredWordOrVectorIsInAnyFileWithAKeyAndAllAreWithout) {
  for (bool sealed : {false, true}) {
    SCOPED_TRACE(sealed ? "sealed" : "plain");
    const std::string dir = dir_.File(sealed ? "sealed" : "plain");
    std::filesystem::create_directories(dir);
    const std::string path = dir + "/e.db";
    std::vector<std::string> needles;
    {
      auto engine = Open(path, sealed ? key_ : nullptr);
      ASSERT_NE(engine, nullptr);
      needles = Fill(engine.get());
      ASSERT_EQ(needles.size(), 8u);
      EXPECT_TRUE(Finds(engine.get(), "kumquat jam", kMarkers[0]));
      EXPECT_TRUE(Finds(engine.get(), "金桔果酱", kMarkers[1]));
      engine->WaitForIndexBuilds();  // the graph is built in the background
      Status saved = engine->SaveIndexSnapshots();
      EXPECT_TRUE(saved.ok()) << saved.ToString();
      // Files as they are while the engine runs: the WAL holds the latest pages.
      for (const std::string& needle : needles) {
        const auto where = Holding(Files(dir), needle);
        if (sealed) EXPECT_TRUE(where.empty()) << "found in " << where.front();
      }
    }  // closing saves the graph's snapshot
    const auto files = Files(dir);
    const auto snapshots = Holding(files, sealed ? "ENGRAMHS" : "ENGRAMHN");
    ASSERT_EQ(snapshots.size(), 1u) << "one scope, one snapshot";
    EXPECT_NE(snapshots[0].find(".indexes/"), std::string::npos);
    for (const std::string& needle : needles) {
      const auto where = Holding(files, needle);
      if (sealed) {
        EXPECT_TRUE(where.empty()) << "found in " << where.front();
      } else if (needle == kMarkers[0] || needle == kMarkers[1] || needle.size() == 64) {
        EXPECT_FALSE(where.empty())
            << "the scan must see plain files' contents: " << (&needle - needles.data());
      }
    }
    if (sealed) {
      EXPECT_TRUE(Holding(files, "SQLite format 3").empty());
      EXPECT_TRUE(Holding(files, "filler note").empty());
    }
    // Reopened with the key, everything is there, the sealed snapshot included.
    auto engine = Open(path, sealed ? key_ : nullptr);
    ASSERT_NE(engine, nullptr);
    EXPECT_EQ(Count(engine.get()), 152);
    auto info = engine->DescribeIndex(alice_);
    ASSERT_TRUE(info.ok());
    EXPECT_TRUE(info->from_snapshot) << info->snapshot_status;
    EXPECT_TRUE(Finds(engine.get(), "Zanzibar", kMarkers[0]));
    EXPECT_TRUE(Finds(engine.get(), "桂林阳朔", kMarkers[1]));
  }
}

TEST_F(EncryptionTest, ATamperedSealedSnapshotIsRebuiltNotTrusted) {
  const std::string path = dir_.File("s.db");
  {
    auto engine = Open(path, key_);
    ASSERT_NE(engine, nullptr);
    Fill(engine.get());
    EXPECT_TRUE(Finds(engine.get(), "kumquat jam", kMarkers[0]));
    engine->WaitForIndexBuilds();
  }
  const std::string snapshot = path + ".indexes/scope-1.hnsw";
  ASSERT_TRUE(std::filesystem::exists(snapshot));
  {
    std::fstream f(snapshot, std::ios::in | std::ios::out | std::ios::binary);
    // flipped, not overwritten: a fixed byte may be the one already there
    f.seekg(5000);
    char c = 0;
    f.read(&c, 1);
    f.seekp(5000);
    c = static_cast<char>(c ^ 0x5a);
    f.write(&c, 1);
  }
  auto engine = Open(path, key_);
  ASSERT_NE(engine, nullptr);
  auto info = engine->DescribeIndex(alice_);
  ASSERT_TRUE(info.ok());
  EXPECT_FALSE(info->from_snapshot);
  EXPECT_NE(info->snapshot_status.find("fails authentication"), std::string::npos)
      << info->snapshot_status;
  EXPECT_TRUE(Finds(engine.get(), "Zanzibar", kMarkers[0]));
}

TEST_F(EncryptionTest, AMissingWrongOrUnneededKeyIsAClearErrorAndDamageIsNotAWrongKey) {
  const std::string sealed = dir_.File("sealed.db"), plain = dir_.File("plain.db");
  {
    auto engine = Open(sealed, key_);
    ASSERT_NE(engine, nullptr);
    ASSERT_TRUE(engine->Add(alice_, testing::Text("likes green tea")).ok());
    auto other = Open(plain, nullptr);
    ASSERT_NE(other, nullptr);
    ASSERT_TRUE(other->Add(alice_, testing::Text("likes black tea")).ok());
  }
  auto none = TryOpen(sealed, nullptr);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(none.status().message().find("is encrypted (key id " + key_->Id() + ")"),
            std::string::npos)
      << none.status().ToString();

  auto other_key = std::make_shared<const EncryptionKey>(EncryptionKey::Generate());
  auto wrong = TryOpen(sealed, other_key);
  ASSERT_FALSE(wrong.ok());
  EXPECT_EQ(wrong.status().code(), StatusCode::kPermissionDenied);
  EXPECT_NE(wrong.status().message().find("wrong key"), std::string::npos);
  EXPECT_NE(wrong.status().message().find(other_key->Id()), std::string::npos);

  auto unneeded = TryOpen(plain, key_);
  ASSERT_FALSE(unneeded.ok());
  EXPECT_EQ(unneeded.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(unneeded.status().message().find("not encrypted"), std::string::npos);

  // A flipped byte inside page 1's sealed part: damage, not a wrong key.
  {
    std::fstream f(sealed, std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(200);
    char c = 0;
    f.read(&c, 1);
    f.seekp(200);
    c = static_cast<char>(c ^ 0x5a);
    f.write(&c, 1);
  }
  auto damaged = TryOpen(sealed, key_);
  ASSERT_FALSE(damaged.ok());
  EXPECT_EQ(damaged.status().code(), StatusCode::kCorruption);
  EXPECT_NE(damaged.status().message().find("fails authentication"), std::string::npos);

  // Keys from text and files: 64 hex digits, and nothing else.
  EXPECT_FALSE(EncryptionKey::FromHex("abc").ok());
  EXPECT_FALSE(EncryptionKey::FromHex(std::string(64, 'g')).ok());
  auto round = EncryptionKey::FromHex(" " + key_->Hex() + "\n");
  ASSERT_TRUE(round.ok());
  EXPECT_EQ(round->Id(), key_->Id());
  EXPECT_EQ(EncryptionKey::FromFile(dir_.File("absent.key")).status().code(),
            StatusCode::kNotFound);
}

TEST_F(EncryptionTest, ARekeyKeepsEveryMemoryFromPlainToSealedToAnotherKeyAndBack) {
  const std::string path = dir_.File("r.db");
  std::vector<std::string> contents;
  {
    auto engine = Open(path, nullptr);
    ASSERT_NE(engine, nullptr);
    Fill(engine.get());
    EXPECT_TRUE(Finds(engine.get(), "kumquat jam", kMarkers[0]));
    engine->WaitForIndexBuilds();
    auto first = engine->List(alice_, ListQuery{.limit = 1000});
    ASSERT_TRUE(first.ok());
    for (const MemoryItem& m : first->items) contents.push_back(m.id + "|" + m.content);
    ASSERT_EQ(contents.size(), 152u);
  }
  auto check = [&](std::shared_ptr<const EncryptionKey> key) {
    auto engine = Open(path, key);
    ASSERT_NE(engine, nullptr);
    auto page = engine->List(alice_, ListQuery{.limit = 1000});
    ASSERT_TRUE(page.ok());
    std::vector<std::string> now;
    for (const MemoryItem& m : page->items) now.push_back(m.id + "|" + m.content);
    EXPECT_EQ(now, contents);
    EXPECT_TRUE(Finds(engine.get(), "kumquat jam", kMarkers[0]));
    auto history = engine->History(alice_, page->items.front().id);
    ASSERT_TRUE(history.ok());
    EXPECT_FALSE(history->empty());
  };
  auto second = std::make_shared<const EncryptionKey>(EncryptionKey::Generate());

  auto sealed = Engine::Rekey(path, nullptr, key_);
  ASSERT_TRUE(sealed.ok()) << sealed.status().ToString();
  EXPECT_EQ(sealed->from_key_id, "");
  EXPECT_EQ(sealed->to_key_id, key_->Id());
  EXPECT_EQ(sealed->snapshots_removed, 1);
  EXPECT_TRUE(Holding(Files(dir_.path()), "kumquat").empty());
  check(key_);

  auto rotated = Engine::Rekey(path, key_, second);
  ASSERT_TRUE(rotated.ok()) << rotated.status().ToString();
  EXPECT_EQ(TryOpen(path, key_).status().code(), StatusCode::kPermissionDenied);
  EXPECT_TRUE(Holding(Files(dir_.path()), "kumquat").empty());
  check(second);

  EXPECT_EQ(Engine::Rekey(path, second, second).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(Engine::Rekey(path, key_, nullptr).status().code(), StatusCode::kPermissionDenied);

  auto plain = Engine::Rekey(path, second, nullptr);
  ASSERT_TRUE(plain.ok()) << plain.status().ToString();
  EXPECT_EQ(plain->to_key_id, "");
  check(nullptr);
  EXPECT_FALSE(Holding(Files(dir_.path()), "kumquat").empty());
  EXPECT_FALSE(std::filesystem::exists(path + ".reseal"));
}

}  // namespace
}  // namespace engram
