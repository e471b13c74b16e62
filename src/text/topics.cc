#include "text/topics.h"

#include <algorithm>
#include <unordered_map>

#include "text/lexicon_data.h"

namespace engram {
namespace {

// What a lexicon word marks, beside its topics (bits 0..31 of a Mask).
constexpr uint64_t kOthers = uint64_t{1} << 32;
constexpr uint64_t kPast = uint64_t{1} << 33;
constexpr uint64_t kFirstPerson = uint64_t{1} << 34;
using Mask = uint64_t;

bool IsAsciiWordChar(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '\'' || c == '-';
}

bool IsAscii(std::string_view s) {
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return static_cast<unsigned char>(c) < 0x80; });
}

size_t Utf8Length(unsigned char lead) {
  return lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
}

// The UTF-8 character at `at`, its bytes packed into one number (a map key without a string).
uint32_t FirstChar(std::string_view s, size_t at) {
  const size_t n = std::min(Utf8Length(static_cast<unsigned char>(s[at])), s.size() - at);
  uint32_t key = 0;
  for (size_t k = 0; k < n; ++k) key = key << 8 | static_cast<unsigned char>(s[at + k]);
  return key;
}

// Every lexicon word, each with what it marks, laid out for one pass over a text: English words
// by the word, English phrases (a few) as " phrase " in the text's words, anything else (Chinese)
// by its first character, compared where that character occurs.
struct Lexicon {
  std::vector<std::string> topics;  // by bit
  std::vector<std::vector<std::string>> questions;
  std::vector<std::pair<std::string, int>> slot_topics;  // attribute → bit
  TopicSet many_valued = 0;  // topics of many values at once (the `many` line)
  TopicSet one_valued = 0;   // topics of one value at a time (the `one` line)
  std::unordered_map<std::string, Mask> words;
  std::vector<std::pair<std::string, Mask>> phrases;
  std::unordered_map<uint32_t, std::vector<std::pair<std::string, Mask>>> by_first_char;

  void Add(const std::string& word, Mask mask) {
    if (!IsAscii(word)) {
      by_first_char[FirstChar(word, 0)].emplace_back(word, mask);
    } else if (word.find(' ') != std::string::npos) {
      phrases.emplace_back(" " + word + " ", mask);
    } else {
      words[word] |= mask;
    }
  }

  Mask Read(std::string_view text) const {
    Mask out = 0;
    std::string spaced = " ";  // the text's ASCII words, lowercase, single-spaced
    std::string word;
    auto end_word = [&] {
      if (word.empty()) return;
      if (auto it = words.find(word); it != words.end()) out |= it->second;
      spaced += word;
      spaced += ' ';
      word.clear();
    };
    for (size_t i = 0; i < text.size();) {
      unsigned char c = static_cast<unsigned char>(text[i]);
      if (c >= 0x80) {
        end_word();
        const size_t n = std::min(Utf8Length(c), text.size() - i);
        if (!by_first_char.empty()) {
          if (auto it = by_first_char.find(FirstChar(text, i)); it != by_first_char.end()) {
            for (const auto& [w, mask] : it->second) {
              if (text.compare(i, w.size(), w) == 0) out |= mask;
            }
          }
        }
        i += n;
        continue;
      }
      if (c >= 'A' && c <= 'Z') c = static_cast<unsigned char>(c - 'A' + 'a');
      if (IsAsciiWordChar(c)) {
        word += static_cast<char>(c);
      } else {
        end_word();
      }
      ++i;
    }
    end_word();
    for (const auto& [phrase, mask] : phrases) {
      if ((out & mask) != mask && spaced.find(phrase) != std::string::npos) out |= mask;
    }
    return out;
  }
};

const Lexicon& TheLexicon() {
  static const Lexicon* lexicon = [] {
    auto* t = new Lexicon;
    for (const char* lang : {"en", "zh"}) {
      const std::string dir = std::string(lang) + "/";
      for (const auto& [topic, words] : LexiconEntries(dir + "topics.tsv")) {
        if (topic == "many" || topic == "one") continue;  // read below, once topics have bits
        size_t bit = std::find(t->topics.begin(), t->topics.end(), topic) - t->topics.begin();
        if (bit == t->topics.size()) {
          if (bit >= 32) continue;  // a TopicSet has 32 bits
          t->topics.push_back(topic);
        }
        for (const std::string& w : words) t->Add(w, Mask{1} << bit);
      }
      t->questions.resize(t->topics.size());
      for (const auto& [topic, words] : LexiconEntries(dir + "topic_questions.tsv")) {
        const size_t bit = std::find(t->topics.begin(), t->topics.end(), topic) - t->topics.begin();
        if (bit == t->topics.size()) continue;
        for (const std::string& w : words) {
          auto& q = t->questions[bit];
          if (std::find(q.begin(), q.end(), w) == q.end()) q.push_back(w);
        }
      }
      for (const auto& [key, words] : LexiconEntries(dir + "others.tsv")) {
        for (const std::string& w : words) t->Add(w, kOthers);
      }
      for (const auto& [key, words] : LexiconEntries(dir + "past.tsv")) {
        for (const std::string& w : words) t->Add(w, kPast);
      }
    }
    for (const char* lang : {"en", "zh"}) {
      for (const auto& [key, words] : LexiconEntries(std::string(lang) + "/topics.tsv")) {
        if (key != "many" && key != "one") continue;
        TopicSet& set = key == "many" ? t->many_valued : t->one_valued;
        for (const std::string& w : words) {
          const size_t bit = std::find(t->topics.begin(), t->topics.end(), w) - t->topics.begin();
          if (bit < t->topics.size()) set |= TopicSet{1} << bit;
        }
      }
    }
    for (const auto& [attribute, words] : LexiconEntries("slot_topics.tsv")) {
      if (words.empty()) continue;
      const size_t bit =
          std::find(t->topics.begin(), t->topics.end(), words.front()) - t->topics.begin();
      if (bit < t->topics.size()) t->slot_topics.emplace_back(attribute, bit);
    }
    // The speaker's own words are grammar, not a list anyone extends.
    for (const char* w : {"i", "i'm", "i've", "i'd", "i'll", "im", "me", "my", "mine", "myself",
                          "we", "we're", "we've", "our", "us", "我"}) {
      t->Add(w, kFirstPerson);
    }
    return t;
  }();
  return *lexicon;
}

}  // namespace

TextTraits ReadTextTraits(std::string_view text) {
  const Mask m = TheLexicon().Read(text);
  TextTraits out;
  out.topics = static_cast<TopicSet>(m & 0xFFFFFFFFu);
  out.others = (m & kOthers) != 0;
  out.past = (m & kPast) != 0;
  out.first_person = (m & kFirstPerson) != 0;
  out.question = text.find('?') != std::string_view::npos ||
                 text.find("\xEF\xBC\x9F") != std::string_view::npos;  // ？
  return out;
}

TopicSet TopicsOfText(std::string_view text) { return ReadTextTraits(text).topics; }

TopicSet TopicOfSlot(std::string_view slot) {
  const size_t slash = slot.find('/');
  if (slash == std::string_view::npos) return 0;
  std::string_view attribute = slot.substr(slash + 1);
  attribute = attribute.substr(0, attribute.find(':'));
  for (const auto& [name, bit] : TheLexicon().slot_topics) {
    if (name == attribute) return TopicSet{1} << bit;
  }
  return 0;
}

std::vector<std::string> QuestionWordsOfTopics(TopicSet topics) {
  const Lexicon& t = TheLexicon();
  std::vector<std::string> out;
  for (size_t bit = 0; bit < t.questions.size(); ++bit) {
    if (!(topics >> bit & 1)) continue;
    for (const std::string& w : t.questions[bit]) {
      if (std::find(out.begin(), out.end(), w) == out.end()) out.push_back(w);
    }
  }
  return out;
}

TopicSet ManyValuedTopics() { return TheLexicon().many_valued; }
TopicSet OneValuedTopics() { return TheLexicon().one_valued; }

std::string TopicNames(TopicSet topics) {
  const Lexicon& t = TheLexicon();
  std::string out;
  for (size_t bit = 0; bit < t.topics.size(); ++bit) {
    if (topics >> bit & 1) out += (out.empty() ? "" : ", ") + t.topics[bit];
  }
  return out;
}

bool AsksAboutPast(std::string_view question) { return ReadTextTraits(question).past; }

}  // namespace engram
