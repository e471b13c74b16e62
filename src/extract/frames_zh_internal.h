// What the Chinese topic frames share (frames_zh.cc and frames_zh_people.cc, _work.cc,
// _plans.cc): text helpers for a language without spaces (UTF-8 characters, values cut at a
// comma or connector and trimmed of particles), who a clause is about, and the frames
// themselves, which MatchChineseFrames (frames_zh.cc) tries in a fixed order. Internal to the
// Chinese frames; stateless and thread-safe.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "extract/frames.h"
#include "extract/rule_patterns.h"
#include "text/utf8.h"

namespace engram::extract::frames_zh {

using SV = std::string_view;

enum class Who { kUser, kUserThing, kPerson, kNobody, kOther };

struct Subject {
  Who who = Who::kOther;
  size_t end = 0;   // bytes of the subject
  std::string key;  // person: name or relation key; user thing: the noun
  std::string relation;
  std::string name;
};

// ---- text and subjects (frames_zh.cc) ----

bool Has(SV s, SV w);  // s contains w
std::string Str(SV s);
std::string TrimValue(SV v);      // particles and fillers off both ends
size_t ValueEnd(SV s, size_t b);  // where a value starting at b ends
const std::vector<SV>& RelationWords();
SV RelationAt(SV s, size_t i);  // the longest relation word at s[i], or ""
bool IsDigitOrNumeral(SV ch);   // one character: a digit or a Chinese numeral
Subject FindSubject(SV s);
bool AboutUser(const Subject& s);  // the user, a thing of theirs, or no subject
void ForPerson(const Subject& s, Statement* st, SV attribute);

// ---- words more than one topic reads ----

bool LooksLikeJob(SV v);  // frames_zh_work.cc

// ---- the frames, each empty when it reads nothing ----

// People, family, partner, pets, contact details (frames_zh_people.cc).
std::vector<Statement> Partner(SV s, const Subject& sub);
std::vector<Statement> Children(SV s, const Subject& sub);
std::vector<Statement> BroughtTo(SV s);
std::vector<Statement> NameOfRelation(SV s);
std::vector<Statement> PersonFacts(SV s, const Subject& sub);
// `raw`: the clause as said, before its time was taken out ("今年31").
std::vector<Statement> Age(SV s, const Subject& sub, SV raw);
std::vector<Statement> Contact(SV s, const Subject& sub);
std::vector<Statement> NoPets(SV s, const Subject& sub);
std::vector<Statement> CanHave(SV s, const Subject& sub);

// Work, school, health, diet, languages (frames_zh_work.cc).
std::vector<Statement> School(SV s, const Subject& sub, const MessageState& state);
std::vector<Statement> Language(SV s, const Subject& sub);
std::vector<Statement> Work(SV s, const Subject& sub, MessageState* state);
std::vector<Statement> Medication(SV s, const Subject& sub);
std::vector<Statement> Diet(SV s, const Subject& sub);

// Plans, budgets and amounts, schedules, devices, what ended (frames_zh_plans.cc).
std::vector<Statement> Plan(SV s, const Subject& sub, const ClauseView& c);
std::vector<Statement> Budget(SV s, const Subject& sub, const ClauseView& c, MessageState* state);
std::vector<Statement> Amount(SV s, const Subject& sub, const ClauseView& c, MessageState* state);
std::vector<Statement> Schedule(SV s, const Subject& sub, MessageState* state);
std::vector<Statement> Device(SV s, const Subject& sub);
std::vector<Statement> Ended(SV s, const Subject& sub, MessageState* state);

}  // namespace engram::extract::frames_zh
