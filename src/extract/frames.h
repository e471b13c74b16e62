// Topic frames: what a clause says about an attribute that people state and change — who a
// statement is about (the user or someone they know), and per attribute its slot, value and what
// it ends: home and moves, work and school, partner and family, pets (a pet's death), diet and
// habits, health and medication, budgets and other amounts, schedules, devices, languages,
// contact details, ages, plans with dates. Read before the self-statement patterns
// (rule_patterns_*.cc); a clause no frame or pattern reads becomes a generic statement.
// Internal to src/extract/; stateless and thread-safe.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "extract/rule_patterns.h"

namespace engram::extract {

// A clause as the frames see it.
struct ClauseView {
  std::string text;  // markers, a reported-speech lead and the time expression removed
  std::string raw;   // the same with its time expressions ("周二", "on Fridays")
  bool zh = false;
  ClauseInput time;      // the time expression found in it (ClauseInput::has_time …)
  std::string reporter;  // "doctor" when the clause reports what someone said
  bool correction = false;
  std::vector<std::string> ends;  // values the clause says stopped holding (TakeEnds*)
  std::string topic;  // a topic carried from an earlier clause of the message ("salary")
  // The whole message: one that speaks of school ("transfer", "classes", "转学") says a change
  // of the school with a place ("first week at michigan done"), not of where the user lives.
  const std::string* message = nullptr;
};

// What the frames remember across the clauses of one message.
struct MessageState {
  std::string topic;         // "salary" after "got a raise", "employer" after "I left Deloitte"
  std::string topic_object;  // a fronted object ("花生我是不能吃的" → 花生), Chinese
};

std::vector<Statement> MatchEnglishFrames(const ClauseView& c, MessageState* state);
std::vector<Statement> MatchChineseFrames(const ClauseView& c, MessageState* state);

// Who a clause is about, read once: `key` is "user", a person's key or "" (as *SubjectKey);
// `text` the subject as written (Chinese); `fronted` an object said before 我; `implicit` the
// clause has no subject and starts with a verb.
struct SubjectInfo {
  std::string key;
  std::string text;
  std::string fronted;
  bool implicit = false;
};
SubjectInfo EnglishSubject(std::string_view clause);
SubjectInfo ChineseSubject(std::string_view clause);

// A frame's statement of `kind`: its value (also its entity), slot key and confidence; the frame
// fills in the rest.
inline Statement Make(Kind kind, std::string value, std::string key, double confidence = 0.85) {
  Statement s;
  s.kind = kind;
  s.value = std::move(value);
  s.key = std::move(key);
  s.confidence = confidence;
  if (!s.value.empty()) s.entities.push_back(s.value);
  return s;
}

// Who a clause is about: "user" (I, we, my thing, or no subject: "got promoted!"), the key of
// someone the user knows ("kevin", "mom", "女儿", "旺财"), or "" for anything else.
std::string EnglishSubjectKey(std::string_view clause);
std::string ChineseSubjectKey(std::string_view clause);
// True when the clause has no subject and starts with a verb: it is about the user.
bool EnglishImplicitSubject(std::string_view clause);
bool ChineseImplicitSubject(std::string_view clause);
// The subject of a Chinese clause as written ("我儿子", "女儿", "我"), or "".
std::string ChineseSubjectText(std::string_view clause);
// An object said before 我 ("花生我是不能吃的" → "花生"), or "".
std::string ChineseFrontedObject(std::string_view clause);

// A money amount or a number with its unit in the text ("$4,000", "85k", "20k", "1950",
// "五万", "8万", "一万八", "三千五", "四千二"), as written; empty when none.
std::string FindAmountEn(std::string_view text);
std::string FindAmountZh(std::string_view text);

}  // namespace engram::extract
