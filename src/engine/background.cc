#include "engine/background.h"

#include <pthread.h>
#include <signal.h>

#include "retrieval/graph_builder.h"
#include "retrieval/scope_index.h"

namespace engram {
namespace {

// Milliseconds of steady time: intervals only compare two readings, so the epoch is irrelevant.
class MonotonicClock final : public Clock {
 public:
  TimestampMs NowMs() const override {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
};

}  // namespace

Background::Background(BackgroundOptions options)
    : options_(std::move(options)),
      clock_(options_.clock),
      graphs_(options_.graph_builder ? std::make_unique<GraphBuilder>(GraphBuilderOptions{})
                                     : nullptr) {
  if (!clock_) {
    own_clock_ = std::make_unique<MonotonicClock>();
    clock_ = own_clock_.get();
  }
}

Background::~Background() { Stop(); }

void Background::Register(PeriodicTask task) {
  std::lock_guard<std::mutex> lock(mu_);
  tasks_.push_back(Entry{std::move(task), clock_->NowMs(), false});
}

void Background::Start() {
  std::lock_guard<std::mutex> lock(mu_);
  if (thread_.joinable() || stopping_) return;
  thread_ = std::thread([this] {
    // A library thread never takes a process signal: SIGTERM and SIGINT stay with the
    // threads the application chose (engram serve waits for them with sigwait).
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, nullptr);
    pthread_setname_np(pthread_self(), options_.thread_name.substr(0, 15).c_str());
    // At the default priority: tasks pace themselves (Sleep) instead. At a lower one the
    // thread was preempted while holding locks that searches wait for, and whole event loops
    // stalled behind it.
    Loop();
  });
}

void Background::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    cv_.wait_for(lock, options_.poll, [this] { return stopping_ || woken_; });
    if (stopping_) break;
    RunDueLocked(lock);
  }
}

void Background::Wake(std::string_view name) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    bool found = false;
    for (Entry& e : tasks_) {
      if (e.task.name != name || e.task.interval.count() <= 0) continue;
      e.woken = found = true;
    }
    if (!found) return;
    woken_ = true;
  }
  cv_.notify_all();
}

int Background::RunDue() {
  std::unique_lock<std::mutex> lock(mu_);
  return RunDueLocked(lock);
}

int Background::RunDueLocked(std::unique_lock<std::mutex>& lock) {
  cv_.wait(lock, [this] { return !running_; });  // RunDue and the thread take turns
  woken_ = false;
  int ran = 0;
  // By index: a task registered during a run is appended, which may move the entries.
  for (size_t i = 0; i < tasks_.size(); ++i) {
    if (paused_ || stopping_) break;
    Entry& e = tasks_[i];
    if (e.task.interval.count() <= 0) continue;
    const bool due = e.woken || clock_->NowMs() - e.last_run >= e.task.interval.count();
    if (!due) continue;
    e.woken = false;
    std::function<void()> run = e.task.run;
    running_ = true;
    lock.unlock();
    if (run) run();
    lock.lock();
    running_ = false;
    tasks_[i].last_run = clock_->NowMs();
    ++ran;
    cv_.notify_all();  // Pause and a waiting RunDue look at running_
  }
  return ran;
}

void Background::Pause() {
  std::unique_lock<std::mutex> lock(mu_);
  paused_ = true;
  cv_.wait(lock, [this] { return !running_; });
}

void Background::Resume() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    paused_ = false;
  }
  cv_.notify_all();
}

void Background::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopped_) return;
    stopped_ = stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  graphs_.reset();  // no graph may replace an index while the last tasks run
  std::vector<std::function<void()>> at_stop;
  {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return !running_; });  // a RunDue on another thread
    for (const Entry& e : tasks_) {
      if (e.task.at_stop && e.task.interval.count() > 0) at_stop.push_back(e.task.at_stop);
    }
  }
  for (const auto& fn : at_stop) fn();
}

bool Background::Sleep(std::chrono::nanoseconds duration) {
  std::unique_lock<std::mutex> lock(mu_);
  return !cv_.wait_for(lock, duration, [this] { return stopping_; });
}

void Background::RequestGraphWork(const std::shared_ptr<ScopeIndex>& index) {
  if (!graphs_) return;
  if (index->RequestGraph()) graphs_->Enqueue(index);
  if (index->RequestMerge()) graphs_->EnqueueMerge(index);
}

void Background::WaitForGraphs() {
  if (graphs_) graphs_->WaitIdle();
}

}  // namespace engram
