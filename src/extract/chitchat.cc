#include "extract/chitchat.h"

#include <unicode/uchar.h>

#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "text/find.h"
#include "text/normalizer.h"
#include "text/utf8.h"

namespace engram {
namespace {

struct Phrase {
  std::string_view text;  // English: words separated by single spaces; Chinese: characters
  std::string_view kind;
};

constexpr std::string_view kGreeting = "greeting";
constexpr std::string_view kThanks = "thanks";
constexpr std::string_view kAck = "acknowledgement";
constexpr std::string_view kLaughter = "laughter";
constexpr std::string_view kFiller = "filler";
constexpr std::string_view kFarewell = "farewell";

// English phrases, matched whole-word, longest first at each position.
const std::vector<Phrase>& EnglishPhrases() {
  static const std::vector<Phrase> k = [] {
    std::vector<Phrase> v;
    auto add = [&](std::string_view kind, std::initializer_list<std::string_view> words) {
      for (std::string_view w : words) v.push_back({w, kind});
    };
    add(kGreeting, {"hi",
                    "hii",
                    "hiii",
                    "hello",
                    "helo",
                    "hey",
                    "heya",
                    "hiya",
                    "yo",
                    "howdy",
                    "sup",
                    "good morning",
                    "good afternoon",
                    "good evening",
                    "morning",
                    "evening",
                    "gm",
                    "hey there",
                    "hi there",
                    "hello there",
                    "how are you",
                    "how are you doing",
                    "how r u",
                    "how's it going",
                    "hows it going",
                    "how is it going",
                    "what's up",
                    "whats up",
                    "wassup",
                    "nice to meet you",
                    "long time no see",
                    "welcome back",
                    "greetings"});
    add(kThanks, {"thanks",         "thank you",
                  "thank u",        "thx",
                  "thnx",           "ty",
                  "tysm",           "tyvm",
                  "cheers",         "much appreciated",
                  "appreciate it",  "i appreciate it",
                  "you're welcome", "youre welcome",
                  "no problem",     "np",
                  "no worries",     "my pleasure",
                  "you rock",       "you're the best",
                  "ur the best",    "thanks a lot",
                  "thanks again",   "many thanks"});
    add(kAck, {"ok",
               "okay",
               "okie",
               "okie dokie",
               "okey",
               "okey dokey",
               "k",
               "kk",
               "sure",
               "got it",
               "gotcha",
               "i see",
               "makes sense",
               "alright",
               "all right",
               "right",
               "yes",
               "yeah",
               "yep",
               "yup",
               "ya",
               "yea",
               "no",
               "nope",
               "nah",
               "sounds good",
               "sounds great",
               "sounds fun",
               "will do",
               "fair enough",
               "noted",
               "roger",
               "roger that",
               "of course",
               "for sure",
               "indeed",
               "exactly",
               "true",
               "agreed",
               "same",
               "me too",
               "fine",
               "good",
               "great",
               "perfect",
               "nice",
               "cool",
               "awesome",
               "amazing",
               "wow",
               "neat",
               "sweet",
               "lovely",
               "wonderful",
               "excellent",
               "fantastic",
               "brilliant",
               "yess",
               "noo",
               "okk",
               "niice",
               "coool",
               "that's great",
               "that's awesome",
               "that's nice",
               "that's cool",
               "that's good",
               "that's amazing",
               "thats great",
               "thats cool",
               "good to know",
               "love it",
               "interesting",
               "really",
               "no way",
               "omg",
               "oh my god",
               "oh my gosh",
               "damn",
               "dang",
               "yikes",
               "oops",
               "whoa",
               "woah",
               "cute",
               "aww",
               "aw",
               "yay",
               "woohoo",
               "woo",
               "haha nice",
               "nice one",
               "bingo",
               "congrats",
               "congratulations",
               "lgtm",
               "ikr",
               "fr",
               "tbh",
               "idk"});
    add(kLaughter, {"lol", "lmao", "lmfao", "rofl", "ha", "hah", "heh", "xd", "lolol", "lool"});
    add(kFiller, {"hm",      "er",        "erm",     "oh",     "ah",      "eh",       "ooh",
                  "ahh",     "well",      "so",      "anyway", "anyways", "just",     "again",
                  "so much", "very much", "a lot",   "a ton",  "tho",     "though",   "then",
                  "man",     "dude",      "buddy",   "mate",   "friend",  "guys",     "bro",
                  "there",   "too",       "as well", "soo",    "sooo",    "very",     "super",
                  "totally", "pretty",    "then",    "and",    "btw",     "haha then"});
    add(kFarewell, {"bye",
                    "bye bye",
                    "byebye",
                    "goodbye",
                    "good bye",
                    "see you",
                    "see ya",
                    "see you later",
                    "see you soon",
                    "see you tomorrow",
                    "talk later",
                    "talk to you later",
                    "talk soon",
                    "ttyl",
                    "later",
                    "catch you later",
                    "take care",
                    "have a good one",
                    "have a nice day",
                    "have a good day",
                    "have a good night",
                    "good night",
                    "goodnight",
                    "night",
                    "night night",
                    "nite",
                    "gn",
                    "gotta go",
                    "g2g",
                    "gtg",
                    "peace",
                    "cya",
                    "bye for now"});
    return v;
  }();
  return k;
}

// Chinese phrases, matched longest first at each character.
const std::vector<Phrase>& ChinesePhrases() {
  static const std::vector<Phrase> k = [] {
    std::vector<Phrase> v;
    auto add = [&](std::string_view kind, std::initializer_list<std::string_view> words) {
      for (std::string_view w : words) v.push_back({w, kind});
    };
    add(kGreeting,
        {"你好", "您好", "嗨", "哈喽", "哈啰", "哈罗", "早", "早上好", "早安", "上午好", "中午好",
         "下午好", "晚上好", "在吗", "在不在", "你好吗", "最近好吗", "好久不见", "大家好"});
    add(kThanks, {"谢谢",   "谢了",   "谢啦",   "多谢",   "感谢",     "感谢你", "谢谢你",
                  "谢谢您", "辛苦了", "辛苦啦", "辛苦",   "麻烦你了", "麻烦了", "不客气",
                  "没事",   "没关系", "不用谢", "客气了", "谢",       "感恩",   "爱你"});
    add(kAck,
        {"好",     "好的",   "好滴",   "好嘞",     "好哒",   "好吧",   "行",       "行吧",
         "可以",   "对",     "对的",   "对对",     "是的",   "是啊",   "没错",     "收到",
         "明白",   "明白了", "了解",   "了解了",   "知道了", "懂了",   "好说",     "成",
         "得嘞",   "当然",   "确实",   "真的",     "是吗",   "这样啊", "原来如此", "原来是这样",
         "太好了", "太棒了", "真棒",   "棒",       "厉害",   "牛",     "好厉害",   "不错",
         "挺好",   "很好",   "真好",   "好棒",     "哇塞",   "天哪",   "天啊",     "我的天",
         "酷",     "赞",     "笑死",   "笑死我了", "绝了",   "可爱",   "好可爱",   "好家伙",
         "有意思", "有道理", "没问题", "好耶",     "耶",     "妥",     "妥了",     "嗯呢",
         "也是",   "那好",   "那行",   "行吧",     "好主意", "哇哦",   "厉害了"});
    add(kLaughter, {"嘎嘎", "哈", "呵", "嘿", "嘻"});
    add(kFiller, {"嗯", "哦", "噢", "喔", "啊", "呀", "呢",   "吧",   "啦", "嘛", "哟",
                  "呃", "额", "唉", "哎", "诶", "欸", "那个", "就是", "了", "的", "咯",
                  "呐", "哇", "也", "呗", "哼", "嘞", "哒",   "滴",   "咩", "捏"});
    add(kFarewell, {"拜拜", "拜", "再见", "回见", "下次聊", "先这样", "改天聊", "晚安", "回头聊",
                    "下次见", "明天见", "先撤了", "溜了"});
    return v;
  }();
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
    const Script script = Classify(static_cast<UChar32>(NextCodepoint(s, &i)));
    if (script == Script::kSeparator) {
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

// Covers words[from..] with English phrases; the first non-filler kind met, or "" when some
// word is not chit-chat.
bool CoverEnglish(const std::vector<std::string>& words, std::string_view* kind) {
  size_t i = 0;
  while (i < words.size()) {
    size_t best = 0;
    std::string_view best_kind;
    for (const Phrase& p : EnglishPhrases()) {
      size_t n = 0, at = 0;
      bool ok = true;
      while (at <= p.text.size()) {
        size_t sp = p.text.find(' ', at);
        if (sp == std::string_view::npos) sp = p.text.size();
        if (i + n >= words.size() || words[i + n] != p.text.substr(at, sp - at)) {
          ok = false;
          break;
        }
        ++n;
        at = sp + 1;
      }
      if (ok && n > best) best = n, best_kind = p.kind;
    }
    if (best == 0) return false;
    if (kind->empty() || *kind == kFiller) *kind = best_kind;
    i += best;
  }
  return true;
}

bool CoverChinese(std::string_view s, std::string_view* kind) {
  size_t i = 0;
  while (i < s.size()) {
    size_t best = 0;
    std::string_view best_kind;
    for (const Phrase& p : ChinesePhrases()) {
      if (p.text.size() > best && s.substr(i, p.text.size()) == p.text) {
        best = p.text.size();
        best_kind = p.kind;
      }
    }
    if (best == 0) return false;
    if (kind->empty() || *kind == kFiller) *kind = best_kind;
    i += best;
  }
  return true;
}

}  // namespace

std::string_view ChitChatKind(std::string_view text) {
  std::string normalized = NormalizeForMatching(text);
  for (size_t k = normalized.find("’"); k != std::string::npos; k = normalized.find("’", k)) {
    normalized.replace(k, 3, "'");
  }
  std::vector<Run> runs = Runs(normalized);
  if (runs.empty()) return "";  // emoji or punctuation only: nothing said, but not chit-chat
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

}  // namespace engram
