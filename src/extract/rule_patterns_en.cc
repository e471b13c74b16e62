// English self-statements. A clause is split into lower-cased word tokens (contractions
// expanded: "I'm" → "i am", "don't" → "do not"); the subject "I" or "my" is found, adverbs and
// negators between it and the verb are set aside, and the verb phrase is matched against the
// pattern table. The object is the rest of the clause up to a boundary word ("because",
// "with", "for" …).
#include <algorithm>
#include <array>
#include <cctype>
#include <cstring>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "extract/english_words.h"
#include "extract/rule_patterns.h"
#include "text/time_expressions.h"

namespace engram::extract {

using namespace en;  // NOLINT: the word helpers are this file's vocabulary

namespace {

// Kinds whose object may be a list ("I like tea and coffee") and whose object may hold
// "with", "for", "at", "from" ("coffee with milk", "food from Sichuan").
bool ListKind(Kind k) {
  return k == Kind::kLike || k == Kind::kDislike || k == Kind::kAllergy || k == Kind::kSkill;
}

// Kinds whose object is a verb phrase that may hold prepositions and "and" ("to start a safe
// and loving home for kids").
bool PhraseKind(Kind k) { return k == Kind::kGoal; }

// ---- the pattern table ----

struct Pattern {
  std::string_view words;  // literal words; "*a" an optional article; "{x}" the object
  std::optional<Kind> positive;
  std::optional<Kind> negative;  // the kind when negated ("do not like" → dislike)
  double confidence = 0.85;
};

const std::vector<Pattern>& Patterns() {
  using K = Kind;
  static const std::vector<Pattern> k = {
      // goals (before "like" so "would like to" is a goal)
      {"would like to {x}", K::kGoal, {}},
      {"would love to {x}", K::kGoal, {}},
      {"want to {x}", K::kGoal, {}},
      {"plan to {x}", K::kGoal, {}},
      {"am planning to {x}", K::kGoal, {}},
      {"am planning on {x}", K::kGoal, {}},
      {"hope to {x}", K::kGoal, {}},
      {"am hoping to {x}", K::kGoal, {}},
      {"intend to {x}", K::kGoal, {}},
      {"aim to {x}", K::kGoal, {}},
      {"am aiming to {x}", K::kGoal, {}},
      {"am trying to {x}", K::kGoal, {}, 0.7},
      {"have decided to {x}", K::kGoal, {}},
      {"decided to {x}", K::kGoal, {}},
      {"am going to {x}", K::kGoal, {}, 0.7},
      {"am saving for {x}", K::kGoal, {}},
      {"am saving up for {x}", K::kGoal, {}},
      {"dream of {x}", K::kGoal, {}, 0.7},
      {"am thinking about {x}", K::kGoal, {}, 0.6},
      {"am thinking of {x}", K::kGoal, {}, 0.6},
      {"am considering {x}", K::kGoal, {}, 0.6},
      {"promised to {x}", K::kGoal, {}},
      {"promise to {x}", K::kGoal, {}},
      {"am committed to {x}", K::kGoal, {}},
      {"am determined to {x}", K::kGoal, {}},
      {"need to {x}", K::kGoal, {}, 0.6},
      {"have to {x}", K::kGoal, {}, 0.6},
      {"will {x}", K::kGoal, {}, 0.6},
      // location and origin
      {"live in {x}", K::kLocation, {}},
      {"am living in {x}", K::kLocation, {}},
      {"have lived in {x}", K::kLocation, {}},
      {"have been living in {x}", K::kLocation, {}},
      {"moved to {x}", K::kLocation, {}},
      {"have moved to {x}", K::kLocation, {}},
      {"am moving to {x}", K::kLocation, {}, 0.7},
      {"relocated to {x}", K::kLocation, {}},
      {"have relocated to {x}", K::kLocation, {}},
      {"am based in {x}", K::kLocation, {}},
      {"reside in {x}", K::kLocation, {}},
      {"am from {x}", K::kHometown, {}},
      {"come from {x}", K::kHometown, {}},
      {"grew up in {x}", K::kHometown, {}},
      {"was born in {x}", K::kHometown, {}},
      {"was born and raised in {x}", K::kHometown, {}},
      {"was raised in {x}", K::kHometown, {}},
      // likes that look like "am a {x}"
      {"am a big fan of {x}", K::kLike, K::kDislike},
      {"am a huge fan of {x}", K::kLike, K::kDislike},
      {"am a fan of {x}", K::kLike, K::kDislike},
      {"am fond of {x}", K::kLike, K::kDislike},
      {"am into {x}", K::kLike, K::kDislike},
      // work
      {"work at {x}", K::kEmployer, {}},
      {"work for {x}", K::kEmployer, {}},
      {"am working at {x}", K::kEmployer, {}},
      {"am working for {x}", K::kEmployer, {}},
      {"have been working at {x}", K::kEmployer, {}},
      {"have been working for {x}", K::kEmployer, {}},
      {"am employed at {x}", K::kEmployer, {}},
      {"am employed by {x}", K::kEmployer, {}},
      {"got a job at {x}", K::kEmployer, {}},
      {"started working at {x}", K::kEmployer, {}},
      {"joined {x}", K::kEmployer, {}, 0.7},
      {"have joined {x}", K::kEmployer, {}, 0.7},
      {"work as *a {x}", K::kJob, {}},
      {"am working as *a {x}", K::kJob, {}},
      {"work in {x}", K::kWorkPlace, {}, 0.7},
      {"am retired", K::kJob, {}},
      {"am a {x}", K::kJob, {}},
      {"am an {x}", K::kJob, {}},
      {"became *a {x}", K::kJob, {}},
      // name
      {"am called {x}", K::kName, {}},
      {"go by {x}", K::kName, {}},
      // allergies, health, diet, marital status
      {"am allergic to {x}", K::kAllergy, {}},
      {"have *a allergy to {x}", K::kAllergy, {}},
      {"have allergies to {x}", K::kAllergy, {}},
      {"have *a {x} allergy", K::kAllergy, {}},
      {"have *a {x} allergies", K::kAllergy, {}},
      {"suffer from {x}", K::kHealth, {}},
      {"was diagnosed with {x}", K::kHealth, {}},
      {"have been diagnosed with {x}", K::kHealth, {}},
      {"am recovering from {x}", K::kHealth, {}, 0.7},
      {"am *a vegetarian", K::kDiet, {}},
      {"am *a vegan", K::kDiet, {}},
      {"am *a pescatarian", K::kDiet, {}},
      {"am married", K::kMarital, {}},
      {"am single", K::kMarital, {}},
      {"am divorced", K::kMarital, {}},
      {"am engaged", K::kMarital, {}},
      {"am widowed", K::kMarital, {}},
      {"got married", K::kMarital, {}},
      {"got divorced", K::kMarital, {}},
      {"got engaged", K::kMarital, {}},
      // skills
      {"can speak {x}", K::kSkill, {}},
      {"speak {x}", K::kSkill, {}},
      {"am fluent in {x}", K::kSkill, {}},
      {"am good at {x}", K::kSkill, {}},
      {"am great at {x}", K::kSkill, {}},
      {"am an expert in {x}", K::kSkill, {}},
      {"know how to {x}", K::kSkill, {}},
      {"am learning {x}", K::kSkill, {}, 0.75},
      {"have been learning {x}", K::kSkill, {}, 0.75},
      {"play the {x}", K::kSkill, {}},
      // likes and dislikes
      {"am obsessed with {x}", K::kLike, {}},
      {"am crazy about {x}", K::kLike, {}},
      {"love {x}", K::kLike, K::kDislike},
      {"like {x}", K::kLike, K::kDislike},
      {"enjoy {x}", K::kLike, K::kDislike},
      {"adore {x}", K::kLike, {}},
      {"prefer {x}", K::kLike, {}},
      {"hate {x}", K::kDislike, {}},
      {"dislike {x}", K::kDislike, {}},
      {"detest {x}", K::kDislike, {}},
      {"loathe {x}", K::kDislike, {}},
      {"can stand {x}", {}, K::kDislike},
      {"eat {x}", {}, K::kDislike},
      {"drink {x}", {}, K::kDislike},
  };
  return k;
}

struct ParsedPattern {
  std::vector<std::string_view> words;
  const Pattern* pattern;
};

std::vector<std::string_view> SplitWords(std::string_view s) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < s.size()) {
    size_t j = s.find(' ', i);
    if (j == std::string_view::npos) j = s.size();
    if (j > i) out.push_back(s.substr(i, j - i));
    i = j + 1;
  }
  return out;
}

// The patterns by their first word, in table order: a clause tries only those whose first word
// is its verb.
const std::unordered_map<std::string_view, std::vector<ParsedPattern>>& PatternsByVerb() {
  static const auto k = [] {
    std::unordered_map<std::string_view, std::vector<ParsedPattern>> out;
    for (const Pattern& p : Patterns()) {
      ParsedPattern parsed{SplitWords(p.words), &p};
      out[parsed.words.front()].push_back(std::move(parsed));
    }
    return out;
  }();
  return k;
}

// ---- clause analysis ----

struct Clause {
  std::vector<Tok> t;
  const ClauseInput* in;
  size_t subject = 0;  // index of "i"/"my"
};

// Where the object that starts at b ends: a boundary word, or the end.
size_t ObjectEnd(const Clause& c, size_t b, Kind kind) {
  size_t e = b;
  for (; e < c.t.size(); ++e) {
    std::string_view w = c.t[e].low;
    const bool preposition = w == "with" || w == "for" || w == "at" || w == "from" || w == "by" ||
                             w == "as" || w == "like" || w == "during" || w == "after" ||
                             w == "before";
    if (ListKind(kind) && (w == "and" || w == "or" || w == "," || preposition)) {
      if (w == "and" || w == "or" || w == ",") continue;
      if (e > b) continue;
    }
    if (PhraseKind(kind) && (preposition || w == "and") && e > b) continue;
    if (Boundaries().contains(w) && e > b) break;
    if (w == "i" || (w == "my" && e > b && !PhraseKind(kind))) break;
  }
  // trailing fillers: "a lot", "so much", "very much", "right now"
  while (e > b) {
    std::string_view w = c.t[e - 1].low;
    if (w == "lot" && e - 1 > b && c.t[e - 2].low == "a") {
      e -= 2;
      continue;
    }
    if (w == "much" || w == "anymore" || w == "again" || w == "though" || w == "nowadays" ||
        w == "too" || w == "lately" || w == "," || w == "and" || w == "or") {
      --e;
      continue;
    }
    break;
  }
  return e;
}

// Splits a list object at "and", "or" and commas.
std::vector<std::pair<size_t, size_t>> ListItems(const Clause& c, size_t b, size_t e) {
  std::vector<std::pair<size_t, size_t>> out;
  size_t start = b;
  for (size_t i = b; i <= e; ++i) {
    if (i == e || c.t[i].low == "and" || c.t[i].low == "or" || c.t[i].low == ",") {
      if (i > start) out.push_back({start, i});
      start = i + 1;
    }
  }
  return out;
}

// An object that names nothing by itself ("it", "how it looks", "what you did") or is about
// the listener ("your photos", "talking to you"): small talk, not a fact about the user.
bool IsPronounObject(const Clause& c, size_t b, size_t e) {
  static const WordSet k = {
      "it",    "that",  "this",       "them",   "you",     "him",      "her",      "those",
      "these", "one",   "to",         "how",    "what",    "when",     "where",    "why",
      "who",   "which", "especially", "beyond", "so",      "all",      "both",     "everything",
      "lot",   "ton",   "more",       "seeing", "hearing", "everyone", "everybody"};
  if (b >= e) return true;
  if (k.contains(c.t[b].low) && (e - b == 1 || c.t[b].low != "to")) return true;
  if (c.t[b].low == "a" && e - b == 2 && (c.t[b + 1].low == "lot" || c.t[b + 1].low == "ton"))
    return true;
  for (size_t i = b; i < e; ++i) {
    if (c.t[i].low == "you" || c.t[i].low == "your" || c.t[i].low == "yours") return true;
  }
  return false;
}

// The key of an object: the words without leading articles, the last one singular.
std::string ObjectKey(const Clause& c, size_t b, size_t e) {
  while (b < e && (c.t[b].low == "a" || c.t[b].low == "an" || c.t[b].low == "the" ||
                   c.t[b].low == "some" || c.t[b].low == "my" || c.t[b].low == "to")) {
    ++b;
  }
  std::string key;
  for (size_t i = b; i < e; ++i) {
    if (!key.empty()) key += ' ';
    key += i + 1 == e ? Singular(c.t[i].low) : c.t[i].low;
  }
  return SlotKey(key);
}

struct Negation {
  bool negated = false;
  bool no_longer = false;
};

Negation NegationBetween(const Clause& c, size_t b, size_t e) {
  Negation n;
  for (size_t i = b; i < e && i < c.t.size(); ++i) {
    if (c.t[i].low == "no" && i + 1 < c.t.size() && c.t[i + 1].low == "longer") n.no_longer = true;
    if (IsNegator(c.t[i].low)) n.negated = true;
  }
  for (const Tok& t : c.t) {
    if (t.low == "anymore" && n.negated) n.no_longer = true;
  }
  return n;
}

// Tries the pattern at the predicate starting after the subject; on a match, *last is the
// index of its last literal word and *obj_begin where the object starts (or the end).
bool MatchPattern(const Clause& c, const ParsedPattern& p, size_t* last, size_t* obj_begin,
                  std::string_view* trailing) {
  size_t i = c.subject + 1;
  auto skip = [&] {
    while (i < c.t.size() &&
           (Adverbs().contains(c.t[i].low) || IsNegator(c.t[i].low) || c.t[i].low == "longer" ||
            ((c.t[i].low == "do" || c.t[i].low == "does" || c.t[i].low == "did") &&
             i + 1 < c.t.size() && IsNegator(c.t[i + 1].low)))) {
      ++i;
    }
  };
  for (size_t k = 0; k < p.words.size(); ++k) {
    std::string_view w = p.words[k];
    if (w == "{x}") {
      *obj_begin = i;
      *trailing = k + 1 < p.words.size() ? p.words[k + 1] : "";
      return true;
    }
    skip();
    if (w == "*a") {
      if (i < c.t.size() && (c.t[i].low == "a" || c.t[i].low == "an")) ++i;
      continue;
    }
    if (i >= c.t.size() || c.t[i].low != w) return false;
    *last = i;
    ++i;
  }
  *obj_begin = i;
  *trailing = "";
  return true;
}

}  // namespace

namespace {

constexpr double kInheritedPenalty = 0.1;

Statement Make(const Clause& c, Kind kind, std::string value, std::string key, std::string content,
               double confidence) {
  Statement s;
  s.kind = kind;
  s.value = std::move(value);
  s.key = std::move(key);
  s.content = std::move(content);
  s.confidence = confidence - (c.in->inherited_subject ? kInheritedPenalty : 0);
  return s;
}

std::string Canonical(Kind kind, std::string_view value) { return EnglishContent(kind, value); }

bool IsQuestionOrRequest(const std::vector<Tok>& t) {
  static const WordSet kQuestion = {"what",  "where", "who",    "when",  "why",    "how",
                                    "which", "do",    "does",   "did",   "is",     "are",
                                    "am",    "can",   "could",  "would", "should", "will",
                                    "shall", "whats", "wheres", "whose"};
  static const WordSet kRequest = {"please", "tell",      "remind", "help",   "show",
                                   "give",   "let",       "find",   "search", "explain",
                                   "write",  "translate", "thanks", "thank"};
  if (t.empty()) return true;
  if (kQuestion.contains(t[0].low) || kRequest.contains(t[0].low)) return true;
  for (size_t i = 0; i < t.size(); ++i) {
    std::string_view w = t[i].low;
    if (w == "if" || w == "unless" || w == "whether" || w == "wish" || w == "maybe" ||
        w == "perhaps" || w == "might" || w == "could" || w == "should" || w == "suppose") {
      return true;
    }
    if (w == "would" && !(i + 1 < t.size() && (t[i + 1].low == "like" || t[i + 1].low == "love"))) {
      return true;
    }
    if (w == "used" && i + 1 < t.size() && t[i + 1].low == "to") return true;  // no longer holds
    if ((w == "you" || w == "we") && i == 0) return true;
  }
  return false;
}

const WordSet& Ignorable() {
  static const WordSet k = {
      "actually",  "well",     "so",    "oh",    "also",       "and",   "but",       "now",
      "yes",       "yeah",     "no",    "ok",    "okay",       "btw",   "honestly",  "anyway",
      "um",        "uh",       "hmm",   "sorry", "hey",        "hi",    "hello",     "plus",
      "currently", "nowadays", "oops",  "then",  "correction", "wait",  "right",     ",",
      "lately",    "fyi",      "oh",    "ah",    "haha",       "lol",   "besides",   "personally",
      "basically", "still",    "these", "days",  "recently",   "again", "otherwise", "however",
      "though",    "also"};
  return k;
}

bool Count(std::string_view w) {
  static const WordSet k = {"two",  "three", "four", "few", "several",
                            "many", "some",  "2",    "3",   "4"};
  return k.contains(w);
}

// A routine phrase ("every Monday", "on weekends", "each morning"); [b, e) or b == e.
std::pair<size_t, size_t> RoutineSpan(const std::vector<Tok>& t, std::string* key) {
  static const WordSet kUnits = {
      "day",     "morning", "night",   "evening",   "afternoon", "week",   "weekend",  "month",
      "year",    "monday",  "tuesday", "wednesday", "thursday",  "friday", "saturday", "sunday",
      "weekday", "summer",  "winter",  "spring",    "autumn",    "fall"};
  static const WordSet kPlural = {"mondays",  "tuesdays",  "wednesdays", "thursdays",
                                  "fridays",  "saturdays", "sundays",    "weekends",
                                  "weekdays", "mornings",  "evenings",   "nights"};
  for (size_t i = 0; i < t.size(); ++i) {
    if ((t[i].low == "every" || t[i].low == "each") && i + 1 < t.size()) {
      size_t j = i + 1;
      if (t[j].low == "other" && j + 1 < t.size()) ++j;
      if (kUnits.contains(t[j].low)) {
        *key = t[j].low;
        return {i, j + 1};
      }
    }
    if (kPlural.contains(t[i].low) && !(i > 0 && Count(t[i - 1].low))) {  // not "two weekends ago"
      *key = Singular(t[i].low);
      return {i > 0 && t[i - 1].low == "on" ? i - 1 : i, i + 1};
    }
    if (t[i].low == "daily" || t[i].low == "weekly") {
      *key = t[i].low == "daily" ? "day" : "week";
      return {i, i + 1};
    }
  }
  return {0, 0};
}

std::vector<Statement> MatchMy(const Clause& c) {
  const auto& t = c.t;
  size_t s = c.subject;
  if (s + 2 >= t.size()) return {};
  std::string_view n1 = t[s + 1].low;
  auto find_is = [&](size_t from) -> size_t {
    for (size_t i = from; i < t.size() && i < from + 4; ++i) {
      if (t[i].low == "is" || t[i].low == "are" || t[i].low == "was") return i;
    }
    return t.size();
  };
  auto value_after = [&](size_t i, Kind kind, size_t max_words) {
    size_t b = i + 1;
    if (b < t.size() && t[b].low == "to" && kind == Kind::kGoal) ++b;
    size_t e = std::min(ObjectEnd(c, b, kind), b + max_words);
    return std::pair{b, e};
  };
  std::vector<Statement> out;
  if (n1 == "name" || (n1 == "first" && t[s + 2].low == "name")) {
    size_t is = find_is(s + 1);
    auto [b, e] = value_after(is, Kind::kName, 3);
    if (is == t.size() || b >= e) return {};
    std::string v = Join(t, b, e);
    out.push_back(Make(c, Kind::kName, v, "", Canonical(Kind::kName, v), 0.9));
    out.back().entities.push_back(v);
    return out;
  }
  if (n1 == "favorite" || n1 == "favourite") {
    size_t is = find_is(s + 2);
    auto [b, e] = value_after(is, Kind::kFavorite, 6);
    if (is == t.size() || b >= e || is == s + 2) return {};
    std::string what = Join(t, s + 2, is);
    std::string v = Join(t, b, e);
    out.push_back(
        Make(c, Kind::kFavorite, v, SlotKey(what), "User's favorite " + what + " is " + v, 0.85));
    out.back().entities.push_back(v);
    return out;
  }
  static const WordSet kGoalWords = {"goal", "plan", "dream", "aim", "resolution", "ambition"};
  static const WordSet kJobWords = {"job", "profession", "occupation", "role"};
  static const WordSet kAttributes = {"birthday", "age",    "nationality", "major",    "height",
                                      "weight",   "zodiac", "religion",    "timezone", "pronouns"};
  if (kGoalWords.contains(n1) || kJobWords.contains(n1) || kAttributes.contains(n1) ||
      n1 == "hometown" || n1 == "home") {
    size_t is = find_is(s + 2);
    if (is == t.size()) return {};
    Kind kind = kGoalWords.contains(n1)  ? Kind::kGoal
                : kJobWords.contains(n1) ? Kind::kJob
                : n1 == "hometown"       ? Kind::kHometown
                : n1 == "home"           ? Kind::kLocation
                                         : Kind::kAttribute;
    size_t vb = is;
    if (kind == Kind::kLocation && is + 1 < t.size() && t[is + 1].low == "in") ++vb;
    auto [b, e] = value_after(vb, kind, 12);
    if (b >= e) return {};
    std::string v = Join(t, b, e);
    std::string content = kind == Kind::kGoal || kind == Kind::kAttribute
                              ? "User's " + Join(t, s + 1, e)
                              : Canonical(kind, v);
    std::string key = kind == Kind::kGoal        ? ObjectKey(c, b, e)
                      : kind == Kind::kAttribute ? std::string(n1)
                                                 : "";
    out.push_back(Make(c, kind, v, key, content, 0.85));
    if (kind != Kind::kGoal) out.back().entities.push_back(v);
    return out;
  }
  if (Pets().contains(n1) || Relations().contains(n1)) {
    bool pet = Pets().contains(n1);
    std::string name;
    for (size_t i = s + 2; i < t.size(); ++i) {
      const bool naming = t[i - 1].low == "named" || t[i - 1].low == "called" ||
                          (t[i - 1].low == "is" && t[i - 2].low == "name");
      // right after the noun only a capital says a name ("my dog Pretzel", not "my dog barks")
      if ((naming && IsNameAfterNaming(t[i])) ||
          (i == s + 2 && IsCapitalized(t[i]) && t[i].low != "i")) {
        name = t[i].text;
        break;
      }
    }
    std::string key = pet && !name.empty() ? SlotKey(name) : Singular(n1);
    Statement st = Make(c, pet ? Kind::kPet : Kind::kFamily, name.empty() ? std::string(n1) : name,
                        key, "User's " + Join(t, s + 1, t.size()), pet ? 0.8 : 0.75);
    if (!name.empty()) st.entities.push_back(name);
    out.push_back(std::move(st));
  }
  return out;
}

// "I have a dog named Max", "I have two kids", "I adopted a kitten".
std::vector<Statement> MatchPossession(const Clause& c, size_t verb) {
  const auto& t = c.t;
  static const WordSet kVerbs = {"have", "got", "adopted", "own", "bought", "rescued", "has"};
  if (!kVerbs.contains(t[verb].low)) return {};
  size_t i = verb + 1;
  if (i < t.size() && t[i].low == "got") ++i;
  size_t noun = t.size();
  for (size_t k = i; k < t.size() && k < i + 4; ++k) {
    if (Pets().contains(t[k].low) || Relations().contains(t[k].low)) {
      noun = k;
      break;
    }
    if (Boundaries().contains(t[k].low)) break;
  }
  if (noun == t.size()) return {};
  bool pet = Pets().contains(t[noun].low);
  std::string name;
  size_t end = noun + 1;
  if (end + 1 < t.size() && (t[end].low == "named" || t[end].low == "called") &&
      IsNameAfterNaming(t[end + 1])) {
    name = t[end + 1].text;
    end += 2;
  }
  Negation neg = NegationBetween(c, c.subject + 1, noun);
  if (neg.negated && !neg.no_longer) return {};
  std::string key = pet && !name.empty() ? SlotKey(name) : Singular(t[noun].low);
  Statement st = Make(c, pet ? Kind::kPet : Kind::kFamily, name.empty() ? t[noun].text : name, key,
                      "User " + Rewrite(t, c.subject + 1, end), pet ? 0.85 : 0.8);
  st.correction = neg.no_longer;
  if (!name.empty()) st.entities.push_back(name);
  return {std::move(st)};
}

std::vector<Statement> MatchHealthAdjective(const Clause& c, size_t verb) {
  const auto& t = c.t;
  struct Adjective {
    std::string_view word, condition;
  };
  static constexpr std::array<Adjective, 9> kAdjectives = {{{"diabetic", "diabetes"},
                                                            {"asthmatic", "asthma"},
                                                            {"anemic", "anemia"},
                                                            {"epileptic", "epilepsy"},
                                                            {"pregnant", "pregnancy"},
                                                            {"colorblind", "color blindness"},
                                                            {"lactose", "lactose intolerance"},
                                                            {"gluten", "gluten intolerance"},
                                                            {"hypertensive", "hypertension"}}};
  if (t[verb].low == "am" && verb + 1 < t.size()) {
    for (const Adjective& a : kAdjectives) {
      if (t[verb + 1].low != a.word) continue;
      if (NegationBetween(c, c.subject + 1, verb + 2).negated) return {};
      size_t e = verb + 2 + (verb + 2 < t.size() && t[verb + 2].low == "intolerant");
      return {Make(c, Kind::kHealth, std::string(a.condition), std::string(a.condition),
                   "User " + Rewrite(t, c.subject + 1, e), 0.85)};
    }
  }
  if (t[verb].low == "have" && verb + 1 < t.size()) {
    size_t e = ObjectEnd(c, verb + 1, Kind::kHealth);
    for (size_t i = verb + 1; i < e; ++i) {
      bool blood = (t[i].low == "pressure" || t[i].low == "cholesterol" || t[i].low == "sugar") &&
                   i > verb + 1 && (t[i - 1].low == "blood" || t[i - 1].low == "high");
      if (HealthConditions().contains(t[i].low) || blood) {
        if (NegationBetween(c, c.subject + 1, verb + 1).negated) return {};
        return {Make(c, Kind::kHealth, Join(t, verb + 1, e), ObjectKey(c, verb + 1, e),
                     "User " + Rewrite(t, c.subject + 1, e), 0.85)};
      }
    }
  }
  return {};
}

std::vector<Statement> MatchSkillVerb(const Clause& c, size_t verb) {
  const auto& t = c.t;
  static const WordSet kSkills = {"speak", "play",  "cook", "swim",   "code", "program", "drive",
                                  "sing",  "dance", "draw", "paint",  "knit", "sew",     "ski",
                                  "surf",  "skate", "ride", "juggle", "dive", "climb",   "bake",
                                  "fly",   "write", "read", "type"};
  if (t[verb].low != "can" || verb + 1 >= t.size() || !kSkills.contains(t[verb + 1].low) ||
      t[verb + 1].low == "speak") {  // "can speak {x}" is in the table, with lists
    return {};
  }
  if (NegationBetween(c, c.subject + 1, verb + 2).negated) return {};
  size_t e = ObjectEnd(c, verb + 2, Kind::kSkill);
  return {Make(c, Kind::kSkill, Join(t, verb + 1, e), ObjectKey(c, verb + 1, e),
               "User " + Rewrite(t, c.subject + 1, e), 0.8)};
}

// A statement from a table pattern, or none (with *stop when the clause is settled).
std::vector<Statement> FromPattern(const Clause& c, const ParsedPattern& p, size_t last, size_t ob,
                                   std::string_view trailing, bool* stop) {
  const auto& t = c.t;
  Negation neg = NegationBetween(c, c.subject + 1, last + 1);
  std::optional<Kind> kind = neg.no_longer
                                 ? (p.pattern->positive ? p.pattern->positive : p.pattern->negative)
                             : neg.negated ? p.pattern->negative
                                           : p.pattern->positive;
  if (!kind) {
    // "I'm not allergic to …": a negated fact, nothing; "I'm not a …" is settled only when the
    // object is an occupation.
    const bool copula = p.words.size() > 1 && (p.words[1] == "a" || p.words[1] == "an");
    *stop = neg.negated && !copula;
    return {};
  }
  const bool has_object = !p.words.empty() && (p.words.back() == "{x}" || !trailing.empty());
  double conf = p.pattern->confidence;
  if (!has_object) {
    std::string v(p.words.back());
    *stop = true;
    Statement st = Make(c, *kind, v, "", "User " + Rewrite(t, c.subject + 1, last + 1), conf);
    st.correction = neg.no_longer;
    return {std::move(st)};
  }
  size_t oe;
  if (!trailing.empty()) {
    oe = ob;
    while (oe < t.size() && t[oe].low != trailing) ++oe;
    if (oe == t.size()) return {};
  } else {
    oe = ObjectEnd(c, ob, *kind);
  }
  if (ob >= oe) return {};
  const bool about_a_place = *kind == Kind::kLocation || *kind == Kind::kHometown ||
                             *kind == Kind::kEmployer || *kind == Kind::kName;
  if (about_a_place ? (oe - ob == 1 && IsPronounObject(c, ob, oe)) : IsPronounObject(c, ob, oe))
    return {};
  // "I'll never …", "I will definitely …": the object starts after the adverb; a negator there
  // negates the statement.
  while (*kind == Kind::kGoal && ob + 1 < oe && Adverbs().contains(t[ob].low)) ++ob;
  if (*kind == Kind::kGoal && IsNegator(t[ob].low)) {
    *stop = true;
    return {};
  }
  std::string_view first = t[ob].low;
  switch (*kind) {
    case Kind::kJob:
      if ((p.words[1] == "a" || p.words[1] == "an" || p.words[0] == "became") &&
          !LooksLikeOccupation(t, ob, oe)) {
        return {};
      }
      break;
    case Kind::kEmployer:
      if (p.words.back() == "{x}" && p.words[p.words.size() - 2] == "joined" &&
          !IsCapitalized(t[ob]))
        return {};
      if (first == "home" || first == "myself") return {};
      break;
    case Kind::kWorkPlace:
      if (first == "the" || first == "a" || first == "an" || first == "my" || first == "home")
        return {};
      if (!IsCapitalized(t[ob])) kind = Kind::kJob;  // "work in finance": a field
      break;
    case Kind::kGoal: {
      static const WordSet kNotGoals = {
          "know",  "ask",    "say",  "tell",   "check", "clarify", "confirm", "mention", "add",
          "thank", "share",  "talk", "chat",   "the",   "a",       "an",      "my",      "bed",
          "sleep", "school", "work", "church", "class", "see",     "hear",    "make"};
      if (kNotGoals.contains(first) ||
          (p.words[0] == "am" && p.words[1] == "going" && IsCapitalized(t[ob]))) {
        return {};
      }
      // "I'll think about it", "I'll be there", "I need to go": too slight to remember
      static const WordSet kSlight = {"be",   "think", "try",  "go",       "get",    "let",
                                      "keep", "do",    "come", "look",     "wait",   "figure",
                                      "stop", "leave", "have", "remember", "forget", "miss",
                                      "stay", "start", "never"};
      const bool weak = p.pattern->confidence < 0.7;
      if (weak && (oe - ob < 2 || kSlight.contains(first))) return {};
      break;
    }
    case Kind::kName:
      if (!IsCapitalized(t[ob])) return {};
      oe = std::min(oe, ob + 3);
      break;
    case Kind::kLocation:
    case Kind::kHometown:
      if (first == "here" || first == "there" || first == "home" || first == "it") return {};
      break;
    default:
      break;
  }
  *stop = true;
  const bool canonical =
      !neg.negated &&
      (*kind == Kind::kName || *kind == Kind::kLocation || *kind == Kind::kHometown ||
       *kind == Kind::kEmployer || *kind == Kind::kAllergy ||
       (*kind == Kind::kJob && p.words[0] != "work" && p.words[1] != "working"));
  std::vector<std::pair<size_t, size_t>> items =
      ListKind(*kind) ? ListItems(c, ob, oe) : std::vector{std::pair{ob, oe}};
  std::vector<Statement> out;
  for (auto [b, e] : items) {
    if (IsPronounObject(c, b, e)) continue;
    std::string v = Join(t, b, e);
    std::string content =
        canonical ? Canonical(*kind, v) : "User " + Rewrite(t, c.subject + 1, ob) + " " + v;
    if (!trailing.empty()) content = "User " + Rewrite(t, c.subject + 1, oe + 1);
    bool keyed = TraitsOf(*kind).keyed;
    Statement st = Make(c, *kind, v, keyed ? ObjectKey(c, b, e) : "", content, conf);
    st.correction = neg.no_longer;
    if (*kind != Kind::kGoal && *kind != Kind::kSkill && *kind != Kind::kJob)
      st.entities.push_back(v);
    out.push_back(std::move(st));
  }
  return out;
}

bool HasEventNoun(const std::vector<Tok>& t) {
  static const WordSet k = {"appointment",  "meeting",    "interview",   "exam",        "test",
                            "surgery",      "operation",  "flight",      "party",       "wedding",
                            "date",         "class",      "lesson",      "checkup",     "check-up",
                            "doctor",       "dentist",    "vet",         "concert",     "game",
                            "match",        "trip",       "vacation",    "holiday",     "deadline",
                            "presentation", "conference", "birthday",    "anniversary", "funeral",
                            "graduation",   "visit",      "reservation", "booking",     "therapy",
                            "session",      "recital",    "race",        "marathon",    "shift"};
  for (const Tok& w : t) {
    if (k.contains(w.low)) return true;
  }
  return false;
}

// With a time expression and no other pattern: an appointment (future) or an event (past).
std::vector<Statement> MatchTimed(const Clause& c, size_t verb) {
  const auto& t = c.t;
  if (!c.in->has_time || verb >= t.size() || t.size() - c.subject < 3) return {};
  if (NegationBetween(c, c.subject + 1, t.size()).negated) return {};
  const std::string when = (c.in->date_is_day ? " on " : " in ") + c.in->date;
  // "went to a parade and it was awesome": the event ends where another subject starts.
  static const WordSet kSubjects = {"it",   "we",   "they",  "he", "she",
                                    "that", "this", "there", "i",  "everyone"};
  size_t end = t.size();
  for (size_t k = c.subject + 2; k + 1 < t.size(); ++k) {
    if ((t[k].low == "and" || t[k].low == "but" || t[k].low == "so" || t[k].low == "because" ||
         t[k].low == "which" || t[k].low == ",") &&
        kSubjects.contains(t[k + 1].low)) {
      end = k;
      break;
    }
  }
  std::string content = "User " + Rewrite(t, c.subject + 1, end) + when;
  if (c.in->future_time) {
    static const WordSet kFuture = {"have",  "will", "am",     "need",  "must", "start",
                                    "leave", "fly",  "travel", "visit", "meet", "see"};
    if (!kFuture.contains(t[verb].low) && !HasEventNoun(t)) return {};
    return {Make(c, Kind::kAppointment, "", "", content, 0.75)};
  }
  if (!IsEnglishPastForm(t[verb].low) && !HasEventNoun(t)) return {};
  return {Make(c, Kind::kEvent, "", "", content, 0.65)};
}

std::vector<Statement> MatchI(const Clause& c) {
  const auto& t = c.t;
  size_t verb = c.subject + 1;
  while (verb < t.size() &&
         (Adverbs().contains(t[verb].low) || IsNegator(t[verb].low) || t[verb].low == "longer" ||
          ((t[verb].low == "do" || t[verb].low == "does" || t[verb].low == "did") &&
           verb + 1 < t.size() && IsNegator(t[verb + 1].low)))) {
    ++verb;
  }
  if (verb >= t.size()) return {};
  // "I'm Alice": a short clause with a capitalized word after "am".
  if (t[verb].low == "am" && verb + 1 < t.size() && t.size() - verb <= 3 &&
      IsCapitalized(t[verb + 1]) && t[verb + 1].low != "i") {
    std::string v = Join(t, verb + 1, t.size());
    if (Nationalities().contains(t[verb + 1].low)) {
      return {Make(c, Kind::kAttribute, v, "nationality", "User is " + v, 0.8)};
    }
    Statement st = Make(c, Kind::kName, v, "", Canonical(Kind::kName, v), 0.75);
    st.entities.push_back(v);
    return {std::move(st)};
  }
  if (auto s = MatchPossession(c, verb); !s.empty()) return s;
  if (auto s = MatchHealthAdjective(c, verb); !s.empty()) return s;
  if (auto s = MatchSkillVerb(c, verb); !s.empty()) return s;
  auto candidates = PatternsByVerb().find(t[verb].low);
  if (candidates == PatternsByVerb().end()) return MatchTimed(c, verb);
  for (const ParsedPattern& p : candidates->second) {
    size_t last = c.subject, ob = 0;
    std::string_view trailing;
    if (!MatchPattern(c, p, &last, &ob, &trailing)) continue;
    bool stop = false;
    std::vector<Statement> out = FromPattern(c, p, last, ob, trailing, &stop);
    if (!out.empty() || stop) return out;
  }
  return MatchTimed(c, verb);
}

}  // namespace

std::string EnglishContent(Kind kind, std::string_view value) {
  std::string v(value);
  switch (kind) {
    case Kind::kName:
      return "User's name is " + v;
    case Kind::kLocation:
      return "User lives in " + v;
    case Kind::kHometown:
      return "User is from " + v;
    case Kind::kEmployer:
      return "User works at " + v;
    case Kind::kWorkPlace:
      return "User works in " + v;
    case Kind::kJob:
      return "User is " + WithArticle(v);
    case Kind::kAllergy:
      return "User is allergic to " + v;
    default:
      return "";
  }
}

std::vector<Statement> MatchEnglishClause(const ClauseInput& input) {
  Clause c{Tokenize(input.text), &input, 0};
  auto& t = c.t;
  while (!t.empty() && t.back().low == ",") t.pop_back();
  if (t.empty() || IsQuestionOrRequest(t)) return {};
  // "call me Max", "you can call me Max"
  for (size_t i = 0; i + 2 < t.size(); ++i) {
    if (t[i].low == "call" && t[i + 1].low == "me" && IsCapitalized(t[i + 2])) {
      c.subject = i + 1;
      std::string v = t[i + 2].text;
      Statement st = Make(c, Kind::kName, v, "", EnglishContent(Kind::kName, v), 0.85);
      st.entities.push_back(v);
      return {std::move(st)};
    }
  }
  std::string routine_key;
  auto [rb, re] = RoutineSpan(t, &routine_key);
  size_t s = 0;
  while (s < t.size() && (Ignorable().contains(t[s].low) || (s >= rb && s < re) ||
                          (t[s].low == "the" || t[s].low == "by" || t[s].low == "way"))) {
    ++s;
  }
  if (s >= t.size() || (t[s].low != "i" && t[s].low != "my")) return {};
  c.subject = s;
  if (t[s].low == "my") return MatchMy(c);
  if (rb != re && re <= t.size()) {
    std::vector<Tok> rest;
    for (size_t i = 0; i < t.size(); ++i) {
      if (i < rb || i >= re) rest.push_back(t[i]);
    }
    size_t subject = s - (s > rb ? re - rb : 0);
    if (subject + 1 < rest.size() && !NegationBetween(c, s, t.size()).negated) {
      std::string when = Join(t, rb, re);
      when[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(when[0])));
      std::string content = "User " + Rewrite(rest, subject + 1, rest.size()) + " " + when;
      return {Make(c, Kind::kRoutine, when, SlotKey(routine_key), content, 0.75)};
    }
    return {};
  }
  return MatchI(c);
}

std::optional<std::string> EnglishBareCorrection(std::string_view clause) {
  std::vector<Tok> t = Tokenize(clause);
  size_t i = 0;
  while (i < t.size() && (t[i].low == "sorry" || t[i].low == "oops" || t[i].low == "no" ||
                          t[i].low == "," || t[i].low == "actually" || t[i].low == "wait")) {
    ++i;
  }
  if (i + 2 > t.size() || t[i].low != "i" || (t[i + 1].low != "meant" && t[i + 1].low != "mean")) {
    return std::nullopt;
  }
  i += 2;
  if (i >= t.size() || t.size() - i > 4 || t[i].low == "i" || t[i].low == "that" ||
      t[i].low == "to") {
    return std::nullopt;
  }
  return Join(t, i, t.size());
}

}  // namespace engram::extract
