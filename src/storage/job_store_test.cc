// JobStore's group commit: concurrent inserts each return once their own job is committed,
// and a failing job in a group fails alone.
#include "storage/job_store.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "testing/record_support.h"

namespace engram {
namespace {

constexpr TimestampMs kNow = 1'700'000'000'000;

TEST(JobStoreTest, ConcurrentInsertsAreAllCommittedAndADuplicateFailsAlone) {
  testing::TempDir dir;
  auto store = JobStore::Open(dir.File("jobs.db"), kNow);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  const Scope alice{"default", "alice", "", ""};
  const Scope bob{"t2", "bob", "", ""};
  ASSERT_TRUE((*store)->Insert(alice, "job_taken", "echo", "first", kNow).ok());

  constexpr int kThreads = 8, kPerThread = 100;
  std::vector<std::vector<Status>> results(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        // Every tenth insert reuses a taken id in its tenant: it must fail without failing its
        // group. (In alice's tenant: on PostgreSQL an id is unique within its tenant, the keys
        // leading with it, storage/pg_migrations.cc; on SQLite overall.)
        const bool duplicate = i % 10 == 0;
        const std::string id =
            duplicate ? "job_taken" : "job_" + std::to_string(t) + "_" + std::to_string(i);
        const Scope& scope = duplicate || t % 2 ? alice : bob;
        results[t].push_back(
            (*store)->Insert(scope, id, "echo", "payload " + std::to_string(i), kNow + i));
      }
    });
  }
  for (std::thread& th : threads) th.join();

  for (int t = 0; t < kThreads; ++t) {
    const Scope& scope = t % 2 ? alice : bob;
    for (int i = 0; i < kPerThread; ++i) {
      if (i % 10 == 0) {
        EXPECT_FALSE(results[t][i].ok()) << "duplicate id accepted, thread " << t;
        continue;
      }
      ASSERT_TRUE(results[t][i].ok()) << results[t][i].ToString();
      const std::string id = "job_" + std::to_string(t) + "_" + std::to_string(i);
      auto info = (*store)->Get(scope, id);
      ASSERT_TRUE(info.ok()) << id << ": " << info.status().ToString();
      EXPECT_EQ(info->state, JobState::kQueued);
      EXPECT_EQ(info->created_at, kNow + i);
      // Stored under its own scope only.
      EXPECT_EQ((*store)->Get(t % 2 ? bob : alice, id).status().code(), StatusCode::kNotFound);
    }
  }
  // The first job is untouched by the duplicates.
  auto first = (*store)->Get(alice, "job_taken");
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first->created_at, kNow);

  // Everything survives reopening the database.
  store->reset();
  auto reopened = JobStore::Open(dir.File("jobs.db"), kNow);
  ASSERT_TRUE(reopened.ok());
  EXPECT_TRUE((*reopened)->Get(bob, "job_6_99").ok());
  EXPECT_TRUE((*reopened)->Get(alice, "job_7_1").ok());
}

// A job whose user is erased while it runs (its row deleted) may see its seq reused by the
// next job, another user's: the end of the first must not land on the second.
TEST(JobStoreTest, TheEndOfAnErasedJobNeverLandsOnTheJobThatReusedItsSeq) {
  testing::TempDir dir;
  auto store = JobStore::Open(dir.File("jobs.db"), kNow);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  const Scope alice{"default", "alice", "", ""};
  const Scope bob{"default", "bob", "", ""};
  ASSERT_TRUE((*store)->Insert(alice, "job_alice", "echo", "alice said", kNow).ok());
  auto claimed = (*store)->ClaimDue(kNow);
  ASSERT_TRUE(claimed.ok() && claimed->has_value());
  auto other = Database::Open(dir.File("jobs.db"), DatabaseOptions{});
  ASSERT_TRUE(other.ok());
  ASSERT_TRUE((*other)->Exec("DELETE FROM jobs WHERE id = 'job_alice'").ok());  // as a purge
  ASSERT_TRUE((*store)->Insert(bob, "job_bob", "echo", "bob said", kNow + 1).ok());
  auto bob_seq = (*other)->PrepareUncached("SELECT seq FROM jobs WHERE id = 'job_bob'");
  ASSERT_TRUE(bob_seq.ok() && *(*bob_seq)->Step());
  ASSERT_EQ((*bob_seq)->Int(0), (*claimed)->seq);  // the seq was reused
  bob_seq->reset();
  ASSERT_TRUE((*store)
                  ->Finish(**claimed, JobState::kDone, "{\"alice\": true}", "", kNow + 2, kNow + 2)
                  .ok());
  auto bob_job = (*store)->Get(bob, "job_bob");
  ASSERT_TRUE(bob_job.ok()) << bob_job.status().ToString();
  EXPECT_EQ(bob_job->state, JobState::kQueued);
  EXPECT_EQ(bob_job->attempts, 0);
  EXPECT_EQ(bob_job->result, "");
  EXPECT_EQ((*store)->Get(alice, "job_alice").status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace engram
