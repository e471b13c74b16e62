#include "storage/memory_store.h"

#include <gtest/gtest.h>

#include "testing/test_support.h"

namespace engram {
namespace {

using testing::TempDir;

MemoryItem Item(const std::string& id, const Scope& scope, const std::string& content) {
  MemoryItem m;
  m.id = id;
  m.scope = scope;
  m.content = content;
  m.created_at = m.updated_at = m.valid_from = 1000;
  return m;
}

class MemoryStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = MemoryStore::Open(StoreOptions{.path = dir_.File("s.db"),
                                                .reader_connections = 1,
                                                .synchronous = "NORMAL"},
                                   1000);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(store).value();
  }

  Status InsertAll(std::vector<PendingItem> items) { return store_->Insert(alice_, items, 1000); }

  TempDir dir_;
  std::unique_ptr<MemoryStore> store_;
  Scope alice_{"default", "alice", "", ""};
};

TEST_F(MemoryStoreTest, InsertRefusesItemsOfAnotherScope) {
  Scope bob{"default", "bob", "", ""};
  Status st = InsertAll({{Item("a1", alice_, "mine"), ""},
                                      {Item("b1", bob, "smuggled"), ""}});
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(store_->Get(alice_, "a1").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(store_->Get(bob, "b1").status().code(), StatusCode::kNotFound);
}

TEST_F(MemoryStoreTest, DuplicateIdIsAConflictAndRollsBackTheBatch) {
  ASSERT_TRUE(InsertAll({{Item("a1", alice_, "first"), ""}}).ok());
  Status st = InsertAll({{Item("a2", alice_, "second"), ""},
                                      {Item("a1", alice_, "dup"), ""}});
  EXPECT_EQ(st.code(), StatusCode::kConflict);
  EXPECT_EQ(store_->Get(alice_, "a2").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(store_->Get(alice_, "a1")->content, "first");
}

// With a single pooled reader, every read reuses one connection: a read must not pin a stale
// snapshot that hides later commits.
TEST_F(MemoryStoreTest, ReaderConnectionSeesEveryCommittedWrite) {
  ASSERT_TRUE(InsertAll({{Item("a1", alice_, "v1"), ""}}).ok());
  for (int i = 2; i <= 5; ++i) {
    ASSERT_EQ(store_->Get(alice_, "a1")->content, "v" + std::to_string(i - 1));
    auto changed = store_->Mutate(alice_, "a1", HistoryEvent::kUpdate, "", 1000 + i,
                                  [&](MemoryItem& m) -> Result<bool> {
                                    m.content = "v" + std::to_string(i);
                                    return true;
                                  });
    ASSERT_TRUE(changed.ok());
  }
  EXPECT_EQ(store_->Get(alice_, "a1")->content, "v5");
  EXPECT_EQ(store_->History(alice_, "a1")->size(), 5u);
}

TEST_F(MemoryStoreTest, MutationErrorWritesNothing) {
  ASSERT_TRUE(InsertAll({{Item("a1", alice_, "v1"), ""}}).ok());
  auto r = store_->Mutate(alice_, "a1", HistoryEvent::kUpdate, "", 2000,
                          [](MemoryItem& m) -> Result<bool> {
                            m.content = "half-done";
                            return Status::Conflict("refused");
                          });
  EXPECT_EQ(r.status().code(), StatusCode::kConflict);
  EXPECT_EQ(store_->Get(alice_, "a1")->content, "v1");
  EXPECT_EQ(store_->History(alice_, "a1")->size(), 1u);
}

}  // namespace
}  // namespace engram
