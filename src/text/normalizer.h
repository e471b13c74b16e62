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

// `text` without its kaomoji: a face in brackets of at most 15 characters that holds no Han
// character and no two Latin letters in a row ("(๑•̀ㅂ•́)", "(´･ω･`)", "(╯°□°）"), with the arms
// and sparkles written against it ("و✧", "╯", "ヽ"). Faces are decoration, not words: a greeting
// with one is still a greeting, and a fact keeps none. Anything else is kept byte for byte.
std::string WithoutKaomoji(std::string_view text);

}  // namespace engram
