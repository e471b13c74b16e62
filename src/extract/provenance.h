// Where the words of an extracted fact come from. A fact's text is the user's clause put into a
// template, or a parsed value put into one (issue 35: no text is made by splicing strings), so
// every word of it is the user's, or a template's. These checks are what the extractor fuzzer
// (fuzz/extractor_fuzzer.cc) asserts on any input and what `engram bench writepath` counts as
// splices and fragments.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace engram::extract {

// The words and characters of `fact` that are in none of `said` (the user's messages): each
// Latin word (compared lower-case) that is not said, not one of the templates' own ("User",
// "is", "works at", "no longer", "named", contractions spelled out, …) and not a said or
// template word with a third-person -s/-es/-ies; each non-ASCII character (outside CJK and
// full-width punctuation) that is not said and not one of the Chinese templates' (用户, 的,
// 住在, dates' 年月日, …). Digits, ASCII punctuation and spaces are free: resolved dates,
// numbers said in words. Empty when the fact is the user's words in a template.
std::vector<std::string> UnsaidWords(std::string_view fact, std::string_view said);

// The names and numbers of `sentence` a fact drawn from it should keep: digit runs, and in
// English the capitalized words that do not start the sentence (names, places, employers),
// other than "I", weekday and month names (a resolved date replaces them) and the templates'
// own. Not counted: a number of days, weeks, months or years (a resolved date replaces it:
// "5 days ago"), and what comes before the sentence corrects itself ("Austin — sorry, I meant
// Dallas": Austin was taken back), or right after "instead of", "rather than", "not", 不是. Chinese
// names and places are not recognised here: only digit runs count in Chinese.
std::vector<std::string> KeyTokens(std::string_view sentence);

// The sentences of a message: split at . ! ? 。！？；; and newlines.
std::vector<std::string> Sentences(std::string_view message);

}  // namespace engram::extract
