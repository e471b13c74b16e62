#include "server/worker_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <set>

namespace engram::server {
namespace {

TEST(WorkerPoolTest, RunsEveryTaskSubmittedBeforeShutdown) {
  std::atomic<int> ran{0};
  WorkerPool pool(4);
  for (int i = 0; i < 1000; ++i) {
    ASSERT_TRUE(pool.Submit([&ran] { ran.fetch_add(1); }));
  }
  pool.Shutdown();
  EXPECT_EQ(ran.load(), 1000);
  EXPECT_FALSE(pool.Submit([&ran] { ran.fetch_add(1); }));
  EXPECT_EQ(ran.load(), 1000);
}

TEST(WorkerPoolTest, TasksRunOnThePoolsThreadsAtOnce) {
  // Two tasks that each wait for the other can only finish if two threads run them together.
  WorkerPool pool(2);
  std::mutex mu;
  std::condition_variable cv;
  int arrived = 0;
  std::set<std::thread::id> ids;
  auto task = [&] {
    std::unique_lock<std::mutex> lock(mu);
    ids.insert(std::this_thread::get_id());
    ++arrived;
    cv.notify_all();
    cv.wait(lock, [&] { return arrived == 2; });
  };
  pool.Submit(task);
  pool.Submit(task);
  pool.Shutdown();
  EXPECT_EQ(arrived, 2);
  EXPECT_EQ(ids.size(), 2u);
  EXPECT_EQ(ids.count(std::this_thread::get_id()), 0u);
}

}  // namespace
}  // namespace engram::server
