#include "engine/background.h"

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <future>
#include <mutex>

namespace engram {
namespace {

constexpr TimestampMs kMarch2026 = 1'772'323'200'000;  // 2026-03-01T00:00:00Z
constexpr auto kDeadline = std::chrono::seconds(30);   // only ever reached when a test fails

// Counts a task's runs; lets a test wait for the n-th.
struct RunCounter {
  std::mutex mu;
  std::condition_variable cv;
  int runs = 0;

  std::function<void()> Fn() {
    return [this] {
      std::lock_guard<std::mutex> lock(mu);
      ++runs;
      cv.notify_all();
    };
  }
  int Runs() {
    std::lock_guard<std::mutex> lock(mu);
    return runs;
  }
  bool WaitFor(int n) {
    std::unique_lock<std::mutex> lock(mu);
    return cv.wait_for(lock, kDeadline, [&] { return runs >= n; });
  }
};

TEST(BackgroundTest, ARegisteredTaskRunsEachTimeItsIntervalHasPassedOnTheClock) {
  ManualClock clock(kMarch2026);
  Background bg(BackgroundOptions{.clock = &clock});
  RunCounter counter;
  bg.Register({.name = "maintenance", .interval = std::chrono::minutes(10), .run = counter.Fn()});
  EXPECT_EQ(bg.RunDue(), 0);
  clock.Advance(10 * 60'000 - 1);
  EXPECT_EQ(bg.RunDue(), 0);
  clock.Advance(1);
  EXPECT_EQ(bg.RunDue(), 1);
  EXPECT_EQ(counter.Runs(), 1);
  EXPECT_EQ(bg.RunDue(), 0);  // the next interval starts when the run ends
  clock.Advance(10 * 60'000);
  EXPECT_EQ(bg.RunDue(), 1);
  EXPECT_EQ(counter.Runs(), 2);
}

TEST(BackgroundTest, TasksRunInRegistrationOrderEachOnItsOwnInterval) {
  ManualClock clock(kMarch2026);
  Background bg(BackgroundOptions{.clock = &clock});
  std::vector<std::string> ran;
  bg.Register({.name = "often", .interval = std::chrono::seconds(1), .run = [&] {
                 ran.push_back("often");
               }});
  bg.Register({.name = "rarely", .interval = std::chrono::seconds(3), .run = [&] {
                 ran.push_back("rarely");
               }});
  for (int i = 0; i < 3; ++i) {
    clock.Advance(1000);
    bg.RunDue();
  }
  EXPECT_EQ(ran, (std::vector<std::string>{"often", "often", "often", "rarely"}));
}

TEST(BackgroundTest, ATaskAtIntervalZeroIsOffAndNeverRuns) {
  ManualClock clock(kMarch2026);
  Background bg(BackgroundOptions{.clock = &clock});
  RunCounter counter;
  int stops = 0;
  bg.Register({.name = "off",
               .interval = std::chrono::milliseconds(0),
               .run = counter.Fn(),
               .at_stop = [&] { ++stops; }});
  clock.Advance(365LL * 24 * 3600 * 1000);
  EXPECT_EQ(bg.RunDue(), 0);
  bg.Wake("off");
  EXPECT_EQ(bg.RunDue(), 0);
  bg.Stop();
  EXPECT_EQ(counter.Runs(), 0);
  EXPECT_EQ(stops, 0);
}

TEST(BackgroundTest, WakeRunsATaskBeforeItsIntervalOnce) {
  ManualClock clock(kMarch2026);
  Background bg(BackgroundOptions{.clock = &clock});
  RunCounter counter, other;
  bg.Register({.name = "flush", .interval = std::chrono::hours(1), .run = counter.Fn()});
  bg.Register({.name = "checkpoint", .interval = std::chrono::hours(1), .run = other.Fn()});
  bg.Wake("flush");
  bg.Wake("no such task");
  EXPECT_EQ(bg.RunDue(), 1);
  EXPECT_EQ(counter.Runs(), 1);
  EXPECT_EQ(other.Runs(), 0);
  EXPECT_EQ(bg.RunDue(), 0);  // the wake was used
}

// The thread sleeps a whole poll (an hour here) unless woken, and the clock never moves: only
// the wake can make the task run.
TEST(BackgroundTest, WakeMakesTheThreadRunTheTaskWithoutWaitingForThePoll) {
  ManualClock clock(kMarch2026);
  Background bg(BackgroundOptions{.clock = &clock, .poll = std::chrono::hours(1)});
  RunCounter counter;
  bg.Register({.name = "flush", .interval = std::chrono::hours(1), .run = counter.Fn()});
  bg.Start();
  bg.Wake("flush");
  EXPECT_TRUE(counter.WaitFor(1));
  bg.Wake("flush");
  EXPECT_TRUE(counter.WaitFor(2));
}

TEST(BackgroundTest, TheThreadRunsATaskOnceTheClockPassesItsInterval) {
  ManualClock clock(kMarch2026);
  Background bg(BackgroundOptions{.clock = &clock, .poll = std::chrono::milliseconds(1)});
  RunCounter counter;
  bg.Register({.name = "checkpoint", .interval = std::chrono::seconds(5), .run = counter.Fn()});
  bg.Start();
  EXPECT_EQ(counter.Runs(), 0);  // the clock stands still: never due
  clock.Advance(5000);
  EXPECT_TRUE(counter.WaitFor(1));
}

TEST(BackgroundTest, PausedTasksWaitForResume) {
  ManualClock clock(kMarch2026);
  Background bg(BackgroundOptions{.clock = &clock});
  RunCounter counter;
  bg.Register({.name = "checkpoint", .interval = std::chrono::seconds(1), .run = counter.Fn()});
  bg.Pause();
  clock.Advance(1000);
  bg.Wake("checkpoint");
  EXPECT_EQ(bg.RunDue(), 0);
  bg.Resume();
  EXPECT_EQ(bg.RunDue(), 1);
  EXPECT_EQ(counter.Runs(), 1);
}

// Stop cuts a paced task's pause short, joins the thread and then runs the last flush.
TEST(BackgroundTest, StopEndsSleepsJoinsTheThreadThenRunsEachAtStopOnce) {
  ManualClock clock(kMarch2026);
  Background bg(BackgroundOptions{.clock = &clock, .poll = std::chrono::hours(1)});
  std::promise<void> sleeping;
  std::atomic<bool> slept_fully{true}, run_ended{false};
  std::vector<std::string> events;  // written by the task, then (after the join) by at_stop
  bg.Register({.name = "flush",
               .interval = std::chrono::hours(1),
               .run =
                   [&] {
                     sleeping.set_value();
                     slept_fully = bg.Sleep(std::chrono::hours(1));
                     events.push_back("run ended");
                     run_ended = true;
                   },
               .at_stop = [&] { events.push_back("last flush"); }});
  bg.Start();
  bg.Wake("flush");
  sleeping.get_future().wait();
  auto stop = std::async(std::launch::async, [&] { bg.Stop(); });
  ASSERT_EQ(stop.wait_for(kDeadline), std::future_status::ready);
  EXPECT_TRUE(run_ended);
  EXPECT_FALSE(slept_fully);
  EXPECT_EQ(events, (std::vector<std::string>{"run ended", "last flush"}));
  bg.Stop();  // idempotent: no second last flush
  EXPECT_EQ(events.size(), 2u);
  EXPECT_FALSE(bg.Sleep(std::chrono::hours(1)));
  clock.Advance(3'600'000);
  EXPECT_EQ(bg.RunDue(), 0);
}

TEST(BackgroundTest, DestructionStopsAndRunsTheLastFlush) {
  ManualClock clock(kMarch2026);
  int last_flushes = 0;
  {
    Background bg(BackgroundOptions{.clock = &clock});
    bg.Register({.name = "flush",
                 .interval = std::chrono::seconds(5),
                 .run = [] {},
                 .at_stop = [&] { ++last_flushes; }});
    bg.Start();
  }
  EXPECT_EQ(last_flushes, 1);
}

}  // namespace
}  // namespace engram
