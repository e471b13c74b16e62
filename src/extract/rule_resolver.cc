// The built-in conflict resolver ("rules-v2"). Rules, first match wins:
//  1. A neighbour in the same slot:
//     same normalized text → NOOP; the same value (the candidate's value is the neighbour's
//     entity or in its text) with the same polarity → NOOP, or UPDATE when the candidate says
//     half as much again; the candidate is a correction → SUPERSEDE; opposite polarity ("likes
//     X" / "does not like X", same slot user/likes:x) → SUPERSEDE; the candidate contains the
//     neighbour's text → UPDATE; the neighbour contains the candidate's → NOOP; a place
//     pointed at ("住这边", "here"), or a change with no parsed value that names the
//     neighbour's entity ("目前人在南京"), → NOOP; an exclusive
//     slot with another value → SUPERSEDE; a keyed multi-valued slot (user/likes:x: the key
//     names the value) → NOOP. Topic slots that many statements share (user/family:wife) go on.
//  1b. A change of where the user lives or works (a change cue, an exclusive user/location,
//     user/job or user/employer slot) outdates the user's latest statement of it that no slot
//     of this one holds: an untyped one about their home ("我在深圳南山租房" before
//     "新家在东莞松山湖"), or the twin slot (user/job ↔ user/employer: "在字节做产品经理"
//     before "跳槽去腾讯了") → SUPERSEDE. Not what the same message says, a past, a question or
//     someone else's.
//  1c. A new amount of something the user gave an amount for ("budget's more like 18k now"
//     after "budget is 12k max"; "月供降到4800了"): a change word, another value in the same
//     unit, and a topic word shared (or nothing named but the amount, against the user's budget
//     or amount slot) → SUPERSEDE (ChangedAmount).
//  1d. A change on a topic of one value at a time (topics.tsv `one`: where the user lives,
//     works, studies, their partner) in words no frame reads: the user's present state with a
//     change cue outdates their latest older statement on the topic (OutdatedOnTopic).
//  2. A correction with no neighbour in its slot corrects the latest item of its slot family
//     ("我家狗叫逗逗" after "我家狗叫豆豆"), else the user's latest memory of the last minutes
//     (Neighbour::latest) → SUPERSEDE.
//  3. A candidate no rule typed that names the value a typed neighbour is keyed by
//     ("花生我一口都不能碰" after user/allergy:花生) and is no news (no change cue, no new
//     number, no one else, not an event or a plan) → NOOP, whatever its polarity words.
//     Then any neighbour: same normalized text, words overlapping at least duplicate_overlap, or
//     similarity ≥ duplicate_similarity, with the same polarity and the same numbers → NOOP
//     (UPDATE when the candidate is longer and contains the neighbour's text); similarity ≥ 0.9
//     with opposite polarity → SUPERSEDE; similarity ≥ 0.85 and the candidate is longer (same
//     numbers) → UPDATE with the candidate's content.
//  3a. The user saying again what an older statement of theirs is about (a shared name, topic
//     word or known city), adding no other name, number or topic word, without a change → NOOP
//     (SaysAgainInOtherWords).
//  4. Otherwise ADD. An ADD or SUPERSEDE also replaces every neighbour stating a value the
//     candidate says ended (Neighbour::ended), and a positive statement replaces a negative one
//     of its slot family ("我们领养了一只小狗" closes "我现在没养宠物").
#include <algorithm>
#include <cstdio>
#include <set>
#include <string>

#include "engram/extraction.h"
#include "extract/changes.h"
#include "extract/clauses.h"
#include "text/analyzer.h"
#include "text/find.h"
#include "text/language.h"
#include "text/lexicon_data.h"
#include "text/normalizer.h"
#include "text/topics.h"
#include "text/utf8.h"

namespace engram {
namespace {

constexpr double kOppositeSimilar = 0.9;
constexpr double kMoreDetail = 0.85;

// NFKC-casefolded text without spaces and punctuation: "User lives in Shanghai." and
// "user lives in shanghai" compare equal.
std::string Norm(std::string_view s) {
  std::string n = NormalizeForMatching(s);
  std::string out;
  for (size_t i = 0; i < n.size(); ++i) {
    auto c = static_cast<unsigned char>(n[i]);
    if (c < 0x80 && !std::isalnum(c)) continue;
    // CJK punctuation (U+3000–U+303F) and full-width forms are dropped too.
    if (c == 0xE3 && i + 1 < n.size() && static_cast<unsigned char>(n[i + 1]) == 0x80) {
      i += 2;
      continue;
    }
    if (c == 0xEF && i + 1 < n.size() &&
        (static_cast<unsigned char>(n[i + 1]) == 0xBC ||
         static_cast<unsigned char>(n[i + 1]) == 0xBD)) {
      i += 2;
      continue;
    }
    out += n[i];
  }
  return out;
}

std::string Digits(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (std::isdigit(static_cast<unsigned char>(c))) out += c;
  }
  return out;
}

// True when the statement denies or reverses ("dislikes", "no longer", "不喜欢", "不再").
bool Negative(std::string_view content) {
  std::string low = NormalizeForMatching(content);
  for (std::string_view m : {" not ", "n't ", " never ", " no longer ", " dislikes ", " hates ",
                             " cannot ", " detests ", " loathes ", " afraid ", " scared ",
                             " can't stand ", " terrified ", " allergic ", " allergy "}) {
    if ((" " + low + " ").find(m) != std::string::npos) return true;
  }
  for (std::string_view m :
       {"不喜欢", "不爱", "讨厌", "不再", "不吃", "不喝", "受不了", "厌恶", "过敏", "没有", "不想",
        "不打算", "不能", "不感兴趣", "不养", "没养", "怕", "不碰", "没养"}) {
    if (ContainsText(low, m)) return true;
  }
  return false;
}

bool TopicSlot(std::string_view slot) {
  return slot.starts_with("user/family:") || slot.starts_with("user/routine:");
}

double Overlap(std::string_view a, std::string_view b);
bool Generic(std::string_view term);

// The text without `value` (normalized): what a statement says besides its value.
std::string Without(std::string_view text, const std::string& value) {
  std::string t(text);
  if (size_t k = NormalizeForMatching(t).find(value); k != std::string::npos && !value.empty()) {
    std::string low = NormalizeForMatching(t);
    low.erase(k, value.size());
    return low;
  }
  return NormalizeForMatching(t);
}

// The candidate restates the neighbour: the same value (one of the neighbour's entities, or in
// its text), the same numbers, and what else it says overlaps ("User has a dog named Rufus" /
// "Rufus is user's dog"), or it says nothing else. "fostering Beans" and "adopted Beans" share
// the value but not the rest; "德语A2" and "德语考过B1" not the numbers.
bool SameValue(const Candidate& c, const MemoryItem& item) {
  if (c.value.empty()) return false;
  const std::string v = NormalizeForMatching(c.value);
  if (v.empty()) return false;
  bool holds = Norm(item.content).find(Norm(c.value)) != std::string::npos;
  for (const std::string& e : item.entities) holds = holds || NormalizeForMatching(e) == v;
  if (!holds || Digits(item.content) != Digits(c.content)) return false;
  const std::string rest_c = Without(c.content, v);
  const std::string rest_i = Without(item.content, v);
  if (Overlap(rest_c, rest_i) >= 0.2) return true;
  // nothing else said: "I live in Chicago" / "still in chicago"
  Analysis a = AnalyzeText(rest_c);
  size_t terms = 0;
  for (const std::string& w : a.words) terms += !Generic(w);
  return terms == 0;
}

bool Deictic(std::string_view value) {
  const std::string v = extract::LowerAscii(value);
  for (std::string_view w : {"这边", "这里", "这儿", "那边", "那里", "那儿", "here", "there",
                             "over here", "over there", "this place", "this city"}) {
    if (v == w) return true;
  }
  return false;
}

// Two keys of one slot family name the same thing: one holds the other's words ("japan" /
// "japan trip", "下雨" / "下雨天").
bool KeysRelated(std::string_view a_slot, std::string_view b_slot) {
  const size_t ca = a_slot.find(':'), cb = b_slot.find(':');
  if (ca == std::string_view::npos || cb == std::string_view::npos) return false;
  if (a_slot.substr(0, ca) != b_slot.substr(0, cb)) return false;
  const std::string_view a = a_slot.substr(ca + 1), b = b_slot.substr(cb + 1);
  if (a.empty() || b.empty() || a == b) return false;
  if (ContainsText(a, b) || ContainsText(b, a)) return true;
  const size_t sa = a.find(' '), sb = b.find(' ');
  return sa != std::string_view::npos && sb != std::string_view::npos &&
         a.substr(0, sa) == b.substr(0, sb);
}

size_t Words(std::string_view s) {
  size_t n = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0xE0)
      ++n;  // one CJK character
    else if (std::isalnum(c) && (i == 0 || !std::isalnum(static_cast<unsigned char>(s[i - 1]))))
      ++n;
  }
  return n;
}

// Words a restatement changes freely ("hates"/"can't stand", "是"/"就是"): not what a statement
// is about.
bool Generic(std::string_view term) {
  static const std::set<std::string_view> k = {
      "user", "is",    "be",     "has",    "have",   "do",      "doe",     "like",    "love",
      "hate", "enjoy", "realli", "alway",  "usual",  "best",    "ever",    "favorit", "fave",
      "so",   "much",  "veri",   "still",  "just",   "also",    "now",     "current", "get",
      "got",  "go",    "think",  "feel",   "afraid", "scare",   "can",     "not",     "never",
      "no",   "their", "they",   "them",   "total",  "absolut", "definit", "stand",   "way",
      "far",  "even",  "actual", "tast",   "freak",  "here",    "lol",     "haha",    "name",
      "call", "用户",  "喜欢",   "叫",     "名字",   "名",      "养",      "只",      "条",
      "家",   "的",    "讨厌",   "特别",   "真的",   "很",      "非常",    "平时",    "一直",
      "不",   "没",    "是",     "有",     "就",     "都",      "也",      "还",      "吃",
      "喝",   "用",    "碰",     "能",     "会",     "习惯",    "最",      "现在",    "目前",
      "好",   "自己",  "已经",   "的",     "了",     "太",      "超",      "挺",      "这个",
      "那个", "真",    "烦",     "受不了", "不能"};
  return k.contains(term);
}

// The candidate says nothing its neighbour does not: every term it is about (beyond the words a
// restatement changes) is in the neighbour's text. "Rufus is their dog" / "User's dog's name is
// Rufus"; "用户特别不喜欢下雨" / "用户讨厌下雨天".
bool Restates(const Candidate& c, const MemoryItem& item) {
  Analysis a = AnalyzeText(c.content);
  const std::string have = NormalizeForMatching(item.content);
  const Analysis b = AnalyzeText(item.content);
  size_t anchors = 0;
  for (const std::string& w : a.words) {
    if (Generic(w)) continue;
    ++anchors;
    bool held =
        ContainsText(have, w) || std::find(b.words.begin(), b.words.end(), w) != b.words.end();
    if (!held && w.size() <= 6 && w.size() % 3 == 0 && static_cast<unsigned char>(w[0]) >= 0xE0) {
      // a short Chinese word the segmenter drew across a boundary ("猫叫" of "猫，叫"): its
      // characters, one by one (three UTF-8 bytes each in the CJK block)
      held = true;
      for (size_t k = 0; k < w.size() && held; k += 3) {
        held = ContainsText(have, std::string_view(w).substr(k, 3));
      }
    }
    if (!held) return false;
  }
  return anchors >= 1 && anchors <= 4;
}

// Jaccard overlap of the two texts' analyzer terms (words and CJK bigrams).
double Overlap(std::string_view a, std::string_view b) {
  auto terms = [](std::string_view t) {
    Analysis x = AnalyzeText(t);
    std::set<std::string> out(x.words.begin(), x.words.end());
    out.insert(x.cjk_bigrams.begin(), x.cjk_bigrams.end());
    out.erase("user");
    out.erase("用户");
    return out;
  };
  const std::set<std::string> x = terms(a), y = terms(b);
  if (x.empty() || y.empty()) return 0;
  size_t both = 0;
  for (const std::string& t : x) both += y.count(t);
  return static_cast<double>(both) / static_cast<double>(x.size() + y.size() - both);
}

// Whether the candidate keeps what the stored text is about: at least half of its terms, and
// every name it gives. "a golden retriever named Max who is three" keeps "a dog named Max";
// "a cat named Luna" does not, however close an embedding puts them.
bool Keeps(std::string_view candidate, std::string_view stored) {
  auto terms = [](std::string_view t) {
    Analysis x = AnalyzeText(t);
    std::set<std::string> out;
    for (const std::string& w : x.words) {
      if (!Generic(w)) out.insert(w);
    }
    out.insert(x.cjk_bigrams.begin(), x.cjk_bigrams.end());
    out.erase("用户");
    return out;
  };
  const std::set<std::string> have = terms(candidate), had = terms(stored);
  if (had.empty()) return true;
  size_t kept = 0;
  for (const std::string& t : had) kept += have.count(t);
  if (2 * kept < had.size()) return false;
  // names: capitalized words after the first
  const std::string low_candidate = NormalizeForMatching(candidate);
  size_t i = stored.find(' ');
  while (i != std::string_view::npos && i + 1 < stored.size()) {
    const size_t e = std::min(stored.find(' ', i + 1), stored.size());
    std::string_view w = stored.substr(i + 1, e - i - 1);
    while (!w.empty() && !std::isalnum(static_cast<unsigned char>(w.back()))) w.remove_suffix(1);
    if (!w.empty() && std::isupper(static_cast<unsigned char>(w[0])) &&
        low_candidate.find(NormalizeForMatching(w)) == std::string::npos) {
      return false;
    }
    i = e < stored.size() ? e : std::string_view::npos;
  }
  return true;
}

std::string_view Key(std::string_view slot) {
  const size_t colon = slot.find(':');
  return colon == std::string_view::npos ? std::string_view() : slot.substr(colon + 1);
}

// A statement no frame typed that names the value a typed memory is keyed by ("花生我一口都不能碰"
// after "我对花生过敏"; "Rufus is my dog, he's a beagle mix" after "my dog's name is Rufus")
// speaks of that memory again, in whatever words: the neighbour it restates, or -1. Not when it
// says something changed ("咖啡我现在能喝了") or speaks of someone else as well ("my son has it
// too"), and not for keys that name a category rather than a value (user/favorite:歌手): the key
// must be one of the memory's entities. Polarity is not compared: "不能碰" and "过敏" say the same.
int NamedValue(const Candidate& c, const std::vector<Neighbour>& neighbours) {
  if (c.correction || c.exclusive || !c.ends.empty()) return -1;
  // something that happened or is planned is news about the value, not the value said again
  // ("Rufus has a vet appointment tomorrow")
  if (c.valid_from || c.type == MemoryType::kEvent || c.type == MemoryType::kGoal ||
      c.type == MemoryType::kCommitment || c.type == MemoryType::kDecision) {
    return -1;
  }
  const bool zh = HasHan(c.content);
  if (extract::HasChangeCue(c.content, zh)) return -1;
  std::string text = " " + NormalizeForMatching(c.content) + " ";
  for (char& ch : text) {
    if (static_cast<unsigned char>(ch) < 0x80 && !std::isalnum(static_cast<unsigned char>(ch))) {
      ch = ' ';
    }
  }
  for (std::string_view other : {" too ", " also ", " as well ", "也"}) {
    if (ContainsText(text, other)) return -1;
  }
  auto names = [&](const std::string& value) {
    const bool cjk = HasHan(value);
    if (value.empty() || (cjk ? CountCodepoints(value) < 2 : value.size() < 3)) return false;
    // English whole words: the text is padded with spaces, punctuation made spaces
    return cjk ? ContainsText(text, value) : ContainsText(text, " " + value + " ");
  };
  for (size_t i = 0; i < neighbours.size(); ++i) {
    const MemoryItem& item = neighbours[i].item;
    if (TopicSlot(item.slot)) continue;
    // a typed candidate restates only a memory of its own slot family, naming nothing else
    // ("User's pup's name is pretzel" after "User has a dog named Pretzel")
    if (!c.slot.empty() && !neighbours[i].same_family) continue;
    // a number it adds is news ("diagnosed when she was 6"): not a restatement
    if (Digits(c.content) != Digits(item.content)) continue;
    const std::string key = NormalizeForMatching(Key(item.slot));
    if (item.slot.starts_with("user/favorite:")) {
      // a favourite is keyed by its category ("歌手"): the value is its entity ("陈粒的歌我单曲循环
      // 好几年了" after "我最喜欢的歌手是陈粒")
      if (!c.slot.empty()) continue;
      for (const std::string& e : item.entities) {
        const std::string v = NormalizeForMatching(e);
        if (v != key && names(v)) return static_cast<int>(i);
      }
      continue;
    }
    const bool entity =
        std::any_of(item.entities.begin(), item.entities.end(),
                    [&](const std::string& e) { return NormalizeForMatching(e) == key; });
    if (!entity || !names(key)) continue;
    const bool other_names =
        std::any_of(c.entities.begin(), c.entities.end(),
                    [&](const std::string& e) { return NormalizeForMatching(e) != key; });
    if (!c.slot.empty() && other_names) continue;
    return static_cast<int>(i);
  }
  return -1;
}

// Whether a text in the template's words speaks of the user themself: "User …", "用户…" (not
// "User's sister …", "用户的…"), naming no one else.
bool OfTheUser(std::string_view content, const TextTraits& traits) {
  if (traits.others) return false;
  return content.starts_with("User ") ||
         (content.starts_with("用户") && !content.starts_with("用户的"));
}

// Whether a stored memory is the user's own: untyped, in the template's words about the user
// (OfTheUser); typed, in a slot of the user's that names no one else.
bool UsersOwn(const MemoryItem& item, const TextTraits& traits) {
  return item.slot.empty() ? OfTheUser(item.content, traits)
                           : item.slot.starts_with("user/") && !traits.others;
}

// The words of a text a reader would take for names: capitalized after its first word
// ("Shopify", "NICU"), and Latin words in a Chinese text ("ADHD"); lowercased.
std::set<std::string> NamesIn(std::string_view text) {
  std::set<std::string> out;
  const bool zh = HasHan(text);
  size_t i = 0;
  bool first = true;
  while (i < text.size()) {
    while (i < text.size() && !std::isalnum(static_cast<unsigned char>(text[i]))) ++i;
    size_t j = i;
    while (j < text.size() && std::isalnum(static_cast<unsigned char>(text[j]))) ++j;
    if (j > i) {
      const std::string_view w = text.substr(i, j - i);
      const bool upper = std::isupper(static_cast<unsigned char>(w[0])) != 0;
      if ((zh || (upper && !first)) && w != "User" && w.size() >= 2) {
        out.insert(extract::LowerAscii(std::string(w)));
      }
      first = false;
    }
    i = j;
  }
  return out;
}

// A term that says what a statement is about, not how: a word of a topic (a sport, an
// instrument, a condition, a diet), a known city, a name, or a number.
bool Salient(const std::string& term, const std::set<std::string>& names) {
  if (TopicsOfText(term) != 0 || extract::IsKnownCity(term, HasHan(term))) return true;
  if (std::any_of(term.begin(), term.end(),
                  [](char ch) { return std::isdigit(static_cast<unsigned char>(ch)); })) {
    return true;
  }
  for (const std::string& n : names) {
    if (n.starts_with(term) || term.starts_with(n)) return true;
  }
  return false;
}

// 3a. The user's statement says again what an older one of theirs is about, in other words:
// they share what it is about (a name, a word of a topic: "shopify", "cello", "吉他") and the
// candidate adds nothing of that kind (no other name, topic word or number), with the same
// polarity and no change, end or correction ("User writes code for shopify" after "User is a
// software engineer at Shopify"; "用户最近一直在练吉他" after "用户在学吉他"). The neighbour, or
// -1.
int SaysAgainInOtherWords(const Candidate& c, const std::vector<Neighbour>& neighbours) {
  if (c.correction || !c.ends.empty() || c.valid_from ||
      (c.type != MemoryType::kFact && c.type != MemoryType::kPreference &&
       c.type != MemoryType::kSkill)) {
    return -1;
  }
  const TextTraits ct = ReadTextTraits(c.content);
  if (ct.past || ct.question || !OfTheUser(c.content, ct) ||
      extract::HasChangeCue(c.content, HasHan(c.content))) {
    return -1;
  }
  const Analysis a = AnalyzeText(c.content);
  const std::set<std::string> mine(a.words.begin(), a.words.end());
  const std::set<std::string> c_names = NamesIn(c.content);
  const bool negative = Negative(c.content);
  for (size_t i = 0; i < neighbours.size(); ++i) {
    const Neighbour& n = neighbours[i];
    const MemoryItem& item = n.item;
    if (n.this_message || item.status != ItemStatus::kActive ||
        (item.type != MemoryType::kFact && item.type != MemoryType::kPreference &&
         item.type != MemoryType::kSkill) ||
        Negative(item.content) != negative ||
        (!Digits(c.content).empty() && Digits(c.content) != Digits(item.content))) {
      continue;
    }
    const TextTraits it = ReadTextTraits(item.content);
    if (!UsersOwn(item, it) || it.past || it.question) continue;
    const Analysis b = AnalyzeText(item.content);
    const std::set<std::string> theirs(b.words.begin(), b.words.end());
    const std::set<std::string> names = NamesIn(item.content);
    bool shared = false, news = false;
    for (const std::string& w : mine) {
      if (Generic(w)) continue;
      if (theirs.contains(w)) {
        shared = shared || Salient(w, names) || Salient(w, c_names);
      } else if (Salient(w, c_names)) {
        news = true;
        break;
      }
    }
    if (shared && !news) return static_cast<int>(i);
  }
  return -1;
}

// The attribute of a slot: "job" of "user/job", "pet" of "user/pet:豆豆"; "" for none.
std::string_view Attribute(std::string_view slot) {
  const size_t slash = slot.find('/');
  if (slash == std::string_view::npos) return "";
  std::string_view a = slot.substr(slash + 1);
  return a.substr(0, a.find(':'));
}

// A change of where the user lives or works said by a frame ("新家在东莞松山湖",
// "跳槽去腾讯了"), and an older statement of the same attribute no slot of this one holds: a memory
// of the user no frame typed that says where they live ("我在深圳南山租房": a place word of the
// location topic, or a known city), or the twin slot of the same attribute (job and employer:
// "在字节做 产品经理" says both). The neighbour it outdates (the latest such), or -1. Only with a
// change cue, only the user's present state, never a past, a plan or someone else's.
int OutdatedTwin(const Candidate& c, const std::vector<Neighbour>& neighbours) {
  const std::string_view attribute = Attribute(c.slot);
  const bool location = attribute == "location";
  const bool work = attribute == "job" || attribute == "employer";
  if (!c.exclusive || c.correction || !c.slot.starts_with("user/") || (!location && !work) ||
      (c.type != MemoryType::kFact && c.type != MemoryType::kPreference) || Negative(c.content)) {
    return -1;
  }
  const bool zh = HasHan(c.content);
  if (!extract::HasChangeCue(c.content, zh)) return -1;
  const TopicSet topic = TopicOfSlot(c.slot);
  int found = -1;
  for (size_t i = 0; i < neighbours.size(); ++i) {
    const Neighbour& n = neighbours[i];
    const MemoryItem& item = n.item;
    // (what the same message says alongside it: "first week at Stripe! new job is great")
    // (a stay said as an event is a state too: "User has been in Austin since 2019")
    const bool stay = item.type == MemoryType::kEvent && location &&
                      (ContainsText(NormalizeForMatching(item.content), "been in") ||
                       ContainsText(NormalizeForMatching(item.content), "been here") ||
                       ContainsText(item.content, "待了") || ContainsText(item.content, "住了"));
    if (n.same_slot || n.this_message || item.status != ItemStatus::kActive ||
        (item.type != MemoryType::kFact && item.type != MemoryType::kPreference && !stay) ||
        Negative(item.content)) {
      continue;
    }
    const TextTraits traits = ReadTextTraits(item.content);
    if (traits.past || traits.question) continue;
    bool outdated = false;
    if (item.slot.empty()) {
      // the user's own statement, in the template's words: "User lives …", "用户在…", or one
      // that speaks of the user inside ("Chicago winters are brutal, the user has been here 6
      // years")
      const std::string low = NormalizeForMatching(item.content);
      const bool users =
          zh ? item.content.starts_with("用户") && !item.content.starts_with("用户的")
             : item.content.starts_with("User ") ||
                   (location && ContainsText(" " + low + " ", " the user "));
      outdated = location && users && !traits.others &&
                 ((traits.topics & topic) || !extract::CityIn(item.content, zh).empty());
    } else {
      const std::string_view other = Attribute(item.slot);
      outdated = work && item.slot.starts_with("user/") && other != attribute &&
                 (other == "job" || other == "employer");
    }
    if (outdated && (found < 0 || item.created_at > neighbours[found].item.created_at)) {
      found = static_cast<int>(i);
    }
  }
  return found;
}

// 1d. A change on a topic of one value at a time (where the user lives, works, studies, who
// their partner is: topics.tsv's `one`) said in words no frame reads ("quit the boba place,
// lifeguarding at the rec center now" after "works at a boba shop"): the candidate is the user's
// own present state with a change cue, and an older active statement of the user on the same
// topic (by its slot or its words) is outdated by it. The latest such, or -1. Never a past, a
// question, a plan, someone else's, or what the same message says.
int OutdatedOnTopic(const Candidate& c, const std::vector<Neighbour>& neighbours) {
  if (c.correction || (c.type != MemoryType::kFact && c.type != MemoryType::kPreference &&
                       c.type != MemoryType::kEvent && c.type != MemoryType::kSkill)) {
    return -1;
  }
  const TextTraits ct = ReadTextTraits(c.content);
  if (ct.past || ct.question || !OfTheUser(c.content, ct)) return -1;
  const TopicSet topics = (TopicOfSlot(c.slot) | ct.topics) & OneValuedTopics();
  if (topics == 0 || !extract::HasChangeCue(c.content, HasHan(c.content))) return -1;
  int found = -1;
  for (size_t i = 0; i < neighbours.size(); ++i) {
    const Neighbour& n = neighbours[i];
    const MemoryItem& item = n.item;
    if (n.same_slot || n.this_message || item.status != ItemStatus::kActive ||
        (item.type != MemoryType::kFact && item.type != MemoryType::kPreference &&
         item.type != MemoryType::kSkill && item.type != MemoryType::kEvent)) {
      continue;
    }
    const TextTraits it = ReadTextTraits(item.content);
    if (it.past || it.question) continue;
    if (!UsersOwn(item, it) || ((TopicOfSlot(item.slot) | it.topics) & topics) == 0) continue;
    if (found < 0 || item.created_at > neighbours[found].item.created_at) {
      found = static_cast<int>(i);
    }
  }
  return found;
}

// The lists of data/lexicon/{en,zh}/amounts.tsv.
struct AmountLists {
  std::vector<std::string> change;  // en: padded with spaces (whole words); zh: substrings
  std::set<std::string> generic;    // analyzer terms (stemmed words, CJK bigrams)
  std::set<std::string> money, units;
};

const AmountLists& AmountsFor(bool zh) {
  auto load = [](const char* file, bool zh) {
    AmountLists l;
    for (const auto& [key, words] : LexiconEntries(file)) {
      if (key == "change") {
        for (const std::string& w : words) l.change.push_back(zh ? w : " " + w + " ");
      } else if (key == "generic") {
        for (const std::string& w : words) {
          const Analysis a = AnalyzeText(w);
          l.generic.insert(a.words.begin(), a.words.end());
          l.generic.insert(a.cjk_bigrams.begin(), a.cjk_bigrams.end());
          l.generic.insert(w);
        }
      } else if (key == "money") {
        l.money.insert(words.begin(), words.end());
      } else if (key == "units") {
        l.units.insert(words.begin(), words.end());
      }
    }
    return l;
  };
  static const AmountLists en = load("en/amounts.tsv", false);
  static const AmountLists zh_lists = load("zh/amounts.tsv", true);
  return zh ? zh_lists : en;
}

// An amount said in a text: its value as written without separators ("1850", "12000", "八千")
// and what it counts ("money", "mg"; "" when nothing says).
struct Amount {
  std::string value, unit;
};

// The amounts of a text: numbers, with "k" as thousands and a unit after them; not dates, years,
// times of day, or labels such as "2br" and "4x10". Chinese numerals of two characters or more
// ("八千", "二十") or one before a unit ("三口"; not "一").
std::vector<Amount> AmountsIn(std::string_view text, bool zh) {
  const AmountLists& l = AmountsFor(zh);
  std::vector<Amount> out;
  auto digit = [&](size_t i) {
    return i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]));
  };
  for (size_t i = 0; i < text.size();) {
    if (!digit(i) || (i > 0 && (std::isalnum(static_cast<unsigned char>(text[i - 1])) ||
                                text[i - 1] == '-' || text[i - 1] == ':' || text[i - 1] == '.'))) {
      ++i;
      continue;
    }
    const bool dollar = i > 0 && text[i - 1] == '$';
    size_t e = i;
    std::string value;
    while (e < text.size() && (digit(e) || ((text[e] == ',' || text[e] == '.') && digit(e + 1)))) {
      if (text[e] != ',') value += text[e];
      ++e;
    }
    // a date (2026-03-14), a time (7:30) or a span (7a-7p) is no amount
    const bool dated = e < text.size() && (text[e] == '-' || text[e] == ':');
    size_t s = e;
    while (s < text.size() && std::isalpha(static_cast<unsigned char>(text[s]))) ++s;
    std::string suffix = extract::LowerAscii(text.substr(e, s - e));
    i = s;
    if (dated) continue;
    std::string unit = dollar ? "money" : "";
    if (suffix == "k") {
      value += "000";
      unit = "money";
    } else if (!suffix.empty()) {
      if (l.units.contains(suffix))
        unit = suffix;
      else if (l.money.contains(suffix))
        unit = "money";
      else
        continue;  // "2br", "4x10", "6am", "3rd"
    } else if (zh) {
      for (const std::string& u : l.money) {
        if (text.substr(s).starts_with(u)) unit = "money";
      }
      for (const std::string& u : l.units) {
        if (unit.empty() && text.substr(s).starts_with(u)) unit = u;
      }
    } else {
      // the word after it: "50 mg", "400 bucks"
      size_t w = s;
      while (w < text.size() && text[w] == ' ') ++w;
      size_t we = w;
      while (we < text.size() && std::isalpha(static_cast<unsigned char>(text[we]))) ++we;
      const std::string next = extract::LowerAscii(text.substr(w, we - w));
      if (l.units.contains(next))
        unit = next;
      else if (l.money.contains(next))
        unit = "money";
    }
    // a year ("since 2019", "in 2026") is no amount of anything
    if (unit.empty() && value.size() == 4 && (value.starts_with("19") || value.starts_with("20")))
      continue;
    out.push_back({value, unit});
  }
  if (zh) {
    static const std::u32string kNumerals = U"零一二两三四五六七八九十百千万亿";
    std::u32string t;
    for (size_t i = 0; i < text.size();) t += NextCodepoint(text, &i);
    auto utf8 = [](std::u32string_view u) {
      std::string out;
      for (char32_t c : u) AppendCodepoint(c, &out);
      return out;
    };
    for (size_t i = 0; i < t.size();) {
      if (kNumerals.find(t[i]) == std::u32string::npos) {
        ++i;
        continue;
      }
      size_t e = i;
      while (e < t.size() && kNumerals.find(t[e]) != std::u32string::npos) ++e;
      const std::string value = utf8(std::u32string_view(t).substr(i, e - i));
      const std::string after = utf8(std::u32string_view(t).substr(e, 2));
      std::string unit;
      if (value.ends_with("万") || value.ends_with("千")) unit = "money";
      for (const std::string& u : l.money) {
        if (after.starts_with(u)) unit = "money";
      }
      for (const std::string& u : l.units) {
        if (unit.empty() && after.starts_with(u)) unit = u;
      }
      if ((e - i >= 2 || !unit.empty()) && value != "一") out.push_back({value, unit});
      i = e;
    }
  }
  return out;
}

// What a statement is about besides its amounts: its analyzer terms (stemmed words, CJK
// bigrams) without numbers, the words of amounts.tsv's `generic` and of Generic.
std::set<std::string> AmountTopic(std::string_view text, bool zh) {
  const AmountLists& l = AmountsFor(zh);
  const Analysis a = AnalyzeText(text);
  std::set<std::string> out;
  auto keep = [&](const std::string& t) {
    if (t.empty() || Generic(t) || l.generic.contains(t) || t == "user" || t == "用户") return;
    if (std::any_of(t.begin(), t.end(),
                    [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
      return;
    }
    // a bigram holding a numeral is part of an amount ("八千", "千了")
    for (std::string_view n : {"零", "一", "二", "两", "三", "四", "五", "六", "七", "八", "九",
                               "十", "百", "千", "万"}) {
      if (zh && ContainsText(t, n)) return;
    }
    out.insert(t);
  };
  for (const std::string& w : a.words) keep(w);
  for (const std::string& b : a.cjk_bigrams) keep(b);
  return out;
}

bool SaysAmountChange(std::string_view text, bool zh) {
  if (extract::HasChangeCue(text, zh)) return true;
  std::string t = zh ? std::string(text) : " " + extract::LowerAscii(text) + " ";
  if (!zh) {
    for (char& c : t) {
      if (std::ispunct(static_cast<unsigned char>(c)) && c != '\'') c = ' ';
    }
  }
  for (const std::string& w : AmountsFor(zh).change) {
    if (ContainsText(t, w)) return true;
  }
  return false;
}

// 1c. A new amount of something the user gave an amount for ("budget's more like 18k now" after
// "budget is 12k max", "bumped the roth to 350/mo" after "200 a month into my roth ira", "gp
// upped my dose to 100mg" after "50mg sertraline every morning"): the candidate says an amount
// changed (a change word), its amount differs from the neighbour's in the same unit (or one
// says none), and they share what the amount is of (a topic word), or the candidate names
// nothing but the amount and the neighbour is the user's budget or amount (or counts in the
// same unit). The neighbour it replaces (most shared, then latest), or -1. Only the user's
// present facts; never what the same message says.
int ChangedAmount(const Candidate& c, const std::vector<Neighbour>& neighbours) {
  if (c.correction || (c.type != MemoryType::kFact && c.type != MemoryType::kPreference) ||
      (!c.slot.empty() && !c.slot.starts_with("user/"))) {
    return -1;
  }
  const bool zh = HasHan(c.content);
  const std::vector<Amount> mine = AmountsIn(c.content, zh);
  if (mine.empty() || !SaysAmountChange(c.content, zh)) return -1;
  const std::set<std::string> topic = AmountTopic(c.content, zh);
  int found = -1;
  double best = 0;
  for (size_t i = 0; i < neighbours.size(); ++i) {
    const Neighbour& n = neighbours[i];
    const MemoryItem& item = n.item;
    if (n.this_message || item.status != ItemStatus::kActive ||
        (item.type != MemoryType::kFact && item.type != MemoryType::kPreference) ||
        (!item.slot.empty() && !item.slot.starts_with("user/")) || HasHan(item.content) != zh) {
      continue;
    }
    const TextTraits traits = ReadTextTraits(item.content);
    if (traits.past || traits.question) continue;
    const std::vector<Amount> theirs = AmountsIn(item.content, zh);
    if (theirs.empty()) continue;
    // a value of the candidate's the neighbour does not have, in a unit both may count in
    bool changed = false, same_unit = false;
    for (const Amount& a : mine) {
      bool known = false, comparable = false;
      for (const Amount& b : theirs) {
        known = known || a.value == b.value;
        const bool units_agree = a.unit == b.unit || a.unit.empty() || b.unit.empty();
        comparable = comparable || (units_agree && a.value != b.value);
        same_unit = same_unit || (!a.unit.empty() && a.unit == b.unit);
      }
      changed = changed || (!known && comparable);
    }
    if (!changed) continue;
    double score = 0;
    const std::set<std::string> their_topic = AmountTopic(item.content, zh);
    for (const std::string& t : topic) score += their_topic.count(t);
    if (score == 0 && topic.empty()) {
      const std::string_view attribute = Attribute(item.slot);
      if (attribute == "budget" || attribute == "amount" || same_unit) score = 0.5;
    }
    if (score <= 0) continue;
    if (found < 0 || score > best ||
        (score == best && item.created_at > neighbours[found].item.created_at)) {
      found = static_cast<int>(i);
      best = score;
    }
  }
  return found;
}

std::string Percent(double similarity) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%.2f", similarity);
  return buf;
}

DecisionResult Result_(WriteDecision d, int target, std::string reason, std::string merged = "") {
  return DecisionResult{d, target, std::move(merged), std::move(reason)};
}

class RuleResolver final : public ConflictResolver {
 public:
  explicit RuleResolver(const RuleResolverOptions& options) : options_(options) {}
  const std::string& name() const override { return name_; }

  Result<DecisionResult> Decide(const Candidate& candidate,
                                const std::vector<Neighbour>& neighbours) override {
    DecisionResult d = Decision(candidate, neighbours);
    if (d.decision != WriteDecision::kAdd && d.decision != WriteDecision::kSupersede) return d;
    // What the candidate says ended, and negative statements of its family it contradicts.
    const bool cand_negative = Negative(candidate.content);
    // "改学西班牙语了" after "在学法语": in a family that holds several values (languages,
    // medications), a value taken up in place of another ends the others
    const size_t colon = candidate.slot.find(':');
    const size_t slash = candidate.slot.find('/');
    const bool switches = colon != std::string::npos && slash < colon && !cand_negative &&
                          extract::SwitchesWithin(
                              candidate.content,
                              std::string_view(candidate.slot).substr(slash + 1, colon - slash - 1),
                              HasHan(candidate.content));
    for (size_t i = 0; i < neighbours.size(); ++i) {
      const Neighbour& n = neighbours[i];
      const bool flip = n.same_family && !n.same_slot && !cand_negative &&
                        Negative(n.item.content) && !ContainsText(n.item.slot, ':');
      const bool switched = switches && n.same_family && !n.same_slot &&
                            ContainsText(n.item.slot, ':') && n.item.slot != candidate.slot;
      if (!n.ended && !flip && !switched) continue;
      if (d.decision == WriteDecision::kAdd) {
        d = Result_(WriteDecision::kSupersede, static_cast<int>(i),
                    n.ended    ? "ends \"" + n.item.content + "\""
                    : switched ? "taken up in its place: \"" + n.item.content + "\""
                               : "no longer holds: \"" + n.item.content + "\"");
      } else if (static_cast<int>(i) != d.target) {
        d.also_supersede.push_back(static_cast<int>(i));
      }
    }
    return d;
  }

 private:
  DecisionResult Decision(const Candidate& candidate, const std::vector<Neighbour>& given) const {
    // A neighbour of the same family whose key names the same thing counts as the same slot.
    std::vector<Neighbour> neighbours = given;
    for (Neighbour& n : neighbours) {
      if (!n.same_slot && n.same_family && KeysRelated(candidate.slot, n.item.slot))
        n.same_slot = true;
    }
    const std::string cand = Norm(candidate.content);
    const bool cand_negative = Negative(candidate.content);
    std::vector<std::string> norms;
    norms.reserve(neighbours.size());
    for (const Neighbour& n : neighbours) norms.push_back(Norm(n.item.content));
    const std::string& slot = candidate.slot;
    // 1. same slot: an equal statement first, then the first decisive neighbour.
    for (size_t i = 0; i < neighbours.size(); ++i) {
      if (neighbours[i].same_slot && norms[i] == cand) {
        return Result_(WriteDecision::kNoop, static_cast<int>(i),
                       "same slot " + slot + ", same value");
      }
    }
    for (size_t i = 0; i < neighbours.size(); ++i) {
      if (!neighbours[i].same_slot) continue;
      const int t = static_cast<int>(i);
      const MemoryItem& item = neighbours[i].item;
      const bool same_polarity = Negative(item.content) == cand_negative;
      if (!candidate.correction && same_polarity && SameValue(candidate, item)) {
        if (Words(candidate.content) * 2 >= Words(item.content) * 3) {
          return Result_(WriteDecision::kUpdate, t,
                         "same slot " + slot + " and value, said in more detail",
                         candidate.content);
        }
        return Result_(WriteDecision::kNoop, t, "same slot " + slot + ", same value");
      }
      // "我家的猫叫豆包" after "我养了一只猫，叫豆包": nothing the stored one does not say
      if (!candidate.correction && same_polarity && candidate.ends.empty() &&
          Digits(item.content) == Digits(candidate.content) && Restates(candidate, item)) {
        return Result_(
            WriteDecision::kNoop, t,
            "same slot " + slot + ", says nothing new: restates \"" + item.content + "\"");
      }
      if (candidate.correction) {
        return Result_(WriteDecision::kSupersede, t, "correction of slot " + slot);
      }
      if (!same_polarity) {
        return Result_(WriteDecision::kSupersede, t, "same slot " + slot + ", opposite polarity");
      }
      if (!norms[i].empty() && ContainsText(cand, norms[i])) {
        return Result_(WriteDecision::kUpdate, t, "same slot " + slot + ", more detail",
                       candidate.content);
      }
      if (!cand.empty() && ContainsText(norms[i], cand)) {
        return Result_(WriteDecision::kNoop, t,
                       "same slot " + slot + ", already known in more detail");
      }
      // "住这边好几年了", "been living here 5 years": a place named by pointing at it is the
      // one already known (pointing words are grammar, not a list anyone extends).
      if (same_polarity && !candidate.correction && Deictic(candidate.value)) {
        return Result_(WriteDecision::kNoop, t,
                       "same slot " + slot + ", \"" + candidate.value + "\" points at it");
      }
      // A change said without a parsed value ("目前人在南京" after "我现在住在南京") that
      // names the stored value says it again.
      if (candidate.exclusive && candidate.value.empty() && !candidate.correction) {
        for (const std::string& e : item.entities) {
          if (!Norm(e).empty() && ContainsText(cand, Norm(e))) {
            return Result_(WriteDecision::kNoop, t,
                           "same slot " + slot + ", names the same value \"" + e + "\"");
          }
        }
      }
      if (candidate.exclusive) {
        // "换了台小米15 华为那台电池实在撑不住了": after the message said the slot's new value as a
        // change, what it says next of the slot (the old one, a detail) replaces nothing, unless
        // it says a change itself
        const bool zh_item = HasHan(item.content);
        if (neighbours[i].this_message && !candidate.correction && candidate.ends.empty() &&
            extract::HasChangeCue(item.content, zh_item) &&
            !extract::HasChangeCue(candidate.content, HasHan(candidate.content))) {
          continue;
        }
        // "新买了一台MacBook Pro，戴尔那台送人了": what the message says ended is the old value,
        // not the new one it said first
        if (neighbours[i].this_message && !candidate.ends.empty() && !neighbours[i].ended) {
          continue;
        }
        // "跳到腾讯了 已经入职两周": what the message says next of the slot without a value of
        // its own does not replace the value it just gave
        if (neighbours[i].this_message && !candidate.correction && candidate.value.empty() &&
            !item.entities.empty()) {
          continue;
        }
        return Result_(WriteDecision::kSupersede, t,
                       "exclusive slot " + slot + ": new value replaces \"" + item.content + "\"");
      }
      if (!TopicSlot(slot)) {
        return Result_(WriteDecision::kNoop, t, "same slot " + slot + ", same polarity");
      }
    }
    // 1b. a change of where the user lives or works outdates what said it before in other words
    if (const int t = OutdatedTwin(candidate, neighbours); t >= 0) {
      return Result_(WriteDecision::kSupersede, t,
                     "a change of " + std::string(Attribute(slot)) + ": replaces \"" +
                         neighbours[t].item.content + "\"");
    }
    // 1c. a new amount of what the user gave an amount for
    if (const int t = ChangedAmount(candidate, neighbours); t >= 0) {
      return Result_(WriteDecision::kSupersede, t,
                     "a new amount: replaces \"" + neighbours[t].item.content + "\"");
    }
    // 1d. a change on a topic of one value at a time, in words no frame reads
    if (const int t = OutdatedOnTopic(candidate, neighbours); t >= 0) {
      return Result_(WriteDecision::kSupersede, t,
                     "a change on the same topic: replaces \"" + neighbours[t].item.content + "\"");
    }
    // 2. a correction corrects its family's latest item, else the user's latest memory.
    if (candidate.correction) {
      int family = -1, latest = -1;
      for (size_t i = 0; i < neighbours.size(); ++i) {
        const Neighbour& n = neighbours[i];
        if (n.same_family &&
            (family < 0 || n.item.created_at > neighbours[family].item.created_at)) {
          family = static_cast<int>(i);
        }
        if (n.latest) latest = static_cast<int>(i);
      }
      if (family >= 0) {
        return Result_(WriteDecision::kSupersede, family,
                       "correction of slot " + neighbours[family].item.slot);
      }
      if (latest >= 0) {
        return Result_(WriteDecision::kSupersede, latest, "correction of the latest memory");
      }
    }
    // 3. near-identical text or the same fact in more detail.
    int best = -1;
    for (size_t i = 0; i < neighbours.size(); ++i) {
      if (best < 0 || neighbours[i].similarity > neighbours[best].similarity)
        best = static_cast<int>(i);
      if (norms[i] == cand) {
        return Result_(WriteDecision::kNoop, static_cast<int>(i), "near-identical text");
      }
    }
    if (int t = NamedValue(candidate, neighbours); t >= 0) {
      return Result_(WriteDecision::kNoop, t,
                     "names \"" + std::string(Key(neighbours[t].item.slot)) +
                         "\", the value of slot " + neighbours[t].item.slot + ": says it again");
    }
    for (size_t i = 0; i < neighbours.size(); ++i) {
      const Neighbour& n = neighbours[i];
      const bool same_polarity = Negative(n.item.content) == cand_negative;
      const bool same_numbers = Digits(n.item.content) == Digits(candidate.content);
      if (!same_polarity || !same_numbers) continue;
      if (norms[i].size() >= 6 && cand.size() > norms[i].size() && ContainsText(cand, norms[i])) {
        return Result_(WriteDecision::kUpdate, static_cast<int>(i),
                       "contains the stored text and adds detail", candidate.content);
      }
      // Two statements about different slots are different facts, however alike in words.
      if (!slot.empty() && !n.item.slot.empty() && slot != n.item.slot) continue;
      if (!candidate.correction && candidate.ends.empty() && Restates(candidate, n.item)) {
        return Result_(WriteDecision::kNoop, static_cast<int>(i),
                       "says nothing new: restates \"" + n.item.content + "\"");
      }
      const double overlap = Overlap(candidate.content, n.item.content);
      if (overlap >= options_.duplicate_overlap) {
        return Result_(WriteDecision::kNoop, static_cast<int>(i),
                       "same statement (word overlap " + Percent(overlap) + ")");
      }
    }
    if (best >= 0) {
      const Neighbour& n = neighbours[best];
      const bool same_polarity = Negative(n.item.content) == cand_negative;
      const bool same_numbers = Digits(n.item.content) == Digits(candidate.content);
      const std::string sim = "similarity " + Percent(n.similarity);
      const bool other_slot = !slot.empty() && !n.item.slot.empty() && slot != n.item.slot;
      if (n.similarity >= options_.duplicate_similarity && same_polarity && same_numbers &&
          !other_slot) {
        return Result_(WriteDecision::kNoop, best, "near-identical (" + sim + ")");
      }
      if (n.similarity >= kOppositeSimilar && !same_polarity && !other_slot) {
        return Result_(WriteDecision::kSupersede, best,
                       "same statement with opposite polarity (" + sim + ")");
      }
      if (n.similarity >= kMoreDetail && same_polarity && same_numbers && !other_slot &&
          candidate.content.size() > n.item.content.size() &&
          Keeps(candidate.content, n.item.content)) {
        return Result_(WriteDecision::kUpdate, best, "same fact in more detail (" + sim + ")",
                       candidate.content);
      }
    }
    // 3a. the same thing said again in other words
    if (int t = SaysAgainInOtherWords(candidate, neighbours); t >= 0) {
      return Result_(WriteDecision::kNoop, t,
                     "says again what \"" + neighbours[t].item.content +
                         "\" is about, adding no name, number or topic word");
    }
    return Result_(WriteDecision::kAdd, -1,
                   slot.empty() ? "new: no similar memory" : "new: no memory in slot " + slot);
  }

  RuleResolverOptions options_;
  std::string name_ = "rules-v2";
};

}  // namespace

std::unique_ptr<ConflictResolver> MakeRuleResolver(const RuleResolverOptions& options) {
  return std::make_unique<RuleResolver>(options);
}

}  // namespace engram
