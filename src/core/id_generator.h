// Memory ids: UUID version 7 (RFC 9562) strings — time-ordered, so ids made later sort later
// and inserts land at the end of the id index.
#pragma once

#include <cstdint>
#include <mutex>
#include <random>
#include <string>

#include "engram/memory.h"

namespace engram {

// Thread-safe.
class IdGenerator {
 public:
  IdGenerator();
  // A new id for time `now_ms`, e.g. "0193a1f2-7c4e-7d2a-9b1c-2f3e4d5c6b7a".
  std::string Next(TimestampMs now_ms);

 private:
  std::mutex mu_;
  std::mt19937_64 rng_;  // guarded by mu_
};

// True if `id` has the shape of an id Engram accepts: 1..128 bytes of [A-Za-z0-9_.:-].
// Imported data may carry ids made elsewhere, so UUID shape is not required.
bool IsValidId(std::string_view id);

}  // namespace engram
