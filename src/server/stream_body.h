// A reply body written while it is sent: the chat proxy's server-sent events, passed on as the
// upstream produces them. A producer thread writes; the connection's event loop reads.
//
// The event loop never waits: when nothing is there to send, the reader suspends the
// connection (through the callback it is given, under this object's lock) and the next Write
// or Finish resumes it (outside the lock). The lock orders the two, so a resume never comes
// before the suspend it answers. Close() is the connection's end: writes from then on are
// dropped and Cancelled() tells the producer to stop.
//
// Thread-safe: one producer, one reader.
#pragma once

#include <chrono>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>

namespace engram::server {

class StreamBody {
 public:
  // Producer side.
  void Write(std::string_view bytes);
  void Finish();  // the body is complete: the reader ends it once it has sent what waits
  bool Cancelled() const;

  // Reader side (the server). `resume` wakes the suspended connection; set before the first
  // Read. Read copies up to `max` bytes into `out` and returns how many; 0 after calling
  // `suspend` (nothing waits yet); kEnd when finished and drained.
  static constexpr long kEnd = -1;
  void SetResume(std::function<void()> resume);
  // Told, at each read, how long the oldest byte it hands over waited since it was written
  // (the stream's own delay: what the proxy adds to each chunk before the connection's send).
  void SetDelayObserver(std::function<void(std::chrono::nanoseconds)> observer);
  long Read(char* out, size_t max, const std::function<void()>& suspend);
  void Close();

 private:
  void Wake(std::unique_lock<std::mutex>& lock);

  mutable std::mutex mu_;
  std::string pending_;           // guarded by mu_: written, not yet read
  bool finished_ = false;         // guarded by mu_
  bool closed_ = false;           // guarded by mu_
  bool suspended_ = false;        // guarded by mu_: the reader suspended the connection
  std::function<void()> resume_;  // guarded by mu_
  std::function<void(std::chrono::nanoseconds)> observer_;  // guarded by mu_
  std::chrono::steady_clock::time_point oldest_;            // guarded by mu_: when pending_ began
};

}  // namespace engram::server
