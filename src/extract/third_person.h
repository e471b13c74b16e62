// The content of a candidate memory: a clause in the third person, its time expressions read
// off or resolved to dates from when the message was said ("I'm allergic to peanuts" → "User is
// allergic to peanuts"; "我昨天去了医院" → "用户2026-06-14去了医院"). Used by rule_extractor.cc.
// Internal to src/extract/; stateless and thread-safe.
#pragma once

#include <string>

#include "engram/memory.h"
#include "extract/rule_patterns.h"

namespace engram::extract {

// The clause with its first time expression removed (held in *storage, which `text` views), and
// that expression.
ClauseInput WithoutTime(const std::string& clause, bool zh, TimestampMs now, std::string* storage);
// The clause with each time expression replaced by its date: "I started learning Rust
// yesterday" → "I started learning Rust on 2026-03-10"; "我昨天开始学吉他" →
// "我2026-03-17开始学吉他".
std::string WithDates(const std::string& clause, bool zh, TimestampMs now);
// An English clause in the third person: "I'm allergic to peanuts" → "User is allergic to
// peanuts"; "my wife says I snore" → "User's wife says user snores"; "we moved" → "User moved".
std::string RewriteEn(const std::string& clause);
// A Chinese clause in the third person: 我/我们 → 用户 ("我的", "我女儿" → "用户的…").
std::string RewriteZh(const std::string& clause);
// "2026-12-11用户要去看牙医" → "用户2026-12-11要去看牙医": the subject first, as one would write.
std::string SubjectBeforeDateZh(std::string content);
// "预算可以再提高一点" + "用户最多八万" → "用户预算可以再提高一点，最多八万".
std::string JoinLead(const std::string& lead, std::string content, bool zh);

}  // namespace engram::extract
