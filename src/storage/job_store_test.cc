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
        // Every tenth insert reuses a taken id: it must fail without failing its group.
        const bool duplicate = i % 10 == 0;
        const std::string id =
            duplicate ? "job_taken" : "job_" + std::to_string(t) + "_" + std::to_string(i);
        results[t].push_back((*store)->Insert(t % 2 ? alice : bob, id, "echo",
                                              "payload " + std::to_string(i), kNow + i));
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

}  // namespace
}  // namespace engram
