// What the English topic frames share (frames_en.cc and frames_en_people.cc, _work.cc,
// _plans.cc): a clause as tokens (english_words.h), who it is about, the helpers every frame
// reads it with, and the frames themselves, which MatchEnglishFrames (frames_en.cc) tries in a
// fixed order. Internal to the English frames; stateless and thread-safe.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "extract/english_words.h"
#include "extract/frames.h"
#include "extract/rule_patterns.h"

namespace engram::extract::frames_en {

using Toks = std::vector<en::Tok>;

enum class Who { kUser, kUserThing, kPerson, kNobody, kOther };

struct Subject {
  Who who = Who::kOther;
  size_t end = 0;        // first token after the subject
  std::string key;       // kPerson: "kevin", "mom"; kUserThing: "rent", "phone"
  std::string relation;  // kPerson: "brother", "" for a bare name
  std::string name;      // as written: "Kevin", "Biscuit"
  bool pet = false;
};

// ---- tokens and subjects (frames_en.cc) ----

bool Is(const Toks& t, size_t i, std::string_view w);  // t[i] is the word w
bool IsNumberWord(std::string_view w);                 // "one" … "twelve", or digits
bool IsImplicitVerb(std::string_view w);               // a verb that starts a clause about the user
const en::WordSet& Function();  // determiners, pronouns, question words, quantifiers
Subject FindSubject(const Toks& t);
bool AboutUser(const Subject& s);                      // the user, a thing of theirs, or no subject
std::string Words(const Toks& t, size_t b, size_t e);  // t[b, e) as written, without commas
size_t Find(const Toks& t, std::string_view w, size_t from = 0);  // t.size() when absent
bool Has(const Toks& t, std::initializer_list<std::string_view> words);
bool Negated(const Toks& t);  // "not", "never", "no longer"
void ForPerson(const Subject& s, Statement* st, std::string_view attribute);
size_t CapitalSpan(const Toks& t, size_t b);

// ---- words more than one topic reads ----

bool IsPlanNoun(const en::Tok& x);                     // frames_en_plans.cc
bool IsSchoolSpan(const Toks& t, size_t b, size_t e);  // frames_en_work.cc
bool IsDiet(std::string_view w);                       // frames_en_work.cc

// ---- the frames, each empty when it reads nothing ----

// People, family, partner, pets, home, contact details (frames_en_people.cc).
std::vector<Statement> Partner(const Toks& t, const Subject& s);
std::vector<Statement> Children(const Toks& t, const Subject& s);
std::vector<Statement> PersonFacts(const Toks& t, const Subject& s);
std::vector<Statement> Age(const Toks& t, const Subject& s);
std::vector<Statement> Contact(const Toks& t, const Subject& s, const ClauseView& c);
std::vector<Statement> Location(const Toks& t, const Subject& s);
std::vector<Statement> Pet(const Toks& t, const Subject& s);

// Work, school, health, diet, languages (frames_en_work.cc).
std::vector<Statement> Work(const Toks& t, const Subject& s, const ClauseView& c,
                            MessageState* state);
std::vector<Statement> Cleft(const Toks& t);
std::vector<Statement> WorkArrangement(const ClauseView& c, const Toks& t, const Subject& s);
std::vector<Statement> School(const Toks& t, const Subject& s);
std::vector<Statement> Language(const Toks& t, const Subject& s);
std::vector<Statement> Medication(const Toks& t, const Subject& s);
std::vector<Statement> Fan(const Toks& t, const Subject& s);
std::vector<Statement> HealthCondition(const Toks& t, const Subject& s);
std::vector<Statement> Diet(const Toks& t, const Subject& s);

// Amounts, schedules, devices, what ended, plans (frames_en_plans.cc).
std::vector<Statement> Budget(const ClauseView& c, const Toks& t, const Subject& s);
std::vector<Statement> Amount(const ClauseView& c, const Toks& t, const Subject& s,
                              MessageState* state);
std::vector<Statement> Schedule(const ClauseView& c, const Toks& t, const Subject& s,
                                MessageState* state);
std::vector<Statement> Device(const Toks& t, const Subject& s);
std::vector<Statement> Ended(const Toks& t, const Subject& s, const std::string& clause);
std::vector<Statement> Plan(const ClauseView& c, const Toks& t, const Subject& s);

}  // namespace engram::extract::frames_en
