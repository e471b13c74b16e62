// English frames (frames.h, frames_en.cc) for work and school, health and medication, diet and
// languages.
#include <algorithm>
#include <cctype>
#include <string>

#include "extract/english_words.h"
#include "extract/frames.h"
#include "extract/frames_en_internal.h"
#include "extract/lexicon.h"
#include "text/find.h"

namespace engram::extract {

using namespace en;  // NOLINT: the word helpers are this file's vocabulary

namespace frames_en {

// ---- employer and job changes the patterns do not read ----

// "brightwell insurance", "halvorsen logistics": a name typed in lower case that ends in a word
// organisations' names end in (IsOrganizationSuffix), at most four words; `b` when none.
size_t LowerCaseOrganization(const Toks& t, size_t b) {
  // ("a small agency", "the bank": a description, not a name)
  if (b < t.size() && (t[b].low == "a" || t[b].low == "an" || t[b].low == "the" ||
                       t[b].low == "my" || t[b].low == "our" || t[b].low == "some")) {
    return b;
  }
  for (size_t e = b + 1; e <= t.size() && e <= b + 4; ++e) {
    const std::string_view w = t[e - 1].low;
    if (Boundaries().contains(w) || w == "," || w == "." || w == "!" || w == "and") return b;
    if (e > b + 1 && IsOrganizationSuffix(w)) return e;
  }
  return b;
}

std::vector<Statement> Work(const Toks& t, const Subject& s, const ClauseView& c,
                            MessageState* state) {
  // "first week at Stripe", "hired by Intel", "new job at X", "I'm at Accenture now",
  // "work nights at Mercy General"
  for (size_t i = 0; i + 1 < t.size(); ++i) {
    size_t b = t.size();
    if (t[i].low == "by" && i > 0 && (t[i - 1].low == "hired" || t[i - 1].low == "recruited"))
      b = i + 1;
    if (t[i].low == "at" && i > 0 &&
        (t[i - 1].low == "week" || t[i - 1].low == "day" || t[i - 1].low == "month" ||
         t[i - 1].low == "job" || t[i - 1].low == "nights" || t[i - 1].low == "days" ||
         t[i - 1].low == "time" || t[i - 1].low == "internship" || t[i - 1].low == "position" ||
         t[i - 1].low == "role" || t[i - 1].low == "gig" || t[i - 1].low == "offer" ||
         t[i - 1].low == "team")) {
      b = i + 1;
    }
    const bool now_at = t[i].low == "at" && (Has(t, {"now"}) || state->topic == "employer") &&
                        i > 0 &&
                        (t[i - 1].low == "am" || t[i - 1].low == "'m" || t[i - 1].low == "are" ||
                         t[i - 1].low == "now");
    if (now_at) b = i + 1;
    if (b >= t.size()) continue;
    size_t e = CapitalSpan(t, b);
    if (e == b) e = LowerCaseOrganization(t, b);
    if (e == b || IsSchoolSpan(t, b, e)) continue;
    Statement st = Make(Kind::kEmployer, Words(t, b, e), "", 0.8);
    // "first week at brightwell insurance done": said with no subject, of the speaker
    const bool speaker_unsaid = s.who == Who::kOther && !t.empty() &&
                                (t[0].low == "first" || t[0].low == "1st" || t[0].low == "new" ||
                                 t[0].low == "second" || t[0].low == "2nd");
    if (s.who == Who::kPerson && !s.pet)
      ForPerson(s, &st, "employer");
    else if (!AboutUser(s) && !speaker_unsaid)
      return {};
    return {st};
  }
  // "promoted to senior analyst", "took a job as a lab manager", "I'm a UX designer now"
  for (size_t i = 0; i + 1 < t.size(); ++i) {
    size_t b = t.size();
    if (t[i].low == "to" && i > 0 && t[i - 1].low == "promoted") b = i + 1;
    if (t[i].low == "as" && i > 1 &&
        (t[i - 1].low == "job" || t[i - 1].low == "position" || t[i - 1].low == "role")) {
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

// ---- where the user works from: remote, hybrid, the office ----

std::vector<Statement> WorkArrangement(const ClauseView& c, const Toks& t, const Subject& s) {
  if (!AboutUser(s)) return {};
  const std::string low = Lower(c.text);
  for (std::string_view w : {"remote", "remotely", "work from home", "wfh", "hybrid",
                             "in the office", "in office", "on site", "onsite"}) {
    if (!ContainsText(low, w)) continue;
    if (w == "in the office" && !Has(t, {"work", "days", "week"})) continue;
    // "got a used rav4 hybrid", "lost the tv remote": a kind of thing, not how the user works.
    // Said of work, the clause names work, or is short and says it of the user ("fully remote
    // now", "i'm hybrid") with no article before the word.
    if (w == "hybrid" || w == "remote") {
      static const WordSet kWork = {"work",  "working",  "works", "job",      "office",
                                    "role",  "position", "team",  "company",  "days",
                                    "week",  "schedule", "boss",  "employer", "went",
                                    "going", "contract"};
      bool work = false;
      for (const auto& tok : t) work = work || kWork.contains(tok.low);
      bool article = false;
      for (size_t i = 0; i < t.size() && t[i].low != w; ++i) {
        article =
            article || t[i].low == "a" || t[i].low == "an" || t[i].low == "the" || t[i].low == "my";
      }
      if (!work && (article || t.size() > 5)) continue;
    }
    Statement st = Make(Kind::kAttribute, std::string(w), "work_arrangement", 0.8);
    st.slot = "user/work_arrangement";
    st.exclusive = true;
    st.entities.clear();
    return {st};
  }
  return {};
}

// ---- schools ----

bool IsSchoolSpan(const Toks& t, size_t b, size_t e) {
  for (size_t i = b; i < e; ++i) {
    std::string_view w = t[i].low;
    // ("TU Delft", "Uni Wien", "Universidad de Chile": the word for a university in the
    // school's own language)
    if (w == "university" || w == "college" || w == "state" || w == "institute" || w == "school" ||
        w == "academy" || w == "polytechnic" || w == "tu" || w == "uni" || w == "universität" ||
        w == "universitat" || w == "universidad" || w == "université" || w == "universite" ||
        w == "università" || w == "universiteit" || w == "hochschule" || w == "politecnico") {
      return true;
    }
  }
  if (e == b + 1) {
    const std::string& x = t[b].text;
    const bool acronym =
        x.size() >= 2 && x.size() <= 5 && std::all_of(x.begin(), x.end(), [](char ch) {
          return std::isupper(static_cast<unsigned char>(ch));
        });
    static const WordSet kKnown = {"ucla",       "mit",      "nyu",      "usc",      "ucsd",
                                   "ucsb",       "uc",       "harvard",  "stanford", "yale",
                                   "princeton",  "columbia", "berkeley", "oxford",   "cambridge",
                                   "cornell",    "duke",     "caltech",  "cmu",      "upenn",
                                   "georgetown", "purdue",   "rutgers"};
    return (acronym && t[b].low != "ux" && t[b].low != "hr" && t[b].low != "nhs") ||
           kKnown.contains(t[b].low);
  }
  return false;
}

std::vector<Statement> School(const Toks& t, const Subject& s) {
  // "junior at ohio state", "2nd year nursing student at napier", "im a phd student at ucl": a
  // year of study (or "student") and "at": what follows is the school, however it is typed
  static const WordSet kYears = {"freshman",  "sophomore",     "junior",   "senior", "student",
                                 "undergrad", "undergraduate", "postgrad", "phd",    "fresher"};
  static const WordSet kNotUser = {"he", "she", "they", "it",  "his",  "her", "their",
                                   "my", "our", "your", "you", "this", "that"};
  const bool speaker =
      s.who == Who::kUser || s.who == Who::kUserThing || s.who == Who::kNobody ||
      (s.who == Who::kOther && !t.empty() && !kNotUser.contains(t[0].low) && !IsCapitalized(t[0]));
  for (size_t i = 0; i + 2 < t.size() && (speaker || s.who == Who::kPerson); ++i) {
    if (!kYears.contains(t[i].low)) continue;
    size_t at = i + 1;
    bool job = false;  // "senior engineer at google" is a job
    while (at < t.size() && at < i + 4 && t[at].low != "at" && t[at].low != ",") {
      job = job || (Occupations().contains(t[at].low) && !kYears.contains(t[at].low));
      ++at;
    }
    if (job || at >= t.size() || t[at].low != "at") continue;
    size_t b = at + 1;
    if (Is(t, b, "the")) ++b;
    size_t e = b;
    while (e < t.size() && e < b + 4 && t[e].low != "," && !Boundaries().contains(t[e].low)) ++e;
    static const WordSet kWorkplaces = {"firm",       "company", "agency", "office",   "startup",
                                        "store",      "shop",    "bank",   "hospital", "clinic",
                                        "restaurant", "studio",  "work",   "job"};
    bool workplace = false;
    for (size_t k = b; k < e; ++k) workplace = workplace || kWorkplaces.contains(t[k].low);
    if (e == b || workplace) continue;
    Statement st = Make(Kind::kSchool, Words(t, b, e), "", 0.85);
    if (s.who == Who::kPerson) {
      ForPerson(s, &st, "school");
    } else if (s.who != Who::kUser && s.who != Who::kUserThing) {
      // said with no subject: the speaker is one ("User is a junior at Ohio State")
      const bool article = Is(t, 0, "a") || Is(t, 0, "an");
      st.content = std::string("User is ") + (article ? "" : "a ") + Words(t, 0, e);
    }
    return {st};
  }
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

// ---- languages ----

std::vector<Statement> Language(const Toks& t, const Subject& s) {
  if (!AboutUser(s)) return {};
  static const WordSet kVerbs = {
      "learning",   "learn",   "studying", "study",   "speak",   "speaking", "practicing",
      "practising", "dropped", "studies",  "lessons", "classes", "class",    "fluent",
      "native",     "taking",  "doing",    "stopped", "tutor",   "duolingo", "grew"};
  if (!Has(t, {"learning", "learn", "studying", "study", "speak", "speaking", "practicing",
               "practising", "dropped", "studies", "lessons", "classes", "fluent", "native",
               "doing", "stopped", "grew", "class"})) {
    return {};
  }
  (void)kVerbs;
  std::vector<Statement> out;
  for (size_t i = 0; i < t.size(); ++i) {
    std::string_view key = LanguageKey(t[i].low);
    if (key.empty() || (!IsCapitalized(t[i]) && t[i].low != "korean" && t[i].low != "japanese" &&
                        t[i].low != "spanish" && t[i].low != "french" && t[i].low != "mandarin")) {
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

// ---- health: medication ----

namespace {

bool IsMedication(std::string_view w) {
  static const WordSet k = {
      "sertraline", "zoloft",       "prozac",     "fluoxetine",  "lexapro",     "escitalopram",
      "wellbutrin", "bupropion",    "lisinopril", "metformin",   "insulin",     "levothyroxine",
      "synthroid",  "atorvastatin", "lipitor",    "simvastatin", "omeprazole",  "adderall",
      "ritalin",    "vyvanse",      "melatonin",  "ibuprofen",   "aspirin",     "tylenol",
      "xanax",      "ozempic",      "amlodipine", "losartan",    "albuterol",   "prednisone",
      "birth",      "iron",         "metoprolol", "gabapentin",  "lamotrigine", "lithium",
      "seroquel",   "humira",       "eliquis",    "warfarin"};
  return k.contains(w) || w.ends_with("pril") || w.ends_with("olol") || w.ends_with("statin") ||
         w.ends_with("sartan") || w.ends_with("dipine") || w.ends_with("prazole") ||
         w.ends_with("mab") || w.ends_with("cillin") || w.ends_with("mycin") ||
         w.ends_with("oxetine") || w.ends_with("azepam");
}

}  // namespace

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
        {"diabetic", "diabetes"},
        {"prediabetic", "prediabetes"},
        {"asthmatic", "asthma"},
        {"epileptic", "epilepsy"},
        {"anemic", "anemia"}};
    std::string key = w;
    for (const auto& [adjective, condition] : kConditions) {
      if (w == adjective) key = std::string(condition);
    }
    Statement st = Make(Kind::kHealth, t[i].text, SlotKey(key), 0.85);
    return {st};
  }
  return {};
}

// ---- what the user eats ----

bool IsDiet(std::string_view w) {
  static const WordSet k = {"vegetarian", "vegan",       "pescatarian", "keto",        "paleo",
                            "carnivore",  "gluten-free", "dairy-free",  "plant-based", "kosher",
                            "halal",      "whole30",     "low-carb"};
  return k.contains(w);
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

}  // namespace frames_en
}  // namespace engram::extract
