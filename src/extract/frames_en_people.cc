// English frames (frames.h, frames_en.cc) for the people the user knows: partner and family,
// what people do, pets, ages, where the user lives, and contact details.
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <string>

#include "extract/changes.h"
#include "extract/english_words.h"
#include "extract/frames.h"
#include "extract/frames_en_internal.h"
#include "extract/lexicon.h"
#include "text/find.h"

namespace engram::extract {

using namespace en;  // NOLINT: the word helpers are this file's vocabulary

namespace frames_en {

// ---- partner and family ----

std::vector<Statement> Partner(const Toks& t, const Subject& s) {
  // "I'm single", "we're engaged", "got married", "seeing someone", "broke up"
  static const WordSet kStatus = {"single",  "married",   "engaged", "divorced",
                                  "widowed", "separated", "dating",  "seeing"};
  if (s.who == Who::kUser || s.who == Who::kNobody) {
    for (size_t i = s.end; i < t.size(); ++i) {
      if (!kStatus.contains(t[i].low)) continue;
      if (t[i].low == "seeing" &&
          !(Is(t, i + 1, "someone") || (i + 1 < t.size() && IsCapitalized(t[i + 1])))) {
        continue;
      }
      if (t[i].low == "dating" && Is(t, i + 1, "apps")) continue;
      // "every single day", "a single bed", "one single thing": the word, not the status
      if (t[i].low == "single" && i > 0 &&
          (t[i - 1].low == "every" || t[i - 1].low == "a" || t[i - 1].low == "one" ||
           t[i - 1].low == "each" || t[i - 1].low == "the" || t[i - 1].low == "no")) {
        continue;
      }
      // (a noun after it: "single parent" says a family, "single room" a thing)
      if (t[i].low == "single" && i + 1 < t.size() && t[i + 1].low != "now" &&
          t[i + 1].low != "again" && t[i + 1].low != "," && t[i + 1].low != "and" &&
          t[i + 1].low != "lol" && t[i + 1].low != "haha" && t[i + 1].low != "since") {
        continue;
      }
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
          IsPartnerRelation(RelationKey(t[i + 1].low == "my" && i + 2 < t.size() ? t[i + 2].low
                                                                                 : t[i + 1].low))) {
        Statement st = Make(Kind::kPartner, s.name, "", 0.8);
        return {st};
      }
    }
  }
  return {};
}

std::vector<Statement> Children(const Toks& t, const Subject& s) {
  // "mom of 2 boys here", "single dad of 4yo twins": the speaker is the parent
  static const WordSet kParents = {"mom",    "mum",    "mother", "dad",
                                   "father", "parent", "mama",   "papa"};
  size_t of = 0;
  for (size_t k = 1; k < t.size() && k <= 5 && of == 0; ++k) {
    // (not "my mom of …": someone else's parent)
    const bool owned =
        k >= 2 && (t[k - 2].low == "my" || t[k - 2].low == "our" || t[k - 2].low == "his" ||
                   t[k - 2].low == "her" || t[k - 2].low == "their" || t[k - 2].low == "your");
    if (t[k].low == "of" && kParents.contains(t[k - 1].low) && !owned) of = k;
  }
  const bool parent_of = of > 0;
  if ((s.who == Who::kPerson || s.who == Who::kOther) && !parent_of) {
    // "that's three kids now"
    if (!(s.who == Who::kOther && Is(t, 0, "that"))) return {};
  }
  if (parent_of && of + 2 < t.size() + 1) {
    // "4yo twins": a pair of the same age
    for (size_t i = of + 1; i < t.size() && i <= of + 2; ++i) {
      if (t[i].low == "twins" || t[i].low == "triplets") {
        Statement st = Make(Kind::kChildren, t[i].text, "", 0.85);
        st.content = "User has " + Words(t, of + 1, i + 1);
        st.keep_content = false;
        return {st};
      }
    }
  }
  for (size_t i = 0; i + 1 < t.size(); ++i) {
    if (!IsNumberWord(t[i].low)) continue;
    std::string_view n = t[i + 1].low;
    // (boys, girls, sons, daughters: children too, when counted)
    if (n == "kids" || n == "children" || n == "kid" || n == "child" || n == "boys" ||
        n == "girls" || n == "sons" || n == "daughters" || (parent_of && i == of + 1)) {
      if (t[i].low == "one" && n != "kid" && n != "child") continue;
      Statement st = Make(Kind::kChildren, t[i].text, "", 0.85);
      // "mom of 3 now": said as the parent, kept so (no noun the user did not say)
      const bool counted = !(parent_of && i == of + 1) || n == "kids" || n == "children" ||
                           n == "boys" || n == "girls" || n == "sons" || n == "daughters";
      st.content = counted ? "User has " + t[i].text + " " + t[i + 1].text
                           : "User is a " + Words(t, of - 1, i + 1);
      if (Has(t, {"now"})) st.content += " now";
      st.keep_content = false;
      return {st};
    }
  }
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
      for (size_t n = 3; e == b && n >= 1; --n) {  // a known city typed in lower case
        if (b + n <= t.size() && IsKnownCity(Words(t, b, b + n), false)) e = b + n;
      }
      Statement st = Make(Kind::kLocation, e > b ? Words(t, b, e) : "", "", 0.8);
      if (e == b) {
        // "mom moved out", "my son moved out last month": no longer lives with the user (where
        // to, a later clause may say); the place they lived is no longer theirs
        if ((w == "moved" || w == "relocated") && Is(t, i + 1, "out")) {
          st.value = "moved out";
          st.entities.clear();
          ForPerson(s, &st, "location");
          return {st};
        }
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
    const bool copula =
        t[i].low == "am" || t[i].low == "is" || t[i].low == "turned" || t[i].low == "turning";
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
  static const WordSet kLabels = {"email",    "e-mail",      "cell",     "phone",   "number",
                                  "address",  "passport",    "id",       "plate",   "username",
                                  "handle",   "zip",         "postcode", "ssn",     "license",
                                  "birthday", "anniversary", "wifi",     "account", "one"};
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
  const bool digits =
      std::any_of(value.begin(), value.end(), ::isdigit) || ContainsText(value, '@');
  if (!known ||
      (!digits && !ContainsText(label, "birthday") && !ContainsText(label, "anniversary"))) {
    return {};
  }
  if (s.who == Who::kPerson) return {};
  (void)c;
  std::string key = SlotKey(label);
  for (std::string_view phone :
       {"cell", "cell phone", "mobile", "phone number", "number", "cell number", "mobile number"}) {
    if (key == phone) key = "phone";
  }
  if (key == "e-mail" || key == "email address") key = "email";
  // "my phone's a pixel 6": a phone with too few digits for a number is the device
  if (key == "phone" && std::count_if(value.begin(), value.end(), ::isdigit) < 7 &&
      !ContainsText(value, '@')) {
    return {Make(Kind::kDevice, value, "phone", 0.8)};
  }
  Statement st = Make(Kind::kContact, value, key, 0.9);
  st.slot = "user/" + key;
  if (ContainsText(label, "birthday")) st.kind = Kind::kBirthday;
  st.recurring = ContainsText(label, "birthday") || ContainsText(label, "anniversary");
  return {st};
}

// ---- where the user lives, their pets ----

namespace {

bool IsMonthOrDay(std::string_view w) {
  static const WordSet k = {"january",  "february", "march",    "april",     "may",
                            "june",     "july",     "august",   "september", "october",
                            "november", "december", "monday",   "tuesday",   "wednesday",
                            "thursday", "friday",   "saturday", "sunday"};
  return k.contains(w);
}

bool IsPlace(const Toks& t, size_t b, size_t e) {
  if (b >= e || IsMonthOrDay(t[b].low) || !LanguageKey(t[b].low).empty() || IsSchoolSpan(t, b, e) ||
      t[b].low == "i") {
    return false;
  }
  return true;
}

}  // namespace

std::vector<Statement> Location(const Toks& t, const Subject& s) {
  if (!AboutUser(s) || s.who == Who::kUserThing) return {};
  auto place_after = [&](size_t b) -> std::vector<Statement> {
    if (Is(t, b, "the")) ++b;
    size_t e = CapitalSpan(t, b);
    // "in tucson": a known city typed in lower case (places.tsv), of up to three words
    for (size_t n = 3; e == b && n >= 1; --n) {
      if (b + n <= t.size() && IsKnownCity(Words(t, b, b + n), false)) e = b + n;
    }
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
    // "back at my mum's in leeds for a bit", "back home in ohio": where the speaker is now
    static const WordSet kHome = {"living",  "live",  "lives", "staying", "apartment",
                                  "place",   "house", "flat",  "condo",   "home",
                                  "settled", "based", "back"};
    if (kHome.contains(w)) {
      for (size_t k = i + 1; k < t.size() && k < i + 6; ++k) {
        if (t[k].low == "in" || t[k].low == "to") {
          if (auto out = place_after(k + 1); !out.empty()) return out;
          break;
        }
        // (whose home it is goes on: "at my mum's in leeds", "with my parents in Jersey")
        if (t[k].low == "," ||
            (Boundaries().contains(t[k].low) && t[k].low != "with" && t[k].low != "at")) {
          break;
        }
      }
    }
  }
  return {};
}

std::vector<Statement> Pet(const Toks& t, const Subject& s) {
  if (s.who == Who::kOther && !(Is(t, 0, "a") || Is(t, 0, "an"))) return {};
  if (s.who == Who::kPerson && !s.pet) return {};
  // "<pet> named|called Name", "adopted|fostering Name"
  for (size_t i = 0; i + 1 < t.size(); ++i) {
    std::string name;
    if ((t[i].low == "named" || t[i].low == "called") && IsNameAfterNaming(t[i + 1])) {
      bool pet_before = false;
      for (size_t k = 0; k < i; ++k)
        pet_before = pet_before || Pets().contains(t[k].low) || t[k].low == "retriever" ||
                     t[k].low == "shepherd";
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

}  // namespace frames_en
}  // namespace engram::extract
