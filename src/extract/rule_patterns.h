// The rule extractor's per-language pattern tables (rule_patterns_en.cc, rule_patterns_zh.cc)
// and what they produce. Internal to src/extract/.
//
// A pattern reads one clause: a piece of a sentence in which the user speaks about themselves
// ("I moved to Berlin", "我在腾讯上班"). It yields Statements, which rule_extractor.cc turns
// into Candidates (type, slot, exclusive, importance come from the Kind, see kind_traits).
//
// Content style, both languages: a third-person statement about the user, with "User"/"用户" as
// the subject ("User lives in Shanghai", "用户住在上海"); the canonical kinds (name, location,
// hometown, employer, job, allergy) always use one wording so a repeat is recognisably the same.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engram/memory.h"

namespace engram::extract {

enum class Kind {
  kName,
  kLocation,
  kHometown,
  kEmployer,
  kWorkPlace,
  kJob,
  kLike,
  kDislike,
  kAllergy,
  kHealth,
  kDiet,
  kMarital,
  kPet,
  kFamily,
  kGoal,
  kSkill,
  kRoutine,
  kAppointment,
  kEvent,
  kFavorite,
  kAttribute,
  // Read by the topic frames (frames.h).
  kAge,
  kBirthday,
  kSchool,
  kMajor,
  kPartner,
  kChildren,
  kBudget,
  kAmount,
  kSchedule,
  kDevice,
  kLanguage,
  kMedication,
  kContact,
  kPlan,
  kHabit,
  kEnded,       // something stopped holding: a death, a breakup, quitting, leaving
  kPersonFact,  // a fact about someone the user knows, with no attribute of its own
  kGeneric,     // a statement no frame or pattern reads, kept in the user's words
};

struct KindTraits {
  MemoryType type;
  std::string_view slot;  // "user/location"; multi-valued kinds get ":<key>" appended
  bool keyed;             // the slot takes ":<key>"
  bool exclusive;
  double importance;
};
const KindTraits& TraitsOf(Kind kind);

struct Statement {
  Kind kind = Kind::kEvent;
  std::string value;    // the object as said: "Shanghai", "咖啡", a pet's name
  std::string key;      // the slot key for keyed kinds ("coffee", "wife", "monday")
  std::string content;  // "User lives in Shanghai"; empty: the clause, rewritten
  double confidence = 0.85;
  bool correction = false;  // "no longer", "不再", "actually", "其实"
  std::vector<std::string> entities;
  // Who it is about: "user", or the key of someone the user knows ("mom", "kevin", "旺财");
  // the slot starts with it ("mom/location").
  std::string subject = "user";
  std::string slot;                  // when set, the slot as is (the kind's otherwise)
  std::optional<bool> exclusive;     // when set, overrides the kind's
  std::optional<MemoryType> type;    // when set, overrides the kind's
  std::optional<double> importance;  // when set, the base importance instead of the kind's
  std::vector<std::string> ends;     // values that stop holding ("Deloitte", "coffee")
  bool elliptical = false;           // the slot names a keyed family only (Candidate::elliptical)
  bool keep_content = false;         // content is final: never replaced by the rewrite
  // A date in it recurs (a birthday, a weekly lesson): the content keeps the words said
  // ("三月十二号", "on Tuesdays") and the statement gets no valid_from from them.
  bool recurring = false;
};

// What the extractor knows about a clause before matching it.
struct ClauseInput {
  std::string_view text;           // the clause, time expressions removed
  bool inherited_subject = false;  // the subject was carried over from the previous clause
  bool has_time = false;           // a time expression was removed from it
  bool future_time = false;        // ... and it lies on or after the day said
  bool later_day = false;          // ... and after the day said ("tomorrow", not "today")
  std::string date;                // that expression's date, FormatTimeExpression
  bool date_is_day = false;        // the date names a day (or a week), not a month or year
  bool weekday = false;            // the expression is a weekday's name ("周三", "on Friday")
  bool week = false;               // the expression names a whole week ("this week", "这周")
  bool weekend = false;     // ... or a weekend ("this weekend", "这个周末"): its Saturday
  TimestampMs time_at = 0;  // the date as an instant (00:00 UTC)
};

// Statements in one clause; empty for questions, requests, hypotheticals, other people.
std::vector<Statement> MatchEnglishClause(const ClauseInput& clause);
std::vector<Statement> MatchChineseClause(const ClauseInput& clause);

// "I meant Suzhou" / "我是说苏州": the corrected value alone, or nullopt when the clause is not
// a bare correction. The extractor pairs it with the last exclusive statement of the session.
std::optional<std::string> EnglishBareCorrection(std::string_view clause);
std::optional<std::string> ChineseBareCorrection(std::string_view clause);

// Content for an exclusive kind with a new value (name, location, hometown, employer, job);
// empty for other kinds.
std::string EnglishContent(Kind kind, std::string_view value);
std::string ChineseContent(Kind kind, std::string_view value);

// A slot key from an object: NFKC-casefolded, leading articles/measure words and trailing
// particles dropped, spaces collapsed, at most 40 bytes at a character boundary.
std::string SlotKey(std::string_view object);

}  // namespace engram::extract
