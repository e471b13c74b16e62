#include "text/keyword_terms.h"

#include "text/analyzer.h"

namespace engram {
namespace {

// Control bytes never survive normalization, so a marked term cannot collide with a word.
constexpr char kBigramMark = '\x02';
constexpr char kCharacterMark = '\x03';

}  // namespace

std::vector<std::string> KeywordTerms(std::string_view text) {
  Analysis a = AnalyzeText(text);
  std::vector<std::string> terms = std::move(a.words);
  terms.reserve(terms.size() + a.cjk_bigrams.size() + a.cjk_characters.size());
  for (std::string& b : a.cjk_bigrams) terms.push_back(kBigramMark + b);
  for (std::string& c : a.cjk_characters) terms.push_back(kCharacterMark + c);
  return terms;
}

bool IsCharacterTerm(std::string_view term) {
  return !term.empty() && term.front() == kCharacterMark;
}

}  // namespace engram
