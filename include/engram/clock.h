// Time: an injectable clock, and the one textual form Engram uses for timestamps.
#pragma once

#include <atomic>
#include <string>
#include <string_view>

#include "engram/memory.h"
#include "engram/status.h"

namespace engram {

// Source of "now". Implementations must be thread-safe.
class Clock {
 public:
  virtual ~Clock() = default;
  virtual TimestampMs NowMs() const = 0;
};

// Wall-clock time (std::chrono::system_clock).
class SystemClock final : public Clock {
 public:
  TimestampMs NowMs() const override;
  // A process-wide instance; never destroyed.
  static const SystemClock* Default();
};

// A clock that moves only when told to; for tests and replays. Thread-safe.
class ManualClock final : public Clock {
 public:
  explicit ManualClock(TimestampMs start) : now_(start) {}
  TimestampMs NowMs() const override { return now_.load(); }
  void Set(TimestampMs t) { now_.store(t); }
  void Advance(TimestampMs delta) { now_.fetch_add(delta); }

 private:
  std::atomic<TimestampMs> now_;
};

// "2026-11-30T05:23:29.123Z" (UTC, millisecond precision, always this exact shape).
std::string FormatTimestamp(TimestampMs t);
// The same text appended to `out` (no allocation beyond out's growth: JSON writers call it
// for every timestamp of every returned memory).
void AppendTimestamp(std::string* out, TimestampMs t);

// Accepts "YYYY-MM-DD", "YYYY-MM-DDTHH:MM[:SS[.fff]]" with an optional "Z" or "+HH:MM"/"-HH:MM"
// offset (no offset means UTC), and a space instead of 'T'. InvalidArgument otherwise, and for
// instants outside the years 0000 to 9999 in UTC (which FormatTimestamp could not write back).
Result<TimestampMs> ParseTimestamp(std::string_view text);

}  // namespace engram
