#include "privacy/scan_chars.h"

namespace engram::pii {
namespace {

// Full-width forms block: U+FF10..FF19 digits are EF BC 90..99, U+FF21..FF3A capitals EF BC
// A1..BA, U+FF41..FF5A small letters EF BD 81..9A.
bool FullWidthWordChar(unsigned char b0, unsigned char b1, unsigned char b2) {
  if (b0 != 0xEF) return false;
  if (b1 == 0xBC) return (b2 >= 0x90 && b2 <= 0x99) || (b2 >= 0xA1 && b2 <= 0xBA);
  return b1 == 0xBD && b2 >= 0x81 && b2 <= 0x9A;
}

bool IsJoiner(char c) { return c == '-' || c == '.' || c == ':' || c == '/'; }

// A joiner character at text[i], full-width hyphen-minus U+FF0D (EF BC 8D) included; its length.
size_t JoinerAt(std::string_view text, size_t i) {
  if (i >= text.size()) return 0;
  if (IsJoiner(text[i])) return 1;
  return text.substr(i, 3) == "\xEF\xBC\x8D" ? 3 : 0;
}

size_t JoinerBefore(std::string_view text, size_t i) {
  if (i >= 1 && IsJoiner(text[i - 1])) return 1;
  return i >= 3 && text.substr(i - 3, 3) == "\xEF\xBC\x8D" ? 3 : 0;
}

bool DigitBefore(std::string_view text, size_t i) {
  char d;
  if (i >= 1 && DigitAt(text, i - 1, &d) == 1) return true;
  return i >= 3 && DigitAt(text, i - 3, &d) == 3;
}

}  // namespace

size_t DigitAt(std::string_view text, size_t i, char* digit) {
  if (i >= text.size()) return 0;
  if (IsAsciiDigit(text[i])) {
    *digit = text[i];
    return 1;
  }
  if (i + 2 < text.size() && static_cast<unsigned char>(text[i]) == 0xEF &&
      static_cast<unsigned char>(text[i + 1]) == 0xBC) {
    auto b = static_cast<unsigned char>(text[i + 2]);
    if (b >= 0x90 && b <= 0x99) {
      *digit = static_cast<char>('0' + (b - 0x90));
      return 3;
    }
  }
  return 0;
}

bool WordCharAt(std::string_view text, size_t i) {
  if (i >= text.size()) return false;
  if (IsAsciiAlnum(text[i]) || text[i] == '_') return true;
  if (i + 2 >= text.size()) return false;
  return FullWidthWordChar(text[i], text[i + 1], text[i + 2]);
}

bool WordCharBefore(std::string_view text, size_t i) {
  if (i == 0) return false;
  if (IsAsciiAlnum(text[i - 1]) || text[i - 1] == '_') return true;
  if (i < 3) return false;
  return FullWidthWordChar(text[i - 3], text[i - 2], text[i - 1]);
}

bool NumberStartsAt(std::string_view text, size_t i) {
  if (WordCharBefore(text, i)) return false;
  size_t j = JoinerBefore(text, i);
  return j == 0 || !DigitBefore(text, i - j);
}

bool NumberEndsAt(std::string_view text, size_t i) {
  if (WordCharAt(text, i)) return false;
  size_t j = JoinerAt(text, i);
  char d;
  return j == 0 || DigitAt(text, i + j, &d) == 0;
}

std::string DigitsOf(std::string_view text, size_t begin, size_t end) {
  std::string digits;
  for (size_t i = begin; i < end;) {
    char d;
    size_t n = DigitAt(text, i, &d);
    if (n > 0) digits.push_back(d);
    i += n > 0 ? n : 1;
  }
  return digits;
}

bool StartsWithNoCase(std::string_view text, size_t i, std::string_view word) {
  if (i + word.size() > text.size()) return false;
  for (size_t k = 0; k < word.size(); ++k) {
    if (AsciiLower(text[i + k]) != word[k]) return false;
  }
  return true;
}

}  // namespace engram::pii
