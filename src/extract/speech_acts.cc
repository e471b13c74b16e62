// What a clause does and how much it says (speech_acts.h).
#include "extract/speech_acts.h"

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include "extract/changes.h"
#include "extract/clauses.h"
#include "extract/english_words.h"
#include "extract/lexicon.h"
#include "text/find.h"
#include "text/time_expressions.h"
#include "text/utf8.h"

namespace engram::extract {
namespace {

bool IsWordChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '\'' ||
         static_cast<unsigned char>(c) >= 0x80;
}

}  // namespace

bool IsElaboration(const std::string& clause, bool zh) {
  if (zh) {
    for (std::string_view p : {"它", "这", "那", "他", "她", "其", "这样", "算是", "而且是"}) {
      if (clause.starts_with(p)) return true;
    }
    // "M2那款", "白色那个", "16G的": which one, said of what the clause before named
    for (std::string_view e : {"那款", "那个", "那种", "那台", "那辆", "那只", "版的", "色的"}) {
      if (clause.ends_with(e) && CountCodepoints(clause) <= 8) return true;
    }
    return false;
  }
  const std::string low = LowerAscii(clause);
  for (std::string_view p :
       {"it ", "it's", "its ", "this ", "that ", "that's", "they ", "they're", "these ", "those ",
        "which ", "she ", "he ", "she's", "he's", "there ", "there's", "so ", "then "}) {
    if (low.starts_with(p)) return true;
  }
  return false;
}

std::optional<MemoryType> DecisionMarker(const std::string& clause, bool zh) {
  const std::string low = LowerAscii(clause);
  if (zh) {
    for (std::string_view m : {"决定了", "我决定了", "想好了", "我想好了", "定了", "说定了"}) {
      if (clause == m) return MemoryType::kDecision;
    }
    for (std::string_view m : {"我保证", "我发誓", "我答应你"}) {
      if (clause == m) return MemoryType::kCommitment;
    }
    // "我向用户承诺，…", "我答应了女儿，…": a promise whose content comes next
    for (std::string_view end : {"承诺", "保证", "答应", "发誓", "答应了"}) {
      if (clause.ends_with(end) && clause.size() <= 30) return MemoryType::kCommitment;
    }
    return std::nullopt;
  }
  for (std::string_view m : {"i've made up my mind", "i have made up my mind", "made up my mind",
                             "decision made", "it's decided", "it is decided", "i've decided",
                             "i have decided", "we've decided", "we have decided", "decided"}) {
    if (low == m) return MemoryType::kDecision;
  }
  if (low.starts_with("decision made on ") || low.starts_with("decision on ") ||
      low.starts_with("decided on the ") || low.starts_with("final decision")) {
    return MemoryType::kDecision;
  }
  for (std::string_view m : {"i promise", "promise", "i swear", "i promised"}) {
    if (low == m) return MemoryType::kCommitment;
  }
  return std::nullopt;
}

bool AnnouncesFacts(const std::string& clause, bool zh) {
  if (zh) {
    for (std::string_view m : {"记一下", "帮我记", "记住", "备忘", "事实"}) {
      if (ContainsText(clause, m)) return true;
    }
    return false;
  }
  const std::string low = LowerAscii(clause);
  for (std::string_view m : {"fact:", "facts worth", "fact for the file", "for the record",
                             "note to self", "remember this", "worth filing", "for the file"}) {
    if (ContainsText(low, m)) return true;
  }
  return low == "fact" || low == "facts";
}

bool IsCorrectionPhrase(const std::string& clause, bool zh) {
  if (zh) {
    for (std::string_view w : {"错", "搞混", "糊涂", "记混", "口误", "逗号的", "的那个"}) {
      if (ContainsText(clause, w) && clause.size() <= 30) return true;
    }
    return false;
  }
  const std::string low = LowerAscii(clause);
  for (std::string_view w : {"mixed up", "mixed them up", "my bad", "typo", "got that wrong",
                             "brain fart", "autocorrect", "long day", "double checked",
                             "keep forgetting", "wrong one", "misspoke", "misspelled"}) {
    if (ContainsText(low, w)) return true;
  }
  return false;
}

bool IsEventClause(const std::string& clause, bool zh) {
  if (zh) return ContainsText(clause, "了") || ContainsText(clause, "过");
  for (const auto& t : en::Tokenize(clause)) {
    if (IsEnglishPastForm(t.low) && t.low != "was" && t.low != "were" && t.low != "had")
      return true;
  }
  return false;
}

bool IsWeakStatement(const std::string& clause) {
  static const std::vector<std::string_view> kCommon = {
      "i",      "me",    "my",       "we",   "us",    "our",    "it",     "that",  "this",  "them",
      "they",   "is",    "am",       "are",  "was",   "were",   "be",     "been",  "have",  "has",
      "had",    "do",    "did",      "does", "so",    "just",   "will",   "would", "can",   "could",
      "should", "to",    "the",      "a",    "an",    "and",    "or",     "but",   "of",    "in",
      "on",     "at",    "for",      "with", "about", "really", "very",   "too",   "also",  "still",
      "now",    "then",  "say",      "said", "says",  "want",   "wants",  "feel",  "feels", "keep",
      "keeps",  "think", "know",     "need", "make",  "take",   "give",   "go",    "get",   "got",
      "use",    "using", "strongly", "yes",  "no",    "not",    "there",  "here",  "all",   "some",
      "it's",   "i'm",   "i'll",     "i'd",  "thing", "stuff",  "way",    "going", "like",  "love",
      "hate",   "mine",  "opinion",  "view", "read",  "take",   "defend", "there", "be"};
  size_t content = 0, words = 0;
  std::string w;
  bool capital = false;
  auto flush = [&] {
    if (!w.empty() && std::find(kCommon.begin(), kCommon.end(), w) == kCommon.end()) {
      // a name past the first word says something by itself: "I'm a Googler"; so does a known
      // place however it is typed ("been in phoenix since 2017")
      content += (capital && words > 0) || IsKnownCity(w, false) ? 2 : 1;
    }
    if (!w.empty()) ++words;
    w.clear();
    capital = false;
  };
  for (char c : clause) {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '\'') {
      if (w.empty()) capital = std::isupper(static_cast<unsigned char>(c)) != 0;
      w += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else {
      flush();
    }
  }
  flush();
  return content <= 1;
}

bool IsWeakStatementZh(const std::string& clause) {
  std::string rest = clause;
  for (std::string_view w : {"我们", "我", "用户", "它们", "它", "这", "那", "把", "在", "的", "了",
                             "想",   "要", "会",   "将",   "上", "里", "也", "都", "就", "还", "很",
                             "是",   "对", "他们", "她",   "他", "着", "过", "吧", "呢", "啊"}) {
    for (size_t k = rest.find(w); k != std::string::npos; k = rest.find(w)) rest.erase(k, w.size());
  }
  size_t chars = 0;
  for (size_t i = 0; i < rest.size(); ++i) {
    chars += (static_cast<unsigned char>(rest[i]) & 0xC0) != 0x80 &&
             static_cast<unsigned char>(rest[i]) >= 0x80;
  }
  for (char c : rest) {
    if (std::isalnum(static_cast<unsigned char>(c))) return false;
  }
  // "我是独生女" says something in three characters; "我把它放在清单上" refers back to what came
  // before
  // "我是回族", "我是色弱": what the speaker is, in two characters, says something (not "我是说",
  // "我是真的", which lead into more)
  if (chars == 2 && clause.starts_with("我是") && clause.size() == 12) {
    const std::string_view what = std::string_view(clause).substr(6);
    bool vague = false;
    for (std::string_view v : {"这样", "那样", "真的", "对的", "认真", "觉得", "问问", "随便",
                               "不是", "自己", "说的", "想说", "怕了", "服了", "醉了"}) {
      vague = vague || what == v;
    }
    if (!vague) return false;
  }
  if (chars <= 2 || (chars <= 4 && ContainsText(clause, "它"))) return true;
  // "真的一点都不行", "完全受不了": how strongly, of what the clause before said, and nothing else
  std::string verdict = rest;
  for (std::string_view w : {"真的", "一点点", "一点", "完全", "实在", "根本", "绝对", "真", "特别",
                             "非常", "超级", "太", "都"}) {
    for (size_t k = verdict.find(w); k != std::string::npos; k = verdict.find(w))
      verdict.erase(k, w.size());
  }
  for (std::string_view v : {"不行", "受不了", "不可以", "不能", "不要", "没问题", "可以", ""}) {
    if (verdict == v) return true;
  }
  return false;
}

bool IsCondition(const std::string& clause, bool zh) {
  if (zh) {
    for (std::string_view w : {"如果", "要是", "假如", "万一", "只要"}) {
      if (clause.starts_with(w)) return true;
    }
    return false;
  }
  const std::string low = LowerAscii(clause);
  return low.starts_with("if ") || low.starts_with("unless ") || low.starts_with("in case ");
}

bool IsSubordinate(const std::string& clause, bool zh) {
  if (zh) {
    for (std::string_view w :
         {"如果", "要是", "假如", "虽然", "尽管", "以便", "为了", "作为", "除非", "只要", "即使",
          "否则", "因为", "所以", "但", "可是", "不过", "而"}) {
      if (clause.starts_with(w)) return true;
    }
    for (std::string_view w : {"之前", "之后", "以后", "以前", "的时候", "的话"}) {
      if (clause.ends_with(w)) return true;
    }
    return false;
  }
  const std::string low = LowerAscii(clause);
  for (std::string_view w : {"so that ", "in order to ", "as a ", "although ", "even though ",
                             "unless ", "otherwise ", "which means ", "meaning ", "if "}) {
    if (low.starts_with(w)) return true;
  }
  return false;
}

bool IsQuestionZh(std::string_view s) {
  for (std::string_view q : {"什么", "哪里", "哪儿", "哪个", "谁", "多少", "怎么", "为什么", "为啥",
                             "是不是", "有没有", "能不能", "要不要", "会不会", "吗", "？", "?"}) {
    if (ContainsText(s, q)) return true;
  }
  for (std::string_view q :
       {"如何", "何时", "怎样", "多久", "好不好", "行不行", "可不可以", "对不对"}) {
    if (ContainsText(s, q)) return true;
  }
  // "这个能吃不", "行不": a verb, then 不 at the end asks (not "我才不", "并不")
  {
    std::string_view t = s;
    while (!t.empty() && (t.ends_with("？") || t.ends_with("?") || t.ends_with(" "))) {
      t.remove_suffix(t.ends_with("？") ? 3 : 1);
    }
    if (t.size() >= 6 && t.ends_with("不")) {
      const std::string_view before = t.substr(t.size() - 6, 3);
      bool emphatic = false;
      for (std::string_view adverb : {"才", "并", "也", "就", "都", "还", "绝", "决", "不", "可"}) {
        emphatic = emphatic || before == adverb;
      }
      if (!emphatic) return true;
    }
  }
  // "冷不冷", "贵不贵", "去不去": a word, 不, the same word asks (not "一点不冷", "不不不")
  for (size_t k = s.find("不"); k != std::string_view::npos; k = s.find("不", k + 3)) {
    if (k < 3 || k + 6 > s.size()) continue;
    const std::string_view before = s.substr(k - 3, 3), after = s.substr(k + 3, 3);
    if (before == after && before != "不" && static_cast<unsigned char>(before[0]) >= 0xE0) {
      return true;
    }
  }
  // "先刷墙还是先铺地板": one or the other, asked
  if (const size_t k = s.find("还是"); k != std::string_view::npos && k > 0) {
    const std::string_view after = s.substr(k + 6);
    if ((s.starts_with("先") && after.starts_with("先")) || after.ends_with("好") ||
        after.ends_with("呢") || after.ends_with("比较好")) {
      return true;
    }
  }
  // the spoken question words: "有啥技巧", "从哪开始练", "咋办"; not "没啥", "啥都吃", "哪都行",
  // "哪怕" (a statement that says any or none)
  for (std::string_view q : {"啥", "咋", "哪"}) {
    for (size_t k = s.find(q); k != std::string_view::npos; k = s.find(q, k + q.size())) {
      const std::string_view before = s.substr(0, k);
      const std::string_view after = s.substr(k + q.size());
      if (before.ends_with("没") || after.starts_with("都") || after.starts_with("也") ||
          after.starts_with("怕")) {
        continue;
      }
      return true;
    }
  }
  return false;
}

bool IsSuggestionZh(std::string_view s) {
  while (!s.empty() && (s.ends_with("。") || s.ends_with("！") || s.ends_with("～") ||
                        s.ends_with("~") || s.ends_with("!") || s.ends_with("."))) {
    s.remove_suffix(s.ends_with("。") || s.ends_with("！") || s.ends_with("～") ? 3 : 1);
  }
  return (s.starts_with("我们") || s.starts_with("咱们")) && s.ends_with("吧");
}

bool IsRequestZh(std::string_view s) {
  for (std::string_view q :
       {"请", "帮我", "帮忙", "告诉我", "提醒我", "推荐一下", "你能", "你可以"}) {
    if (s.starts_with(q) || ContainsText(s, q)) return true;
  }
  if (s.starts_with("给我") && RelationKey(s.substr(6, 3)).empty() &&
      RelationKey(s.substr(6, 6)).empty()) {
    return true;  // "给我推荐…", not "给我妈的生活费…"
  }
  // "我想知道明天的天气", "我想问一下…": a question said as a statement
  for (std::string_view q : {"想知道", "想问", "想了解一下", "好奇"}) {
    if (ContainsText(s, q)) return true;
  }
  return s.starts_with("推荐");
}

bool IsIndirectQuestionEn(const std::string& low) {
  for (std::string_view w : {"want to know", "wanna know", "need to know", "like to know",
                             "i wonder", "i'm wondering", "i am wondering", "i was wondering",
                             "curious whether", "curious if", "not sure if", "not sure whether"}) {
    if (ContainsText(low, w)) return true;
  }
  return false;
}

// "need tips for blackout curtains", "want ideas for a 5yo's party", "no butter in it please":
// what the user asks the assistant for, said without a question word. Nothing in it is about
// the user ("I need a new laptop" names no request word and stays a need).
bool IsRequestEn(const std::string& low) {
  static constexpr std::string_view kFirstPerson[] = {" i ",    " i'm ", " im ", " my ",  " me ",
                                                      " i've ", " ive ", " we ", " our ", " us "};
  std::string_view s = low;
  while (!s.empty() && (s.back() == ' ' || s.back() == '.' || s.back() == '!' ||
                        static_cast<unsigned char>(s.back()) >= 0x80)) {
    s.remove_suffix(1);  // trailing punctuation and emoji
  }
  // "… please" with no first person in it ("call me Liz please" says how to address the user)
  const std::string spaced = " " + std::string(s) + " ";
  const bool first_person =
      std::any_of(std::begin(kFirstPerson), std::end(kFirstPerson),
                  [&](std::string_view w) { return spaced.find(w) != std::string::npos; });
  // (nor one with a number in it: "hiking boots in size 9 pls" says the user's size)
  const bool number = std::any_of(
      s.begin(), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
  for (std::string_view w : {" please", " pls", " plz"}) {
    if (s.ends_with(w) && !first_person && !number) return true;
  }
  std::string_view rest = s;
  for (std::string_view lead : {"i really ", "i ", "really ", "just ", "still "}) {
    if (rest.starts_with(lead)) rest.remove_prefix(lead.size());
  }
  bool asking = false;
  for (std::string_view v : {"need", "needs", "want", "wanted", "would like", "looking for",
                             "could use", "wanna", "gimme"}) {
    if (StartsWithWord(rest, v)) {
      rest.remove_prefix(v.size());
      asking = true;
      break;
    }
  }
  if (!asking) return false;
  // the request word within the next few words: "need some quick tips", "need ur help"
  int words = 0;
  for (size_t i = 0; i < rest.size() && words <= 4; ++i) {
    if (rest[i] != ' ' || i + 1 >= rest.size() || rest[i + 1] == ' ') continue;
    ++words;
    const std::string_view w = rest.substr(i + 1);
    for (std::string_view r :
         {"help", "tips", "ideas", "advice", "suggestions", "recs", "recommendations", "feedback",
          "a hand", "pointers", "a recipe", "recipes", "a template", "a checklist", "a script",
          "a draft", "a list of", "options"}) {
      if (StartsWithWord(w, r)) return true;
    }
  }
  return false;
}

bool IsQuestionEn(const std::string& clause) {
  static const std::vector<std::string_view> kStarts = {
      "what",  "where",  "who",     "when",  "why",       "how",       "which",   "do",     "does",
      "did",   "is",     "are",     "can",   "could",     "would",     "should",  "will",   "shall",
      "whats", "wheres", "please",  "tell",  "remind",    "help",      "show",    "give",   "let",
      "find",  "search", "explain", "write", "translate", "recommend", "suggest", "any",    "keep",
      "make",  "send",   "book",    "add",   "pls",       "plz",       "redo",    "rewrite"};
  const std::string low = LowerAscii(clause);
  for (std::string_view w : kStarts) {
    if (StartsWithWord(low, w)) return true;
  }
  return IsIndirectQuestionEn(low) || IsRequestEn(low);
}

bool IsHypotheticalEn(const std::string& clause) {
  const std::string low = " " + LowerAscii(clause) + " ";
  for (std::string_view w : {" if ", " unless ", " wish ", " would be ", " suppose "}) {
    if (ContainsText(low, w)) return true;
  }
  return false;
}

bool NamesSomething(const std::string& clause, bool zh) {
  if (zh) {
    for (char c : clause) {
      if (std::isalnum(static_cast<unsigned char>(c))) return true;
    }
    return false;
  }
  size_t words = 0;
  for (size_t i = 0; i < clause.size(); ++i) {
    if (i > 0 && IsWordChar(clause[i]) && !IsWordChar(clause[i - 1])) ++words;
    if (std::isdigit(static_cast<unsigned char>(clause[i]))) return true;
    if (words >= 1 && std::isupper(static_cast<unsigned char>(clause[i])) &&
        (i == 0 || !IsWordChar(clause[i - 1])) && clause.substr(i, 2) != "I " &&
        clause.substr(i, 2) != "I'") {
      return true;
    }
  }
  return false;
}

bool HasContent(const std::string& clause, bool zh) {
  if (zh) {
    std::string rest = clause;
    for (std::string_view w :
         {"我们", "我",   "用户", "了",   "的", "是",   "就",   "也",   "都", "还",
          "很",   "这",   "那",   "个",   "吧", "啊",   "呢",   "嗯",   "哦", "好",
          "这样", "一下", "从",   "开始", "起", "以后", "以来", "之后", "到"}) {
      for (size_t k = rest.find(w); k != std::string::npos; k = rest.find(w))
        rest.erase(k, w.size());
    }
    // two Chinese characters; or a number and a word ("25岁", "3只")
    const bool digit = std::any_of(rest.begin(), rest.end(), [](char c) {
      return std::isdigit(static_cast<unsigned char>(c));
    });
    return rest.size() >= 6 || (digit && CountCodepoints(rest) >= 2);
  }
  static const std::vector<std::string_view> kEmpty = {
      "i",      "me",       "my",    "we",    "us",     "our",   "it",    "that",  "this",
      "is",     "am",       "are",   "was",   "were",   "be",    "been",  "being", "have",
      "has",    "had",      "do",    "did",   "does",   "done",  "so",    "just",  "finally",
      "really", "for",      "a",     "an",    "the",    "while", "now",   "then",  "too",
      "also",   "still",    "again", "of",    "to",     "in",    "on",    "at",    "lol",
      "haha",   "yeah",     "ok",    "not",   "can",    "will",  "would", "get",   "got",
      "go",     "going",    "went",  "thing", "things", "stuff", "all",   "some",  "any",
      "there",  "here",     "and",   "or",    "but",    "with",  "about", "like",  "way",
      "much",   "very",     "well",  "one",   "time",   "kinda", "sorta", "gonna", "wanna",
      "since",  "starting", "from",  "until"};
  size_t content = 0;
  std::string w;
  auto flush = [&] {
    if (!w.empty() && std::find(kEmpty.begin(), kEmpty.end(), w) == kEmpty.end()) ++content;
    w.clear();
  };
  for (char c : clause) {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '\'')
      w += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    else
      flush();
  }
  flush();
  return content >= 1;
}

size_t WordCount(const std::string& s, bool zh) {
  if (zh) {
    size_t n = 0;
    for (size_t i = 0; i < s.size(); ++i) n += (static_cast<unsigned char>(s[i]) & 0xC0) != 0x80;
    return n / 2;  // about two characters a word
  }
  size_t n = 0;
  for (size_t i = 0; i < s.size(); ++i) n += IsWordChar(s[i]) && (i == 0 || !IsWordChar(s[i - 1]));
  return n;
}

bool AddressesListener(Kind kind, const std::string& low_content) {
  if (kind != Kind::kLike && kind != Kind::kDislike && kind != Kind::kGoal &&
      kind != Kind::kGeneric) {
    return false;
  }
  const std::string padded = " " + low_content + " ";
  for (std::string_view w : {" you ", " your ", " you're ", " you've ", " yours "}) {
    if (ContainsText(padded, w)) return true;
  }
  // "I love how it turned out", "I love that": the object is the conversation itself
  for (std::string_view w : {" how it ", " how that ", " what it ", " what that ", " how this "}) {
    if (ContainsText(padded, w)) return true;
  }
  return false;
}

bool FutureMarker(const std::string& text, bool zh) {
  if (zh) {
    if (text.ends_with("了")) return false;  // done
    for (std::string_view m : {"要", "会", "打算", "准备", "计划", "将", "得去", "想"}) {
      if (ContainsText(text, m)) return true;
    }
    return false;
  }
  const std::string low = " " + LowerAscii(text) + " ";
  for (std::string_view m : {" will ", "'ll ", " going to ", " gonna ", " plan ", " planning ",
                             " have to ", " need to ", " about to ", " tonight "}) {
    if (ContainsText(low, m)) return true;
  }
  return false;
}

bool PastHabit(const std::string& text) {
  const std::string low = " " + LowerAscii(text) + " ";
  const size_t k = low.find(" used to ");
  if (k == std::string::npos) return false;
  const std::string before = low.substr(0, k);
  for (std::string_view be :
       {" am", "'m", " is", " are", " get", " getting", " got", " be", " been"}) {
    if (before.ends_with(be)) return false;
  }
  return true;
}

}  // namespace engram::extract
