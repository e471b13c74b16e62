// UTF-8 validation and decoding. Engram stores only well-formed UTF-8 (RFC 3629: no overlongs,
// no surrogates, nothing above U+10FFFF); every piece of code that walks text code point by
// code point uses the decoder here (ICU's U8_NEXT / U8_APPEND), never a hand-written one.
//
// Text that reaches the decoder is normally valid (the API rejects anything else), but the
// decoder does not assume it: an ill-formed or truncated sequence decodes as U+FFFD and
// consumes its maximal ill-formed subpart (at least one byte, Unicode's recommended
// practice), so a loop over any bytes ends and never reads past the end.
#pragma once

#include <unicode/utf8.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace engram {

inline constexpr char32_t kReplacementCharacter = 0xFFFD;

// True if `s` is well-formed UTF-8. On false, *bad_offset (if given) is the byte offset of the
// first byte of the first ill-formed sequence.
bool IsValidUtf8(std::string_view s, size_t* bad_offset = nullptr);

// Decodes the code point at s[*i] (requires *i < s.size()) and advances *i past it; U+FFFD for
// an ill-formed sequence (see above). Inline: the extractors call it once per character.
inline char32_t NextCodepoint(std::string_view s, size_t* i) {
  UChar32 c;
  size_t at = *i;
  U8_NEXT(reinterpret_cast<const uint8_t*>(s.data()), at, s.size(), c);
  *i = at;
  return c < 0 ? kReplacementCharacter : static_cast<char32_t>(c);
}

// The code point at s[i] (requires i < s.size()), U+FFFD if ill-formed.
inline char32_t CodepointAt(std::string_view s, size_t i) { return NextCodepoint(s, &i); }

// The number of bytes NextCodepoint consumes at s[i] (requires i < s.size()): 1 to 4.
inline size_t CodepointLength(std::string_view s, size_t i) {
  size_t end = i;
  NextCodepoint(s, &end);
  return end - i;
}

// The number of code points in `s`, each ill-formed subpart counting as one.
size_t CountCodepoints(std::string_view s);

// Appends `c` as UTF-8; a surrogate or a value above U+10FFFF appends U+FFFD.
void AppendCodepoint(char32_t c, std::string* out);

// The start of the character that holds byte `i` (requires i <= s.size(); s.size() is returned
// as is): `i` moved back over at most three continuation bytes. s.substr(0, result) cuts text
// without splitting a character, and CodepointStart(s, i - 1) is the start of the character
// that ends at `i`.
inline size_t CodepointStart(std::string_view s, size_t i) {
  if (i >= s.size()) return s.size();
  for (size_t k = 0; k < 3 && i > 0 && U8_IS_TRAIL(static_cast<uint8_t>(s[i])); ++k) --i;
  return i;
}

// `s` without the characters of `chars` at either end, compared as whole characters: a byte
// set such as std::string_view::find_last_not_of(" —") would also strip the last byte of
// any character ending in one of the dash's bytes (打 is E6 89 93, – is E2 80 93).
std::string_view TrimCodepoints(std::string_view s, std::u32string_view front_chars,
                                std::u32string_view back_chars);
inline std::string_view TrimCodepoints(std::string_view s, std::u32string_view chars) {
  return TrimCodepoints(s, chars, chars);
}

}  // namespace engram
