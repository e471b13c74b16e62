// A clause in the third person, with its dates (third_person.h).
#include "extract/third_person.h"

#include <algorithm>
#include <cctype>
#include <string>
#include <utility>
#include <vector>

#include "extract/clauses.h"
#include "extract/english_words.h"
#include "extract/frames.h"
#include "extract/lexicon.h"
#include "text/find.h"
#include "text/time_expressions.h"
#include "text/utf8.h"

namespace engram::extract {
namespace {

constexpr TimestampMs kDayMs = 86'400'000;

std::string DateText(const TimeExpression& t) { return FormatTimeExpression(t); }

}  // namespace

ClauseInput WithoutTime(const std::string& clause, bool zh, TimestampMs now, std::string* storage) {
  ClauseInput in;
  auto times =
      zh ? FindChineseTimeExpressions(clause, now) : FindEnglishTimeExpressions(clause, now);
  *storage = clause;
  if (!times.empty()) {
    // "Wednesday and Thursday", "周三和周四": the connector goes with the dates.
    for (size_t k = 1; k < times.size(); ++k) {
      std::string gap =
          LowerAscii(clause.substr(times[k - 1].end, times[k].begin - times[k - 1].end));
      std::string bare;
      for (char ch : gap) {
        if (ch != ' ' && ch != ',') bare += ch;
      }
      if (bare.empty() || bare == "and" || bare == "or" || bare == "&" || bare == "和" ||
          bare == "、" || bare == "或" || bare == "到" || bare == "至" || bare == "to") {
        times[k].begin = times[k - 1].end;
      }
    }
    // A date between two Latin words ("QQ昨天Qa") leaves a space: joined, they would make a
    // word nobody said.
    const auto word_char = [](char ch) {
      return std::isalnum(static_cast<unsigned char>(ch)) != 0;
    };
    for (auto it = times.rbegin(); it != times.rend(); ++it) {
      const bool joins = it->begin > 0 && it->end < storage->size() &&
                         word_char((*storage)[it->begin - 1]) && word_char((*storage)[it->end]);
      storage->replace(it->begin, it->end - it->begin, joins ? " " : "");
    }
    const TimeExpression& t = times.front();
    in.has_time = true;
    in.future_time = t.at >= (now / kDayMs) * kDayMs;
    in.later_day = t.at >= (now / kDayMs + 1) * kDayMs;
    in.date = FormatTimeExpression(t);
    in.date_is_day =
        t.granularity == TimeGranularity::kDay || t.granularity == TimeGranularity::kWeek;
    {
      const std::string said = LowerAscii(clause.substr(t.begin, t.end - t.begin));
      for (std::string_view d :
           {"周一", "周二", "周三", "周四", "周五", "周六", "周日", "星期", "礼拜", "monday",
            "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"}) {
        in.weekday = in.weekday || ContainsText(said, d);
      }
      in.weekday = in.weekday && !ContainsText(said, "上周") && !ContainsText(said, "下周") &&
                   !ContainsText(said, "last") && !ContainsText(said, "next");
    }
    in.time_at = t.at;
    in.week = t.granularity == TimeGranularity::kWeek;
    in.weekend = ContainsText(LowerAscii(clause.substr(t.begin, t.end - t.begin)), "weekend") ||
                 ContainsText(clause.substr(t.begin, t.end - t.begin), "周末");
  }
  in.text = *storage;
  return in;
}

std::string WithDates(const std::string& clause, bool zh, TimestampMs now) {
  auto times =
      zh ? FindChineseTimeExpressions(clause, now) : FindEnglishTimeExpressions(clause, now);
  std::string out = clause;
  size_t next_begin = std::string::npos;  // where the date after this one was said
  for (auto it = times.rbegin(); it != times.rend(); ++it) {
    // "只有周一周三晚上有空": two dates said side by side stay apart once resolved
    const bool touches = std::exchange(next_begin, it->begin) == it->end;
    std::string date = DateText(*it);
    const std::string said_text = clause.substr(it->begin, it->end - it->begin);
    if (ContainsText(said_text, date)) continue;  // already a date: "on 2024-05-03"
    if (!zh) {
      std::string said = LowerAscii(said_text);
      const bool preposition = said.starts_with("on ") || said.starts_with("in ") ||
                               said.starts_with("since ") || said.starts_with("during ");
      static const std::vector<std::string_view> kRelative = {
          "yesterday", "today", "tomorrow", "tonight", "last",    "next",      "this",   "ago",
          "day",       "week",  "month",    "year",    "morning", "afternoon", "evening"};
      bool relative = false;
      for (std::string_view r : kRelative) relative = relative || ContainsText(said, r);
      relative =
          relative || (preposition && said.find_first_of("0123456789") != std::string::npos &&
                       ContainsText(said, "days"));
      if (!relative && said.find_first_of("0123456789") == std::string::npos &&
          !ContainsText(said, ' ')) {
        relative = false;  // a weekday or month name alone
      }
      if (!relative) {
        // "September 19", "in October": kept as said, with the year it resolved to
        bool has_year = false;
        for (size_t k = 0; k + 4 <= said.size() && !has_year; ++k) {
          has_year = std::all_of(said.begin() + k, said.begin() + k + 4, [](char ch) {
            return std::isdigit(static_cast<unsigned char>(ch));
          });
        }
        if (!has_year && date.size() >= 4) {
          out.insert(it->end,
                     (it->granularity == TimeGranularity::kDay ? ", " : " ") + date.substr(0, 4));
        }
        continue;
      }
      std::string before = LowerAscii(clause.substr(0, it->begin));
      while (!before.empty() && before.back() == ' ') before.pop_back();
      const bool after_preposition = before.ends_with(" to") || before.ends_with(" by") ||
                                     before.ends_with(" until") || before.ends_with(" for") ||
                                     before.ends_with(" from") || before.ends_with(" since") ||
                                     before.ends_with(" starting") || before.ends_with(" before") ||
                                     before.ends_with(" after");
      std::string prep = preposition ? said.substr(0, said.find(' ') + 1) : "";
      if (prep.empty() && !after_preposition) {
        prep = it->granularity == TimeGranularity::kDay    ? "on "
               : it->granularity == TimeGranularity::kWeek ? "the week of "
                                                           : "in ";
      }
      if (preposition && said.starts_with("in ") && it->granularity == TimeGranularity::kDay) {
        prep = "on ";  // "in 10 days" → "on 2026-07-28"
      }
      date = prep + date;
    } else {
      // Chinese: month and day names ("3月5号", "十月") kept, the date after them
      const bool absolute = ContainsText(said_text, "月") && !ContainsText(said_text, "上个月") &&
                            !ContainsText(said_text, "下个月") &&
                            !ContainsText(said_text, "这个月") &&
                            !ContainsText(said_text, "本月") && !ContainsText(said_text, "上月") &&
                            !ContainsText(said_text, "下月");
      // a weekday said alone ("周五", "星期三", not "下周五"): the user's word kept, the date after
      const bool weekday = (said_text.starts_with("周") || said_text.starts_with("星期") ||
                            said_text.starts_with("礼拜")) &&
                           !ContainsText(said_text, "周末") && CountCodepoints(said_text) <= 3;
      if (absolute || weekday) {
        const std::string dated = "（" + date + "）";
        out.insert(it->end, dated);
        // "周六我们要去爬山" → "我们周六（…）要去爬山": a subject after a time said first goes
        // before it, so the clause still starts with whom it is about
        // (a clause with no subject of its own got "我" before the time: the one after it goes)
        const bool carried = it->begin == 3 && out.starts_with("我");
        const size_t after = it->end + dated.size();
        if ((it->begin == 0 || carried) && after <= out.size()) {
          const std::string_view next = std::string_view(out).substr(after);
          // ("我老婆", "我的", "我家": whose, not who, and kept)
          const std::string_view owned = next.size() > 3 ? next.substr(3) : std::string_view();
          const bool whose = next.starts_with("我的") || next.starts_with("我家") ||
                             !RelationKey(owned.substr(0, 3)).empty() ||
                             !RelationKey(owned.substr(0, 6)).empty();
          for (std::string_view subject : {"我们", "咱们", "我"}) {
            if (subject == "我" && whose) break;
            if (next.starts_with(subject)) {
              out.erase(after, subject.size());
              if (!carried) out.insert(0, subject);
              break;
            }
          }
        }
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
    if (touches) date += zh ? "、" : " and ";
    out.replace(it->begin, it->end - it->begin, date);
  }
  return out;
}

std::string RewriteEn(const std::string& clause) {
  using en::Tok;
  std::vector<Tok> t = en::Tokenize(clause);
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
      // "jess and I split": a subject of two takes the verb as said
      conjugate_next = !(i > 0 && t[i - 1].low == "and");
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
        "no",    "been", "being", "to",    "a",    "an",   "the",  "so",   "gonna",
        "going", "in",   "on",    "at",    "for",  "with", "from", "by",   "of",
        "about", "into", "here",  "there", "and",  "or",   "as",   "this", "that",
        "all",   "both", "too",   "home",  "done", "back", "out",  "up"};
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
      if (en::Adverbs().contains(w) || w == "not" || w == "never") {
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
      append(en::ThirdPerson(t[i]));
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
      const bool possessive = !after.starts_with("的") && !RelationKey(after.substr(0, 6)).empty();
      const bool possessive1 = !after.starts_with("的") && !RelationKey(after.substr(0, 3)).empty();
      out += first ? "用户" : "用户";
      if (possessive || possessive1) out += "的";
      i += 3;
      first = false;
      continue;
    }
    size_t n = CodepointLength(clause, i);
    out.append(clause, i, n);
    i += n;
  }
  if (!out.starts_with("用户") && !ContainsText(clause, "我") && !ContainsText(clause, "用户")) {
    const std::string subject = ChineseSubjectKey(clause);
    if (subject == "user") out = "用户" + out;
  }
  return out;
}

std::string SubjectBeforeDateZh(std::string content) {
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

std::string JoinLead(const std::string& lead, std::string content, bool zh) {
  if (zh) {
    if (content.starts_with("用户") && !lead.starts_with("用户")) {
      return "用户" + lead + "，" + content.substr(6);
    }
    return lead + "，" + content;
  }
  if (content.starts_with("User ") || content.starts_with("User's ")) content[0] = 'u';
  return lead + ", " + (content.starts_with("user") ? "the " + content : content);
}

}  // namespace engram::extract
