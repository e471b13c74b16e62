// What a clause does and how much it says, read before (and after) the frames and patterns: a
// question, a request or a hypothetical gives nothing; a condition, a subordinate clause or an
// elaboration is detail of the statement beside it; a marker ("I've made up my mind", "Fact:",
// "my bad") says something about the next clause or the last; and a statement that names
// almost nothing is kept only with another. Used by rule_extractor.cc.
// Internal to src/extract/; stateless and thread-safe.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "engram/memory.h"
#include "extract/rule_patterns.h"

namespace engram::extract {

// ---- questions, requests, suggestions, hypotheticals: no statement ----

// An English question or request, by its first word ("what …", "can you …", "please …",
// "remind me …"), or a question said as a statement (IsIndirectQuestionEn).
bool IsQuestionEn(const std::string& clause);
// "I want to know what time it is", "I wonder if …": a question said as a statement.
// `low` is lower-case.
bool IsIndirectQuestionEn(const std::string& low);
// What the user asks for without a question word ("need tips for …", "… please"); `low` is
// lower-case. IsQuestionEn includes it.
bool IsRequestEn(const std::string& low);
// A Chinese question: a question word ("什么", "哪里", "有没有") or particle ("吗", "？").
bool IsQuestionZh(std::string_view s);
// A Chinese request ("请…", "帮我…", "给我推荐…"), or a question said as a statement ("我想知道…").
bool IsRequestZh(std::string_view s);
// "我们去吃饭吧", "咱们走吧": a suggestion to the listener.
bool IsSuggestionZh(std::string_view s);
// "if", "unless", "wish", "would be", "suppose" anywhere in an English clause.
bool IsHypotheticalEn(const std::string& clause);

// ---- how a clause relates to the statements around it ----

// A clause that starts with a condition: "if …", "unless …", "in case …", "如果…", "要是…".
bool IsCondition(const std::string& clause, bool zh);
// A clause that depends on the one before ("如果…", "虽然…", "以便…", "so that …"): detail.
bool IsSubordinate(const std::string& clause, bool zh);
// True when a clause refers back to the statement before it and says nothing on its own:
// "they're brothers lol", "it's the best", "她发现方程式更加可靠".
bool IsElaboration(const std::string& clause, bool zh);
// A clause that only announces the type of the next one: "I've made up my mind", "decision
// made", "I promise", "决定了".
std::optional<MemoryType> DecisionMarker(const std::string& clause, bool zh);
// "Fact:", "Quick fact for the file", "Two facts worth filing", "记一下": the user asks for
// what follows to be kept, statements about the world included.
bool AnnouncesFacts(const std::string& clause, bool zh);
// A clause that only says a mistake was made: "my bad", "got that mixed up", "我老搞混",
// "名字打错了", "逗号的逗".
bool IsCorrectionPhrase(const std::string& clause, bool zh);

// ---- what a statement says ----

// An event told in the past ("手腕扭了", "I broke my wrist"): it happened when the sentence says.
bool IsEventClause(const std::string& clause, bool zh);
// A marker of what is still to happen: "我今天要去医院", "I'm going to call her today".
bool FutureMarker(const std::string& text, bool zh);
// "I used to …" (not "I'm used to", "getting used to"): what held before, not now.
bool PastHabit(const std::string& text);
// A like, a wish or a free statement about the listener ("I like your photos", "I want to see
// you soon", "I love what you did there") is small talk, not something about the user.
// `low_content` is lower-case.
bool AddressesListener(Kind kind, const std::string& low_content);
// A capitalized word that is not the first (a name, a place, a product) or a number: a
// third-person statement worth keeping names something.
bool NamesSomething(const std::string& clause, bool zh);
// A clause says something when it has a word beyond pronouns, auxiliaries and fillers: "I
// finally did it", "have been for a while" say nothing a memory could hold.
bool HasContent(const std::string& clause, bool zh);
// A statement that names almost nothing: its words beyond pronouns and common verbs are at most
// one ("I'll defend it", "I want to deliver", "I said yes", "my opinion").
bool IsWeakStatement(const std::string& clause);
// The Chinese counterpart: at most three characters beyond pronouns and function words ("我想交付",
// "我把它放在我的清单上", "我会捍卫它").
bool IsWeakStatementZh(const std::string& clause);
// Words in a clause; in Chinese, characters / 2 (about two characters a word).
size_t WordCount(const std::string& s, bool zh);

}  // namespace engram::extract
