// Engine-level HNSW snapshots: saved on close, trusted only when they match the database,
// rebuilt from the database when missing, corrupt or stale, and removed on purge.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/status_macros.h"
#include "testing/test_support.h"

namespace engram {
namespace {

namespace fs = std::filesystem;

class SnapshotTest : public ::testing::Test {
 protected:
  std::unique_ptr<Engine> Open(size_t hnsw_threshold = 50) {
    EngineOptions options;
    options.hnsw_threshold = hnsw_threshold;
    return testing::OpenEngine(path_, nullptr, options);
  }

  void AddItems(Engine& engine, int from, int count) {
    std::vector<NewMemory> batch;
    for (int i = from; i < from + count; ++i) {
      batch.push_back(testing::Text("memory number " + std::to_string(i) + " about topic" +
                                    std::to_string(i % 7) + " and word" + std::to_string(i)));
    }
    ASSERT_TRUE(engine.AddBatch(scope_, batch).ok());
  }

  // True if searching for item i's unique word returns item i first.
  bool Finds(Engine& engine, int i) {
    SearchQuery q;
    q.text = "word" + std::to_string(i);
    auto hits = engine.Search(scope_, q);
    return hits.ok() && !hits->empty() &&
           hits->front().item.content.find("word" + std::to_string(i)) != std::string::npos;
  }

  // Loads the scope's index and waits for its graph (built in the background past the
  // threshold; an engine closed during the build saves no snapshot).
  Result<Engine::IndexInfo> Describe(Engine& engine) {
    ENGRAM_RETURN_IF_ERROR(engine.DescribeIndex(scope_).status());
    engine.WaitForIndexBuilds();
    return engine.DescribeIndex(scope_);
  }

  std::string SnapshotFile() const { return path_ + ".indexes/scope-1.hnsw"; }

  testing::TempDir dir_;
  std::string path_ = dir_.File("e.db");
  Scope scope_{"default", "alice", "", ""};
};

TEST_F(SnapshotTest, SavedOnCloseAndLoadedOnOpen) {
  {
    auto engine = Open();
    AddItems(*engine, 0, 120);
    auto info = Describe(*engine);
    ASSERT_TRUE(info.ok());
    EXPECT_TRUE(info->approximate);
    EXPECT_FALSE(info->from_snapshot);
  }
  ASSERT_TRUE(fs::exists(SnapshotFile()));
  auto engine = Open();
  auto info = Describe(*engine);
  ASSERT_TRUE(info.ok());
  EXPECT_TRUE(info->from_snapshot) << info->snapshot_status;
  EXPECT_EQ(info->snapshot_status, "loaded");
  EXPECT_EQ(info->vectors, 120);
  EXPECT_TRUE(Finds(*engine, 77));
}

// A scope below the threshold searches the scan index; the snapshot its graph left (written when
// the threshold was lower) is removed when the scope loads, and the scope still finds its items.
TEST_F(SnapshotTest, ASnapshotOfAScopeBelowTheThresholdIsRemoved) {
  {
    auto engine = Open();
    AddItems(*engine, 0, 120);
    ASSERT_TRUE(Describe(*engine).ok());
  }
  ASSERT_TRUE(fs::exists(SnapshotFile()));
  {
    auto engine = Open(/*hnsw_threshold=*/1000);
    auto info = Describe(*engine);
    ASSERT_TRUE(info.ok());
    EXPECT_FALSE(info->approximate);
    EXPECT_FALSE(fs::exists(SnapshotFile()));
    EXPECT_TRUE(Finds(*engine, 77));
  }
  EXPECT_FALSE(fs::exists(SnapshotFile()));  // nor written again on close
  auto engine = Open();                      // past the threshold again: rebuilt
  auto info = Describe(*engine);
  ASSERT_TRUE(info.ok());
  EXPECT_TRUE(info->approximate);
  EXPECT_FALSE(info->from_snapshot);
  EXPECT_TRUE(Finds(*engine, 77));
}

TEST_F(SnapshotTest, CorruptSnapshotIsDetectedAndRebuilt) {
  { AddItems(*Open(), 0, 120); }
  {
    auto engine = Open();
    ASSERT_TRUE(Describe(*engine).ok());  // loads, so close writes the snapshot
  }
  {
    std::fstream f(SnapshotFile(), std::ios::in | std::ios::out | std::ios::binary);
    // flipped, not overwritten: fixed bytes may be the ones already there
    const auto at = static_cast<std::streamoff>(fs::file_size(SnapshotFile()) / 2);
    char bytes[2] = {0, 0};
    f.seekg(at);
    f.read(bytes, 2);
    bytes[0] = static_cast<char>(bytes[0] ^ 0x5a);
    bytes[1] = static_cast<char>(bytes[1] ^ 0xa5);
    f.seekp(at);
    f.write(bytes, 2);
  }
  {
    auto engine = Open();
    auto info = Describe(*engine);
    ASSERT_TRUE(info.ok());
    EXPECT_FALSE(info->from_snapshot);
    EXPECT_NE(info->snapshot_status.find("corruption"), std::string::npos) << info->snapshot_status;
    EXPECT_TRUE(info->approximate);
    EXPECT_EQ(info->vectors, 120);
    EXPECT_TRUE(Finds(*engine, 33));
  }
  auto engine = Open();  // the rebuilt graph was saved on close
  EXPECT_TRUE(Describe(*engine)->from_snapshot);
}

// A snapshot of another format version (an older engram's, or a newer one's) is not read: the
// graph is rebuilt from the database and saved in the current format on close.
TEST_F(SnapshotTest, OtherFormatVersionIsRebuiltAndRewritten) {
  {
    auto engine = Open();
    AddItems(*engine, 0, 120);
    ASSERT_TRUE(Describe(*engine).ok());
  }
  for (char version : {'\x00', '\x02'}) {
    {
      std::fstream f(SnapshotFile(), std::ios::in | std::ios::out | std::ios::binary);
      f.seekp(8);  // format version, little-endian u32
      f.put(version);
    }
    {
      auto engine = Open();
      auto info = Describe(*engine);
      ASSERT_TRUE(info.ok());
      EXPECT_FALSE(info->from_snapshot);
      EXPECT_NE(info->snapshot_status.find("unsupported format version"), std::string::npos)
          << info->snapshot_status;
      EXPECT_TRUE(info->approximate);
      EXPECT_TRUE(Finds(*engine, 42));
    }
    auto engine = Open();  // rewritten on close in the current version
    auto info = Describe(*engine);
    ASSERT_TRUE(info.ok());
    EXPECT_TRUE(info->from_snapshot) << info->snapshot_status;
    EXPECT_TRUE(Finds(*engine, 42));
  }
}

TEST_F(SnapshotTest, StaleSnapshotIsNotTrusted) {
  {
    auto engine = Open();
    AddItems(*engine, 0, 120);
    ASSERT_TRUE(Describe(*engine).ok());
  }
  fs::copy_file(SnapshotFile(), dir_.File("old.hnsw"));
  {
    auto engine = Open();
    AddItems(*engine, 120, 5);  // the database moves on
  }
  fs::copy_file(dir_.File("old.hnsw"), SnapshotFile(), fs::copy_options::overwrite_existing);
  auto engine = Open();
  auto info = Describe(*engine);
  ASSERT_TRUE(info.ok());
  EXPECT_FALSE(info->from_snapshot);
  EXPECT_NE(info->snapshot_status.find("stale"), std::string::npos) << info->snapshot_status;
  EXPECT_EQ(info->vectors, 125);
  EXPECT_TRUE(Finds(*engine, 123));
}

TEST_F(SnapshotTest, PurgesRemoveTheSnapshot) {
  {
    auto engine = Open();
    AddItems(*engine, 0, 120);
    ASSERT_TRUE(Describe(*engine).ok());
  }
  ASSERT_TRUE(fs::exists(SnapshotFile()));
  auto engine = Open();
  ASSERT_TRUE(Describe(*engine)->from_snapshot);
  ListQuery q;
  q.limit = 1;
  auto page = engine->List(scope_, q);
  ASSERT_TRUE(engine->Purge(scope_, page->items[0].id).ok());
  EXPECT_FALSE(fs::exists(SnapshotFile()));
  // Close writes a fresh snapshot; the purged node is a tombstone whose vector HnswIndex
  // zeroed on removal, so its values are not in the file.
  engine.reset();
  ASSERT_TRUE(fs::exists(SnapshotFile()));
  engine = Open();
  auto info = Describe(*engine);
  EXPECT_TRUE(info->from_snapshot) << info->snapshot_status;
  EXPECT_EQ(info->vectors, 119);
  ASSERT_TRUE(engine->PurgeScope(scope_).ok());
  EXPECT_FALSE(fs::exists(SnapshotFile()));
}

}  // namespace
}  // namespace engram
