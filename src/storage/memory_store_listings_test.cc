// The listings of users and sessions, and that neither ever shows another tenant's rows.
#include <gtest/gtest.h>

#include "storage/memory_store.h"
#include "testing/test_support.h"

namespace engram {
namespace {

using testing::TempDir;

constexpr TimestampMs kNow = 1764547200000;  // 2025-12-01T00:00:00Z

class MemoryStoreListingsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = MemoryStore::Open(
        StoreOptions{.path = dir_.File("s.db"), .reader_connections = 1, .synchronous = "NORMAL"},
        kNow);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(store).value();
  }

  void AddItems(const Scope& scope, int n) {
    std::vector<PendingItem> items;
    for (int i = 0; i < n; ++i) {
      MemoryItem m;
      m.id = scope.tenant + "-" + scope.user_id + "-" + std::to_string(i);
      m.scope = scope;
      m.content = "memory " + std::to_string(i);
      m.created_at = m.updated_at = m.valid_from = kNow;
      items.push_back({m, ""});
    }
    ASSERT_TRUE(store_->Insert(scope, items, kNow).ok());
  }

  void AddTurns(Scope scope, const std::string& session, int n, TimestampMs at) {
    scope.session_id = session;
    std::vector<StoredTurn> turns;
    for (int i = 0; i < n; ++i) {
      turns.push_back({session + "-m" + std::to_string(i), "user", "hi", at + i});
    }
    ASSERT_TRUE(store_->AppendTurns(scope, turns, at).ok());
  }

  TempDir dir_;
  std::unique_ptr<MemoryStore> store_;
};

TEST_F(MemoryStoreListingsTest, UsersOfOneTenantWithTheirCountsInPages) {
  AddItems({"acme", "carol", "", ""}, 3);
  AddItems({"acme", "alice", "", ""}, 2);
  AddTurns({"acme", "alice", "", ""}, "s1", 2, kNow);
  AddTurns({"acme", "bob", "", ""}, "s1", 1, kNow);  // sessions only
  AddItems({"other", "alice", "", ""}, 5);           // same user id, another tenant
  AddItems({"other", "mallory", "", ""}, 1);

  auto first = store_->ListUsers("acme", {.limit = 2});
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(first->users, (std::vector<UserSummary>{{"alice", 2, 1}, {"bob", 0, 1}}));
  ASSERT_FALSE(first->next_cursor.empty());
  auto second = store_->ListUsers("acme", {.limit = 2, .cursor = first->next_cursor});
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second->users, (std::vector<UserSummary>{{"carol", 3, 0}}));
  EXPECT_TRUE(second->next_cursor.empty());

  auto other = store_->ListUsers("other", {.limit = 50});
  ASSERT_TRUE(other.ok());
  EXPECT_EQ(other->users, (std::vector<UserSummary>{{"alice", 5, 0}, {"mallory", 1, 0}}));
  EXPECT_EQ(store_->ListUsers("", {.limit = 50}).status().code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(store_->ListUsers("nobody", {.limit = 50})->users.empty());
}

TEST_F(MemoryStoreListingsTest, SessionsOfOneUserNewestFirstInPages) {
  const Scope alice{"acme", "alice", "", ""};
  AddTurns(alice, "monday", 2, kNow);
  AddTurns({"acme", "alice", "helper", ""}, "tuesday", 1, kNow + 86400000);
  AddTurns(alice, "wednesday", 3, kNow + 2 * 86400000);
  AddTurns({"other", "alice", "", ""}, "secret", 1, kNow);  // another tenant's alice
  AddTurns({"acme", "bob", "", ""}, "bobs", 1, kNow);
  ASSERT_TRUE(store_->SetSessionSummary({"acme", "alice", "", "monday"}, "sum1", kNow + 5).ok());

  auto first = store_->ListSessions(alice, {.limit = 2});
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  ASSERT_EQ(first->sessions.size(), 2u);
  EXPECT_EQ(first->sessions[0].session_id, "wednesday");
  EXPECT_EQ(first->sessions[0].turn_count, 3);
  EXPECT_EQ(first->sessions[0].last_turn_at, kNow + 2 * 86400000 + 2);
  EXPECT_EQ(first->sessions[1].session_id, "tuesday");
  EXPECT_EQ(first->sessions[1].agent_id, "helper");
  auto second = store_->ListSessions(alice, {.limit = 2, .cursor = first->next_cursor});
  ASSERT_TRUE(second.ok());
  ASSERT_EQ(second->sessions.size(), 1u);
  EXPECT_EQ(second->sessions[0],
            (SessionSummary{"monday", "", kNow, kNow + 1, kNow + 5, "sum1", 2}));
  EXPECT_TRUE(second->next_cursor.empty());

  // The agent narrows; other tenants' and users' sessions never show.
  auto helper = store_->ListSessions({"acme", "alice", "helper", ""}, {.limit = 50});
  ASSERT_EQ(helper->sessions.size(), 1u);
  EXPECT_EQ(helper->sessions[0].session_id, "tuesday");
  auto theirs = store_->ListSessions({"other", "alice", "", ""}, {.limit = 50});
  ASSERT_EQ(theirs->sessions.size(), 1u);
  EXPECT_EQ(theirs->sessions[0].session_id, "secret");
  EXPECT_TRUE(store_->ListSessions({"acme", "nobody", "", ""}, {.limit = 50})->sessions.empty());
  // A cursor read from another tenant's listing still reads only this scope's rows.
  auto crossed =
      store_->ListSessions({"other", "alice", "", ""}, {.limit = 50, .cursor = first->next_cursor});
  ASSERT_TRUE(crossed.ok());
  for (const SessionSummary& s : crossed->sessions) EXPECT_EQ(s.session_id, "secret");
  EXPECT_EQ(store_->ListSessions(alice, {.limit = 5, .cursor = "x1"}).status().code(),
            StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace engram
