#include "server/worker_pool.h"

#include <algorithm>

#include "core/thread_priority.h"

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
  NameAndDeprioritizeThisThread("engram-worker", nice);
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
