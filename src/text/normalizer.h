// Unicode normalization for matching: NFKC with case folding (ICU's NFKC_Casefold), which also
// maps full-width forms to half-width ("ＡＢＣ１" → "abc1") and compatibility characters to
// their plain forms.
#pragma once

#include <string>
#include <string_view>

namespace engram {

// Input must be valid UTF-8 (Engram validates before storing). Thread-safe.
std::string NormalizeForMatching(std::string_view text);

// True for Han ideographs, kana and Hangul syllables: the scripts written without spaces.
bool IsCjkCodepoint(char32_t c);

}  // namespace engram
