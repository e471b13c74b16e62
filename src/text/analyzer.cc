#include "text/analyzer.h"

#include <libstemmer.h>
#include <unicode/brkiter.h>
#include <unicode/locid.h>
#include <unicode/unistr.h>

#include <memory>
#include <string>
#include <unordered_set>

#include "text/normalizer.h"

namespace engram {
namespace {

const std::unordered_set<std::string_view>& Stopwords() {
  static const auto* words = new std::unordered_set<std::string_view>{
      // English
      "a", "an", "the", "and", "or", "but", "if", "then", "so", "of", "to", "in", "on", "at", "by",
      "for", "with", "about", "as", "into", "from", "up", "down", "out", "over", "is", "am", "are",
      "was", "were", "be", "been", "being", "do", "does", "did", "doing", "have", "has", "had",
      "having", "i", "me", "my", "mine", "myself", "we", "us", "our", "ours", "you", "your",
      "yours", "he", "him", "his", "she", "her", "hers", "it", "its", "they", "them", "their",
      "theirs", "this", "that", "these", "those", "there", "here", "what", "which", "who", "whom",
      "whose", "when", "where", "why", "how", "all", "any", "both", "each", "few", "more", "most",
      "other", "some", "such", "no", "nor", "not", "only", "own", "same", "than", "too", "very",
      "can", "will", "just", "should", "would", "could", "shall", "may", "might", "must", "also",
      "i'm", "i've", "i'd", "i'll", "you're", "it's", "that's", "don't", "doesn't", "didn't",
      "isn't", "wasn't", "aren't", "weren't", "s", "t", "ve", "ll", "re", "d", "m", "o", "yeah",
      "oh", "hey", "hi", "ok", "okay", "really", "well", "got", "get", "like", "um", "uh",
      // Chinese function words
      "的", "了", "是", "在", "我", "你", "他", "她", "它", "我们", "你们", "他们", "她们", "这",
      "那", "这个", "那个", "和", "与", "也", "就", "都", "而", "及", "着", "吗", "呢", "吧", "啊",
      "呀", "哦", "嗯", "把", "被", "给", "让", "从", "对", "向", "于", "为", "以", "之", "其",
      "或", "但", "但是", "如果", "因为", "所以", "一个", "有", "没有", "不", "很", "还", "又",
      "再", "才", "只", "已经", "什么", "怎么", "哪", "哪里", "吗", "么", "得", "地", "过", "会",
      "要", "能", "可以", "自己", "这样", "那样", "还是", "就是", "一下"};
  return *words;
}

// ICU's word break iterator, one per thread (creating one costs far more than using it).
icu::BreakIterator* WordIterator() {
  thread_local std::unique_ptr<icu::BreakIterator> it = [] {
    UErrorCode status = U_ZERO_ERROR;
    std::unique_ptr<icu::BreakIterator> created(
        icu::BreakIterator::createWordInstance(icu::Locale::getRoot(), status));
    if (U_FAILURE(status)) created.reset();
    return created;
  }();
  return it.get();
}

// Snowball English stemmer, one per thread (sb_stemmer is not thread-safe).
class Stemmer {
 public:
  Stemmer() : stemmer_(sb_stemmer_new("english", "UTF_8")) {}
  ~Stemmer() {
    if (stemmer_) sb_stemmer_delete(stemmer_);
  }
  std::string Stem(const std::string& word) {
    if (!stemmer_) return word;
    const sb_symbol* out = sb_stemmer_stem(
        stemmer_, reinterpret_cast<const sb_symbol*>(word.data()), static_cast<int>(word.size()));
    if (!out) return word;
    return std::string(reinterpret_cast<const char*>(out),
                       static_cast<size_t>(sb_stemmer_length(stemmer_)));
  }

 private:
  sb_stemmer* stemmer_;
};

Stemmer& ThreadStemmer() {
  thread_local Stemmer stemmer;
  return stemmer;
}

bool HasCjk(const icu::UnicodeString& s, int32_t start, int32_t end) {
  for (int32_t i = start; i < end;) {
    UChar32 c = s.char32At(i);
    if (IsCjkCodepoint(static_cast<char32_t>(c))) return true;
    i += U16_LENGTH(c);
  }
  return false;
}

bool HasLetter(std::string_view word) {
  for (unsigned char c : word) {
    if ((c >= 'a' && c <= 'z') || c >= 0x80) return true;
  }
  return false;
}

std::string Utf8Of(const icu::UnicodeString& s, int32_t start, int32_t end) {
  std::string out;
  s.tempSubStringBetween(start, end).toUTF8String(out);
  return out;
}

void AddWord(const icu::UnicodeString& text, int32_t start, int32_t end, Analysis* out) {
  std::string word = Utf8Of(text, start, end);
  if (IsStopword(word)) return;
  if (HasCjk(text, start, end)) {
    out->words.push_back(std::move(word));
    return;
  }
  if (!HasLetter(word)) {  // numbers stay as they are
    out->words.push_back(std::move(word));
    return;
  }
  out->raw_latin_words.push_back(word);
  out->words.push_back(ThreadStemmer().Stem(word));
}

void AddCjkBigrams(const icu::UnicodeString& text, Analysis* out) {
  std::vector<std::pair<int32_t, int32_t>> run;  // [start, end) of each CJK char in the run
  auto flush = [&] {
    if (run.size() == 1) out->cjk_bigrams.push_back(Utf8Of(text, run[0].first, run[0].second));
    for (size_t i = 0; i + 1 < run.size(); ++i) {
      out->cjk_bigrams.push_back(Utf8Of(text, run[i].first, run[i + 1].second));
    }
    if (run.size() > 1) {
      for (const auto& [start, end] : run) out->cjk_characters.push_back(Utf8Of(text, start, end));
    }
    run.clear();
  };
  for (int32_t i = 0; i < text.length();) {
    UChar32 c = text.char32At(i);
    int32_t len = U16_LENGTH(c);
    if (IsCjkCodepoint(static_cast<char32_t>(c))) {
      run.emplace_back(i, i + len);
    } else {
      flush();
    }
    i += len;
  }
  flush();
}

}  // namespace

bool IsStopword(std::string_view normalized_word) { return Stopwords().count(normalized_word) > 0; }

Analysis AnalyzeText(std::string_view raw) {
  Analysis out;
  std::string normalized = NormalizeForMatching(raw);
  // Curly apostrophes are not folded by NFKC; "don’t" must match "don't".
  for (size_t pos; (pos = normalized.find("\xE2\x80\x99")) != std::string::npos;) {
    normalized.replace(pos, 3, "'");
  }
  icu::UnicodeString text = icu::UnicodeString::fromUTF8(
      icu::StringPiece(normalized.data(), static_cast<int32_t>(normalized.size())));
  if (icu::BreakIterator* it = WordIterator()) {
    it->setText(text);
    int32_t start = it->first();
    for (int32_t end = it->next(); end != icu::BreakIterator::DONE; start = end, end = it->next()) {
      if (it->getRuleStatus() == UBRK_WORD_NONE) continue;  // spaces and punctuation
      AddWord(text, start, end, &out);
    }
  }
  AddCjkBigrams(text, &out);
  return out;
}

}  // namespace engram
