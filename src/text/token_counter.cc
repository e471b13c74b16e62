#include "text/token_counter.h"

#include <cstdint>

#include "text/normalizer.h"
#include "text/utf8.h"

namespace engram {
namespace {

bool IsWordByte(char32_t c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         (c >= 0x80 && !IsCjkCodepoint(c) && c != 0x3000 && !(c >= 0x3000 && c <= 0x303F) &&
          !(c >= 0xFF00 && c <= 0xFF0F));
}

}  // namespace

int CountTokens(std::string_view text) {
  int tokens = 0;
  int word_bytes = 0;
  auto end_word = [&] {
    tokens += (2 * word_bytes + 8) / 9;  // one token per 4.5 bytes, rounded up
    word_bytes = 0;
  };
  for (size_t i = 0; i < text.size();) {
    size_t before = i;
    char32_t c = NextCodepoint(text, &i);
    if (IsCjkCodepoint(c)) {
      end_word();
      ++tokens;
    } else if (IsWordByte(c)) {
      word_bytes += static_cast<int>(i - before);
    } else {
      end_word();
      if (c != ' ' && c != '\n' && c != '\t' && c != '\r') ++tokens;
    }
  }
  end_word();
  return tokens;
}

}  // namespace engram
