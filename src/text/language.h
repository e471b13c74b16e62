// The script a text is mostly written in: enough to tell Chinese from English for the write
// path (rule patterns per language; an LLM reply must be in the input's language).
#pragma once

#include <string_view>

namespace engram {

enum class Language { kUnknown, kChinese, kJapanese, kKorean, kLatin };

// Counts letters by script (Han, kana, Hangul, Latin; digits and punctuation ignored). Kana
// anywhere → Japanese; otherwise the script with most characters, Han counting double since
// one Han character carries about as much as a Latin word's two letters. kUnknown when the
// text has no letters or is not valid UTF-8.
Language DetectLanguage(std::string_view text);

// Whether the text has at least one Han character (false for invalid UTF-8).
bool HasHan(std::string_view text);

// "zh", "ja", "ko", "en" (any Latin-script text), "" for unknown.
std::string_view LanguageCode(Language language);

}  // namespace engram
