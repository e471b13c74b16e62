// English topic frames (frames.h). A clause is read as tokens (english_words.h); its subject
// is found first — the user ("I", "we", "my rent"), someone they know ("my brother Kevin",
// "mom", "Biscuit"), or nobody ("got promoted!", which is the user) — then each frame looks for
// its trigger words and reads the value around them.
#include <algorithm>
#include <cctype>
#include <string>

#include "extract/english_words.h"
#include "extract/frames.h"
#include "extract/lexicon.h"

namespace engram::extract {

using namespace en;  // NOLINT: the word helpers are this file's vocabulary

namespace {

using Toks = std::vector<Tok>;

enum class Who { kUser, kUserThing, kPerson, kNobody, kOther };

struct Subject {
  Who who = Who::kOther;
  size_t end = 0;       // first token after the subject
  std::string key;      // kPerson: "kevin", "mom"; kUserThing: "rent", "phone"
  std::string relation; // kPerson: "brother", "" for a bare name
  std::string name;     // as written: "Kevin", "Biscuit"
  bool pet = false;
};

bool Is(const Toks& t, size_t i, std::string_view w) { return i < t.size() && t[i].low == w; }

bool IsNumberWord(std::string_view w) {
  static const WordSet k = {"one", "two", "three", "four", "five", "six", "seven", "eight",
                            "nine", "ten", "eleven", "twelve"};
  return k.contains(w) || (!w.empty() && std::all_of(w.begin(), w.end(), ::isdigit));
}

// Verbs a clause without a subject starts with ("got promoted", "moved to Denver"): the user.
bool IsImplicitVerb(std::string_view w) {
  static const WordSet k = {
      "got", "moved", "started", "quit", "left", "switched", "finished", "bought", "adopted",
      "upgraded", "bumped", "pushed", "stopped", "dropped", "gave", "went", "just", "finally",
      "gonna", "going", "raised", "cut", "transferred", "joined", "became", "weighed", "took",
      "had", "broke", "tried", "been", "still", "love", "loving", "hate", "need", "want",
      "working", "living", "learning", "studying", "doing", "planning", "thinking", "trying",
      "decided", "promised", "committed", "committing", "confirmed", "signed", "booked",
      "sold", "ran", "passed", "failed", "won", "lost", "made", "found", "turned", "retired",
      "graduated", "enrolled", "married", "engaged", "divorced", "hired", "fired", "laid",
      "started", "picked", "renewed", "cancelled", "canceled",
      "currently", "also", "recently", "usually", "always", "mostly", "really", "fostering",
      "saving", "taking", "running", "teaching", "using", "drinking", "eating", "reading",
      "playing", "watching", "going"};
  return k.contains(w);
}

const WordSet& Function() {
  static const WordSet k = {"the", "a", "an", "this", "that", "these", "those", "it", "there",
                            "what", "when", "where", "who", "how", "why", "which", "if",
                            "you", "he", "she", "they", "his", "her", "their", "its", "your",
                            "some", "many", "most", "all", "any", "each", "every", "no", "few",
                            "several", "both", "other", "another", "such", "one", "two",
                            "three", "everyone", "nobody", "someone", "people"};
  return k;
}

bool IsPlanNoun(const Tok& x);

Subject FindSubject(const Toks& t) {
  Subject s;
  if (t.empty()) return s;
  // "Jake and I", "my wife and I": the user, with someone.
  for (size_t i = 1; i < t.size() && i < 5; ++i) {
    if (t[i].low == "i" && t[i - 1].low == "and") {
      s.who = Who::kUser;
      s.end = i + 1;
      return s;
    }
  }
  if (t[0].low == "i" || t[0].low == "we") {
    s.who = Who::kUser;
    s.end = 1;
    return s;
  }
  size_t i = 0;
  if (t[0].low == "my" || t[0].low == "our" || t[0].low == "the") i = 1;
  // "my brother Kevin", "mom", "my cat Mochi", "the vet"
  if (i < t.size()) {
    std::string_view rel = RelationKey(t[i].low);
    const bool pet = Pets().contains(t[i].low);
    if ((!rel.empty() || pet) && (i == 1 || t[0].low != "the")) {
      s.who = Who::kPerson;
      s.relation = pet ? Singular(t[i].low) : std::string(rel);
      s.key = s.relation;
      s.pet = pet;
      s.end = i + 1;
      if (i + 1 < t.size() && IsCapitalized(t[i + 1]) && t[i + 1].low != "i") {
        s.name = t[i + 1].text;
        s.key = t[i + 1].low;
        s.end = i + 2;
      }
      if (Is(t, s.end, "'s")) {  // "my sister's wedding": about the sister's thing
        s.end += 1;
      }
      return s;
    }
  }
  if ((t[0].low == "my" || t[0].low == "our") && t.size() > 1) {
    s.who = Who::kUserThing;
    s.key = t[1].low;
    s.end = 2;
    return s;
  }
  // "Biscuit passed away", "Kevin moved back to Ohio", "Rufus is my dog": a name, then a verb
  // or the rest of the name ("Real-world peoples do …" is no name).
  static const WordSet kPersonVerbs = {
      "is", "was", "has", "had", "says", "said", "thinks", "prefers", "likes", "loves", "hates",
      "wants", "needs", "lives", "works", "moved", "passed", "died", "got", "just", "strongly",
      "really", "always", "never", "also", "still", "will", "would", "can", "could", "told",
      "asked", "decided", "committed", "signed", "keeps", "goes", "plays", "studies", "teaches",
      "started", "'s", ",", "and", "finally", "officially", "recently", "usually", "does", "did",
      "went", "ran", "left", "came", "turned", "became", "gets", "seems", "feels", "knows"};
  auto common_noun = [](std::string_view w) {
    for (std::string_view suffix : {"tion", "sion", "ment", "ness", "ity", "ance", "ence", "ism",
                                    "ship", "ure", "ery", "ing", "ogy", "ics"}) {
      if (w.size() > suffix.size() + 2 && w.ends_with(suffix)) return true;
    }
    return false;
  };
  if (IsCapitalized(t[0]) && !Function().contains(t[0].low) && t.size() > 1 &&
      !IsImplicitVerb(t[0].low) && LanguageKey(t[0].low).empty() && !common_noun(t[0].low) &&
      (kPersonVerbs.contains(t[1].low) || IsPastForm(t[1].low) || IsCapitalized(t[1]))) {
    size_t e = 1;
    while (e < t.size() && e < 3 && IsCapitalized(t[e]) && t[e].low != "i") ++e;
    s.who = Who::kPerson;
    s.name = t[0].text;
    for (size_t k = 1; k < e; ++k) s.name += " " + t[k].text;
    s.key = Lower(s.name);
    s.end = e;
    return s;
  }
  if (!RelationKey(t[0].low).empty()) {  // "mom moved in with us", "kevin" lower-case is rare
    s.who = Who::kPerson;
    s.relation = std::string(RelationKey(t[0].low));
    s.key = s.relation;
    s.end = 1;
    return s;
  }
  // "a doctor appointment on Tuesday too", listed after another: a plan the user has
  if ((t[0].low == "a" || t[0].low == "an" || t[0].low == "another") &&
      std::any_of(t.begin() + 1, t.begin() + static_cast<long>(std::min<size_t>(t.size(), 4)),
                  [](const Tok& x) { return IsPlanNoun(x); })) {
    s.who = Who::kNobody;
    s.end = 0;
    return s;
  }
  if (IsImplicitVerb(t[0].low) || IsPastForm(t[0].low) ||
      ((t[0].low == "not" || t[0].low == "never") && t.size() > 1 &&
       (IsImplicitVerb(t[1].low) || IsPastForm(t[1].low)))) {
    s.who = Who::kNobody;
    s.end = 0;
    return s;
  }
  // Notes without a subject: "Adopting the same convention myself", "Updating the schedule". A
  // gerund that is itself the subject ("Swimming helps my back") is followed by its verb.
  static const WordSet kGerundVerbs = {"is", "was", "helps", "makes", "keeps", "gives", "takes",
                                       "has", "can", "will", "seems", "feels", "sounds"};
  if (t[0].low.size() > 5 && t[0].low.ends_with("ing") && t.size() > 1 &&
      !kGerundVerbs.contains(t[1].low) && !Function().contains(t[0].low)) {
    s.who = Who::kNobody;
    s.end = 0;
    return s;
  }
  return s;
}

bool AboutUser(const Subject& s) {
  return s.who == Who::kUser || s.who == Who::kUserThing || s.who == Who::kNobody;
}

std::string Words(const Toks& t, size_t b, size_t e) {
  std::string out;
  for (size_t i = b; i < e && i < t.size(); ++i) {
    if (t[i].low == ",") continue;
    if (!out.empty()) out += ' ';
    out += t[i].text;
  }
  return out;
}

size_t Find(const Toks& t, std::string_view w, size_t from = 0) {
  for (size_t i = from; i < t.size(); ++i) {
    if (t[i].low == w) return i;
  }
  return t.size();
}

bool Has(const Toks& t, std::initializer_list<std::string_view> words) {
  for (const Tok& x : t) {
    for (std::string_view w : words) {
      if (x.low == w) return true;
    }
  }
  return false;
}

bool Negated(const Toks& t) {
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i].low == "not" || t[i].low == "never" || (t[i].low == "no" && Is(t, i + 1, "longer"))) {
      return true;
    }
  }
  return false;
}

Statement Make(Kind kind, std::string value, std::string key, double confidence = 0.85) {
  Statement s;
  s.kind = kind;
  s.value = std::move(value);
  s.key = std::move(key);
  s.confidence = confidence;
  if (!s.value.empty()) s.entities.push_back(s.value);
  return s;
}

// The slot of a person-subject statement: "<person>/<attribute>".
void ForPerson(const Subject& s, Statement* st, std::string_view attribute) {
  st->subject = s.key;
  st->slot = s.key + "/" + std::string(attribute);
  if (!s.name.empty() &&
      std::find(st->entities.begin(), st->entities.end(), s.name) == st->entities.end()) {
    st->entities.push_back(s.name);
  }
}

// A capitalized span starting at b (an organisation, a school, a place): its end.
size_t CapitalSpan(const Toks& t, size_t b) {
  size_t e = b;
  while (e < t.size() && (IsCapitalized(t[e]) || (e > b && (t[e].low == "of" || t[e].low == "&") &&
                                                   e + 1 < t.size() && IsCapitalized(t[e + 1])))) {
    if (t[e].low == "i") break;
    ++e;
  }
  if (e < t.size() && t[e].low == "'s" && e > b) ++e;  // "Trader Joe's"
  return e;
}

// ---- amounts ----

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
    const bool unit = rest.starts_with(" dollars") || rest.starts_with(" bucks") ||
                      rest.starts_with(" grand") || rest.starts_with(" lbs") ||
                      rest.starts_with(" pounds") || rest.starts_with(" kg") ||
                      rest.starts_with("lbs") || rest.starts_with("kg") ||
                      rest.starts_with(" a month") || rest.starts_with(" a year") ||
                      rest.starts_with(" per ") || rest.starts_with("/mo");
    if (currency || e > j || unit || j - digits >= 3) return std::string(s.substr(i, e - i));
  }
  return "";
}

namespace {

// The words naming what an amount or budget is for: before `at` (not "my", "the", "our"), or
// after "for (the)" following it. "grocery budget" → "grocery"; "budget for the Japan trip" →
// "japan trip".
std::string TopicAround(const Toks& t, size_t at) {
  std::string before;
  for (size_t i = at; i > 0; --i) {
    std::string_view w = t[i - 1].low;
    if (w == "my" || w == "our" || w == "the" || w == "a" || w == "," || w == "'s" ||
        IsImplicitVerb(w) || w == "is" || w == "to" || w == "raise" || w == "up" ||
        w == "down" || Function().contains(w) || w == "i" || w == "we" || at - i >= 2) {
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
  if (!AboutUser(s) && !it_is && !(s.who == Who::kOther && !t.empty() && !AmountTopic(t[0].low).empty())) {
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
  if (amount.empty()) {
    // "weighed in today, I'm at 195 now": a bare number after a weight word
    for (size_t i = 0; i < t.size(); ++i) {
      if (IsNumberWord(t[i].low) && t[i].low.size() >= 2 && topic == "weight") {
        return {Make(Kind::kAmount, t[i].text, topic)};
      }
    }
    return {};
  }
  return {Make(Kind::kAmount, amount, topic)};
}

// ---- schedules ----

bool IsWeekday(std::string_view w) {
  static const WordSet k = {"monday", "tuesday", "wednesday", "thursday", "friday", "saturday",
                            "sunday", "mondays", "tuesdays", "wednesdays", "thursdays",
                            "fridays", "saturdays", "sundays", "weekends", "weekdays"};
  return k.contains(w);
}

bool IsPartOfDay(std::string_view w) {
  static const WordSet k = {"mornings", "nights", "evenings", "afternoons", "night", "morning"};
  return k.contains(w);
}

bool IsClockTime(std::string_view w) {
  if (w.empty() || !std::isdigit(static_cast<unsigned char>(w[0]))) return false;
  return w.ends_with("am") || w.ends_with("pm") || w.find(':') != std::string_view::npos;
}

std::vector<Statement> Schedule(const ClauseView& c, const Toks& t, const Subject& s,
                                MessageState* state) {
  // "gym day is tuesdays now", "piano moved to thursdays": a thing's schedule is the user's
  if (s.who == Who::kOther && (t.empty() || IsWeekday(t[0].low) || Function().contains(t[0].low)) &&
      !Has(t, {"i", "we"})) {
    return {};
  }
  size_t when = t.size();
  for (size_t i = 0; i < t.size(); ++i) {
    const bool plural_day = IsWeekday(t[i].low) && t[i].low.ends_with("s");
    const bool every = (t[i].low == "every" || t[i].low == "each") && i + 1 < t.size() &&
                       (IsWeekday(t[i + 1].low) || IsPartOfDay(t[i + 1].low) ||
                        (t[i + 1].low == "day" && Has(t, {"wake", "up", "gym", "run", "walk"})));
    const bool shift = IsPartOfDay(t[i].low) && t[i].low.ends_with("s") &&
                       Has(t, {"shift", "shifts", "work", "moved", "switched", "lessons", "class",
                               "classes", "practice", "gym", "swim", "piano"});
    const bool clock = IsClockTime(t[i].low) || (t[i].low == "at" && i + 1 < t.size() &&
                                                 IsNumberWord(t[i + 1].low) && when < t.size());
    if (plural_day || every || shift || (clock && when == t.size() && i + 1 < t.size() &&
                                         (t[i + 1].low == "to" || t[i + 1].low == "-"))) {
      when = i;
      break;
    }
  }
  if (when == t.size()) return {};
  // The activity: a known word, else the first noun-like word that is not the time.
  static const WordSet kSkip = {"even", "weekends", "morning", "by", "always", "get", "every",
                                "i", "we", "my", "our", "the", "a", "go", "to", "on", "at",
                                "in", "is", "are", "was", "do", "have", "got", "get", "take",
                                "moved", "move", "now", "day", "days", "every", "each", "and",
                                "am", "after", "before", "work", "kids", "shift", "shifts",
                                "lessons", "class", "usually", "always", "also", "still",
                                "just", "only", "then", "so", "it", "that", "from", "until",
                                "starting", "this", "week", "s", "'s", "up", "out"};
  std::string activity;
  for (size_t i = s.who == Who::kPerson ? s.end : 0; i < t.size(); ++i) {
    std::string_view w = t[i].low;
    if (i == when || IsWeekday(w) || IsPartOfDay(w) || IsClockTime(w) || IsNumberWord(w) ||
        w == ",") {
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

// ---- languages ----

std::vector<Statement> Language(const Toks& t, const Subject& s) {
  if (!AboutUser(s)) return {};
  static const WordSet kVerbs = {"learning", "learn", "studying", "study", "speak", "speaking",
                                 "practicing", "practising", "dropped", "studies", "lessons",
                                 "classes", "class", "fluent", "native", "taking", "doing",
                                 "stopped", "tutor", "duolingo", "grew"};
  if (!Has(t, {"learning", "learn", "studying", "study", "speak", "speaking", "practicing",
               "practising", "dropped", "studies", "lessons", "classes", "fluent", "native",
               "doing", "stopped", "grew", "class"})) {
    return {};
  }
  (void)kVerbs;
  std::vector<Statement> out;
  for (size_t i = 0; i < t.size(); ++i) {
    std::string_view key = LanguageKey(t[i].low);
    if (key.empty() || !IsCapitalized(t[i]) && t[i].low != "korean" && t[i].low != "japanese" &&
                           t[i].low != "spanish" && t[i].low != "french" && t[i].low != "mandarin") {
      if (key.empty()) continue;
    }
    Statement st = Make(Kind::kLanguage, t[i].text, std::string(key), 0.85);
    if (Has(t, {"want", "plan", "hope", "hoping", "planning", "gonna", "intend"})) {
      st.type = MemoryType::kGoal;  // "I want to learn Spanish": the language, as a goal
    }
    out.push_back(std::move(st));
  }
  return out;
}

// ---- schools ----

bool IsSchoolSpan(const Toks& t, size_t b, size_t e) {
  for (size_t i = b; i < e; ++i) {
    std::string_view w = t[i].low;
    if (w == "university" || w == "college" || w == "state" || w == "institute" ||
        w == "school" || w == "academy" || w == "polytechnic") {
      return true;
    }
  }
  if (e == b + 1) {
    const std::string& x = t[b].text;
    const bool acronym = x.size() >= 2 && x.size() <= 5 &&
                         std::all_of(x.begin(), x.end(), [](char ch) { return std::isupper(static_cast<unsigned char>(ch)); });
    static const WordSet kKnown = {"ucla", "mit", "nyu", "usc", "ucsd", "ucsb", "uc", "harvard",
                                   "stanford", "yale", "princeton", "columbia", "berkeley",
                                   "oxford", "cambridge", "cornell", "duke", "caltech", "cmu",
                                   "upenn", "georgetown", "purdue", "rutgers"};
    return (acronym && t[b].low != "ux" && t[b].low != "hr" && t[b].low != "nhs") ||
           kKnown.contains(t[b].low);
  }
  return false;
}

std::vector<Statement> School(const Toks& t, const Subject& s) {
  if (s.who == Who::kOther) return {};
  static const WordSet kLead = {"at", "to", "into", "attend", "attending", "attends"};
  for (size_t i = 0; i + 1 < t.size(); ++i) {
    if (!kLead.contains(t[i].low)) continue;
    size_t b = i + 1;
    if (Is(t, b, "the")) ++b;
    size_t e = CapitalSpan(t, b);
    if (e == b || !IsSchoolSpan(t, b, e)) continue;
    Statement st = Make(Kind::kSchool, Words(t, b, e), "", 0.85);
    if (s.who == Who::kPerson) ForPerson(s, &st, "school");
    std::vector<Statement> out{st};
    // "at UCLA studying chemistry": the major too
    for (size_t k = 0; k + 1 < t.size(); ++k) {
      if ((t[k].low == "studying" || t[k].low == "majoring") && k + 1 < t.size()) {
        size_t mb = k + 1 + Is(t, k + 1, "in");
        if (mb < t.size() && mb != b && !IsCapitalized(t[mb]) && AboutUser(s)) {
          out.push_back(Make(Kind::kMajor, t[mb].text, "", 0.8));
        }
      }
    }
    return out;
  }
  // "majoring in biology", "switched my major to computer science"
  for (size_t i = 0; i + 1 < t.size(); ++i) {
    const bool majoring = t[i].low == "majoring" && Is(t, i + 1, "in");
    const bool major_to = t[i].low == "major" && (Is(t, i + 1, "to") || Is(t, i + 1, "is"));
    if (!(majoring || major_to) || !AboutUser(s)) continue;
    size_t b = i + 2;
    size_t e = b;
    while (e < t.size() && e < b + 3 && t[e].low != "," && !Boundaries().contains(t[e].low)) ++e;
    if (e > b) return {Make(Kind::kMajor, Words(t, b, e), "", 0.85)};
  }
  return {};
}

// ---- partner and family ----

std::vector<Statement> Partner(const Toks& t, const Subject& s) {
  // "I'm single", "we're engaged", "got married", "seeing someone", "broke up"
  static const WordSet kStatus = {"single", "married", "engaged", "divorced", "widowed",
                                  "separated", "dating", "seeing"};
  if (s.who == Who::kUser || s.who == Who::kNobody) {
    for (size_t i = s.end; i < t.size(); ++i) {
      if (!kStatus.contains(t[i].low)) continue;
      if (t[i].low == "seeing" && !(Is(t, i + 1, "someone") || (i + 1 < t.size() && IsCapitalized(t[i + 1])))) {
        continue;
      }
      if (t[i].low == "dating" && Is(t, i + 1, "apps")) continue;
      Statement st = Make(Kind::kPartner, t[i].low, "", 0.85);
      st.entities.clear();
      if (i + 1 < t.size() && IsCapitalized(t[i + 1]) && t[i + 1].low != "i") {
        st.value = t[i + 1].text;
        st.entities = {st.value};
      }
      return {st};
    }
    if (Has(t, {"broke", "split"}) && Has(t, {"up"})) {
      Statement st = Make(Kind::kPartner, "broke up", "", 0.85);
      st.entities.clear();
      st.type = MemoryType::kEvent;
      return {st};
    }
  }
  // "my girlfriend Priya …", "my husband's name is Daniel"
  if (s.who == Who::kPerson && IsPartnerRelation(s.relation)) {
    std::string name = s.name;
    const size_t is = Find(t, "name");
    if (name.empty() && is < t.size()) {
      for (size_t i = is + 1; i < t.size() && i < is + 3; ++i) {
        if (IsCapitalized(t[i])) {
          name = t[i].text;
          break;
        }
      }
    }
    if (name.empty()) return {};
    Statement st = Make(Kind::kPartner, name, "", 0.85);
    return {st};
  }
  // "Daniel, my husband, says hi": a name then a partner relation
  if (s.who == Who::kPerson && s.relation.empty() && !s.pet) {
    for (size_t i = s.end; i + 1 < t.size() && i < s.end + 3; ++i) {
      if ((t[i].low == "my" || t[i].low == "is") &&
          IsPartnerRelation(RelationKey(t[i + 1].low == "my" && i + 2 < t.size() ? t[i + 2].low : t[i + 1].low))) {
        Statement st = Make(Kind::kPartner, s.name, "", 0.8);
        return {st};
      }
    }
  }
  return {};
}

std::vector<Statement> Children(const Toks& t, const Subject& s) {
  if (s.who == Who::kPerson || s.who == Who::kOther) {
    // "that's three kids now"
    if (!(s.who == Who::kOther && Is(t, 0, "that"))) return {};
  }
  for (size_t i = 0; i + 1 < t.size(); ++i) {
    if (!IsNumberWord(t[i].low)) continue;
    std::string_view n = t[i + 1].low;
    if (n == "kids" || n == "children" || n == "kid" || n == "child") {
      if (t[i].low == "one" && n != "kid" && n != "child") continue;
      Statement st = Make(Kind::kChildren, t[i].text, "", 0.85);
      st.content = "User has " + t[i].text + " " + t[i + 1].text;
      if (Has(t, {"now"})) st.content += " now";
      st.keep_content = false;
      return {st};
    }
  }
  return {};
}

// ---- health: medication ----

bool IsMedication(std::string_view w) {
  static const WordSet k = {
      "sertraline", "zoloft", "prozac", "fluoxetine", "lexapro", "escitalopram", "wellbutrin",
      "bupropion", "lisinopril", "metformin", "insulin", "levothyroxine", "synthroid",
      "atorvastatin", "lipitor", "simvastatin", "omeprazole", "adderall", "ritalin",
      "vyvanse", "melatonin", "ibuprofen", "aspirin", "tylenol", "xanax", "ozempic",
      "amlodipine", "losartan", "albuterol", "prednisone", "birth", "iron", "metoprolol",
      "gabapentin", "lamotrigine", "lithium", "seroquel", "humira", "eliquis", "warfarin"};
  return k.contains(w) || w.ends_with("pril") || w.ends_with("olol") || w.ends_with("statin") ||
         w.ends_with("sartan") || w.ends_with("dipine") || w.ends_with("prazole") ||
         w.ends_with("mab") || w.ends_with("cillin") || w.ends_with("mycin") ||
         w.ends_with("oxetine") || w.ends_with("azepam");
}

std::vector<Statement> Medication(const Toks& t, const Subject& s) {
  if (Has(t, {"allergic", "allergy", "allergies"})) return {};  // the allergy is the fact
  for (size_t i = 0; i < t.size(); ++i) {
    if (!IsMedication(t[i].low) || t[i].low == "birth" || t[i].low == "iron") continue;
    Statement st = Make(Kind::kMedication, t[i].text, t[i].low, 0.85);
    if (s.who == Who::kPerson && !s.pet) ForPerson(s, &st, "medication:" + t[i].low);
    return {st};
  }
  // "insulin pens", "inhaler": things taken for a condition, keyed by the condition's tool
  return {};
}

// ---- age ----

std::vector<Statement> Age(const Toks& t, const Subject& s) {
  auto age_at = [&](size_t i) {
    if (i >= t.size() || !std::all_of(t[i].low.begin(), t[i].low.end(), ::isdigit)) return false;
    int n = std::atoi(t[i].low.c_str());
    if (n < 1 || n > 120) return false;
    // a number followed by a noun is not an age ("I'm 2 weeks in"), "years old" is
    if (i + 1 < t.size() && t[i + 1].low != "," && t[i + 1].low != "and" &&
        t[i + 1].low != "years" && t[i + 1].low != "now" && t[i + 1].low != "btw" &&
        t[i + 1].low != "yrs" && t[i + 1].low != "next" && t[i + 1].low != "this") {
      return false;
    }
    return true;
  };
  // "I'm 29", "I just turned 30", "my grandma is 89", "Maya is 7"
  for (size_t i = s.end; i < t.size() && i < s.end + 4; ++i) {
    const bool copula = t[i].low == "am" || t[i].low == "is" || t[i].low == "turned" ||
                        t[i].low == "turning";
    if (!copula || !age_at(i + 1)) continue;
    if (s.who == Who::kUser || s.who == Who::kNobody) {
      return {Make(Kind::kAge, t[i + 1].text, "", 0.85)};
    }
    if (s.who == Who::kPerson && !s.pet) {
      Statement st = Make(Kind::kAge, t[i + 1].text, "", 0.85);
      ForPerson(s, &st, "age");
      return {st};
    }
  }
  return {};
}

// ---- "my email is …", "license plate is …" ----

std::vector<Statement> Contact(const Toks& t, const Subject& s, const ClauseView& c) {
  static const WordSet kLabels = {"email", "e-mail", "cell", "phone", "number", "address",
                                  "passport", "id", "plate", "username", "handle", "zip",
                                  "postcode", "ssn", "license", "birthday", "anniversary",
                                  "wifi", "account", "one"};
  if (s.who == Who::kPerson && !s.pet && s.relation.empty()) return {};
  const size_t is = Find(t, "is");
  if (is == t.size() || is == 0 || is > 5 || is + 1 >= t.size()) return {};
  std::string label;
  for (size_t i = (t[0].low == "my" || t[0].low == "our") ? 1 : 0; i < is; ++i) {
    if (t[i].low == "'s") continue;
    label += (label.empty() ? "" : " ") + t[i].low;
  }
  bool known = false;
  for (size_t i = 0; i < is; ++i) known = known || kLabels.contains(t[i].low);
  std::string value = Words(t, is + 1, t.size());
  // trailing purpose: "… for the parking permit thing", ", HR keeps asking"
  for (std::string_view cut : {" for ", " if ", " so ", " in case "}) {
    if (size_t k = Lower(value).find(cut); k != std::string::npos && k > 0) value.resize(k);
  }
  const bool digits = std::any_of(value.begin(), value.end(), ::isdigit) ||
                      value.find('@') != std::string::npos;
  if (!known || (!digits && label.find("birthday") == std::string::npos &&
                 label.find("anniversary") == std::string::npos)) {
    return {};
  }
  if (s.who == Who::kPerson) return {};
  (void)c;
  std::string key = SlotKey(label);
  for (std::string_view phone : {"cell", "cell phone", "mobile", "phone number", "number",
                                 "cell number", "mobile number"}) {
    if (key == phone) key = "phone";
  }
  if (key == "e-mail" || key == "email address") key = "email";
  Statement st = Make(Kind::kContact, value, key, 0.9);
  st.slot = "user/" + key;
  if (label.find("birthday") != std::string::npos) st.kind = Kind::kBirthday;
  st.recurring = label.find("birthday") != std::string::npos ||
                 label.find("anniversary") != std::string::npos;
  return {st};
}

bool IsDiet(std::string_view w) {
  static const WordSet k = {"vegetarian", "vegan", "pescatarian", "keto", "paleo", "carnivore",
                            "gluten-free", "dairy-free", "plant-based", "kosher", "halal",
                            "whole30", "low-carb"};
  return k.contains(w);
}

// ---- things that stop holding ----

std::vector<Statement> Ended(const Toks& t, const Subject& s, const std::string& clause) {
  const std::string low = Lower(clause);
  auto has = [&](std::string_view w) { return low.find(w) != std::string::npos; };
  // a death or a loss: "Biscuit passed away", "my kindle died", "Nugget died a while ago"
  const bool death = has("passed away") || has(" died") || has("put down") || has("passed on") ||
                     has("ran away") || has("went missing") || has("is gone");
  if (death && (s.who == Who::kPerson || s.who == Who::kUserThing)) {
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
      "quit", "left", "stopped", "dropped", "gave up", "gave up on", "am done with",
      "quitting", "leaving", "stopping", "cut out", "kicked", "ditched", "sold"};
  for (size_t i = s.end; i < t.size(); ++i) {
    for (std::string_view v : kVerbs) {
      size_t n = 1 + static_cast<size_t>(std::count(v.begin(), v.end(), ' '));
      std::string words;
      for (size_t k = i; k < i + n && k < t.size(); ++k) words += (words.empty() ? "" : " ") + t[k].low;
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

// ---- "I'm a huge Arsenal fan", "I'm red-green colorblind" ----

std::vector<Statement> Fan(const Toks& t, const Subject& s) {
  if (!AboutUser(s)) return {};
  const size_t fan = Find(t, "fan");
  if (fan == t.size() || fan == 0) return {};
  size_t b = fan;
  while (b > 0 && IsCapitalized(t[b - 1])) --b;
  if (b == fan) return {};
  std::string what = Words(t, b, fan);
  return {Make(Kind::kLike, what, SlotKey(what), 0.85)};
}

std::vector<Statement> HealthCondition(const Toks& t, const Subject& s) {
  if (!AboutUser(s) || Negated(t)) return {};
  for (size_t i = s.end; i < t.size(); ++i) {
    std::string w = t[i].low;
    if (w.ends_with("colorblind") || w.ends_with("colourblind")) w = "colorblind";
    if (!IsHealthWord(w) || w == "allergic" || w == "allergy" || w == "allergies") continue;
    if (w == "anxiety" || w == "depression") {
      // "for anxiety": a reason for something else (medication), read there
      if (i > 0 && t[i - 1].low == "for") continue;
    }
    // "diabetic" is about diabetes: one condition, one key
    static const std::vector<std::pair<std::string_view, std::string_view>> kConditions = {
        {"diabetic", "diabetes"}, {"prediabetic", "prediabetes"}, {"asthmatic", "asthma"},
        {"epileptic", "epilepsy"}, {"anemic", "anemia"}};
    std::string key = w;
    for (const auto& [adjective, condition] : kConditions) {
      if (w == adjective) key = std::string(condition);
    }
    Statement st = Make(Kind::kHealth, t[i].text, SlotKey(key), 0.85);
    return {st};
  }
  return {};
}

// ---- where the user works from: remote, hybrid, the office ----

std::vector<Statement> WorkArrangement(const ClauseView& c, const Toks& t, const Subject& s) {
  if (!AboutUser(s)) return {};
  const std::string low = Lower(c.text);
  for (std::string_view w : {"remote", "remotely", "work from home", "wfh", "hybrid",
                             "in the office", "in office", "on site", "onsite"}) {
    if (low.find(w) == std::string::npos) continue;
    if (w == "in the office" && !Has(t, {"work", "days", "week"})) continue;
    Statement st = Make(Kind::kAttribute, std::string(w), "work_arrangement", 0.8);
    st.slot = "user/work_arrangement";
    st.exclusive = true;
    st.entities.clear();
    return {st};
  }
  return {};
}

// ---- "it's sulfa drugs I'm allergic to", "it's gluten I can't have" ----

std::vector<Statement> Cleft(const Toks& t) {
  if (!(Is(t, 0, "it") && Is(t, 1, "is"))) return {};
  const size_t i_at = Find(t, "i", 2);
  if (i_at == t.size() || i_at == 2) return {};
  std::string what = Words(t, 2, i_at);
  if (Has(t, {"allergic", "allergy"})) {
    Statement st = Make(Kind::kAllergy, what, SlotKey(what), 0.85);
    st.content = "User is allergic to " + what;
    return {st};
  }
  if (Has(t, {"not", "never"}) && Has(t, {"have", "eat", "drink", "stand", "tolerate"})) {
    Statement st = Make(Kind::kDislike, what, SlotKey(what), 0.85);
    st.content = "User can't have " + what;
    return {st};
  }
  return {};
}

// ---- employer and job changes the patterns do not read ----

std::vector<Statement> Work(const Toks& t, const Subject& s, const ClauseView& c,
                            MessageState* state) {
  // "first week at Stripe", "hired by Intel", "new job at X", "I'm at Accenture now",
  // "work nights at Mercy General"
  for (size_t i = 0; i + 1 < t.size(); ++i) {
    size_t b = t.size();
    if (t[i].low == "by" && i > 0 && (t[i - 1].low == "hired" || t[i - 1].low == "recruited")) b = i + 1;
    if (t[i].low == "at" && i > 0 &&
        (t[i - 1].low == "week" || t[i - 1].low == "day" || t[i - 1].low == "month" ||
         t[i - 1].low == "job" || t[i - 1].low == "nights" || t[i - 1].low == "days" ||
         t[i - 1].low == "time" || t[i - 1].low == "internship" || t[i - 1].low == "position" ||
         t[i - 1].low == "role" || t[i - 1].low == "gig" || t[i - 1].low == "offer")) {
      b = i + 1;
    }
    const bool now_at = t[i].low == "at" && (Has(t, {"now"}) || state->topic == "employer") &&
                        i > 0 && (t[i - 1].low == "am" || t[i - 1].low == "'m" ||
                                  t[i - 1].low == "are" || t[i - 1].low == "now");
    if (now_at) b = i + 1;
    if (b >= t.size()) continue;
    size_t e = CapitalSpan(t, b);
    if (e == b || IsSchoolSpan(t, b, e)) continue;
    Statement st = Make(Kind::kEmployer, Words(t, b, e), "", 0.8);
    if (s.who == Who::kPerson && !s.pet) ForPerson(s, &st, "employer");
    else if (!AboutUser(s)) return {};
    return {st};
  }
  // "promoted to senior analyst", "took a job as a lab manager", "I'm a UX designer now"
  for (size_t i = 0; i + 1 < t.size(); ++i) {
    size_t b = t.size();
    if (t[i].low == "to" && i > 0 && t[i - 1].low == "promoted") b = i + 1;
    if (t[i].low == "as" && i > 1 && (t[i - 1].low == "job" || t[i - 1].low == "position" ||
                                      t[i - 1].low == "role")) {
      b = i + 1;
    }
    if (b >= t.size()) continue;
    if (Is(t, b, "a") || Is(t, b, "an")) ++b;
    size_t e = b;
    while (e < t.size() && e < b + 4 && !Boundaries().contains(t[e].low) && t[e].low != ",") ++e;
    if (e == b) continue;
    Statement st = Make(Kind::kJob, Words(t, b, e), "", 0.85);
    if (c.time.future_time || Has(t, {"getting", "will"})) st.type = MemoryType::kGoal;
    if (s.who == Who::kPerson && !s.pet) ForPerson(s, &st, "job");
    return {st};
  }
  // "I teach high school chemistry"
  if (s.who == Who::kUser && s.end < t.size() &&
      (t[s.end].low == "teach" || t[s.end].low == "tutor") && s.end + 1 < t.size()) {
    Statement st = Make(Kind::kJob, Words(t, s.end + 1, t.size()), "", 0.8);
    st.entities.clear();
    return {st};
  }
  if (AboutUser(s) && Has(t, {"left", "quit"}) && !Has(t, {"coffee"})) state->topic = "employer";
  return {};
}

// ---- what people the user knows do ----

std::vector<Statement> PersonFacts(const Toks& t, const Subject& s) {
  if (s.who != Who::kPerson) return {};
  for (size_t i = s.end; i < t.size(); ++i) {
    std::string_view w = t[i].low;
    // lives in / moved to / moved back to / is in <Place>
    if ((w == "lives" || w == "moved" || w == "relocated" || w == "lived" || w == "living") ||
        (w == "is" && Is(t, i + 1, "in") && i + 2 < t.size() && IsCapitalized(t[i + 2]))) {
      size_t b = i + 1;
      while (b < t.size() && (t[b].low == "in" || t[b].low == "to" || t[b].low == "back" ||
                              t[b].low == "alone" || t[b].low == "still" || t[b].low == "now")) {
        ++b;
      }
      size_t e = CapitalSpan(t, b);
      Statement st = Make(Kind::kLocation, e > b ? Words(t, b, e) : "", "", 0.8);
      if (e == b) {
        // "mom moved in with us": lives with the user
        if (!Has(t, {"us", "me"})) return {};
        st.value = "with the user";
        st.entities.clear();
      }
      ForPerson(s, &st, "location");
      return {st};
    }
    if ((w == "works" || w == "working") && (Is(t, i + 1, "at") || Is(t, i + 1, "for"))) {
      size_t e = CapitalSpan(t, i + 2);
      if (e == i + 2) return {};
      Statement st = Make(Kind::kEmployer, Words(t, i + 2, e), "", 0.8);
      ForPerson(s, &st, "employer");
      return {st};
    }
    if (w == "allergic" && Is(t, i + 1, "to") && i + 2 < t.size()) {
      size_t e = i + 2;
      while (e < t.size() && t[e].low != "," && !Boundaries().contains(t[e].low)) ++e;
      Statement st = Make(Kind::kAllergy, Words(t, i + 2, e), "", 0.9);
      ForPerson(s, &st, "allergy:" + SlotKey(Words(t, i + 2, e)));
      st.exclusive = false;
      return {st};
    }
    if ((w == "is" || w == "'s") && i + 1 < t.size()) {
      size_t b = i + 1;
      if (Is(t, b, "a") || Is(t, b, "an")) ++b;
      while (b < t.size() && (t[b].low == "retired" || t[b].low == "freelance")) ++b;
      size_t e = b;
      while (e < t.size() && e < b + 3 && !Boundaries().contains(t[e].low) && t[e].low != ",") ++e;
      if (e > b && LooksLikeOccupation(t, b, e)) {
        Statement st = Make(Kind::kJob, Words(t, i + 1, e), "", 0.8);
        ForPerson(s, &st, "job");
        return {st};
      }
    }
    if (w == "diagnosed" || w == "has" || w == "have") {
      for (size_t k = i + 1; k < t.size() && k < i + 5; ++k) {
        if (IsHealthWord(t[k].low)) {
          Statement st = Make(Kind::kHealth, t[k].text, "", 0.85);
          ForPerson(s, &st, "health:" + t[k].low);
          st.exclusive = false;
          return {st};
        }
      }
    }
    if (i > s.end + 1) break;
  }
  return {};
}

// ---- where the user lives, what they eat, their pets ----

bool IsMonthOrDay(std::string_view w) {
  static const WordSet k = {"january", "february", "march", "april", "may", "june", "july",
                            "august", "september", "october", "november", "december", "monday",
                            "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"};
  return k.contains(w);
}

bool IsPlace(const Toks& t, size_t b, size_t e) {
  if (b >= e || IsMonthOrDay(t[b].low) || !LanguageKey(t[b].low).empty() ||
      IsSchoolSpan(t, b, e) || t[b].low == "i") {
    return false;
  }
  return true;
}

std::vector<Statement> Location(const Toks& t, const Subject& s) {
  if (!AboutUser(s) || s.who == Who::kUserThing) return {};
  auto place_after = [&](size_t b) -> std::vector<Statement> {
    if (Is(t, b, "the")) ++b;
    size_t e = CapitalSpan(t, b);
    if (e < t.size() && t[e].low == "," && e + 1 < t.size() && IsCapitalized(t[e + 1])) {
      e = CapitalSpan(t, e + 1);  // "Portland, Oregon"
    }
    if (!IsPlace(t, b, e)) return {};
    return {Make(Kind::kLocation, Words(t, b, e), "", 0.85)};
  };
  for (size_t i = s.end; i < t.size(); ++i) {
    std::string_view w = t[i].low;
    // "I'm in Austin", "still in chicago", "I'm Chicago-based"
    if ((w == "am" || w == "still") && Is(t, i + 1, "in")) {
      if (auto out = place_after(i + 2); !out.empty()) return out;
    }
    if (w.size() > 6 && w.ends_with("-based") && IsCapitalized(t[i])) {
      std::string place = t[i].text.substr(0, t[i].text.size() - 6);
      return {Make(Kind::kLocation, place, "", 0.85)};
    }
    // "living with my parents in Jersey", "got my own apartment in Brooklyn"
    static const WordSet kHome = {"living", "live", "lives", "staying", "apartment", "place",
                                  "house", "flat", "condo", "home", "settled", "based"};
    if (kHome.contains(w)) {
      for (size_t k = i + 1; k < t.size() && k < i + 6; ++k) {
        if (t[k].low == "in" || t[k].low == "to") {
          if (auto out = place_after(k + 1); !out.empty()) return out;
          break;
        }
        if (t[k].low == "," || Boundaries().contains(t[k].low) && t[k].low != "with") break;
      }
    }
  }
  return {};
}


std::vector<Statement> Diet(const Toks& t, const Subject& s) {
  if (!AboutUser(s) || s.who == Who::kUserThing) return {};
  for (size_t i = s.end; i < t.size(); ++i) {
    if (!IsDiet(t[i].low)) continue;
    if (Negated(t) && !Has(t, {"meat", "fish"})) return {};
    Statement st = Make(Kind::kDiet, t[i].low, "", 0.85);
    return {st};
  }
  return {};
}

std::vector<Statement> Pet(const Toks& t, const Subject& s) {
  if (s.who == Who::kOther && !(Is(t, 0, "a") || Is(t, 0, "an"))) return {};
  if (s.who == Who::kPerson && !s.pet) return {};
  // "<pet> named|called Name", "adopted|fostering Name"
  for (size_t i = 0; i + 1 < t.size(); ++i) {
    std::string name;
    if ((t[i].low == "named" || t[i].low == "called") && IsCapitalized(t[i + 1])) {
      bool pet_before = false;
      for (size_t k = 0; k < i; ++k) pet_before = pet_before || Pets().contains(t[k].low) ||
                                                  t[k].low == "retriever" || t[k].low == "shepherd";
      if (!pet_before) continue;
      name = t[i + 1].text;
    } else if (Pets().contains(t[i].low) && t[i + 1].low == "," && i + 2 < t.size() &&
               IsCapitalized(t[i + 2]) && t[i + 2].low != "i") {
      name = t[i + 2].text;  // "I have a dog, Rufus"
    } else if ((t[i].low == "adopted" || t[i].low == "fostering" || t[i].low == "rescued") &&
               IsCapitalized(t[i + 1]) && t[i + 1].low != "i") {
      name = t[i + 1].text;
    }
    if (name.empty()) continue;
    Statement st = Make(Kind::kPet, name, SlotKey(name), 0.85);
    return {st};
  }
  return {};
}

// ---- plans ----

bool IsPlanNoun(const Tok& x) {
  static const WordSet k = {"wedding", "trip", "vacation", "holiday", "move", "surgery",
                            "interview", "appointment", "party", "recital", "graduation",
                            "marathon", "race", "exam", "test", "honeymoon", "concert",
                            "conference", "flight", "visit", "defense", "retreat"};
  const std::string& w = x.text;
  const bool acronym = w.size() >= 3 && w.size() <= 5 &&
                       std::all_of(w.begin(), w.end(), [](char ch) { return std::isupper(static_cast<unsigned char>(ch)); });
  return k.contains(x.low) || acronym;
}

std::vector<Statement> Plan(const ClauseView& c, const Toks& t, const Subject& s) {
  if (!AboutUser(s) && !(s.who == Who::kUserThing)) return {};
  const bool future = c.time.future_time;
  const bool moving = Has(t, {"moving", "relocating", "move"}) && Has(t, {"to"});
  const bool intention = Has(t, {"planning", "plan", "going", "gonna", "thinking", "will",
                                 "'ll", "probably", "hoping"});
  // "moving to Denver next month", "planning to move to Lisbon in September": a plan, not home
  if (moving && (future || intention || Has(t, {"moving", "relocating"}))) {
    size_t to = Find(t, "to", Find(t, Has(t, {"moving"}) ? "moving" : Has(t, {"relocating"}) ? "relocating" : "move"));
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
    static const WordSet kNoQualifier = {"my", "our", "the", "a", "an", "this", "that", "next",
                                         "last", "big", "first", "his", "her", "their", "new",
                                         "have", "has", "had", "got", "booked", "scheduled",
                                         "moved", "pushed", "rescheduled", "cancelled", "canceled",
                                         "is", "was", "for", "to", "of", "at", "on", "in", "about",
                                         "until", "before", "after", "with", "attend", "attending",
                                         "take", "taking", "took", "missed", "upcoming", "final",
                                         "second", "another", "some", "any"};
    if (k > 0 && !kNoQualifier.contains(t[k - 1].low) && !IsCapitalized(t[k - 1]) &&
        std::all_of(t[k - 1].low.begin(), t[k - 1].low.end(),
                    [](char ch) { return std::isalpha(static_cast<unsigned char>(ch)); })) {
      key = SlotKey(t[k - 1].low + " " + x.low);
    }
    Statement st = Make(Kind::kPlan, x.text, key, 0.8);
    st.entities.clear();
    static const WordSet kAppointments = {"appointment", "interview", "surgery", "flight",
                                          "exam", "test", "checkup", "class", "visit"};
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

}  // namespace

std::vector<Statement> MatchEnglishFrames(const ClauseView& c, MessageState* state) {
  Toks t = Tokenize(c.text);
  while (!t.empty() && t.back().low == ",") t.pop_back();
  if (t.empty()) return {};
  const Subject s = FindSubject(t);
  using Frame = std::vector<Statement> (*)(const ClauseView&, const Toks&, const Subject&,
                                           MessageState*);
  static const Frame kFrames[] = {
      [](const ClauseView&, const Toks& t, const Subject&, MessageState*) { return Cleft(t); },
      [](const ClauseView& c, const Toks& t, const Subject& s, MessageState*) {
        return Ended(t, s, c.text);
      },
      [](const ClauseView&, const Toks& t, const Subject& s, MessageState*) {
        return Children(t, s);
      },
      [](const ClauseView& c, const Toks& t, const Subject& s, MessageState*) {
        return Budget(c, t, s);
      },
      [](const ClauseView& c, const Toks& t, const Subject& s, MessageState* m) {
        return Amount(c, t, s, m);
      },
      [](const ClauseView&, const Toks& t, const Subject& s, MessageState*) {
        return Medication(t, s);
      },
      [](const ClauseView& c, const Toks& t, const Subject& s, MessageState*) {
        if (c.raw.empty()) return Contact(t, s, c);
        Toks raw = Tokenize(c.raw);
        while (!raw.empty() && raw.back().low == ",") raw.pop_back();
        return Contact(raw, FindSubject(raw), c);
      },
      [](const ClauseView&, const Toks& t, const Subject& s, MessageState*) {
        return Partner(t, s);
      },
      [](const ClauseView& c, const Toks& t, const Subject& s, MessageState*) {
        return WorkArrangement(c, t, s);
      },
      [](const ClauseView&, const Toks& t, const Subject& s, MessageState*) { return Fan(t, s); },
      [](const ClauseView&, const Toks& t, const Subject& s, MessageState*) {
        return Age(t, s);
      },
      [](const ClauseView& c, const Toks& t, const Subject& s, MessageState*) {
        return Plan(c, t, s);
      },
      [](const ClauseView&, const Toks& t, const Subject& s, MessageState*) {
        return School(t, s);
      },
      [](const ClauseView&, const Toks& t, const Subject& s, MessageState*) {
        return Pet(t, s);
      },
      [](const ClauseView&, const Toks& t, const Subject& s, MessageState*) {
        return Diet(t, s);
      },
      [](const ClauseView&, const Toks& t, const Subject& s, MessageState*) {
        return Location(t, s);
      },
      [](const ClauseView&, const Toks& t, const Subject& s, MessageState*) {
        return Language(t, s);
      },
      [](const ClauseView&, const Toks& t, const Subject& s, MessageState*) {
        return Device(t, s);
      },
      [](const ClauseView& c, const Toks& t, const Subject& s, MessageState* m) {
        return Schedule(c, t, s, m);
      },
      [](const ClauseView& c, const Toks& t, const Subject& s, MessageState* m) {
        return Work(t, s, c, m);
      },
      [](const ClauseView&, const Toks& t, const Subject& s, MessageState*) {
        return PersonFacts(t, s);
      },
      [](const ClauseView&, const Toks& t, const Subject& s, MessageState*) {
        return HealthCondition(t, s);
      },
  };
  for (Frame f : kFrames) {
    std::vector<Statement> out = f(c, t, s, state);
    if (out.empty()) continue;
    for (Statement& st : out) {
      if (st.subject == "user" && s.who == Who::kPerson && st.slot.empty() &&
          st.kind != Kind::kPartner) {
        ForPerson(s, &st, "fact");
      }
    }
    return out;
  }
  return {};
}

// The subject of an English clause as the orchestrator needs it: "user" (I, we, my thing, or
// no subject), a person's key, or "" for anything else.
std::string EnglishSubjectKey(std::string_view clause) {
  Toks t = Tokenize(clause);
  const Subject s = FindSubject(t);
  if (AboutUser(s)) return "user";
  if (s.who == Who::kPerson) return s.key;
  return "";
}

namespace {

bool ImplicitSubject(const Toks& t, const Subject& s) {
  if (t.empty() || s.who != Who::kNobody) return false;
  // An adverb first ("currently at 85%", "never gRPC") makes no clause about the user unless a
  // verb follows.
  if (Adverbs().contains(t[0].low) || t[0].low == "currently" || t[0].low == "recently" ||
      t[0].low == "never" || t[0].low == "not" || t[0].low == "no") {
    return t.size() > 1 && (IsImplicitVerb(t[1].low) || IsPastForm(t[1].low)) &&
           !Adverbs().contains(t[1].low);
  }
  return true;
}

}  // namespace

SubjectInfo EnglishSubject(std::string_view clause) {
  SubjectInfo info;
  Toks t = Tokenize(clause);
  if (t.empty()) return info;
  const Subject s = FindSubject(t);
  info.key = AboutUser(s) ? "user" : s.who == Who::kPerson ? s.key : "";
  info.implicit = ImplicitSubject(t, s);
  return info;
}

bool EnglishImplicitSubject(std::string_view clause) {
  Toks t = Tokenize(clause);
  return ImplicitSubject(t, FindSubject(t));
}

}  // namespace engram::extract
