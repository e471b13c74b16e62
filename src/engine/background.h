// Background: the engine's work that no caller waits for, on threads of its own.
//
// - Periodic tasks, run one after another on one thread: each is registered with a name and an
//   interval, runs when the interval has passed since its last run ended, and runs at once when
//   woken by name. The engine registers the WAL checkpoint and the access-count flush here;
//   more (a maintenance schedule) register the same way. An interval of 0 turns a task off: it
//   never runs, and waking it does nothing, so a configured "0 = off" needs no special case.
// - Graph work for the scope indexes (HNSW builds and tail merges), queued to a GraphBuilder
//   (retrieval/graph_builder.h), which runs it on its own thread.
//
// Time: a task is due by `clock` (default: a monotonic clock, so a wall-clock step neither
// skips nor repeats checkpoints); the thread looks for due tasks every `poll` of real time and
// whenever a task is woken. Tests inject a ManualClock and call RunDue() or wake the thread.
//
// Threads: every method is thread-safe. Tasks run on the background thread only (and their
// at_stop parts on the thread calling Stop). Stop() is the orderly shutdown: the running task
// finishes (Sleep returns at once from then on, so a paced task hurries), the thread is
// joined, a running graph build is cancelled, then each task's at_stop runs once, in
// registration order. Destruction stops.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "engram/clock.h"

namespace engram {

class GraphBuilder;
class ScopeIndex;

struct PeriodicTask {
  std::string name;                       // for Wake; unique among the registered tasks
  std::chrono::milliseconds interval{0};  // between the end of one run and the next; 0: off
  std::function<void()> run;
  // Runs once at Stop, after the thread has ended (a last flush); may be empty. Not for a
  // task that is off.
  std::function<void()> at_stop;
};

struct BackgroundOptions {
  const Clock* clock = nullptr;               // when tasks are due; default: monotonic
  std::chrono::milliseconds poll{100};        // real time between looks for due tasks
  std::string thread_name = "engram-access";  // as shown by top -H (at most 15 bytes)
  bool graph_builder = true;                  // false: no graph work (RequestGraphWork ignored)
};

class Background {
 public:
  explicit Background(BackgroundOptions options = {});
  ~Background();
  Background(const Background&) = delete;
  Background& operator=(const Background&) = delete;

  // Adds a task; its first run is due one interval after registration. Before or after Start.
  void Register(PeriodicTask task);
  // Starts the periodic thread (idempotent). Without it, tasks run only through RunDue().
  void Start();
  // Runs the task `name` at the next look, due or not. Ignored for unknown or off tasks.
  void Wake(std::string_view name);
  // Runs, on the calling thread, every task that is due or woken (what the thread does at each
  // look); returns how many ran. Skipped while paused or stopped (returns 0).
  int RunDue();
  // Returns once no task is running; none starts until Resume(). Wakes are kept meanwhile.
  // Not from a task (it would wait for itself).
  void Pause();
  void Resume();
  // The orderly shutdown described above; idempotent.
  void Stop();
  // For tasks that pace themselves: waits `duration` of real time, or until Stop() is called;
  // false when stopping.
  bool Sleep(std::chrono::nanoseconds duration);

  // Graph work: queues a build or a tail merge when the index has become due for one (its
  // RequestGraph / RequestMerge). The caller holds index->mu exclusive. Ignored after Stop.
  void RequestGraphWork(const std::shared_ptr<ScopeIndex>& index);
  // Blocks until no graph build or merge is queued or running.
  void WaitForGraphs();

 private:
  struct Entry {
    PeriodicTask task;
    TimestampMs last_run = 0;  // by clock_: registration or the end of the last run
    bool woken = false;
  };
  void Loop();
  // Under mu_: runs the due tasks with mu_ released during each run.
  int RunDueLocked(std::unique_lock<std::mutex>& lock);

  BackgroundOptions options_;
  const Clock* clock_;
  std::unique_ptr<Clock> own_clock_;      // the default monotonic clock
  std::unique_ptr<GraphBuilder> graphs_;  // reset by Stop: a running build is cancelled

  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Entry> tasks_;  // guarded by mu_; registration order
  bool woken_ = false;        // guarded by mu_: a task was woken since the last look
  bool running_ = false;      // guarded by mu_: a task is running (RunDue or the thread)
  bool paused_ = false;       // guarded by mu_
  bool stopping_ = false;     // guarded by mu_
  bool stopped_ = false;      // guarded by mu_: Stop has finished or is finishing
  std::thread thread_;
};

}  // namespace engram
