// Character tests shared by the PII scanners. The scanners walk UTF-8 bytes by hand: every
// pattern they look for is ASCII (or a full-width digit), and a non-ASCII byte is never part of
// one, so Chinese text around a match is a boundary without decoding it. (std::regex would be
// slower by an order of magnitude, backtracks badly on long inputs and knows nothing of UTF-8,
// so it would treat the bytes of "手" as three unknown characters and could not see full-width
// digits.)
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace engram::pii {

inline bool IsAsciiDigit(char c) { return c >= '0' && c <= '9'; }
inline bool IsAsciiAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
inline bool IsAsciiAlnum(char c) { return IsAsciiDigit(c) || IsAsciiAlpha(c); }
inline bool IsHexDigit(char c) {
  return IsAsciiDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
inline char AsciiLower(char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

// A decimal digit at text[i]: ASCII (1 byte) or full-width U+FF10..U+FF19 (3 bytes). Returns the
// byte length, 0 if there is none; stores the ASCII form in *digit.
size_t DigitAt(std::string_view text, size_t i, char* digit);

// A letter, digit or '_' (ASCII, or a full-width letter or digit) at text[i] / ending just before
// text[i]. A number or key glued to one of these is part of a longer token, not a match.
bool WordCharAt(std::string_view text, size_t i);
bool WordCharBefore(std::string_view text, size_t i);

// Where a number may start / end: not glued to a word character, and not continuing a longer
// number through a joiner ("2023-05-08", "1.2.3", "12:30", "3/4"). A space does not join, so
// "13812345678 13987654321" is two numbers.
bool NumberStartsAt(std::string_view text, size_t i);
bool NumberEndsAt(std::string_view text, size_t i);

// The ASCII digits of text[begin, end) (full-width ones converted), other characters dropped.
std::string DigitsOf(std::string_view text, size_t begin, size_t end);

// Case-insensitive ASCII prefix test of text[i...] against a lower-case `word`.
bool StartsWithNoCase(std::string_view text, size_t i, std::string_view word);

}  // namespace engram::pii
