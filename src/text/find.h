// Substring tests for UTF-8 text. std::string_view::find looks for the needle's first byte and
// compares from there; in Chinese text that byte (one of a few lead bytes, 0xE4-0xE9) starts
// nearly every character, so each search compares at almost every character. Looking for the
// needle's last byte instead (a continuation byte, 64 values) skips most of them.
#pragma once

#include <cstring>
#include <string_view>

namespace engram {

inline bool ContainsText(std::string_view text, std::string_view needle) {
  if (needle.empty()) return true;
  if (needle.size() > text.size()) return false;
  const size_t k = needle.size() - 1;
  const char* p = text.data() + k;
  const char* const end = text.data() + text.size();
  while (p < end) {
    p = static_cast<const char*>(std::memchr(p, needle[k], static_cast<size_t>(end - p)));
    if (p == nullptr) return false;
    if (std::memcmp(p - k, needle.data(), k) == 0) return true;
    ++p;
  }
  return false;
}

inline bool ContainsText(std::string_view text, char c) {
  return text.find(c) != std::string_view::npos;
}

}  // namespace engram
