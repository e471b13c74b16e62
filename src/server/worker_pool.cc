#include "server/worker_pool.h"

#include <pthread.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>

namespace engram::server {

WorkerPool::WorkerPool(int threads, int nice) {
  threads_.reserve(std::max(1, threads));
  for (int i = 0; i < std::max(1, threads); ++i) {
    threads_.emplace_back([this, nice] { Run(nice); });
  }
}

WorkerPool::~WorkerPool() { Shutdown(); }

bool WorkerPool::Submit(std::function<void()> task) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (closed_) return false;
    tasks_.push_back(std::move(task));
  }
  ready_.notify_one();
  return true;
}

void WorkerPool::Shutdown() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    closed_ = true;
  }
  ready_.notify_all();
  for (std::thread& t : threads_) {
    if (t.joinable()) t.join();
  }
}

void WorkerPool::Run(int nice) {
  pthread_setname_np(pthread_self(), "engram-worker");  // as top -H and perf show it
  if (nice > 0) {
    // Linux applies a thread id's niceness to that thread alone. A failure leaves the worker
    // at the process's priority, which is correct, only less responsive under bursts.
    const auto tid = static_cast<id_t>(syscall(SYS_gettid));
    setpriority(PRIO_PROCESS, tid, getpriority(PRIO_PROCESS, tid) + nice);
  }
  for (;;) {
    std::function<void()> task;
    {
      std::unique_lock<std::mutex> lock(mu_);
      ready_.wait(lock, [this] { return closed_ || !tasks_.empty(); });
      if (tasks_.empty()) return;  // closed, and nothing left to run
      task = std::move(tasks_.front());
      tasks_.pop_front();
    }
    task();
  }
}

}  // namespace engram::server
