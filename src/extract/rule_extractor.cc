// The built-in rule extractor ("rules-v2"): splits each user turn into sentences and clauses
// (clauses.h), sets aside discourse markers, reported-speech leads and time expressions, then
// reads each clause with the topic frames (frames.h), the self-statement patterns
// (rule_patterns_en.cc, rule_patterns_zh.cc), or else keeps it as a generic statement in the
// user's words. See README.md for what it covers.
#include <algorithm>
#include <string>

#include "engram/extraction.h"
#include "extract/clauses.h"
#include "extract/corrections.h"
#include "extract/english_words.h"
#include "extract/frames.h"
#include "extract/lexicon.h"
#include "extract/rule_patterns.h"
#include "text/time_expressions.h"
#include "text/language.h"
#include "text/normalizer.h"

namespace engram {
namespace extract {

const KindTraits& TraitsOf(Kind kind) {
  using T = MemoryType;
  static const KindTraits kTraits[] = {
      /* kName */ {T::kFact, "user/name", false, true, 0.9},
      /* kLocation */ {T::kFact, "user/location", false, true, 0.8},
      /* kHometown */ {T::kFact, "user/hometown", false, true, 0.7},
      /* kEmployer */ {T::kFact, "user/employer", false, true, 0.75},
      /* kWorkPlace */ {T::kFact, "user/work_location", false, true, 0.6},
      /* kJob */ {T::kFact, "user/job", false, true, 0.75},
      /* kLike */ {T::kPreference, "user/likes", true, false, 0.6},
      /* kDislike */ {T::kPreference, "user/likes", true, false, 0.6},
      /* kAllergy */ {T::kFact, "user/allergy", true, false, 0.9},
      /* kHealth */ {T::kFact, "user/health", true, false, 0.85},
      /* kDiet */ {T::kPreference, "user/diet", false, true, 0.7},
      /* kMarital */ {T::kFact, "user/marital_status", false, true, 0.7},
      /* kPet */ {T::kFact, "user/pet", true, true, 0.6},
      /* kFamily */ {T::kFact, "user/family", true, false, 0.7},
      /* kGoal */ {T::kGoal, "user/goal", true, false, 0.7},
      /* kSkill */ {T::kSkill, "user/skill", true, false, 0.6},
      /* kRoutine */ {T::kFact, "", false, false, 0.5},
      /* kAppointment */ {T::kEvent, "", false, false, 0.7},
      /* kEvent */ {T::kEvent, "", false, false, 0.5},
      /* kFavorite */ {T::kPreference, "user/favorite", true, true, 0.6},
      /* kAttribute */ {T::kFact, "user", true, true, 0.6},
      /* kAge */ {T::kFact, "user/age", false, true, 0.7},
      /* kBirthday */ {T::kFact, "user/birthday", false, true, 0.8},
      /* kSchool */ {T::kFact, "user/school", false, true, 0.7},
      /* kMajor */ {T::kFact, "user/major", false, true, 0.6},
      /* kPartner */ {T::kFact, "user/partner", false, true, 0.8},
      /* kChildren */ {T::kFact, "user/children", false, true, 0.75},
      /* kBudget */ {T::kFact, "user/budget", true, true, 0.7},
      /* kAmount */ {T::kFact, "user/amount", true, true, 0.7},
      /* kSchedule */ {T::kFact, "user/schedule", true, true, 0.6},
      /* kDevice */ {T::kFact, "user/device", true, true, 0.5},
      /* kLanguage */ {T::kSkill, "user/language", true, true, 0.6},
      /* kMedication */ {T::kFact, "user/medication", true, true, 0.85},
      /* kContact */ {T::kFact, "user", true, true, 0.75},
      /* kPlan */ {T::kGoal, "user/plan", true, true, 0.65},
      /* kHabit */ {T::kPreference, "user/habit", true, true, 0.55},
      /* kEnded */ {T::kEvent, "", false, false, 0.6},
      /* kPersonFact */ {T::kFact, "", false, false, 0.6},
      /* kGeneric */ {T::kFact, "", false, false, 0.5},
  };
  return kTraits[static_cast<int>(kind)];
}

std::string SlotKey(std::string_view object) {
  std::string s = NormalizeForMatching(object);
  std::string out;
  bool space = false;
  for (char ch : s) {
    if (ch == ' ' || ch == '\t' || ch == '\n' || ch == '"' || ch == '\'' || ch == '.' ||
        ch == '!') {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += ch;
  }
  for (std::string_view article : {"a ", "an ", "the ", "my ", "some ", "their "}) {
    if (out.starts_with(article)) out.erase(0, article.size());
  }
  for (std::string_view measure : {"一只", "一条", "一个", "一位", "只", "条"}) {
    if (out.starts_with(measure) && out.size() > measure.size()) out.erase(0, measure.size());
  }
  if (out.size() > 40) {
    size_t n = 40;
    while (n > 0 && (static_cast<unsigned char>(out[n]) & 0xC0) == 0x80) --n;
    out.resize(n);
  }
  return out;
}

}  // namespace extract

namespace {

using extract::ClauseInput;
using extract::ClauseView;
using extract::Kind;
using extract::MessageState;
using extract::Statement;

constexpr TimestampMs kDayMs = 86'400'000;

bool IsUserRole(std::string_view role) {
  return role != "assistant" && role != "system" && role != "tool" && role != "function";
}

// The clause with its first time expression removed, and that expression.
ClauseInput WithoutTime(const std::string& clause, bool zh, TimestampMs now, std::string* storage) {
  ClauseInput in;
  auto times =
      zh ? FindChineseTimeExpressions(clause, now) : FindEnglishTimeExpressions(clause, now);
  *storage = clause;
  if (!times.empty()) {
    // "Wednesday and Thursday", "周三和周四": the connector goes with the dates.
    for (size_t k = 1; k < times.size(); ++k) {
      std::string gap =
          extract::LowerAscii(clause.substr(times[k - 1].end, times[k].begin - times[k - 1].end));
      std::string bare;
      for (char ch : gap) {
        if (ch != ' ' && ch != ',') bare += ch;
      }
      if (bare.empty() || bare == "and" || bare == "or" || bare == "&" || bare == "和" ||
          bare == "、" || bare == "或" || bare == "到" || bare == "至" || bare == "to") {
        times[k].begin = times[k - 1].end;
      }
    }
    for (auto it = times.rbegin(); it != times.rend(); ++it) {
      storage->erase(it->begin, it->end - it->begin);
    }
    const TimeExpression& t = times.front();
    in.has_time = true;
    in.future_time = t.at >= (now / kDayMs) * kDayMs;
    in.later_day = t.at >= (now / kDayMs + 1) * kDayMs;
    in.date = FormatTimeExpression(t);
    in.date_is_day =
        t.granularity == TimeGranularity::kDay || t.granularity == TimeGranularity::kWeek;
    {
      const std::string said = extract::LowerAscii(clause.substr(t.begin, t.end - t.begin));
      for (std::string_view d : {"周一", "周二", "周三", "周四", "周五", "周六", "周日", "星期",
                                 "礼拜", "monday", "tuesday", "wednesday", "thursday", "friday",
                                 "saturday", "sunday"}) {
        in.weekday = in.weekday || said.find(d) != std::string::npos;
      }
      in.weekday = in.weekday && said.find("上周") == std::string::npos &&
                   said.find("下周") == std::string::npos && said.find("last") == std::string::npos &&
                   said.find("next") == std::string::npos;
    }
    in.time_at = t.at;
  }
  in.text = *storage;
  return in;
}

// ---- content ----

std::string DateText(const TimeExpression& t) { return FormatTimeExpression(t); }

// The clause with each time expression replaced by its date: "I started learning Rust
// yesterday" → "I started learning Rust on 2026-03-10"; "我昨天开始学吉他" → "我2026-03-17开始学吉他".
std::string WithDates(const std::string& clause, bool zh, TimestampMs now) {
  auto times = zh ? FindChineseTimeExpressions(clause, now) : FindEnglishTimeExpressions(clause, now);
  std::string out = clause;
  for (auto it = times.rbegin(); it != times.rend(); ++it) {
    std::string date = DateText(*it);
    const std::string said_text = clause.substr(it->begin, it->end - it->begin);
    if (said_text.find(date) != std::string::npos) continue;  // already a date: "on 2024-05-03"
    if (!zh) {
      std::string said = extract::LowerAscii(said_text);
      const bool preposition = said.starts_with("on ") || said.starts_with("in ") ||
                               said.starts_with("since ") || said.starts_with("during ");
      static const std::vector<std::string_view> kRelative = {
          "yesterday", "today", "tomorrow", "tonight", "last", "next", "this", "ago", "day",
          "week", "month", "year", "morning", "afternoon", "evening"};
      bool relative = false;
      for (std::string_view r : kRelative) relative = relative || said.find(r) != std::string::npos;
      relative = relative || (preposition && said.find_first_of("0123456789") != std::string::npos &&
                              said.find("days") != std::string::npos);
      if (!relative && said.find_first_of("0123456789") == std::string::npos &&
          said.find(' ') == std::string::npos) {
        relative = false;  // a weekday or month name alone
      }
      if (!relative) {
        // "September 19", "in October": kept as said, with the year it resolved to
        bool has_year = false;
        for (size_t k = 0; k + 4 <= said.size() && !has_year; ++k) {
          has_year = std::all_of(said.begin() + k, said.begin() + k + 4,
                                 [](char ch) { return std::isdigit(static_cast<unsigned char>(ch)); });
        }
        if (!has_year && date.size() >= 4) {
          out.insert(it->end, (it->granularity == TimeGranularity::kDay ? ", " : " ") + date.substr(0, 4));
        }
        continue;
      }
      std::string before = extract::LowerAscii(clause.substr(0, it->begin));
      while (!before.empty() && before.back() == ' ') before.pop_back();
      const bool after_preposition = before.ends_with(" to") || before.ends_with(" by") ||
                                     before.ends_with(" until") || before.ends_with(" for") ||
                                     before.ends_with(" from") || before.ends_with(" since") ||
                                     before.ends_with(" starting") || before.ends_with(" before") ||
                                     before.ends_with(" after");
      std::string prep = preposition ? said.substr(0, said.find(' ') + 1) : "";
      if (prep.empty() && !after_preposition) {
        prep = it->granularity == TimeGranularity::kDay ? "on "
               : it->granularity == TimeGranularity::kWeek ? "the week of "
                                                           : "in ";
      }
      if (preposition && said.starts_with("in ") && it->granularity == TimeGranularity::kDay) {
        prep = "on ";  // "in 10 days" → "on 2026-07-28"
      }
      date = prep + date;
    } else {
      // Chinese: month and day names ("3月5号", "十月") kept, the date after them
      const bool absolute = said_text.find("月") != std::string::npos &&
                            said_text.find("上个月") == std::string::npos &&
                            said_text.find("下个月") == std::string::npos &&
                            said_text.find("这个月") == std::string::npos &&
                            said_text.find("本月") == std::string::npos &&
                            said_text.find("上月") == std::string::npos &&
                            said_text.find("下月") == std::string::npos;
      if (absolute) {
        out.insert(it->end, "（" + date + "）");
        continue;
      }
      if (it->granularity == TimeGranularity::kWeek) {
        date += "那周";
      } else if (it->granularity == TimeGranularity::kYear) {
        date += "年";
      } else if (it->granularity == TimeGranularity::kMonth) {
        date = date.substr(0, 4) + "年" + std::to_string(std::stoi(date.substr(5, 2))) + "月";
      }
    }
    out.replace(it->begin, it->end - it->begin, date);
  }
  return out;
}

bool IsWordChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '\'' || static_cast<unsigned char>(c) >= 0x80;
}

// An English clause in the third person: "I'm allergic to peanuts" → "User is allergic to
// peanuts"; "my wife says I snore" → "User's wife says user snores"; "we moved" → "User moved".
std::string RewriteEn(const std::string& clause) {
  using extract::en::Tok;
  std::vector<Tok> t = extract::en::Tokenize(clause);
  std::string out;
  bool first_subject = true;
  bool conjugate_next = false;
  auto append = [&](const std::string& w) {
    if (w.empty()) return;
    if (!out.empty() && w != "," && w != "'s") out += ' ';
    out += w;
  };
  for (size_t i = 0; i < t.size(); ++i) {
    const std::string& w = t[i].low;
    if (w == "i" || w == "we") {
      append(first_subject && out.empty() ? "User" : "the user");
      first_subject = false;
      conjugate_next = true;
      continue;
    }
    if (w == "my" || w == "our") {
      append(out.empty() ? "User's" : "their");
      first_subject = false;
      continue;
    }
    if (w == "me" || w == "us") {
      append("the user");
      continue;
    }
    if (w == "myself" || w == "ourselves") {
      append("themselves");
      continue;
    }
    if (w == "mine" || w == "ours") {
      append("theirs");
      continue;
    }
    static const std::vector<std::string_view> kNotVerbs = {
        "no", "been", "being", "to", "a", "an", "the", "so", "gonna", "going", "in", "on", "at",
        "for", "with", "from", "by", "of", "about", "into", "here", "there", "and", "or", "as",
        "this", "that", "all", "both", "too", "home", "done", "back", "out", "up"};
    if (conjugate_next && w == "no" && i + 1 < t.size() && t[i + 1].low == "longer") {
      append("no longer");  // "I no longer work" → "User no longer works"
      ++i;
      continue;
    }
    if (conjugate_next && std::find(kNotVerbs.begin(), kNotVerbs.end(), w) != kNotVerbs.end()) {
      conjugate_next = false;
      if (w == "been") append("has");
    }
    if (conjugate_next) {
      conjugate_next = false;
      if (extract::en::Adverbs().contains(w) || w == "not" || w == "never") {
        append(t[i].text);
        conjugate_next = w != "not" && w != "never";
        if (w == "not" || w == "never") continue;
        continue;
      }
      if (w == "are" || w == "am") {
        append("is");
        continue;
      }
      if (w == "were") {
        append("was");
        continue;
      }
      if (w == "do" && i + 1 < t.size() && t[i + 1].low == "not") {
        append("does");
        continue;
      }
      if (w == "can" && i + 1 < t.size() && t[i + 1].low == "not") {
        append("cannot");
        ++i;
        continue;
      }
      if (w == "can" || w == "will" || w == "would" || w == "should" || w == "could" ||
          w == "might" || w == "must" || w == "have" || w == "do" || w == "go") {
        append(w == "have" ? "has" : w == "do" ? "does" : w == "go" ? "goes" : t[i].text);
        continue;
      }
      append(extract::en::ThirdPerson(t[i]));
      continue;
    }
    append(t[i].text);
  }
  if (!out.empty() && std::islower(static_cast<unsigned char>(out[0]))) {
    out[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(out[0])));
  }
  while (!out.empty() && (out.back() == ',' || out.back() == ' ')) out.pop_back();
  return out;
}

// A Chinese clause in the third person: 我/我们 → 用户 ("我的", "我女儿" → "用户的…").
std::string RewriteZh(const std::string& clause) {
  std::string out;
  bool first = true;
  for (size_t i = 0; i < clause.size();) {
    std::string_view rest = std::string_view(clause).substr(i);
    if (rest.starts_with("我们") || rest.starts_with("咱们")) {
      out += "用户";
      i += 6;
      first = false;
      continue;
    }
    if (rest.starts_with("我") || rest.starts_with("咱")) {
      std::string_view after = rest.substr(3);
      const bool possessive = !after.starts_with("的") && !extract::RelationKey(after.substr(0, 6)).empty();
      const bool possessive1 = !after.starts_with("的") && !extract::RelationKey(after.substr(0, 3)).empty();
      out += first ? "用户" : "用户";
      if (possessive || possessive1) out += "的";
      i += 3;
      first = false;
      continue;
    }
    auto b = static_cast<unsigned char>(clause[i]);
    size_t n = b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
    out.append(clause, i, n);
    i += n;
  }
  if (!out.starts_with("用户") && clause.find("我") == std::string::npos &&
      clause.find("用户") == std::string::npos) {
    const std::string subject = extract::ChineseSubjectKey(clause);
    if (subject == "user") out = "用户" + out;
  }
  return out;
}

// True when a clause refers back to the statement before it and says nothing on its own:
// "they're brothers lol", "it's the best", "她发现方程式更加可靠".
bool IsElaboration(const std::string& clause, bool zh) {
  if (zh) {
    for (std::string_view p : {"它", "这", "那", "他", "她", "其", "这样", "算是", "而且是"}) {
      if (clause.starts_with(p)) return true;
    }
    return false;
  }
  const std::string low = extract::LowerAscii(clause);
  for (std::string_view p : {"it ", "it's", "its ", "this ", "that ", "that's", "they ",
                             "they're", "these ", "those ", "which ", "she ", "he ", "she's",
                             "he's", "there ", "there's", "so ", "then "}) {
    if (low.starts_with(p)) return true;
  }
  return false;
}

// A clause that only announces the type of the next one: "I've made up my mind", "decision
// made", "I promise", "决定了".
std::optional<MemoryType> DecisionMarker(const std::string& clause, bool zh) {
  const std::string low = extract::LowerAscii(clause);
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

// "Fact:", "Quick fact for the file", "Two facts worth filing", "记一下": the user asks for
// what follows to be kept, statements about the world included.
bool AnnouncesFacts(const std::string& clause, bool zh) {
  if (zh) {
    for (std::string_view m : {"记一下", "帮我记", "记住", "备忘", "事实"}) {
      if (clause.find(m) != std::string::npos) return true;
    }
    return false;
  }
  const std::string low = extract::LowerAscii(clause);
  for (std::string_view m : {"fact:", "facts worth", "fact for the file", "for the record",
                             "note to self", "remember this", "worth filing", "for the file"}) {
    if (low.find(m) != std::string::npos) return true;
  }
  return low == "fact" || low == "facts";
}

// A clause that only says a mistake was made: "my bad", "got that mixed up", "我老搞混",
// "名字打错了", "逗号的逗".
bool IsCorrectionPhrase(const std::string& clause, bool zh) {
  if (zh) {
    for (std::string_view w : {"错", "搞混", "糊涂", "记混", "口误", "逗号的", "的那个"}) {
      if (clause.find(w) != std::string::npos && clause.size() <= 30) return true;
    }
    return false;
  }
  const std::string low = extract::LowerAscii(clause);
  for (std::string_view w : {"mixed up", "mixed them up", "my bad", "typo", "got that wrong",
                             "brain fart", "autocorrect", "long day", "double checked",
                             "keep forgetting", "wrong one", "misspoke", "misspelled"}) {
    if (low.find(w) != std::string::npos) return true;
  }
  return false;
}

// An event told in the past ("手腕扭了", "I broke my wrist"): it happened when the sentence says.
bool IsEventClause(const std::string& clause, bool zh) {
  if (zh) return clause.find("了") != std::string::npos || clause.find("过") != std::string::npos;
  for (const auto& t : extract::en::Tokenize(clause)) {
    if (extract::en::IsPastForm(t.low) && t.low != "was" && t.low != "were" && t.low != "had") return true;
  }
  return false;
}

// A statement that names almost nothing: its words beyond pronouns and common verbs are at most
// one ("I'll defend it", "I want to deliver", "I said yes", "my opinion").
bool IsWeakStatement(const std::string& clause) {
  static const std::vector<std::string_view> kCommon = {
      "i", "me", "my", "we", "us", "our", "it", "that", "this", "them", "they", "is", "am", "are",
      "was", "were", "be", "been", "have", "has", "had", "do", "did", "does", "so", "just", "will",
      "would", "can", "could", "should", "to", "the", "a", "an", "and", "or", "but", "of", "in",
      "on", "at", "for", "with", "about", "really", "very", "too", "also", "still", "now", "then",
      "say", "said", "says", "want", "wants", "feel", "feels", "keep", "keeps", "think", "know",
      "need", "make", "take", "give", "go", "get", "got", "use", "using", "strongly", "yes", "no",
      "not", "there", "here", "all", "some", "it's", "i'm", "i'll", "i'd", "thing", "stuff",
      "way", "going", "like", "love", "hate", "mine", "opinion", "view", "read", "take",
      "defend", "there", "be"};
  size_t content = 0;
  std::string w;
  auto flush = [&] {
    if (!w.empty() && std::find(kCommon.begin(), kCommon.end(), w) == kCommon.end()) ++content;
    w.clear();
  };
  for (char c : clause) {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '\'') w += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    else flush();
  }
  flush();
  return content <= 1;
}

// The Chinese counterpart: at most three characters beyond pronouns and function words ("我想交付",
// "我把它放在我的清单上", "我会捍卫它").
bool IsWeakStatementZh(const std::string& clause) {
  std::string rest = clause;
  for (std::string_view w : {"我们", "我", "用户", "它们", "它", "这", "那", "把", "在", "的", "了", "想",
                             "要", "会", "将", "上", "里", "也", "都", "就", "还", "很", "是", "对",
                             "他们", "她", "他", "着", "过", "吧", "呢", "啊"}) {
    for (size_t k = rest.find(w); k != std::string::npos; k = rest.find(w)) rest.erase(k, w.size());
  }
  size_t chars = 0;
  for (size_t i = 0; i < rest.size(); ++i) {
    chars += (static_cast<unsigned char>(rest[i]) & 0xC0) != 0x80 && static_cast<unsigned char>(rest[i]) >= 0x80;
  }
  for (char c : rest) {
    if (std::isalnum(static_cast<unsigned char>(c))) return false;
  }
  // "我是独生女" says something in three characters; "我把它放在清单上" refers back to what came before
  return chars <= 2 || (chars <= 4 && clause.find("它") != std::string::npos);
}

bool IsCondition(const std::string& clause, bool zh) {
  if (zh) {
    for (std::string_view w : {"如果", "要是", "假如", "万一", "只要"}) {
      if (clause.starts_with(w)) return true;
    }
    return false;
  }
  const std::string low = extract::LowerAscii(clause);
  return low.starts_with("if ") || low.starts_with("unless ") || low.starts_with("in case ");
}

// A clause that depends on the one before ("如果…", "虽然…", "以便…", "so that …"): detail.
bool IsSubordinate(const std::string& clause, bool zh) {
  if (zh) {
    for (std::string_view w : {"如果", "要是", "假如", "虽然", "尽管", "以便", "为了", "作为", "除非",
                               "只要", "即使", "否则", "因为", "所以", "但", "可是", "不过", "而"}) {
      if (clause.starts_with(w)) return true;
    }
    for (std::string_view w : {"之前", "之后", "以后", "以前", "的时候", "的话"}) {
      if (clause.ends_with(w)) return true;
    }
    return false;
  }
  const std::string low = extract::LowerAscii(clause);
  for (std::string_view w : {"so that ", "in order to ", "as a ", "although ", "even though ",
                             "unless ", "otherwise ", "which means ", "meaning ", "if "}) {
    if (low.starts_with(w)) return true;
  }
  return false;
}

bool IsQuestionZh(std::string_view s) {
  for (std::string_view q : {"什么", "哪里", "哪儿", "哪个", "谁", "多少", "怎么", "为什么", "为啥",
                             "是不是", "有没有", "能不能", "要不要", "会不会", "吗", "？", "?"}) {
    if (s.find(q) != std::string_view::npos) return true;
  }
  return false;
}

// "我们去吃饭吧", "咱们走吧": a suggestion to the listener.
bool IsSuggestionZh(std::string_view s) {
  while (!s.empty() && (s.ends_with("。") || s.ends_with("！") || s.ends_with("～") || s.ends_with("~") ||
                        s.ends_with("!") || s.ends_with("."))) {
    s.remove_suffix(s.ends_with("。") || s.ends_with("！") || s.ends_with("～") ? 3 : 1);
  }
  return (s.starts_with("我们") || s.starts_with("咱们")) && s.ends_with("吧");
}

bool IsRequestZh(std::string_view s) {
  for (std::string_view q : {"请", "帮我", "帮忙", "告诉我", "提醒我", "推荐一下", "你能", "你可以"}) {
    if (s.starts_with(q) || s.find(q) != std::string_view::npos) return true;
  }
  if (s.starts_with("给我") && extract::RelationKey(s.substr(6, 3)).empty() &&
      extract::RelationKey(s.substr(6, 6)).empty()) {
    return true;  // "给我推荐…", not "给我妈的生活费…"
  }
  // "我想知道明天的天气", "我想问一下…": a question said as a statement
  for (std::string_view q : {"想知道", "想问", "想了解一下", "好奇"}) {
    if (s.find(q) != std::string_view::npos) return true;
  }
  return s.starts_with("推荐");
}

// "I want to know what time it is", "I wonder if …": a question said as a statement.
bool IsIndirectQuestionEn(const std::string& low) {
  for (std::string_view w : {"want to know", "wanna know", "need to know", "like to know",
                             "i wonder", "i'm wondering", "i am wondering", "i was wondering",
                             "curious whether", "curious if", "not sure if", "not sure whether"}) {
    if (low.find(w) != std::string::npos) return true;
  }
  return false;
}

bool IsQuestionEn(const std::string& clause) {
  static const std::vector<std::string_view> kStarts = {
      "what", "where", "who", "when", "why", "how", "which", "do", "does", "did", "is", "are",
      "can", "could", "would", "should", "will", "shall", "whats", "wheres", "please", "tell",
      "remind", "help", "show", "give", "let", "find", "search", "explain", "write",
      "translate", "recommend", "suggest", "any", "keep", "make", "send", "book", "add"};
  const std::string low = extract::LowerAscii(clause);
  for (std::string_view w : kStarts) {
    if (extract::StartsWithWord(low, w)) return true;
  }
  return IsIndirectQuestionEn(low);
}

bool IsHypotheticalEn(const std::string& clause) {
  const std::string low = " " + extract::LowerAscii(clause) + " ";
  for (std::string_view w : {" if ", " unless ", " wish ", " would be ", " suppose "}) {
    if (low.find(w) != std::string::npos) return true;
  }
  return false;
}

// A capitalized word that is not the first (a name, a place, a product) or a number: a
// third-person statement worth keeping names something.
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

// A clause says something when it has a word beyond pronouns, auxiliaries and fillers: "I
// finally did it", "have been for a while" say nothing a memory could hold.
bool HasContent(const std::string& clause, bool zh) {
  if (zh) {
    std::string rest = clause;
    for (std::string_view w : {"我们", "我", "用户", "了", "的", "是", "就", "也", "都", "还", "很",
                               "这", "那", "个", "吧", "啊", "呢", "嗯", "哦", "好", "这样", "一下",
                               "从", "开始", "起", "以后", "以来", "之后", "到"}) {
      for (size_t k = rest.find(w); k != std::string::npos; k = rest.find(w)) rest.erase(k, w.size());
    }
    return rest.size() >= 6;  // two characters
  }
  static const std::vector<std::string_view> kEmpty = {
      "i", "me", "my", "we", "us", "our", "it", "that", "this", "is", "am", "are", "was", "were",
      "be", "been", "being", "have", "has", "had", "do", "did", "does", "done", "so", "just",
      "finally", "really", "for", "a", "an", "the", "while", "now", "then", "too", "also",
      "still", "again", "of", "to", "in", "on", "at", "lol", "haha", "yeah", "ok", "not",
      "can", "will", "would", "get", "got", "go", "going", "went", "thing", "things", "stuff",
      "all", "some", "any", "there", "here", "and", "or", "but", "with", "about", "like",
      "way", "much", "very", "well", "one", "time", "kinda", "sorta", "gonna", "wanna",
      "since", "starting", "from", "until"};
  size_t content = 0;
  std::string w;
  auto flush = [&] {
    if (!w.empty() && std::find(kEmpty.begin(), kEmpty.end(), w) == kEmpty.end()) ++content;
    w.clear();
  };
  for (char c : clause) {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '\'') w += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    else flush();
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

class RuleExtractor final : public Extractor {
 public:
  explicit RuleExtractor(const RuleExtractorOptions& options) : options_(options) {}
  const std::string& name() const override { return name_; }

  Result<ExtractionResult> Extract(const ExtractionInput& input) override {
    ExtractionResult result;
    result.extractor = name_;
    for (size_t i = 0; i < input.turns.size(); ++i) {
      const Turn& turn = input.turns[i];
      if (!IsUserRole(turn.role)) continue;
      ExtractTurn(turn, i, &result.candidates);
    }
    return result;
  }

 private:
  // What the clauses of one turn share.
  struct TurnState {
    MessageState message;
    size_t turn_first = 0;   // index in `out` of this turn's first candidate
    bool zh = false;
    TimestampMs said = 0;
    size_t index = 0;
    std::optional<ClauseInput> pending_time;  // a clause that was only a time dates the next
    std::optional<ClauseInput> sentence_time;  // the sentence's last time, for later events
    std::optional<MemoryType> sentence_type;   // the type of the sentence's last statement
    std::string subject;  // Chinese: the subject of the sentence's last clause ("我", "我儿子")
    std::string subject_key;  // … and who it is ("user", "儿子")
    std::string label;    // "wedding" for "ok wedding stuff: budget is $25k, …"
    std::string fronted;  // Chinese: an object said before 我 ("花生我是不能吃的" → 花生)
    bool facts = false;   // "Fact:", "Two facts worth filing:": statements about the world are kept
    bool after_condition = false;  // the clause before was a condition ("if …", "如果…")
    std::optional<MemoryType> type_hint;  // "I've made up my mind, …": the next clause's type
    // A clause of this sentence that stated nothing by itself, before any statement of the turn
    // ("预算可以再提高一点，最多八万"): the next statement of the sentence says it with it.
    std::string lead;
  };

  // The topic a sentence announces before a colon ("ok wedding stuff: …" → "wedding"), or "".
  static std::string TopicLabel(const std::string& sentence, bool zh) {
    const size_t colon = zh ? sentence.find("：") : sentence.find(':');
    if (colon == std::string::npos || colon == 0 || colon > 40) return "";
    std::string label = zh ? extract::StripMarkersZh(sentence.substr(0, colon))
                           : extract::StripMarkersEn(sentence.substr(0, colon));
    if (zh && (label.size() > 12 || label.find("我") != std::string::npos)) return "";
    if (!zh) {
      for (std::string_view tail : {" stuff", " update", " news", " info", " details", " things",
                                    " plans", " plan", " notes"}) {
        if (extract::LowerAscii(label).ends_with(tail)) label.resize(label.size() - tail.size());
      }
      if (std::count(label.begin(), label.end(), ' ') > 2 || label.empty()) return "";
      const std::string low = extract::LowerAscii(label);
      if (low == "fyi" || low == "update" || low == "note" || low == "reminder" || low == "fact" ||
          low == "facts" || low.starts_with("with ") || low.starts_with("on ") ||
          low.starts_with("for ") || low.starts_with("re ")) {
        return "";
      }
    }
    return label;
  }

  void ExtractTurn(const Turn& turn, size_t index, std::vector<Candidate>* out) {
    std::string text = turn.content;
    for (size_t k = text.find("’"); k != std::string::npos; k = text.find("’", k)) text.replace(k, 3, "'");
    for (size_t k = text.find("‘"); k != std::string::npos; k = text.find("‘", k)) text.replace(k, 3, "'");
    const Language lang = DetectLanguage(text);
    if (lang != Language::kChinese && lang != Language::kLatin) return;
    TurnState ts;
    ts.zh = lang == Language::kChinese;
    ts.said = turn.at;
    ts.index = index;
    ts.turn_first = out->size();
    ts.facts = false;
    for (const extract::Sentence& sentence : extract::SplitSentences(text)) {
      if (ts.zh && IsSuggestionZh(sentence.text)) continue;
      const bool correction = extract::IsCorrection(sentence.text, ts.zh);
      ts.label = TopicLabel(sentence.text, ts.zh);
      std::string s = ts.zh ? extract::RewriteNotButZh(sentence.text) : sentence.text;
      std::vector<extract::Piece> pieces = ts.zh ? extract::SplitClausesZh(s) : extract::SplitClausesEn(s);
      bool corrected = false;  // a correction marker was met in this sentence
      ts.subject.clear();
      ts.fronted.clear();
      ts.lead.clear();
      ts.pending_time.reset();
      ts.sentence_time.reset();
      ts.sentence_type.reset();
      for (const extract::Piece& piece : pieces) {
        const bool marker = extract::IsCorrection(piece.text, ts.zh) || (correction && corrected);
        corrected = corrected || marker;
        ReadClause(piece, sentence.question, correction && corrected, &ts, out);
      }
    }
  }

  void ReadClause(const extract::Piece& piece, bool question, bool correction, TurnState* ts,
                  std::vector<Candidate>* out) {
    const bool zh = ts->zh;
    if (AnnouncesFacts(piece.text, zh)) ts->facts = true;
    std::string clause = zh ? extract::StripMarkersZh(piece.text) : extract::StripMarkersEn(piece.text);
    if (clause.empty()) return;
    if (correction) {
      // What the user said, without a subject the splitter carried over.
      std::string said = clause;
      if (piece.inherited && zh && said.starts_with("我")) said.erase(0, 3);
      if (piece.inherited && !zh && said.starts_with("I ")) said.erase(0, 2);
      if (IsCorrectionPhrase(said, zh)) return;  // "my bad", "名字打错了"
      said = zh ? extract::StripMarkersZh(said) : extract::StripMarkersEn(said);
      if (said.empty() || IsCorrectionPhrase(said, zh)) return;
      // "不是青岛": the wrong value, said again; it ended
      if (zh && said.starts_with("不是") && said.size() <= 24 && out->size() > ts->turn_first) {
        out->back().ends.push_back(said.substr(6));
        return;
      }
      // "wait no, Ellie": the value alone corrects what was just said.
      if (auto value = extract::BareCorrectionValue(said, zh)) {
        ApplyBareCorrection(*value, ts, out);
        return;
      }
    }
    // "I've made up my mind, …", "决定了，…": the clause after it is a decision.
    if (auto hint = DecisionMarker(clause, zh)) {
      ts->type_hint = hint;
      return;
    }
    // "her name's Olive", "叫逗逗": a name for what the statement before was about.
    if (NameForPrevious(clause, zh, ts, out)) return;
    ClauseView view;
    view.zh = zh;
    view.correction = correction;
    view.topic = ts->message.topic;
    if (auto reported = zh ? extract::ReportedSpeechZh(clause) : extract::ReportedSpeechEn(clause)) {
      view.reporter = reported->reporter;
      clause = zh ? extract::StripMarkersZh(reported->rest) : extract::StripMarkersEn(reported->rest);
      if (clause.empty()) return;
      // "Karis 告诉我她宁愿…": she is the one who reported
      if (zh && (clause.starts_with("她") || clause.starts_with("他"))) {
        clause = view.reporter + clause.substr(3);
      }
    }
    if (question && view.reporter.empty()) return;
    if (zh ? (IsQuestionZh(clause) || IsRequestZh(clause)) && view.reporter.empty()
           : IsQuestionEn(clause) && view.reporter.empty()) {
      return;
    }
    clause = zh ? extract::TakeEndsZh(clause, &view.ends) : extract::TakeEndsEn(clause, &view.ends);
    std::string own = clause;  // the clause without a subject the splitter carried over
    if (piece.inherited && zh && own.starts_with("我")) own.erase(0, 3);
    if (piece.inherited && !zh && own.starts_with("I ")) own.erase(0, 2);
    const extract::SubjectInfo first = zh ? extract::ChineseSubject(clause) : extract::EnglishSubject(clause);
    const bool elaboration = (IsElaboration(clause, zh) && !(zh && !first.key.empty())) ||
                             IsSubordinate(own, zh) || (zh && IsElaboration(own, zh));
    bool implicit = first.implicit;
    if (zh) {
      // The splitter carried 我 over, but the clause before was about someone else:
      // "我同事老王是个铁杆球迷，特别喜欢皇马" → 老王 likes Real Madrid.
      bool changed = false;
      if (piece.inherited && clause.starts_with("我") && !ts->subject.empty() && ts->subject != "我" &&
          ts->subject_key != "user") {
        clause = ts->subject + clause.substr(3);
        changed = true;
      }
      // A clause with no subject continues the one before: "儿子转学了，现在在育才小学".
      const std::string own_subject = changed ? extract::ChineseSubject(clause).text : first.text;
      if (own_subject.empty() && !ts->subject.empty() && !IsElaboration(clause, zh)) {
        clause = ts->subject + clause;
        implicit = changed = true;
      } else if (implicit) {
        clause = "我" + clause;
        changed = true;
      }
      const extract::SubjectInfo now = changed ? extract::ChineseSubject(clause) : first;
      if (!now.text.empty()) ts->subject_key = now.key;
      if (!now.text.empty()) ts->subject = now.text;
      if (!now.fronted.empty()) ts->fronted = now.fronted;
    } else if (implicit) {
      clause = ImplicitEn(clause);
    }
    std::string storage;
    ClauseInput in = WithoutTime(clause, zh, ts->said, &storage);
    in.inherited_subject = piece.inherited || implicit;
    if (!in.has_time && !ts->pending_time && ts->sentence_time &&
        (IsEventClause(clause, zh) || (zh && implicit))) {
      ts->pending_time = ts->sentence_time;  // "三天前摔了一跤，手腕扭了": the same day
    }
    if (!in.has_time && ts->pending_time) {
      in.has_time = true;
      in.future_time = ts->pending_time->future_time;
      in.date = ts->pending_time->date;
      in.date_is_day = ts->pending_time->date_is_day;
      in.time_at = ts->pending_time->time_at;
    }
    ts->pending_time.reset();
    if (in.has_time) ts->sentence_time = in;
    view.time = in;
    view.text = std::string(in.text);
    view.raw = clause;
    if (!HasContent(view.text, zh)) {
      // "In 2019,", "从这个月开始": a clause that is only a time dates the next one.
      if (in.has_time) ts->pending_time = in;
      return;
    }
    std::vector<Statement> statements =
        zh ? extract::MatchChineseFrames(view, &ts->message) : extract::MatchEnglishFrames(view, &ts->message);
    bool from_patterns = false;
    if (statements.empty() && view.reporter.empty() && (zh || !IsHypotheticalEn(clause))) {
      std::string v1_storage = zh ? ForPatternsZh(view.text) : ForPatternsEn(view.text);
      ClauseInput v1 = in;
      v1.text = v1_storage;
      statements = zh ? extract::MatchChineseClause(v1) : extract::MatchEnglishClause(v1);
      from_patterns = !statements.empty();
    }
    if (statements.empty() && !elaboration && !correction) {
      // (in a correction, what is neither a slot's value nor a corrected value is commentary)
      if (auto generic = Generic(clause, view, zh, ts->facts)) statements.push_back(std::move(*generic));
    }
    if (statements.empty()) {
      ts->after_condition = IsCondition(own, zh);
      if (out->size() == ts->turn_first && !correction && !elaboration && !ts->after_condition &&
          HasContent(view.text, zh) && view.reporter.empty()) {
        std::string lead = Content(clause, view, ts->said, zh, true);
        ts->lead = ts->lead.empty() ? lead : ts->lead + (zh ? "，" : ", ") + lead;
      }
      if (out->size() > ts->turn_first) {
        // "so no more city job": what ended belongs to the statement before it
        for (const std::string& e : view.ends) out->back().ends.push_back(e);
        // "they're brothers", "他教物理": detail of the statement before it
        if (elaboration && !correction && HasContent(view.text, zh)) {
          std::string more = Content(clause, view, ts->said, zh, true);
          if (!zh && !more.empty()) more[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(more[0])));
          out->back().content += (zh ? "，" : "; ") + more;
        }
      }
      return;
    }
    std::string content = Content(clause, view, ts->said, zh, /*dates=*/true);
    std::string undated = Content(clause, view, ts->said, zh, /*dates=*/false);
    const bool needs_lead =
        implicit || std::any_of(statements.begin(), statements.end(), [](const Statement& st) { return st.elliptical; });
    if (!ts->lead.empty() && needs_lead) {
      // "最多八万" has no subject of its own: what it continues is said with it
      content = JoinLead(ts->lead, content, zh);
      undated = JoinLead(ts->lead, undated, zh);
    }
    ts->lead.clear();
    // In a message of several statements, a statement about the world that follows one about the
    // user ("The discrete nature of the token sets makes Jaccard a better fit", "Target is
    // 97%"), or one that says almost nothing itself ("I'll defend it", "I want to deliver"),
    // is its detail or its reason, not a memory of its own.
    const bool weak = statements.size() == 1 &&
                      (statements.front().kind == Kind::kGeneric || statements.front().kind == Kind::kGoal) &&
                      (zh ? IsWeakStatementZh(view.text) : IsWeakStatement(view.text));
    if (weak && out->size() == ts->turn_first && !extract::IsPassingMood(extract::LowerAscii(view.text), zh)) {
      return;  // "I love it" with nothing before it: the kept turn holds it
    }
    const bool consequent = ts->after_condition;  // "If I can't hit it, we revert to …"
    ts->after_condition = false;
    if (statements.size() == 1 &&
        ((statements.front().kind == Kind::kGeneric &&
          (statements.front().subject.empty() || consequent)) || weak) &&
        out->size() > ts->turn_first && !correction) {
      std::string more = content;
      if (!zh && !more.empty()) more[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(more[0])));
      out->back().content += (zh ? "，" : "; ") + more;
      for (const std::string& e : view.ends) out->back().ends.push_back(e);
      return;
    }
    if (!ts->label.empty() && extract::LowerAscii(content).find(extract::LowerAscii(ts->label)) == std::string::npos) {
      // "the venue's in Napa" under "wedding stuff:" is about the wedding
      std::string label = ts->label;
      if (!zh) label[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(label[0])));
      content = label + (zh ? "：" : ": ") + content;
      undated = label + (zh ? "：" : ": ") + undated;
    }
    for (Statement& st : statements) {
      if (from_patterns && statements.size() == 1 && !st.keep_content && st.kind != Kind::kName &&
          WordCount(content, zh) <= 30) {
        st.content.clear();  // the user's own words, rewritten, say more than the pattern's
      }
      if (ts->type_hint && !st.type) st.type = ts->type_hint;
      // "我想明年换个工作，去做跨境电商": what follows a plan in one breath is the plan
      if (!st.type && implicit && ts->sentence_type && *ts->sentence_type == MemoryType::kGoal &&
          (st.kind == Kind::kGeneric || st.kind == Kind::kPersonFact)) {
        st.type = MemoryType::kGoal;
      }
      const size_t before = out->size();
      Add(st, view, st.recurring ? undated : content, *ts, out);
      if (out->size() > before) ts->sentence_type = out->back().type;
    }
    ts->type_hint.reset();
  }

  // "been here about 5 years" → "I have been here …"; "getting used to it" → "I am getting …".
  static std::string ImplicitEn(const std::string& given) {
    std::string clause = given;
    // "Switching entirely to compost": the verb was capitalized only as the sentence's first word
    if (clause.size() > 1 && std::isupper(static_cast<unsigned char>(clause[0])) &&
        std::islower(static_cast<unsigned char>(clause[1]))) {
      clause[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(clause[0])));
    }
    const std::string low = extract::LowerAscii(clause);
    if (extract::StartsWithWord(low, "been")) return "I have " + clause;
    // "oh and a doctor appointment on Tuesday too": a thing the user has, listed
    if (extract::StartsWithWord(low, "a") || extract::StartsWithWord(low, "an") ||
        extract::StartsWithWord(low, "another")) {
      return "I have " + clause;
    }
    const size_t sp = low.find(' ');
    const std::string first = low.substr(0, sp);
    if (first.size() > 4 && first.ends_with("ing") && first != "thing") return "I am " + clause;
    return "I " + clause;
  }

  static std::string ForPatternsZh(const std::string& text) {
    if (text.starts_with("我们")) return "我" + text.substr(6);
    return text;
  }

  // The clause for the self-statement patterns, which read "I" and "my": "we" and "our" too.
  static std::string ForPatternsEn(const std::string& text) {
    std::string low = extract::LowerAscii(text);
    if (extract::StartsWithWord(low, "we")) return "I" + text.substr(2);
    if (extract::StartsWithWord(low, "our")) return "my" + text.substr(3);
    return text;
  }

  // A statement no frame or pattern reads: kept in the user's words when it is about the user
  // or someone they know, reported by someone, or names something (a person, a number).
  std::optional<Statement> Generic(const std::string& clause, const ClauseView& view, bool zh,
                                   bool facts) const {
    const std::string subject = zh ? extract::ChineseSubject(clause).key : extract::EnglishSubject(clause).key;
    const size_t words = WordCount(view.text, zh);
    if (words < 2 || !HasContent(view.text, zh)) return std::nullopt;
    if (!zh && IsHypotheticalEn(clause) && view.reporter.empty()) return std::nullopt;
    // "You live in Paris", "你说得对": about the listener
    if (view.reporter.empty() && (zh ? clause.starts_with("你") || clause.starts_with("您")
                                     : extract::StartsWithWord(extract::LowerAscii(clause), "you"))) {
      return std::nullopt;
    }
    const bool about = !subject.empty() || !view.reporter.empty();
    if (!about && !NamesSomething(view.text, zh) && !facts) return std::nullopt;
    Statement st;
    st.kind = subject.empty() || subject == "user" ? Kind::kGeneric : Kind::kPersonFact;
    // "" marks a statement about the world, not about the user or anyone they know
    st.subject = !about ? "" : subject.empty() ? "user" : subject;
    st.value = GenericValue(view.text, zh);
    st.confidence = about ? 0.7 : 0.6;
    if (!view.reporter.empty()) st.confidence = 0.7;
    return st;
  }

  // What a generic statement says something is: after its last "是" or "is"/"am"/"are", when
  // short ("我养的是布偶猫" → "布偶猫"); empty otherwise.
  static std::string GenericValue(const std::string& text, bool zh) {
    if (zh) {
      size_t k = text.rfind("是");
      if (k == std::string::npos) return "";
      std::string v = text.substr(k + 3);
      while (v.ends_with("了") || v.ends_with("的") || v.ends_with("啊")) v.resize(v.size() - 3);
      return v.size() >= 3 && v.size() <= 18 ? v : "";
    }
    const std::string low = " " + extract::LowerAscii(text) + " ";
    for (std::string_view is : {" is ", " am ", " are ", " 'm ", "'s "}) {
      size_t k = low.rfind(is);
      if (k == std::string::npos) continue;
      std::string v = extract::StripMarkersEn(text.substr(std::min(text.size(), k + is.size() - 1)));
      if (!v.empty() && std::count(v.begin(), v.end(), ' ') <= 2) return v;
    }
    return "";
  }

  std::string Content(const std::string& clause, const ClauseView& view, TimestampMs said,
                      bool zh, bool dates) const {
    std::string with_dates = dates ? WithDates(clause, zh, said) : clause;
    std::string content = zh ? RewriteZh(with_dates) : RewriteEn(with_dates);
    if (!view.reporter.empty()) {
      content += zh ? "（" + view.reporter + "说）" : " (according to their " + view.reporter + ")";
      if (!zh && (view.reporter.find(' ') == std::string::npos &&
                  std::isupper(static_cast<unsigned char>(view.reporter[0])))) {
        content = content.substr(0, content.rfind(" (according")) + " (according to " + view.reporter + ")";
      }
    }
    return content;
  }

  void ApplyBareCorrection(const std::string& value, TurnState* ts, std::vector<Candidate>* out) {
    // The statement it corrects is still being read: it is replaced before anything is stored,
    // so the corrected statement corrects nothing stored.
    if (out->size() > ts->turn_first) {
      Candidate& last = out->back();
      if (auto fixed = extract::ReplaceValue(last.content, last.value, value)) {
        const std::string old_key = extract::SlotKey(last.value);
        if (!last.value.empty() && last.slot.ends_with(":" + old_key)) {
          last.slot.resize(last.slot.size() - old_key.size());
          last.slot += extract::SlotKey(value);
        }
        for (std::string& e : last.entities) {
          if (e == last.value) e = value;
        }
        last.content = *fixed;
        last.value = value;
        return;
      }
    }
    Candidate c;
    c.type = MemoryType::kFact;
    c.content = value;
    c.value = value;
    c.bare = true;
    c.correction = true;
    c.confidence = 0.75;
    c.turn_indexes = {ts->index};
    out->push_back(std::move(c));
  }

  bool NameForPrevious(const std::string& clause, bool zh, TurnState* ts,
                       std::vector<Candidate>* out) const {
    if (out->size() <= ts->turn_first) return false;
    std::string name;
    bool another = false;  // "一只叫可乐，一只叫雪碧": a second pet of the statement before
    if (zh) {
      for (std::string_view lead : {"另一只叫", "另一个叫", "一只叫", "一个叫", "老大叫", "老二叫",
                                    "大的叫", "小的叫", "它叫", "她叫", "他叫", "名字叫", "叫"}) {
        if (!clause.starts_with(lead)) continue;
        name = clause.substr(lead.size());
        another = lead != "它叫" && lead != "她叫" && lead != "他叫" && lead != "名字叫" && lead != "叫";
        break;
      }
      if (name.empty() || name.size() > 15) return false;
    } else {
      const std::string low = extract::LowerAscii(clause);
      for (std::string_view lead : {"her name is ", "his name is ", "its name is ", "her name's ",
                                    "his name's ", "their name is ", "named ", "called "}) {
        if (!low.starts_with(lead)) continue;
        name = clause.substr(lead.size());
        break;
      }
      if (name.empty() || name.find(' ') != std::string::npos ||
          !std::isupper(static_cast<unsigned char>(name[0]))) {
        return false;
      }
    }
    Candidate& last = out->back();
    if (another && last.slot.starts_with("user/pet")) {
      if (!last.value.empty() && last.value != name && last.slot.find(':') != std::string::npos &&
          last.content.find("叫") != std::string::npos) {
        Candidate more = last;  // the first pet already has its name: this is the next one
        more.content = last.content.substr(0, last.content.find("，叫")) + "，叫" + name;
        more.entities = {name};
        more.value = name;
        more.slot = "user/pet:" + extract::SlotKey(name);
        out->push_back(std::move(more));
        return true;
      }
    }
    last.content += zh ? "，叫" + name : " named " + name;
    last.entities.push_back(name);
    if (last.slot.starts_with("user/pet:")) last.slot = "user/pet:" + extract::SlotKey(name);
    if (last.value.empty() || last.slot == "user/partner") last.value = name;
    return true;
  }

  // A like, a wish or a free statement about the listener ("I like your photos", "I want to see
  // you soon", "I love what you did there") is small talk, not something about the user.
  static bool AddressesListener(Kind kind, const std::string& low_content) {
    if (kind != Kind::kLike && kind != Kind::kDislike && kind != Kind::kGoal &&
        kind != Kind::kGeneric) {
      return false;
    }
    const std::string padded = " " + low_content + " ";
    for (std::string_view w : {" you ", " your ", " you're ", " you've ", " yours "}) {
      if (padded.find(w) != std::string::npos) return true;
    }
    // "I love how it turned out", "I love that": the object is the conversation itself
    for (std::string_view w : {" how it ", " how that ", " what it ", " what that ", " how this "}) {
      if (padded.find(w) != std::string::npos) return true;
    }
    return false;
  }

  // "2026-12-11用户要去看牙医" → "用户2026-12-11要去看牙医": the subject first, as one would write.
  static std::string SubjectBeforeDateZh(std::string content) {
    if (content.empty() || !std::isdigit(static_cast<unsigned char>(content[0]))) return content;
    const size_t user = content.find("用户");
    if (user == std::string::npos || user > 40) return content;
    std::string_view date(content.data(), user);
    size_t i = 0;
    while (i < date.size()) {
      if (std::isdigit(static_cast<unsigned char>(date[i])) || date[i] == '-') {
        ++i;
        continue;
      }
      bool unit = false;
      for (std::string_view u : {"年", "月", "日", "号", "那周"}) {
        if (date.substr(i).starts_with(u)) {
          i += u.size();
          unit = true;
          break;
        }
      }
      if (!unit) return content;
    }
    std::string rest = content.substr(user + 6);
    if (rest.starts_with("的")) return content;  // "2026年用户的目标…" reads fine either way
    return "用户" + std::string(date) + rest;
  }

  // A marker of what is still to happen: "我今天要去医院", "I'm going to call her today".
  static bool FutureMarker(const std::string& text, bool zh) {
    if (zh) {
      if (text.ends_with("了")) return false;  // done
      for (std::string_view m : {"要", "会", "打算", "准备", "计划", "将", "得去", "想"}) {
        if (text.find(m) != std::string::npos) return true;
      }
      return false;
    }
    const std::string low = " " + extract::LowerAscii(text) + " ";
    for (std::string_view m : {" will ", "'ll ", " going to ", " gonna ", " plan ", " planning ",
                               " have to ", " need to ", " about to ", " tonight "}) {
      if (low.find(m) != std::string::npos) return true;
    }
    return false;
  }

  // "预算可以再提高一点" + "用户最多八万" → "用户预算可以再提高一点，最多八万".
  static std::string JoinLead(const std::string& lead, std::string content, bool zh) {
    if (zh) {
      if (content.starts_with("用户") && !lead.starts_with("用户")) {
        return "用户" + lead + "，" + content.substr(6);
      }
      return lead + "，" + content;
    }
    if (content.starts_with("User ") || content.starts_with("User's ")) content[0] = 'u';
    return lead + ", " + (content.starts_with("user") ? "the " + content : content);
  }

  // "I used to …" (not "I'm used to", "getting used to"): what held before, not now.
  static bool PastHabit(const std::string& text) {
    const std::string low = " " + extract::LowerAscii(text) + " ";
    const size_t k = low.find(" used to ");
    if (k == std::string::npos) return false;
    const std::string before = low.substr(0, k);
    for (std::string_view be : {" am", "'m", " is", " are", " get", " getting", " got", " be", " been"}) {
      if (before.ends_with(be)) return false;
    }
    return true;
  }

  void Add(const Statement& st, const ClauseView& view, const std::string& clause_content,
           const TurnState& ts, std::vector<Candidate>* out) const {
    if (st.confidence < options_.min_confidence) return;
    const extract::KindTraits& traits = extract::TraitsOf(st.kind);
    Candidate c;
    c.content = st.content.empty() ? clause_content : st.content;
    if (c.content.empty()) return;
    if (ts.zh) c.content = SubjectBeforeDateZh(std::move(c.content));
    if (!st.content.empty() && !view.reporter.empty()) {
      c.content += ts.zh ? "（" + view.reporter + "说）" : " (according to their " + view.reporter + ")";
    }
    if (ts.zh && st.kind == Kind::kAllergy && (st.value.starts_with("一") || st.value.empty()) &&
        !ts.fronted.empty()) {
      // "花生我是不能吃的，一吃就过敏": what is allergic is what the sentence is about
      c.value = ts.fronted;
      c.entities = {ts.fronted};
      c.slot = "user/allergy:" + extract::SlotKey(ts.fronted);
      c.content = "用户对" + ts.fronted + "过敏";
    }
    if (ts.zh && c.content.find("用户") == std::string::npos && st.subject == "user" &&
        st.kind != Kind::kEnded && st.kind != Kind::kGeneric) {
      c.content = "用户" + c.content;  // "预算加到一万" is the user's budget
    }
    // Type cues read what the user said ("I think", "I'm skeptical"); importance cues the content.
    const std::string low = extract::LowerAscii(c.content);
    if (!ts.zh && AddressesListener(st.kind, low)) return;
    if (!ts.zh && PastHabit(view.text)) {
      // "I used to live in Boston": a past state, not the slot's value now
      Statement past = st;
      past.slot.clear();
      past.exclusive = false;
      if (!extract::TraitsOf(st.kind).slot.empty() || !st.slot.empty()) {
        past.kind = Kind::kGeneric;
        past.content = st.content.empty() ? "" : clause_content;
        Add(past, view, clause_content, ts, out);
        return;
      }
    }
    const std::string said = extract::LowerAscii(view.text) + " " + low;
    c.type = st.type.value_or(traits.type);
    const bool open_kind = st.kind == Kind::kGeneric || st.kind == Kind::kPersonFact ||
                           st.kind == Kind::kEvent || st.kind == Kind::kAppointment;
    // "我今天好开心", "I'm a bit tired": kept, with little weight, as how the user is
    const bool passing_mood = open_kind && extract::IsPassingMood(low, ts.zh) && !extract::HasHealthCue(low);
    if (open_kind || st.kind == Kind::kGoal) {
      if (auto cue = extract::TypeFromCues(said, ts.zh)) {
        c.type = *cue;
      } else if (open_kind && view.time.has_time && !passing_mood) {
        // a generic statement about a day ahead is a plan; one about a day behind, or done
        // today, an event
        const bool ahead = view.time.later_day || (view.time.future_time && FutureMarker(view.text, ts.zh));
        c.type = ahead && st.kind != Kind::kEvent && st.kind != Kind::kAppointment &&
                         st.subject == "user"
                     ? MemoryType::kGoal
                     : MemoryType::kEvent;
      }
    }
    if (passing_mood) {
      c.importance = 0.2;
    } else {
      c.importance = extract::ImportanceFromCues(low, st.importance.value_or(traits.importance));
    }
    c.confidence = st.confidence;
    c.entities = st.entities;
    c.value = st.value;
    c.elliptical = st.elliptical;
    if (!st.slot.empty()) {
      c.slot = st.slot;
    } else if (!traits.slot.empty()) {
      std::string slot(traits.slot);
      if (traits.keyed) {
        if (!st.key.empty()) slot += (st.kind == Kind::kAttribute || st.kind == Kind::kContact ? "/" : ":") + st.key;
        else if (!st.elliptical) slot.clear();
      }
      if (!slot.empty() && st.subject != "user" && slot.starts_with("user")) {
        slot = st.subject + slot.substr(4);
      }
      c.slot = slot;
    }
    c.exclusive = st.exclusive.value_or(traits.exclusive) && !c.slot.empty();
    c.correction = st.correction || view.correction;
    c.ends = st.ends;
    for (const std::string& e : view.ends) c.ends.push_back(e);
    // A recurring statement's weekday is its schedule, not a date; a start ("这周开始每天跑步")
    // still dates it.
    if (view.time.has_time && !(st.recurring && view.time.weekday)) c.valid_from = view.time.time_at;
    c.turn_indexes = {ts.index};
    for (size_t k = 0; k < out->size(); ++k) {
      Candidate& seen = (*out)[k];
      if (seen.slot == c.slot && seen.content == c.content) return;
      // "我老婆是律师，在一家律所当合伙人": a second thing about someone's one-valued attribute,
      // said in the same message, says more about it; it replaces nothing said there.
      if (k >= ts.turn_first && c.exclusive && seen.exclusive && !c.correction &&
          seen.slot == c.slot && !c.slot.starts_with("user/") && c.ends.empty()) {
        // the subject both share is said once: "用户的老婆是律师，在一家律所当合伙人"
        size_t common = 0;
        while (common < seen.content.size() && common < c.content.size() &&
               seen.content[common] == c.content[common]) {
          ++common;
        }
        if (ts.zh) {
          while (common > 0 && (static_cast<unsigned char>(c.content[common]) & 0xC0) == 0x80) --common;
        } else {
          while (common > 0 && c.content[common - 1] != ' ') --common;
        }
        std::string more = common >= 6 ? c.content.substr(common) : c.content;
        if (more.empty()) return;
        seen.content += (ts.zh ? "，" : ", ") + more;
        for (const std::string& e : c.entities) {
          if (std::find(seen.entities.begin(), seen.entities.end(), e) == seen.entities.end()) {
            seen.entities.push_back(e);
          }
        }
        return;
      }
    }
    out->push_back(std::move(c));
  }

  RuleExtractorOptions options_;
  std::string name_ = "rules-v2";
};

}  // namespace

std::unique_ptr<Extractor> MakeRuleExtractor(const RuleExtractorOptions& options) {
  return std::make_unique<RuleExtractor>(options);
}

}  // namespace engram
