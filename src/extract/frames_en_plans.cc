// English frames (frames.h, frames_en.cc) for plans, amounts and budgets, schedules, devices and
// what stops holding (a death, quitting, leaving).
#include <algorithm>
#include <cctype>
#include <string>

#include "extract/english_words.h"
#include "extract/frames.h"
#include "extract/frames_en_internal.h"
#include "extract/lexicon.h"
#include "text/find.h"
#include "text/lexicon_data.h"

namespace engram::extract {

using namespace en;  // NOLINT: the word helpers are this file's vocabulary

// ---- amounts ----

namespace {

bool IsAmountStart(std::string_view s, size_t i) {
  return s[i] == '$' || s[i] == '\xc2' /* £ */ || std::isdigit(static_cast<unsigned char>(s[i]));
}

}  // namespace

std::string FindAmountEn(std::string_view s) {
  for (size_t i = 0; i < s.size(); ++i) {
    if (!IsAmountStart(s, i)) continue;
    if (i > 0 && (std::isalnum(static_cast<unsigned char>(s[i - 1])))) continue;
    size_t j = i;
    if (s[j] == '$') ++j;
    if (s.substr(j, 2) == "\xc2\xa3") j += 2;
    size_t digits = j;
    while (j < s.size() && (std::isdigit(static_cast<unsigned char>(s[j])) ||
                            ((s[j] == ',' || s[j] == '.') && j + 1 < s.size() &&
                             std::isdigit(static_cast<unsigned char>(s[j + 1]))))) {
      ++j;
    }
    if (j == digits) continue;
    const bool currency = s[i] == '$' || s[i] == '\xc2';
    size_t e = j;
    if (e < s.size() && (s[e] == 'k' || s[e] == 'K' || s[e] == 'm' || s[e] == 'M') &&
        (e + 1 == s.size() || !std::isalpha(static_cast<unsigned char>(s[e + 1])))) {
      ++e;
    }
    std::string_view rest = s.substr(e);
    const bool unit =
        rest.starts_with(" dollars") || rest.starts_with(" bucks") || rest.starts_with(" grand") ||
        rest.starts_with(" lbs") || rest.starts_with(" pounds") || rest.starts_with(" kg") ||
        rest.starts_with("lbs") || rest.starts_with("kg") || rest.starts_with(" a month") ||
        rest.starts_with(" a year") || rest.starts_with(" per ") || rest.starts_with("/mo");
    if (currency || e > j || unit || j - digits >= 3) return std::string(s.substr(i, e - i));
  }
  return "";
}

namespace frames_en {
namespace {

// The words naming what an amount or budget is for: before `at` (not "my", "the", "our"), or
// after "for (the)" following it. "grocery budget" → "grocery"; "budget for the Japan trip" →
// "japan trip".
std::string TopicAround(const Toks& t, size_t at) {
  std::string before;
  for (size_t i = at; i > 0; --i) {
    std::string_view w = t[i - 1].low;
    if (w == "my" || w == "our" || w == "the" || w == "a" || w == "," || w == "'s" ||
        IsImplicitVerb(w) || w == "is" || w == "to" || w == "raise" || w == "up" || w == "down" ||
        Function().contains(w) || w == "i" || w == "we" || at - i >= 2) {
      break;
    }
    before = before.empty() ? std::string(w) : std::string(w) + " " + before;
  }
  if (!before.empty()) return before;
  if (Is(t, at + 1, "for")) {
    size_t b = at + 2;
    if (Is(t, b, "the") || Is(t, b, "our") || Is(t, b, "my") || Is(t, b, "a")) ++b;
    std::string after;
    for (size_t i = b; i < t.size() && i < b + 3; ++i) {
      if (t[i].low == "is" || t[i].low == "," || t[i].low == "was" || t[i].low == "are") break;
      after += (after.empty() ? "" : " ") + t[i].low;
    }
    return after;
  }
  return "";
}

}  // namespace

std::vector<Statement> Budget(const ClauseView& c, const Toks& t, const Subject& s) {
  const size_t at = Find(t, "budget");
  if (at == t.size() || (s.who == Who::kPerson && !s.pet)) return {};
  std::string amount = FindAmountEn(c.text);
  if (amount.empty()) return {};
  std::string topic = TopicAround(t, at);
  Statement st = Make(Kind::kBudget, amount, SlotKey(topic));
  st.elliptical = topic.empty();
  st.importance = 0.7;
  return {st};
}

std::vector<Statement> Amount(const ClauseView& c, const Toks& t, const Subject& s,
                              MessageState* state) {
  // "rent went up, it's $1,950 now": the clause before named what the amount is
  const bool it_is = s.who == Who::kOther && Is(t, 0, "it") && !c.topic.empty();
  if (!AboutUser(s) && !it_is &&
      !(s.who == Who::kOther && !t.empty() && !AmountTopic(t[0].low).empty())) {
    return {};
  }
  std::string topic;
  for (const Tok& w : t) {
    if (std::string_view a = AmountTopic(w.low); !a.empty()) {
      topic = std::string(a);
      break;
    }
  }
  const std::string amount = FindAmountEn(c.text);
  if (topic.empty()) {
    // "got a raise!! I'm at 95k now": the topic said in the clause before.
    if (amount.empty() || c.topic.empty() || AmountTopic(c.topic).empty()) {
      if (!topic.empty() || amount.empty()) {
        for (const Tok& w : t) {
          if (std::string_view a = AmountTopic(w.low); !a.empty()) state->topic = std::string(a);
        }
      }
      return {};
    }
    topic = std::string(AmountTopic(c.topic));
  }
  state->topic = topic;
  // "lost 10 lbs this month": a weight lost or gained is no weight ("down to 170" is one)
  if (topic == "weight" && Has(t, {"lost", "gained", "shed", "losing", "gaining", "put"}) &&
      !Has(t, {"to"})) {
    return {};
  }
  if (amount.empty()) {
    // "weighed in today, I'm at 195 now": a bare number after a weight word
    for (size_t i = 0; i < t.size(); ++i) {
      if (IsNumberWord(t[i].low) && t[i].low.size() >= 2 &&
          (topic == "weight" || topic == "height")) {
        return {Make(Kind::kAmount, t[i].text, topic)};
      }
    }
    return {};
  }
  return {Make(Kind::kAmount, amount, topic)};
}

// ---- schedules ----

namespace {

bool IsWeekday(std::string_view w) {
  static const WordSet k = {"monday", "tuesday", "wednesday", "thursday", "friday", "saturday",
                            "sunday", "mondays", "tuesdays", "wednesdays", "thursdays", "fridays",
                            "saturdays", "sundays", "weekends", "weekdays",
                            // as people type them: "mon/wed/fri", "tue + thu"
                            "mon", "tue", "tues", "wed", "thu", "thur", "thurs", "fri", "sat",
                            "sun", "mwf"};
  return k.contains(w);
}

bool IsPartOfDay(std::string_view w) {
  static const WordSet k = {"mornings", "nights", "evenings", "afternoons", "night", "morning"};
  return k.contains(w);
}

bool IsClockTime(std::string_view w) {
  if (w.empty() || !std::isdigit(static_cast<unsigned char>(w[0]))) return false;
  return w.ends_with("am") || w.ends_with("pm") || ContainsText(w, ':');
}

}  // namespace

std::vector<Statement> Schedule(const ClauseView& c, const Toks& t, const Subject& s,
                                MessageState* state) {
  // "gym day is tuesdays now", "piano moved to thursdays": a thing's schedule is the user's
  if (s.who == Who::kOther && (t.empty() || IsWeekday(t[0].low) || Function().contains(t[0].low)) &&
      !Has(t, {"i", "we"})) {
    return {};
  }
  // "mon/wed/fri", "monday wednesday friday", "tue + thu": two days or more are a routine
  const auto days_at = [&](size_t i) {
    if (IsWeekday(t[i].low)) return true;
    const std::string_view w = t[i].low;
    if (w.find('/') == std::string_view::npos) return false;
    for (size_t b = 0; b <= w.size();) {
      const size_t e = std::min(w.find('/', b), w.size());
      if (!IsWeekday(w.substr(b, e - b))) return false;
      b = e + 1;
    }
    return true;
  };
  size_t when = t.size();
  for (size_t i = 0; i < t.size(); ++i) {
    const bool day = days_at(i);
    bool several_days = day && t[i].low.find('/') != std::string::npos;
    for (size_t j = i + 1; day && j < t.size() && j <= i + 3 && !several_days; ++j) {
      several_days = days_at(j);
    }
    const bool plural_day = (IsWeekday(t[i].low) && t[i].low.ends_with("s")) || several_days;
    const bool every = (t[i].low == "every" || t[i].low == "each") && i + 1 < t.size() &&
                       (IsWeekday(t[i + 1].low) || IsPartOfDay(t[i + 1].low) ||
                        (t[i + 1].low == "day" && Has(t, {"wake", "up", "gym", "run", "walk"})));
    const bool shift = IsPartOfDay(t[i].low) && t[i].low.ends_with("s") &&
                       Has(t, {"shift", "shifts", "work", "moved", "switched", "lessons", "class",
                               "classes", "practice", "gym", "swim", "piano"});
    const bool clock = IsClockTime(t[i].low) || (t[i].low == "at" && i + 1 < t.size() &&
                                                 IsNumberWord(t[i + 1].low) && when < t.size());
    if (plural_day || every || shift ||
        (clock && when == t.size() && i + 1 < t.size() &&
         (t[i + 1].low == "to" || t[i + 1].low == "-"))) {
      when = i;
      break;
    }
  }
  if (when == t.size()) return {};
  // The activity: a known word, else the first noun-like word that is not the time.
  static const WordSet kSkip = {
      "even",   "weekends", "morning", "by",    "always", "get",     "every", "i",       "we",
      "my",     "our",      "the",     "a",     "go",     "to",      "on",    "at",      "in",
      "is",     "are",      "was",     "do",    "have",   "got",     "get",   "take",    "moved",
      "move",   "now",      "day",     "days",  "every",  "each",    "and",   "am",      "after",
      "before", "work",     "kids",    "shift", "shifts", "lessons", "class", "usually", "always",
      "also",   "still",    "just",    "only",  "then",   "so",      "it",    "that",    "from",
      "until",  "starting", "this",    "week",  "s",      "'s",      "up",    "out"};
  std::string activity;
  for (size_t i = s.who == Who::kPerson ? s.end : 0; i < t.size(); ++i) {
    std::string_view w = t[i].low;
    if (i == when || days_at(i) || IsPartOfDay(w) || IsClockTime(w) || IsNumberWord(w) ||
        w == "," || w == "+") {
      continue;
    }
    if ((w == "wake" || w == "up") && (Has(t, {"wake"}) || Has(t, {"up"}))) {
      activity = "wake";
      break;
    }
    if (w == "gym" || w == "yoga" || w == "piano" || w == "swim" || w == "swimming" ||
        w == "soccer" || w == "tennis" || w == "therapy" || w == "church" || w == "class" ||
        w == "practice" || w == "run" || w == "running" || w == "climbing" || w == "lessons" ||
        w == "shifts" || w == "shift" || w == "workout" || w == "workouts") {
      activity = ActivityKey(w);
      if (activity.empty()) activity = std::string(w);
      break;
    }
    if (activity.empty() && !kSkip.contains(w) && !IsImplicitVerb(w) && w.size() > 2) {
      activity = ActivityKey(w);
    }
  }
  if (activity.empty() && (Has(t, {"shifts", "shift", "work", "nights", "mornings"}))) {
    activity = "shift";
  }
  if (activity.empty()) {
    if (state->topic.empty()) return {};
    activity = state->topic;
  }
  if (activity == "lesson" || activity == "lessons") return {};
  Statement st = Make(Kind::kSchedule, Words(t, when, t.size()), activity, 0.75);
  st.entities.clear();
  st.recurring = true;
  st.type = MemoryType::kFact;
  if (s.who == Who::kPerson) ForPerson(s, &st, "schedule:" + activity);
  return {st};
}

// ---- devices ----

std::vector<Statement> Device(const Toks& t, const Subject& s) {
  if (s.who == Who::kPerson || s.who == Who::kOther) {
    // "the dell's going to my nephew": a device leaving
    return {};
  }
  std::string kind;
  size_t at = t.size();
  for (size_t i = 0; i < t.size(); ++i) {
    std::string_view k = DeviceKind(t[i].low);
    if (i + 1 < t.size() && DeviceKind(t[i].low + " " + t[i + 1].low).size()) {
      k = DeviceKind(t[i].low + " " + t[i + 1].low);
    }
    if (!k.empty()) {
      kind = std::string(k);
      at = i;
      break;
    }
  }
  if (kind.empty()) return {};
  // the model as written: the brand and what follows it while capitalized or numeric
  size_t e = at + 1;
  while (e < t.size() && e < at + 4 &&
         (IsCapitalized(t[e]) || IsNumberWord(t[e].low) ||
          (!t[e].low.empty() && std::isdigit(static_cast<unsigned char>(t[e].low[0]))) ||
          t[e].low == "pro" || t[e].low == "air" || t[e].low == "max" || t[e].low == "mini" ||
          t[e].low == "plus" || t[e].low == "ultra")) {
    ++e;
  }
  Statement st = Make(Kind::kDevice, Words(t, at, e), kind, 0.8);
  return {st};
}

// ---- things that stop holding ----

// After "left"/"leaving" (`b` past the determiners that follow it at `after_verb`): does the
// object name what the user left for good, a place of work or a named one, rather than a
// day's leaving ("left work at 5", "left home early") or a thing left behind ("left my keys")?
static bool LeftEnds(const Toks& t, size_t after_verb, size_t b) {
  static const std::vector<std::string_view> kEmployer = {"company", "firm", "startup",
                                                          "agency",  "team", "job"};
  static const std::vector<std::string_view> kDaily = {
      "work",  "home",  "house",  "office", "early", "late",     "class", "gym",
      "party", "town",  "school", "bed",    "room",  "building", "store", "shop",
      "car",   "there", "here",   "it",     "them",  "him",      "her",   "that",
      "this",  "for",   "to",     "at",     "in",    "on",       "with"};
  if (b >= t.size()) return false;
  const std::string& w = t[b].low;
  if (std::find(kEmployer.begin(), kEmployer.end(), w) != kEmployer.end()) return true;
  if (b > after_verb) return false;  // "left my keys", "left the lights on"
  return std::find(kDaily.begin(), kDaily.end(), w) == kDaily.end();
}

std::vector<Statement> Ended(const Toks& t, const Subject& s, const std::string& clause) {
  const std::string low = Lower(clause);
  auto has = [&](std::string_view w) { return ContainsText(low, w); };
  // a death or a loss: "Biscuit passed away", "my kindle died", "Nugget died a while ago",
  // "mochi crossed the rainbow bridge" (endings.tsv `death`)
  static const std::vector<std::string> kDeath = LexiconWords("en/endings.tsv", "death");
  std::string_view said;  // the death phrase, as the clause has it
  for (const std::string& d : kDeath) {
    if (HasWord(low, d)) {
      said = d;
      break;
    }
  }
  const bool death = !said.empty();
  Subject named = s;
  // typed in lower case, a name is the one word before the phrase ("mochi crossed the rainbow
  // bridge"): nothing else dies or crosses a rainbow bridge
  if (death && named.who != Who::kPerson && named.who != Who::kUserThing && t.size() > 1 &&
      t[0].low.size() + 1 <= low.size() &&
      low.compare(t[0].low.size() + 1, said.size(), said) == 0 && !Function().contains(t[0].low) &&
      t[0].low.size() > 2 && std::all_of(t[0].low.begin(), t[0].low.end(), [](char c) {
        return std::isalpha(static_cast<unsigned char>(c)) != 0;
      })) {
    named.who = Who::kPerson;
    named.name = t[0].text;
    named.key = t[0].low;
    named.pet = false;
  }
  if (death && (named.who == Who::kPerson || named.who == Who::kUserThing)) {
    const Subject& s = named;
    Statement st = Make(Kind::kEnded, s.name.empty() ? s.key : s.name, "", 0.85);
    st.ends = {s.name.empty() ? s.key : s.name};
    const bool device = s.who == Who::kUserThing && !DeviceKind(s.key).empty();
    st.importance = device ? 0.5 : 0.85;
    if (s.who == Who::kPerson && s.pet) st.slot = "user/pet:" + SlotKey(s.key);
    if (s.who == Who::kPerson && !s.pet) st.slot = s.key + "/status";
    if (!st.slot.empty()) st.exclusive = true;
    return {st};
  }
  if (!AboutUser(s)) return {};
  // "I quit coffee", "I left Deloitte", "I dropped Spanish", "stopped the French lessons",
  // "not teaching anymore", "I stopped keto"
  static const std::vector<std::string_view> kVerbs = {
      "quit",     "left",    "stopped",  "dropped", "gave up", "gave up on", "am done with",
      "quitting", "leaving", "stopping", "cut out", "kicked",  "ditched",    "sold"};
  for (size_t i = s.end; i < t.size(); ++i) {
    for (std::string_view v : kVerbs) {
      size_t n = 1 + static_cast<size_t>(std::count(v.begin(), v.end(), ' '));
      std::string words;
      for (size_t k = i; k < i + n && k < t.size(); ++k)
        words += (words.empty() ? "" : " ") + t[k].low;
      if (words != v) continue;
      size_t b = i + n;
      while (b < t.size() && (t[b].low == "the" || t[b].low == "my" || t[b].low == "a" ||
                              t[b].low == "on" || t[b].low == "my")) {
        ++b;
      }
      size_t e = b;
      while (e < t.size() && e < b + 5 && t[e].low != "," && !Boundaries().contains(t[e].low) &&
             t[e].low != "last" && t[e].low != "yesterday") {
        ++e;
      }
      if (e == b) return {};
      if (t[b].low == "job" && e == b + 1) return {};
      // "left work at 5", "left my keys in the car": a day's leaving or a thing left behind;
      // after "left" a name ("left deloitte") or an employer word ("left the company") ends
      if ((v == "left" || v == "leaving") && !LeftEnds(t, i + n, b)) return {};
      std::string what = Words(t, b, e);
      if (Lower(what) == "it" || Lower(what) == "that") return {};
      Statement st = Make(Kind::kEnded, what, "", 0.85);
      st.ends = {what};
      // quitting a language, a diet or a habit is that slot's new value
      if (std::string_view lang = LanguageKey(t[b].low); !lang.empty()) {
        st.slot = "user/language:" + std::string(lang);
        st.exclusive = true;
      } else if (IsDiet(t[b].low)) {
        st.slot = "user/diet";
        st.exclusive = true;
      } else if (!IsCapitalized(t[b]) && t[b].low != "job" && t[b].low != "work") {
        // "quit coffee", "stopped drinking": the habit's new state
        st.slot = "user/habit:" + SlotKey(Singular(t[e - 1].low));
        st.exclusive = true;
      }
      return {st};
    }
  }
  // "not teaching anymore", "no longer vegan"
  if ((has(" anymore") || has("no longer") || has("any more")) && Negated(t)) {
    size_t b = s.end;
    while (b < t.size() && (t[b].low == "not" || t[b].low == "no" || t[b].low == "longer" ||
                            t[b].low == "am" || t[b].low == "do" || t[b].low == "'m")) {
      ++b;
    }
    size_t e = b;
    while (e < t.size() && t[e].low != "anymore" && t[e].low != "," && e < b + 4) ++e;
    if (e > b) {
      std::string what = Words(t, b, e);
      Statement st = Make(Kind::kEnded, what, "", 0.8);
      st.ends = {what};
      return {st};
    }
  }
  return {};
}

// ---- plans ----

bool IsPlanNoun(const Tok& x) {
  static const WordSet k = {"wedding",    "trip",      "vacation",    "holiday", "move",
                            "surgery",    "interview", "appointment", "party",   "recital",
                            "graduation", "marathon",  "race",        "exam",    "test",
                            "honeymoon",  "concert",   "conference",  "flight",  "visit",
                            "defense",    "retreat"};
  const std::string& w = x.text;
  const bool acronym =
      w.size() >= 3 && w.size() <= 5 && std::all_of(w.begin(), w.end(), [](char ch) {
        return std::isupper(static_cast<unsigned char>(ch));
      });
  return k.contains(x.low) || acronym;
}

std::vector<Statement> Plan(const ClauseView& c, const Toks& t, const Subject& s) {
  if (!AboutUser(s) && !(s.who == Who::kUserThing)) return {};
  const bool future = c.time.future_time;
  const bool moving = Has(t, {"moving", "relocating", "move"}) && Has(t, {"to"});
  const bool intention = Has(
      t, {"planning", "plan", "going", "gonna", "thinking", "will", "'ll", "probably", "hoping"});
  // "moving to Denver next month", "planning to move to Lisbon in September": a plan, not home
  if (moving && (future || intention || Has(t, {"moving", "relocating"}))) {
    size_t to = Find(t, "to",
                     Find(t, Has(t, {"moving"})       ? "moving"
                             : Has(t, {"relocating"}) ? "relocating"
                                                      : "move"));
    size_t b = to + 1;
    if (Is(t, b, "back")) ++b;
    size_t e = CapitalSpan(t, b);
    if (to < t.size() && e > b) {
      Statement st = Make(Kind::kPlan, Words(t, b, e), "move", 0.8);
      st.type = MemoryType::kGoal;
      return {st};
    }
  }
  // a dated plan about an event noun: "I'm taking the GRE in October", "our wedding is set for
  // September 19", "pushed my GRE back to December", "moved the wedding to October 3"
  if (!c.time.has_time && !Has(t, {"planning", "plan"})) return {};
  for (size_t k = 0; k < t.size(); ++k) {
    const Tok& x = t[k];
    if (x.low == "i" || x.low == "we" || !IsPlanNoun(x)) continue;
    // "dentist appointment" and "doctor appointment" are two plans; "my appointment" either
    std::string key = SlotKey(x.low);
    static const WordSet kNoQualifier = {
        "my",     "our",    "the",         "a",         "an",       "this",      "that",
        "next",   "last",   "big",         "first",     "his",      "her",       "their",
        "new",    "have",   "has",         "had",       "got",      "booked",    "scheduled",
        "moved",  "pushed", "rescheduled", "cancelled", "canceled", "is",        "was",
        "for",    "to",     "of",          "at",        "on",       "in",        "about",
        "until",  "before", "after",       "with",      "attend",   "attending", "take",
        "taking", "took",   "missed",      "upcoming",  "final",    "second",    "another",
        "some",   "any"};
    if (k > 0 && !kNoQualifier.contains(t[k - 1].low) && !IsCapitalized(t[k - 1]) &&
        std::all_of(t[k - 1].low.begin(), t[k - 1].low.end(),
                    [](char ch) { return std::isalpha(static_cast<unsigned char>(ch)); })) {
      key = SlotKey(t[k - 1].low + " " + x.low);
    }
    Statement st = Make(Kind::kPlan, x.text, key, 0.8);
    st.entities.clear();
    static const WordSet kAppointments = {"appointment", "interview", "surgery", "flight", "exam",
                                          "test",        "checkup",   "class",   "visit"};
    st.type = (future || Has(t, {"pushed", "moved", "set", "planning", "booked"})) &&
                      !kAppointments.contains(x.low)
                  ? MemoryType::kGoal
                  : MemoryType::kEvent;
    if (!future && !Has(t, {"pushed", "moved", "set", "planning", "booked", "is", "are"})) {
      return {};  // a past event: the patterns and the generic reading date it
    }
    return {st};
  }
  return {};
}

}  // namespace frames_en
}  // namespace engram::extract
