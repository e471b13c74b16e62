#include "extract/chitchat.h"

#include <unicode/uchar.h>

#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "extract/casual.h"
#include "extract/clauses.h"
#include "extract/lexicon.h"
#include "extract/speech_acts.h"
#include "text/find.h"
#include "text/language.h"
#include "text/lexicon_data.h"
#include "text/normalizer.h"
#include "text/utf8.h"

namespace engram {
namespace {

struct Phrase {
  std::string_view text;  // English: words separated by single spaces; Chinese: characters
  std::string_view kind;
};

constexpr std::string_view kAck = "acknowledgement";
constexpr std::string_view kLaughter = "laughter";
constexpr std::string_view kFiller = "filler";
constexpr std::string_view kFarewell = "farewell";
constexpr std::string_view kEmoji = "emoji";

// The phrases of data/lexicon/<lang>/chitchat.tsv, each with its kind (the line's key). The
// lexicon lives for the process, so the views stay valid.
std::vector<Phrase> LoadPhrases(const char* file) {
  std::vector<Phrase> out;
  for (const auto& [kind, words] : LexiconEntries(file)) {
    for (const std::string& w : words) out.push_back({w, kind});
  }
  return out;
}

// English phrases, matched whole-word, longest first at each position.
const std::vector<Phrase>& EnglishPhrases() {
  static const std::vector<Phrase> k = LoadPhrases("en/chitchat.tsv");
  return k;
}

const std::vector<Phrase>& ChinesePhrases() {
  static const std::vector<Phrase> k = LoadPhrases("zh/chitchat.tsv");
  return k;
}

// Digits that are chit-chat in Chinese chat ("666": well done; "88": bye; "233": laughter).
constexpr std::array<std::pair<std::string_view, std::string_view>, 4> kNumberWords = {
    {{"666", kAck}, {"6666", kAck}, {"88", kFarewell}, {"233", kLaughter}}};

enum class Script { kSeparator, kLatin, kDigit, kCjk };

Script Classify(UChar32 c) {
  if (c < 0x80) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '\'') return Script::kLatin;
    if (c >= '0' && c <= '9') return Script::kDigit;
    return Script::kSeparator;
  }
  if (IsCjkCodepoint(static_cast<char32_t>(c))) return Script::kCjk;
  if (u_isalpha(c)) return Script::kLatin;
  if (u_isdigit(c)) return Script::kDigit;
  return Script::kSeparator;  // punctuation, symbols, emoji
}

struct Run {
  Script script;
  std::string text;
};

// The text as runs of one script; separators end runs and are dropped.
std::vector<Run> Runs(std::string_view s) {
  std::vector<Run> out;
  size_t i = 0;
  Script current = Script::kSeparator;
  while (i < s.size()) {
    const size_t start = i;
    // An ill-formed byte decodes as U+FFFD, which Classify calls a separator.
    const char32_t c = NextCodepoint(s, &i);
    const Script script = Classify(static_cast<UChar32>(c));
    if (script == Script::kSeparator) {
      // "好的 谢谢 你": a space between Chinese words (as some type after every word) joins
      // them; punctuation ends the run
      if (current == Script::kCjk && (c == U' ' || c == U'\u3000')) continue;
      current = script;
      continue;
    }
    if (script != current) out.push_back({script, ""});
    current = script;
    out.back().text.append(s.substr(start, i - start));
  }
  return out;
}

// Words of a Latin run sequence, with laughter and hums of any length folded ("hahaha" →
// "haha", "hmmm" → "hmm").
std::string FoldWord(std::string w) {
  auto only = [&](std::string_view letters) {
    return !w.empty() && w.find_first_not_of(letters) == std::string::npos;
  };
  if (w.size() >= 4 && (only("ha") || only("he") || only("ah")) && ContainsText(w, 'h')) {
    return "hah";
  }
  if (only("hm") && w.size() >= 2 && w[0] == 'h') return "hm";
  if (only("um") && w.size() >= 2 && w[0] == 'u') return "er";
  if (only("uh") && w.size() >= 2 && w[0] == 'u') return "er";
  if (w.size() >= 3 && only("lo") && w[0] == 'l') return "lol";
  if (w.size() >= 3 && only("o")) return "oh";
  // Letters held for emphasis ("sooo", "yesss", "niiice"): runs of three or more become two.
  std::string out;
  for (char c : w) {
    if (out.size() >= 2 && out[out.size() - 1] == c && out[out.size() - 2] == c) continue;
    out += c;
  }
  return out;
}

// A folded word read as a lexicon word: the same, or the same held at its end ("wayy", "lmaoo",
// "yess" are "way", "lmao", "yes").
bool SameWord(std::string_view word, std::string_view lexicon) {
  if (word == lexicon) return true;
  const size_t n = word.size();
  return n >= 3 && word[n - 1] == word[n - 2] && word.substr(0, n - 1) == lexicon;
}

// The longest English phrase starting at words[i]: how many words it covers (0 when none) and
// its kind.
size_t EnglishPhraseAt(const std::vector<std::string>& words, size_t i, std::string_view* kind) {
  size_t best = 0;
  for (const Phrase& p : EnglishPhrases()) {
    size_t n = 0, at = 0;
    bool ok = true;
    while (at <= p.text.size()) {
      size_t sp = p.text.find(' ', at);
      if (sp == std::string_view::npos) sp = p.text.size();
      if (i + n >= words.size() || !SameWord(words[i + n], p.text.substr(at, sp - at))) {
        ok = false;
        break;
      }
      ++n;
      at = sp + 1;
    }
    if (ok && n > best) best = n, *kind = p.kind;
  }
  return best;
}

// The longest Chinese phrase at s[i]: its length in bytes (0 when none) and its kind.
size_t ChinesePhraseAt(std::string_view s, size_t i, std::string_view* kind) {
  size_t best = 0;
  for (const Phrase& p : ChinesePhrases()) {
    if (p.text.size() > best && s.substr(i, p.text.size()) == p.text) {
      best = p.text.size();
      *kind = p.kind;
    }
  }
  return best;
}

// Covers words[from..] with English phrases; the first non-filler kind met, or "" when some
// word is not chit-chat.
bool CoverEnglish(const std::vector<std::string>& words, std::string_view* kind) {
  size_t i = 0;
  while (i < words.size()) {
    std::string_view best_kind;
    const size_t best = EnglishPhraseAt(words, i, &best_kind);
    if (best == 0) return false;
    if (kind->empty() || *kind == kFiller) *kind = best_kind;
    i += best;
  }
  return true;
}

bool CoverChinese(std::string_view s, std::string_view* kind) {
  size_t i = 0;
  while (i < s.size()) {
    std::string_view best_kind;
    const size_t best = ChinesePhraseAt(s, i, &best_kind);
    if (best == 0) return false;
    if (kind->empty() || *kind == kFiller) *kind = best_kind;
    i += best;
  }
  return true;
}

}  // namespace

std::string_view ChitChatKind(std::string_view text) {
  std::string normalized = NormalizeForMatching(WithoutKaomoji(text));
  for (size_t k = normalized.find("’"); k != std::string::npos; k = normalized.find("’", k)) {
    normalized.replace(k, 3, "'");
  }
  std::vector<Run> runs = Runs(normalized);
  if (runs.empty()) {
    // Emoji or punctuation only ("👍👍", "!!"): a reaction, nothing said to remember.
    const bool blank = normalized.find_first_not_of(" \t\r\n") == std::string::npos;
    return blank ? "" : kEmoji;
  }
  std::string_view kind;
  std::vector<std::string> words;  // the Latin words since the last non-Latin run
  auto flush_words = [&]() {
    bool ok = words.empty() || CoverEnglish(words, &kind);
    words.clear();
    return ok;
  };
  for (const Run& run : runs) {
    if (run.script == Script::kLatin) {
      words.push_back(FoldWord(run.text));
      continue;
    }
    if (!flush_words()) return "";
    if (run.script == Script::kDigit) {
      auto it = std::find_if(kNumberWords.begin(), kNumberWords.end(),
                             [&](const auto& w) { return w.first == run.text; });
      if (it == kNumberWords.end()) return "";
      if (kind.empty() || kind == kFiller) kind = it->second;
      continue;
    }
    if (!CoverChinese(run.text, &kind)) return "";
  }
  if (!flush_words()) return "";
  return kind;
}

namespace {

// The speaker's own words: a text that holds one says something of the user.
constexpr std::array<std::string_view, 15> kOwnWords = {"i",   "i'm",   "im",  "i've", "ive",
                                                        "i'd", "i'll",  "my",  "mine", "myself",
                                                        "we",  "we're", "our", "ours", "us"};

// A relation of two or three Chinese characters anywhere in `cjk` (老公, 女儿, 外婆).
bool HoldsRelationZh(std::string_view cjk) {
  std::vector<size_t> starts;
  for (size_t i = 0; i < cjk.size(); NextCodepoint(cjk, &i)) starts.push_back(i);
  starts.push_back(cjk.size());
  for (size_t a = 0; a < starts.size(); ++a) {
    for (size_t n : {2u, 3u}) {
      if (a + n >= starts.size()) continue;
      if (!extract::RelationKey(cjk.substr(starts[a], starts[a + n] - starts[a])).empty()) {
        return true;
      }
    }
  }
  return false;
}

}  // namespace

std::string_view ReplyChitChatKind(std::string_view text) {
  constexpr size_t kMaxWords = 8, kMaxOtherWords = 4, kMaxChars = 16, kMaxOtherChars = 6;
  std::string normalized = NormalizeForMatching(text);
  for (size_t k = normalized.find("’"); k != std::string::npos; k = normalized.find("’", k)) {
    normalized.replace(k, 3, "'");
  }
  // A name: a capitalized word that is not the text's first ("thanks, Anna said so"); not in
  // shouting ("THANK YOU DEAR"), and not God in a blessing or an oath ("God bless").
  {
    const std::vector<Run> raw = Runs(extract::UnshoutEn(text));
    for (size_t r = 1; r < raw.size(); ++r) {
      const auto c = static_cast<unsigned char>(raw[r].text[0]);
      if (raw[r].script == Script::kLatin && c >= 'A' && c <= 'Z' && raw[r].text != "I" &&
          raw[r].text != "God" && raw[r].text != "Lord") {
        return "";
      }
    }
  }
  // health and safety are never small talk ("ok, allergic to cats too")
  if (extract::HasHealthCue(normalized) || extract::CriticalCue(normalized)) return "";
  std::vector<std::string> words;
  std::string cjk;
  for (const Run& run : Runs(normalized)) {
    if (run.script == Script::kDigit) return "";
    if (run.script == Script::kLatin) words.push_back(FoldWord(run.text));
    if (run.script == Script::kCjk) cjk += run.text;
  }
  if (words.size() > kMaxWords || CountCodepoints(cjk) > kMaxChars) return "";
  if (words.empty() && cjk.empty()) return "";

  for (const std::string& w : words) {
    if (std::find(kOwnWords.begin(), kOwnWords.end(), w) != kOwnWords.end()) return "";
    if (!extract::RelationKey(w).empty()) return "";
  }
  for (std::string_view own : {"我", "咱", "俺"}) {
    if (ContainsText(cjk, own)) return "";
  }
  std::string_view kind;
  size_t other_words = 0;
  for (size_t i = 0; i < words.size();) {
    std::string_view best_kind;
    const size_t best = EnglishPhraseAt(words, i, &best_kind);
    if (best == 0) {
      ++other_words;
      ++i;
      continue;
    }
    if (kind.empty() || kind == kFiller) kind = best_kind;
    i += best;
  }
  size_t other_chars = 0;
  for (size_t i = 0; i < cjk.size();) {
    std::string_view best_kind;
    const size_t best = ChinesePhraseAt(cjk, i, &best_kind);
    if (best == 0) {
      ++other_chars;
      NextCodepoint(cjk, &i);
      continue;
    }
    if (kind.empty() || kind == kFiller) kind = best_kind;
    i += best;
  }
  if (HoldsRelationZh(cjk)) return "";
  if (kind.empty() || kind == kFiller) return "";
  if (other_words > kMaxOtherWords || other_chars > kMaxOtherChars) return "";
  if (other_words == 0 && other_chars == 0) return "";  // all phrases: ChitChatKind's case
  // "what time is it in tokyo": a question of its own, not a reaction to the last answer (a
  // request to redo it, "can u make it shorter", is one)
  static constexpr std::array<std::string_view, 12> kAsks = {
      "what", "how", "why", "when", "where", "who", "which", "can", "could", "is", "are", "do"};
  if (kind != "followup" && words.size() > 3 &&
      std::find(kAsks.begin(), kAsks.end(), words[0]) != kAsks.end()) {
    return "";
  }
  return kind;
}

std::string_view AskOnlyKind(std::string_view text) {
  const std::string normalized = NormalizeForMatching(text);
  if (extract::HasHealthCue(normalized) || extract::CriticalCue(normalized)) return "";
  // a name: a capitalized word that is not a sentence's first ("ask Anna", "in Paris")
  const std::vector<extract::Sentence> sentences = extract::SplitSentences(text);
  if (sentences.empty()) return "";
  bool request = false;
  for (const extract::Sentence& sentence : sentences) {
    std::string s = sentence.text;
    // "ok next q: how many …": what comes before a short lead's colon is the lead
    if (const size_t colon = s.find(':');
        colon != std::string::npos && std::count(s.begin(), s.begin() + colon, ' ') <= 2) {
      s = s.substr(colon + 1);
    }
    const bool zh = HasHan(s);
    s = zh ? extract::StripMarkersZh(s) : extract::StripMarkersEn(s);
    while (!s.empty() && s.front() == ' ') s.erase(0, 1);
    if (s.empty()) continue;
    if (zh) {
      const bool asks = extract::IsQuestionZh(s) || extract::IsRequestZh(s);
      if (!asks) return "";
      request = request || extract::IsRequestZh(s);
      // 我 only as the one the request is for ("帮我", "给我", "告诉我")
      std::string rest = s;
      for (std::string_view for_me : {"帮我", "给我", "告诉我", "跟我", "替我"}) {
        for (size_t k = rest.find(for_me); k != std::string::npos; k = rest.find(for_me)) {
          rest.erase(k, for_me.size());
        }
      }
      for (std::string_view own : {"我", "咱", "俺", "提醒", "记住", "记一下", "别忘"}) {
        if (ContainsText(rest, own)) return "";
      }
      if (HoldsRelationZh(rest)) return "";
      continue;
    }
    const std::string low = extract::LowerAscii(s);
    if (!extract::IsQuestionEn(s) && !sentence.question) return "";
    request = request || !sentence.question;
    for (std::string_view keep : {"remind", "remember", "don't forget", "dont forget", "note that",
                                  "keep in mind", "save"}) {
      if (ContainsText(low, keep)) return "";
    }
    size_t words = 0;
    for (size_t i = 0; i < s.size(); ++i) {
      const bool starts = std::isalpha(static_cast<unsigned char>(s[i])) &&
                          (i == 0 || !std::isalpha(static_cast<unsigned char>(s[i - 1])));
      if (!starts) continue;
      ++words;
      std::string w;
      for (size_t j = i; j < s.size() && std::isalpha(static_cast<unsigned char>(s[j])); ++j) {
        w += static_cast<char>(std::tolower(static_cast<unsigned char>(s[j])));
      }
      if (!extract::RelationKey(w).empty()) return "";
      if (std::find(kOwnWords.begin(), kOwnWords.end(), w) != kOwnWords.end()) return "";
      if (words > 1 && std::isupper(static_cast<unsigned char>(s[i])) && w != "i") return "";
    }
  }
  return request ? "request" : "question";
}

}  // namespace engram
