#include "server/stream_body.h"

#include <algorithm>
#include <cstring>

namespace engram::server {

void StreamBody::Wake(std::unique_lock<std::mutex>& lock) {
  if (!suspended_ || closed_) return;
  suspended_ = false;
  std::function<void()> resume = resume_;
  lock.unlock();
  if (resume) resume();
}

void StreamBody::Write(std::string_view bytes) {
  std::unique_lock<std::mutex> lock(mu_);
  if (closed_ || finished_) return;
  if (pending_.empty()) oldest_ = std::chrono::steady_clock::now();
  pending_.append(bytes);
  Wake(lock);
}

void StreamBody::Finish() {
  std::unique_lock<std::mutex> lock(mu_);
  finished_ = true;
  Wake(lock);
}

bool StreamBody::Cancelled() const {
  std::lock_guard<std::mutex> lock(mu_);
  return closed_;
}

void StreamBody::SetResume(std::function<void()> resume) {
  std::lock_guard<std::mutex> lock(mu_);
  resume_ = std::move(resume);
}

void StreamBody::SetDelayObserver(std::function<void(std::chrono::nanoseconds)> observer) {
  std::lock_guard<std::mutex> lock(mu_);
  observer_ = std::move(observer);
}

long StreamBody::Read(char* out, size_t max, const std::function<void()>& suspend) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!pending_.empty()) {
    const size_t n = std::min(max, pending_.size());
    std::memcpy(out, pending_.data(), n);
    pending_.erase(0, n);
    // What is left of a longer write keeps its time: the next read's delay errs long.
    if (observer_) observer_(std::chrono::steady_clock::now() - oldest_);
    return static_cast<long>(n);
  }
  if (finished_) return kEnd;
  suspended_ = true;
  suspend();
  return 0;
}

void StreamBody::Close() {
  std::lock_guard<std::mutex> lock(mu_);
  closed_ = true;
  pending_.clear();
}

}  // namespace engram::server
