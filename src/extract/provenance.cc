#include "extract/provenance.h"

#include <algorithm>
#include <string>
#include <unordered_set>

#include "extract/casual.h"
#include "text/utf8.h"

namespace engram::extract {
namespace {

// Words the templates and frames write themselves (third_person.cc, frames_en*.cc,
// rule_patterns_en.cc: "User is allergic to …", "User works at …", "User no longer works",
// "User's favorite …", "User's name is …", "the week of …", a pet "named …", what someone said
// "(according to their doctor)"); the third person's own ("their", "themselves", "has",
// "does", "was" for "were", "cannot" for "can not", "them" for "us"); and contractions spelled
// out (english_words.cc: "I'd" → "I would", "gonna" → "going to").
const std::unordered_set<std::string>& TemplateWords() {
  static const auto* words = new std::unordered_set<std::string>{
      "user",     "s",     "is",     "has",        "does",  "not",       "no",
      "longer",   "their", "theirs", "themselves", "works", "lives",     "allergic",
      "favorite", "named", "who",    "at",         "in",    "from",      "to",
      "on",       "since", "during", "the",        "week",  "of",        "a",
      "an",       "and",   "can",    "t",          "name",  "according", "was",
      "cannot",   "are",   "have",   "will",       "would", "am",        "do",
      "did",      "could", "should", "want",       "going", "them",      "they"};
  return *words;
}

// Characters the Chinese templates write: 用户 for 我 (and 自己 for a later 我), who said it
// (用户戒烟（医生说）), the frames' verbs
// (用户住在…, 用户在…工作, 用户来自…, 用户叫…, 用户对…过敏, 用户的…), and resolved dates
// (2026年6月, 6月3日, 2026-03-30那周).
const std::unordered_set<char32_t>& TemplateChars() {
  static const auto* chars = new std::unordered_set<char32_t>{
      U'用', U'户', U'的', U'住', U'在', U'叫', U'对', U'是', U'来',
      U'自', U'年', U'月', U'日', U'号', U'那', U'周', U'己', U'说'};
  return *chars;
}

bool IsAsciiLetter(char32_t c) { return (c >= U'a' && c <= U'z') || (c >= U'A' && c <= U'Z'); }
bool IsAsciiUpper(char c) { return c >= 'A' && c <= 'Z'; }
bool IsAsciiDigit(char c) { return c >= '0' && c <= '9'; }

// CJK symbols and punctuation, full-width forms' punctuation: the Chinese templates' brackets
// and joins (用户小时候很爱哭（妈说）).
bool IsWidePunctuation(char32_t c) {
  return (c >= 0x3000 && c <= 0x303F) || (c >= 0xFF00 && c <= 0xFF0F) ||
         (c >= 0xFF1A && c <= 0xFF20) || (c >= 0xFF3B && c <= 0xFF40) ||
         (c >= 0xFF5B && c <= 0xFF65) || c == 0x2014 || c == 0x2026;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (IsAsciiUpper(c)) c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

// Said, or a template's word, or either with a third-person ending ("I speak" → "User speaks",
// "I carry" → "User carries", "wanna" → "User wants to").
bool SaidOrTemplate(std::string_view word, const std::string& said_lower) {
  auto said = [&](std::string_view w) {
    return !w.empty() &&
           (said_lower.find(w) != std::string::npos || TemplateWords().contains(std::string(w)));
  };
  if (said(word)) return true;
  if (word.size() >= 2 && word.ends_with("s") && said(word.substr(0, word.size() - 1))) return true;
  if (word.size() >= 3 && word.ends_with("es") && said(word.substr(0, word.size() - 2))) {
    return true;
  }
  return word.size() >= 4 && word.ends_with("ies") &&
         said(std::string(word.substr(0, word.size() - 3)) + "y");
}

}  // namespace

std::vector<std::string> UnsaidWords(std::string_view fact, std::string_view said) {
  // The casual spellings' standard forms are read words, not made ones: "bc" was "because"
  const std::string said_lower = Lower(said) + "\n" + Lower(NormalizeCasualEn(said));
  std::unordered_set<char32_t> said_chars;
  for (size_t i = 0; i < said.size();) said_chars.insert(NextCodepoint(said, &i));
  std::vector<std::string> out;
  size_t i = 0;
  while (i < fact.size()) {
    const size_t start = i;
    const char32_t c = NextCodepoint(fact, &i);
    if (IsAsciiLetter(c)) {
      size_t end = i;
      while (end < fact.size() && IsAsciiLetter(static_cast<unsigned char>(fact[end]))) ++end;
      const std::string word = Lower(fact.substr(start, end - start));
      i = end;
      if (!SaidOrTemplate(word, said_lower)) out.push_back(word);
    } else if (c >= 0x80 && !IsWidePunctuation(c) && !said_chars.contains(c) &&
               !TemplateChars().contains(c)) {
      std::string ch;
      AppendCodepoint(c, &ch);
      out.push_back(std::move(ch));
    }
  }
  return out;
}

namespace {

// Where a sentence corrects itself ("I live in Austin — sorry, I meant Dallas", "不对，是苏州"):
// what comes before is the value taken back. npos when it does not.
size_t CorrectionAt(std::string_view sentence) {
  const std::string low = Lower(sentence);
  size_t at = std::string::npos;
  for (std::string_view m : {"sorry", "i meant", "i mean ", "no wait", "actually no", "oops",
                             "不对", "不是", "我是说", "说错", "改成", "而不是"}) {
    if (const size_t k = low.find(m); k != std::string::npos) at = std::min(at, k);
  }
  return at;
}

// A number a time expression counts ("5 days ago", "in 10 days", "3个月前"): the fact holds the
// date it resolves to instead.
bool CountsTime(std::string_view rest) {
  while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
  for (std::string_view unit : {"day", "week", "month", "year", "hour", "minute", "天", "周",
                                "个月", "年", "小时", "分钟", "星期"}) {
    if (rest.starts_with(unit)) return true;
  }
  return false;
}

}  // namespace

std::vector<std::string> KeyTokens(std::string_view said) {
  // (capitals in shouting mark no name: "I AM FILLING OUT THE FORM")
  const std::string unshouted = UnshoutEn(said);
  const std::string_view sentence = unshouted;
  static const std::unordered_set<std::string> kDateWords = {
      "monday",  "tuesday",   "wednesday", "thursday", "friday",   "saturday", "sunday",
      "january", "february",  "march",     "april",    "may",      "june",     "july",
      "august",  "september", "october",   "november", "december", "i",        "im"};
  std::vector<std::string> out;
  bool first_word = true;
  const size_t corrected_before = CorrectionAt(sentence);
  // "Porto instead of Lisbon", "not Saturday": the value right after is the one taken back.
  const std::string low = Lower(sentence);
  std::vector<size_t> taken_back;
  for (std::string_view m : {"instead of ", "rather than ", "not ", "而不是", "不是"}) {
    for (size_t k = low.find(m); k != std::string::npos; k = low.find(m, k + 1)) {
      size_t v = k + m.size();
      while (v < low.size() && (low[v] == ' ' || low.compare(v, 4, "the ") == 0)) {
        v += low[v] == ' ' ? 1 : 4;
      }
      taken_back.push_back(v);
    }
  }
  auto kept = [&](size_t at) {
    return (corrected_before == std::string::npos || at > corrected_before) &&
           std::find(taken_back.begin(), taken_back.end(), at) == taken_back.end();
  };
  size_t i = 0;
  while (i < sentence.size()) {
    const char ch = sentence[i];
    if (IsAsciiDigit(ch)) {
      size_t end = i;
      while (end < sentence.size() && IsAsciiDigit(sentence[end])) ++end;
      if (kept(i) && !CountsTime(sentence.substr(end))) {
        out.emplace_back(sentence.substr(i, end - i));
      }
      i = end;
      first_word = false;
      continue;
    }
    if (IsAsciiLetter(static_cast<unsigned char>(ch))) {
      size_t end = i;
      while (end < sentence.size() &&
             (IsAsciiLetter(static_cast<unsigned char>(sentence[end])) || sentence[end] == '\'')) {
        ++end;
      }
      std::string word(sentence.substr(i, end - i));
      if (const size_t q = word.find('\''); q != std::string::npos) word.resize(q);
      if (!first_word && IsAsciiUpper(word[0]) && word.size() > 1 && kept(i) &&
          !kDateWords.contains(Lower(word)) && !TemplateWords().contains(Lower(word))) {
        out.push_back(word);
      }
      first_word = false;
      i = end;
      continue;
    }
    if (static_cast<unsigned char>(ch) >= 0x80) first_word = false;
    i += CodepointLength(sentence, i);
  }
  return out;
}

std::vector<std::string> Sentences(std::string_view message) {
  std::vector<std::string> out;
  std::string current;
  for (size_t i = 0; i < message.size();) {
    const size_t start = i;
    const char32_t c = NextCodepoint(message, &i);
    const bool end = c == U'.' || c == U'!' || c == U'?' || c == U'\n' || c == U';' || c == U'。' ||
                     c == U'！' || c == U'？' || c == U'；';
    // "3.5" and "Dr." inside a sentence: a period ends one only before a space or the end.
    const bool period_inside = c == U'.' && i < message.size() && message[i] != ' ';
    if (end && !period_inside) {
      if (current.find_first_not_of(" \t\r") != std::string::npos) out.push_back(current);
      current.clear();
      continue;
    }
    current.append(message.substr(start, i - start));
  }
  if (current.find_first_not_of(" \t\r") != std::string::npos) out.push_back(current);
  return out;
}

}  // namespace engram::extract
