// English topic frames (frames.h). A clause is read as tokens (english_words.h); its subject
// is found first — the user ("I", "we", "my rent"), someone they know ("my brother Kevin",
// "mom", "Biscuit"), or nobody ("got promoted!", which is the user) — then each frame looks for
// its trigger words and reads the value around them.
//
// This file: the subject finder, the helpers the frames share (frames_en_internal.h) and the
// order the frames are tried in; the frames by topic are in frames_en_people.cc (people,
// family, partner, pets, home), frames_en_work.cc (work, school, health, diet, languages) and
// frames_en_plans.cc (plans, amounts, schedules, devices, what ended).
#include <algorithm>
#include <cctype>
#include <map>
#include <string>

#include "extract/changes.h"
#include "extract/english_words.h"
#include "extract/frames.h"
#include "extract/frames_en_internal.h"
#include "extract/lexicon.h"
#include "text/find.h"
#include "text/time_expressions.h"

namespace engram::extract {

using namespace en;         // NOLINT: the word helpers are this file's vocabulary
using namespace frames_en;  // NOLINT: the frames and their helpers (frames_en_internal.h)

namespace frames_en {

bool Is(const Toks& t, size_t i, std::string_view w) { return i < t.size() && t[i].low == w; }

bool IsNumberWord(std::string_view w) {
  static const WordSet k = {"one",   "two",   "three", "four", "five",   "six",
                            "seven", "eight", "nine",  "ten",  "eleven", "twelve"};
  return k.contains(w) || (!w.empty() && std::all_of(w.begin(), w.end(), ::isdigit));
}

// Verbs a clause without a subject starts with ("got promoted", "moved to Denver"): the user.
bool IsImplicitVerb(std::string_view w) {
  static const WordSet k = {
      "got",       "moved",       "started",  "quit",      "left",     "switched",  "finished",
      "bought",    "adopted",     "upgraded", "bumped",    "pushed",   "stopped",   "dropped",
      "gave",      "went",        "just",     "finally",   "gonna",    "going",     "raised",
      "cut",       "transferred", "joined",   "became",    "weighed",  "took",      "had",
      "broke",     "tried",       "been",     "still",     "love",     "loving",    "hate",
      "need",      "want",        "working",  "living",    "learning", "studying",  "doing",
      "planning",  "thinking",    "trying",   "decided",   "promised", "committed", "committing",
      "confirmed", "signed",      "booked",   "sold",      "ran",      "passed",    "failed",
      "won",       "lost",        "made",     "found",     "turned",   "retired",   "graduated",
      "enrolled",  "married",     "engaged",  "divorced",  "hired",    "fired",     "laid",
      "started",   "picked",      "renewed",  "cancelled", "canceled", "currently", "also",
      "recently",  "usually",     "always",   "mostly",    "really",   "fostering", "saving",
      "taking",    "running",     "teaching", "using",     "drinking", "eating",    "reading",
      "playing",   "watching",    "going"};
  return k.contains(w);
}

const WordSet& Function() {
  static const WordSet k = {
      "the",       "a",        "an",        "this",     "that",   "these",   "those",
      "it",        "there",    "what",      "when",     "where",  "who",     "how",
      "why",       "which",    "if",        "you",      "he",     "she",     "they",
      "his",       "her",      "their",     "its",      "your",   "some",    "many",
      "most",      "all",      "any",       "each",     "every",  "no",      "few",
      "several",   "both",     "other",     "another",  "such",   "one",     "two",
      "three",     "everyone", "nobody",    "someone",  "people", "nothing", "everything",
      "something", "anything", "everybody", "somebody", "none"};
  return k;
}

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
      "is",      "was",       "has",    "had",   "says",     "said",       "thinks",   "prefers",
      "likes",   "loves",     "hates",  "wants", "needs",    "lives",      "works",    "moved",
      "passed",  "died",      "got",    "just",  "strongly", "really",     "always",   "never",
      "also",    "still",     "will",   "would", "can",      "could",      "told",     "asked",
      "decided", "committed", "signed", "keeps", "goes",     "plays",      "studies",  "teaches",
      "started", "'s",        ",",      "and",   "finally",  "officially", "recently", "usually",
      "does",    "did",       "went",   "ran",   "left",     "came",       "turned",   "became",
      "gets",    "seems",     "feels",  "knows"};
  auto common_noun = [](std::string_view w) {
    for (std::string_view suffix : {"tion", "sion", "ment", "ness", "ity", "ance", "ence", "ism",
                                    "ship", "ure", "ery", "ing", "ogy", "ics"}) {
      if (w.size() > suffix.size() + 2 && w.ends_with(suffix)) return true;
    }
    return false;
  };
  if (IsCapitalized(t[0]) && !Function().contains(t[0].low) && t.size() > 1 &&
      !IsImplicitVerb(t[0].low) && LanguageKey(t[0].low).empty() && !common_noun(t[0].low) &&
      (kPersonVerbs.contains(t[1].low) || IsEnglishPastForm(t[1].low) || IsCapitalized(t[1]))) {
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
  // "live in austin", "work in cybersecurity", "study at UT": a verb of where the speaker lives,
  // works or studies, then where, said in a list with no subject. Only with a preposition that
  // says where: "work on my essay" and "live with it" ask something of the assistant.
  static const std::map<std::string_view, WordSet> kStateVerbs = {
      {"live", {"in", "near", "with", "at", "outside", "downtown", "abroad", "alone"}},
      {"work", {"in", "at", "for", "as", "from", "remotely", "nights", "weekends"}},
      {"study", {"at", "in"}},
      {"teach", {"at", "in"}}};
  static const WordSet kAsked = {"it", "this", "that", "me", "us", "them", "you"};
  if (const auto verb = kStateVerbs.find(t[0].low); verb != kStateVerbs.end() && t.size() > 1 &&
                                                    verb->second.contains(t[1].low) &&
                                                    (t.size() == 2 || !kAsked.contains(t[2].low))) {
    s.who = Who::kNobody;
    s.end = 0;
    return s;
  }
  if (IsImplicitVerb(t[0].low) || IsEnglishPastForm(t[0].low) ||
      ((t[0].low == "not" || t[0].low == "never") && t.size() > 1 &&
       (IsImplicitVerb(t[1].low) || IsEnglishPastForm(t[1].low)))) {
    s.who = Who::kNobody;
    s.end = 0;
    return s;
  }
  // Notes without a subject: "Adopting the same convention myself", "Updating the schedule". A
  // gerund that is itself the subject ("Swimming helps my back") is followed by its verb.
  static const WordSet kGerundVerbs = {"is",  "was", "helps", "makes", "keeps", "gives", "takes",
                                       "has", "can", "will",  "seems", "feels", "sounds"};
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

size_t Find(const Toks& t, std::string_view w, size_t from) {
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

}  // namespace frames_en

std::vector<Statement> MatchEnglishFrames(const ClauseView& c, MessageState* state) {
  Toks t = Tokenize(c.text);
  while (!t.empty() && t.back().low == ",") t.pop_back();
  if (t.empty()) return {};
  const Subject s = FindSubject(t);
  using Frame =
      std::vector<Statement> (*)(const ClauseView&, const Toks&, const Subject&, MessageState*);
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
        // Contact details are "<label> is <value>": no "is" in any form, no reading
        const std::string low = Lower(c.raw);
        if (!ContainsText(low, " is") && !ContainsText(low, "'s")) return std::vector<Statement>{};
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
      [](const ClauseView&, const Toks& t, const Subject& s, MessageState*) { return Age(t, s); },
      [](const ClauseView& c, const Toks& t, const Subject& s, MessageState*) {
        return Plan(c, t, s);
      },
      [](const ClauseView&, const Toks& t, const Subject& s, MessageState*) {
        return School(t, s);
      },
      [](const ClauseView&, const Toks& t, const Subject& s, MessageState*) { return Pet(t, s); },
      [](const ClauseView&, const Toks& t, const Subject& s, MessageState*) { return Diet(t, s); },
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
      // A pet's name said with the pet as subject ("my cat is called Miso") is the user's pet,
      // as "my cat's name is Miso" is.
      if (st.subject == "user" && s.who == Who::kPerson && st.slot.empty() &&
          st.kind != Kind::kPartner && st.kind != Kind::kChildren &&
          !(s.pet && st.kind == Kind::kPet)) {
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
  if (t.empty()) return false;
  // "on a pixel 6", "on my third coffee": what the speaker is on (read as "I am on …")
  if (t[0].low == "on" && (Is(t, 1, "a") || Is(t, 1, "an") || Is(t, 1, "my"))) return true;
  // "back in leeds for a bit", "back at my mum's": where the speaker is again (read as "I am
  // back …")
  // Only before a city or someone's home: "back in 2019", "back in college", "back at work"
  // speak of a time or a place of the day.
  if (t[0].low == "back" && t.size() > 2 &&
      ((Is(t, 1, "in") && (IsKnownCity(t[2].low, false) ||
                           (t.size() > 3 && IsKnownCity(t[2].low + " " + t[3].low, false)))) ||
       (Is(t, 1, "at") && (Is(t, 2, "my") || Is(t, 2, "our"))))) {
    return true;
  }
  if (s.who != Who::kNobody) return false;
  // An adverb first ("currently at 85%", "never gRPC") makes no clause about the user unless a
  // verb follows.
  if (Adverbs().contains(t[0].low) || t[0].low == "currently" || t[0].low == "recently" ||
      t[0].low == "never" || t[0].low == "not" || t[0].low == "no") {
    const bool ing = t.size() > 1 && t[1].low.size() > 4 && t[1].low.ends_with("ing") &&
                     !t[1].low.ends_with("thing");
    return t.size() > 1 && (IsImplicitVerb(t[1].low) || IsEnglishPastForm(t[1].low) || ing) &&
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
