// JobQueue against a real database file: jobs run, retry with backoff on Unavailable, fail
// at once on other errors, stay in their scope, and survive a restart mid-job.
#include <gtest/gtest.h>

#include <atomic>

#include "engram/jobs.h"
#include "storage/sqlite.h"
#include "testing/test_support.h"

namespace engram {
namespace {

using testing::TempDir;

class JobQueueTest : public ::testing::Test {
 protected:
  void SetUp() override { engine_ = testing::OpenEngine(dir_.File("j.db")); }

  std::unique_ptr<JobQueue> Open(JobHandler handler, int max_attempts = 3) {
    JobQueueOptions o;
    o.max_attempts = max_attempts;
    o.initial_backoff_ms = 10;
    o.poll_interval_ms = 5;
    auto q = JobQueue::Open(engine_.get(), o);
    EXPECT_TRUE(q.ok()) << q.status().ToString();
    if (!q.ok()) return nullptr;
    (*q)->Handle("echo", std::move(handler));
    return std::move(q).value();
  }

  TempDir dir_;
  std::unique_ptr<Engine> engine_;
  Scope alice_{"default", "alice", "", ""};
  Scope bob_{"default", "bob", "", ""};
};

TEST_F(JobQueueTest, RunsAJobAndKeepsItsResult) {
  auto q = Open([](const Scope& s, const std::string& payload, bool) -> Result<std::string> {
    return s.user_id + ":" + payload;
  });
  q->Start();
  auto id = q->Submit(alice_, "echo", "hello");
  ASSERT_TRUE(id.ok());
  EXPECT_EQ(id->rfind("job_", 0), 0u);
  q->WaitIdle();
  auto info = q->Get(alice_, *id);
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  EXPECT_EQ(info->state, JobState::kDone);
  EXPECT_EQ(info->result, "alice:hello");
  EXPECT_EQ(info->attempts, 1);
  // Another user, or another tenant, cannot see it.
  EXPECT_EQ(q->Get(bob_, *id).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(q->Get(Scope{"t2", "alice", "", ""}, *id).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(q->Get(alice_, "job_missing").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(q->Get(alice_, "bad id!").status().code(), StatusCode::kInvalidArgument);
}

TEST_F(JobQueueTest, RetriesUnavailableThenSucceeds) {
  std::atomic<int> calls{0};
  auto q = Open([&](const Scope&, const std::string&, bool) -> Result<std::string> {
    if (++calls < 3) return Status::Unavailable("provider 503");
    return std::string("ok");
  });
  q->Start();
  auto id = q->Submit(alice_, "echo", "x");
  ASSERT_TRUE(id.ok());
  q->WaitIdle();
  auto info = q->Get(alice_, *id);
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->state, JobState::kDone);
  EXPECT_EQ(info->attempts, 3);
  EXPECT_EQ(calls.load(), 3);
}

TEST_F(JobQueueTest, GivesUpAfterMaxAttemptsAndFailsBadInputAtOnce) {
  auto q = Open(
      [](const Scope&, const std::string& payload, bool) -> Result<std::string> {
        if (payload == "down") return Status::Unavailable("provider 503");
        return Status::InvalidArgument("payload is not a request");
      },
      /*max_attempts=*/2);
  q->Start();
  auto down = q->Submit(alice_, "echo", "down");
  auto bad = q->Submit(alice_, "echo", "bad");
  ASSERT_TRUE(down.ok() && bad.ok());
  q->WaitIdle();
  auto d = q->Get(alice_, *down);
  EXPECT_EQ(d->state, JobState::kFailed);
  EXPECT_EQ(d->attempts, 2);
  EXPECT_NE(d->error.find("503"), std::string::npos);
  auto b = q->Get(alice_, *bad);
  EXPECT_EQ(b->state, JobState::kFailed);
  EXPECT_EQ(b->attempts, 1);
  EXPECT_EQ(q->Submit(alice_, "unknown-kind", "").status().code(), StatusCode::kInvalidArgument);
}

TEST_F(JobQueueTest, AJobLeftRunningByACrashRunsAfterRestart) {
  std::string id;
  {
    auto q = Open([](const Scope&, const std::string&, bool) -> Result<std::string> {
      return std::string("never");
    });
    auto submitted = q->Submit(alice_, "echo", "p");  // not started: stays queued
    ASSERT_TRUE(submitted.ok());
    id = *submitted;
  }
  {
    // Simulate a process that claimed the job and died mid-run.
    auto db = Database::Open(dir_.File("j.db"), DatabaseOptions{});
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE((*db)->BindAllTenants().ok());  // the jobs of every tenant, as a process's own
    ASSERT_TRUE((*db)->Exec("UPDATE jobs SET state = 'running', attempts = 1").ok());
  }
  auto q = Open(
      [](const Scope&, const std::string& p, bool) -> Result<std::string> { return "done " + p; });
  auto before = q->Get(alice_, id);
  ASSERT_TRUE(before.ok());
  EXPECT_EQ(before->state, JobState::kQueued);
  q->Start();
  q->WaitIdle();
  auto after = q->Get(alice_, id);
  EXPECT_EQ(after->state, JobState::kDone);
  EXPECT_EQ(after->result, "done p");
  EXPECT_EQ(after->attempts, 2);
}

TEST_F(JobQueueTest, FinishedJobsAreDeletedAfterTheirRetention) {
  ManualClock clock(1'796'000'000'000);  // 2026-11-30
  auto open = [&] {
    JobQueueOptions o;
    o.clock = &clock;
    o.poll_interval_ms = 5;
    o.finished_retention_ms = 7 * 86'400'000LL;
    auto q = JobQueue::Open(engine_.get(), o);
    EXPECT_TRUE(q.ok());
    (*q)->Handle("echo", [](const Scope&, const std::string& p, bool) -> Result<std::string> {
      return "done: " + p;
    });
    return std::move(q).value();
  };
  auto q = open();
  q->Start();
  auto id = q->Submit(alice_, "echo", "my passport number is in the drawer");
  ASSERT_TRUE(id.ok());
  q->WaitIdle();
  ASSERT_EQ(q->Get(alice_, *id)->state, JobState::kDone);
  q.reset();
  clock.Advance(6 * 86'400'000LL);
  q = open();
  q->Start();
  q->WaitIdle();
  EXPECT_TRUE(q->Get(alice_, *id).ok());  // six days on: still served
  q.reset();
  clock.Advance(2 * 86'400'000LL);
  q = open();
  q->Start();  // eight days on: gone, like one that never existed
  EXPECT_EQ(q->Get(alice_, *id).status().code(), StatusCode::kNotFound);
}

TEST_F(JobQueueTest, PurgingAScopeRemovesItsJobs) {
  auto q = Open([](const Scope&, const std::string&, bool) -> Result<std::string> {
    return std::string("r");
  });
  auto id = q->Submit(alice_, "echo", "secret content");
  ASSERT_TRUE(id.ok());
  ASSERT_TRUE(engine_->PurgeScope(alice_).ok());
  EXPECT_EQ(q->Get(alice_, *id).status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace engram
