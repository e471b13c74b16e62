#include "core/id_generator.h"

#include <cstdio>

namespace engram {

IdGenerator::IdGenerator() {
  std::random_device rd;
  std::seed_seq seq{rd(), rd(), rd(), rd(), rd(), rd(), rd(), rd()};
  rng_.seed(seq);
}

std::string IdGenerator::Next(TimestampMs now_ms) {
  uint64_t r1, r2;
  {
    std::lock_guard<std::mutex> lock(mu_);
    r1 = rng_();
    r2 = rng_();
  }
  uint64_t ts = static_cast<uint64_t>(now_ms) & 0xFFFFFFFFFFFFull;  // 48 bits
  uint16_t ver_rand_a = static_cast<uint16_t>(0x7000 | (r1 & 0x0FFF));
  uint16_t var_rand_b = static_cast<uint16_t>(0x8000 | ((r1 >> 12) & 0x3FFF));
  uint64_t rand_c = r2 & 0xFFFFFFFFFFFFull;
  char buf[40];
  std::snprintf(buf, sizeof buf, "%08x-%04x-%04x-%04x-%012llx", static_cast<unsigned>(ts >> 16),
                static_cast<unsigned>(ts & 0xFFFF), static_cast<unsigned>(ver_rand_a),
                static_cast<unsigned>(var_rand_b), static_cast<unsigned long long>(rand_c));
  return buf;
}

bool IsValidId(std::string_view id) {
  if (id.empty() || id.size() > 128) return false;
  for (char c : id) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '-' || c == '_' || c == '.' || c == ':';
    if (!ok) return false;
  }
  return true;
}

}  // namespace engram
