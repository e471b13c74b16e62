#include "text/utf8.h"

namespace engram {

bool IsValidUtf8(std::string_view s, size_t* bad_offset) {
  const auto* p = reinterpret_cast<const uint8_t*>(s.data());
  const size_t n = s.size();
  for (size_t i = 0; i < n;) {
    const size_t start = i;
    UChar32 c;
    U8_NEXT(p, i, n, c);  // c < 0: ill-formed (overlong, surrogate, > U+10FFFF, truncated)
    if (c < 0) {
      if (bad_offset) *bad_offset = start;
      return false;
    }
  }
  return true;
}

std::string_view TrimCodepoints(std::string_view s, std::u32string_view front_chars,
                                std::u32string_view back_chars) {
  size_t b = 0;
  while (b < s.size()) {
    size_t next = b;
    if (front_chars.find(NextCodepoint(s, &next)) == std::u32string_view::npos) break;
    b = next;
  }
  size_t e = s.size();
  while (e > b) {
    const size_t start = CodepointStart(s, e - 1);
    size_t at = start;
    if (back_chars.find(NextCodepoint(s, &at)) == std::u32string_view::npos) break;
    e = start;
  }
  return s.substr(b, e - b);
}

size_t CountCodepoints(std::string_view s) {
  size_t n = 0;
  for (size_t i = 0; i < s.size(); NextCodepoint(s, &i)) ++n;
  return n;
}

void AppendCodepoint(char32_t c, std::string* out) {
  uint8_t buf[U8_MAX_LENGTH];
  size_t len = 0;
  bool error = false;
  U8_APPEND(buf, len, U8_MAX_LENGTH, static_cast<UChar32>(c), error);
  if (error) {
    len = 0;
    U8_APPEND_UNSAFE(buf, len, kReplacementCharacter);
  }
  out->append(reinterpret_cast<const char*>(buf), len);
}

}  // namespace engram
