// The audit trail: entries reach the table through the flusher and through Flush, in order;
// listing filters by tenant, user and time and pages newest first; rows older than the
// retention go; every route maps to the action an auditor looks for.
#include "server/audit_trail.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "testing/test_support.h"

namespace engram::server {
namespace {

constexpr TimestampMs kDay = 24LL * 60 * 60 * 1000;

class AuditTrailTest : public ::testing::Test {
 protected:
  std::unique_ptr<AuditStore> OpenStore() {
    auto store = AuditStore::Open(dir_.File("e.db"), clock_.NowMs());
    EXPECT_TRUE(store.ok()) << store.status().ToString();
    return store.ok() ? std::move(store).value() : nullptr;
  }
  AuditEntry Entry(const std::string& tenant, const std::string& user, int i) {
    AuditEntry e;
    e.at = clock_.NowMs();
    e.request_id = "req-" + std::to_string(i);
    e.tenant = tenant;
    e.key_id = "key_" + tenant;
    e.action = "read";
    e.method = "POST";
    e.route = "/v1/search";
    e.user_id = user;
    e.status = 200;
    e.remote = "127.0.0.1";
    return e;
  }
  testing::TempDir dir_;
  // 2026-12-03T10:00:00Z: a real date, so a stored 1970 would show.
  ManualClock clock_{1'796'292'000'000};
};

TEST_F(AuditTrailTest, EntriesAreStoredInOrderAndFilteredNewestFirst) {
  auto store = OpenStore();
  ASSERT_TRUE(store);
  std::vector<AuditEntry> batch;
  for (int i = 0; i < 6; ++i) {
    batch.push_back(Entry(i % 2 ? "beta" : "acme", i < 4 ? "alice" : "bob", i));
    clock_.Advance(1000);
  }
  ASSERT_TRUE(store->Append(batch).ok());

  auto all = store->List({});
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 6u);
  EXPECT_EQ((*all)[0].request_id, "req-5");
  EXPECT_EQ((*all)[5].request_id, "req-0");
  EXPECT_EQ(FormatTimestamp((*all)[5].at), "2026-12-03T10:00:00.000Z");
  EXPECT_EQ((*all)[5].key_id, "key_acme");
  EXPECT_EQ((*all)[5].status, 200);

  AuditQuery acme;
  acme.tenant = "acme";
  auto only = store->List(acme);
  ASSERT_TRUE(only.ok());
  ASSERT_EQ(only->size(), 3u);
  for (const AuditEntry& e : *only) EXPECT_EQ(e.tenant, "acme");

  AuditQuery bob;
  bob.user_id = "bob";
  auto bobs = store->List(bob);
  ASSERT_TRUE(bobs.ok());
  ASSERT_EQ(bobs->size(), 2u);

  AuditQuery recent;
  recent.since = clock_.NowMs() - 2500;  // the last two entries (at -2000 and -1000)
  auto last = store->List(recent);
  ASSERT_TRUE(last.ok());
  ASSERT_EQ(last->size(), 2u);
  EXPECT_EQ((*last)[1].request_id, "req-4");

  // Pages of two, newest first, with the cursor of the last row.
  AuditQuery page;
  page.limit = 2;
  std::vector<std::string> seen;
  for (int n = 0; n < 4; ++n) {
    auto rows = store->List(page);
    ASSERT_TRUE(rows.ok());
    if (rows->empty()) break;
    for (const AuditEntry& e : *rows) seen.push_back(e.request_id);
    page.before_seq = rows->back().seq;
  }
  EXPECT_EQ(seen, (std::vector<std::string>{"req-5", "req-4", "req-3", "req-2", "req-1", "req-0"}));
  page.limit = 0;
  EXPECT_FALSE(store->List(page).ok());
}

TEST_F(AuditTrailTest, TheTrailWritesWhatIsRecordedAndDropsWhatOutlivesItsRetention) {
  {
    // An entry from 400 days ago, written directly (as a server a year older would have).
    auto store = OpenStore();
    ASSERT_TRUE(store);
    AuditEntry old = Entry("acme", "alice", 0);
    old.at = clock_.NowMs() - 400 * kDay;
    ASSERT_TRUE(store->Append({old}).ok());
  }
  auto store = OpenStore();
  ASSERT_TRUE(store);
  AuditStore* raw = store.get();
  {
    AuditTrail trail(std::move(store), 365 * kDay, &clock_);
    for (int i = 1; i <= 3; ++i) trail.Record(Entry("acme", "alice", i));
    // The flusher writes on its own within a few periods.
    std::vector<AuditEntry> rows;
    for (int tries = 0; tries < 100; ++tries) {
      auto listed = raw->List({});
      ASSERT_TRUE(listed.ok());
      rows = *listed;
      if (rows.size() == 3) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(AuditTrail::kFlushMs / 2));
    }
    ASSERT_EQ(rows.size(), 3u) << "the 400-day-old row outlived a 365-day retention";
    EXPECT_EQ(rows[0].request_id, "req-3");
    EXPECT_EQ(rows[2].request_id, "req-1");
    trail.Record(Entry("beta", "bob", 4));
  }
  // The destructor wrote the last entry.
  auto reopened = OpenStore();
  ASSERT_TRUE(reopened);
  auto rows = reopened->List({});
  ASSERT_TRUE(rows.ok());
  ASSERT_EQ(rows->size(), 4u);
  EXPECT_EQ((*rows)[0].request_id, "req-4");
}

TEST(AuditActionTest, RoutesMapToWhatTheyDo) {
  EXPECT_EQ(AuditAction("GET", "/v1/memories/{id}", false), "read");
  EXPECT_EQ(AuditAction("GET", "/v1/memories", false), "read");
  EXPECT_EQ(AuditAction("POST", "/v1/search", false), "read");
  EXPECT_EQ(AuditAction("POST", "/v1/context", false), "read");
  EXPECT_EQ(AuditAction("POST", "/v1/recall", false), "read");
  EXPECT_EQ(AuditAction("POST", "/v1/memories", false), "write");
  EXPECT_EQ(AuditAction("PATCH", "/v1/memories/{id}", false), "write");
  EXPECT_EQ(AuditAction("DELETE", "/v1/memories/{id}", false), "delete");
  EXPECT_EQ(AuditAction("DELETE", "/v1/memories/{id}", true), "purge");
  EXPECT_EQ(AuditAction("DELETE", "/v1/memories", false), "purge");
  EXPECT_EQ(AuditAction("GET", "/v1/export", false), "export");
  EXPECT_EQ(AuditAction("POST", "/v1/maintenance", false), "maintain");
  EXPECT_EQ(AuditAction("GET", "/v1/admin/audit", false), "admin");
  EXPECT_EQ(AuditAction("DELETE", "/v1/admin/keys/{id}", false), "admin");
  EXPECT_EQ(AuditAction("DELETE", "/v1/admin/tenants/{id}", false), "purge");
}

}  // namespace
}  // namespace engram::server
