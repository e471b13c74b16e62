// Text analysis for retrieval: normalization, word segmentation (ICU's word BreakIterator, which
// segments Chinese and Japanese with its dictionary), English stemming (Snowball via
// libstemmer), stopwords for English and Chinese, and CJK character bigrams as a second,
// segmentation-independent channel.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace engram {

struct Analysis {
  // Words after normalization: stop words dropped, Latin words stemmed, CJK words as ICU
  // segmented them. In text order, with repeats.
  std::vector<std::string> words;
  // Every pair of adjacent CJK characters within a run of CJK text (a single-character run
  // gives the character). In text order, with repeats.
  std::vector<std::string> cjk_bigrams;
  // Every CJK character of a run of two or more (a single-character run is already its own
  // bigram): a third, low-weight channel that matches related words sharing a character
  // (比赛/竞赛, 奖状/获奖) when neither segmentation nor bigrams do. In text order, with repeats.
  std::vector<std::string> cjk_characters;
  // Normalized Latin words before stemming (stop words dropped), for character n-grams.
  std::vector<std::string> raw_latin_words;
};

// Analyzes `text` (valid UTF-8). Thread-safe: ICU iterators and stemmers are per thread.
Analysis AnalyzeText(std::string_view text);

// True if the normalized word is an English or Chinese stop word.
bool IsStopword(std::string_view normalized_word);

}  // namespace engram
