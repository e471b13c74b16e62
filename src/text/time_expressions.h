// Relative and absolute time expressions in Chinese and English ("昨天", "上周五", "三天前",
// "去年5月", "yesterday", "last Friday", "3 days ago", "in May", "2024-05-03"), resolved
// against the moment the words were said.
//
// Resolution is in UTC calendar days (the write path knows no user time zone yet): a day
// resolves to 00:00 UTC of that day, a week to its Monday, a month to its first day, a year to
// January 1. Week rules, the same in both languages:
//   上周五 / "last Friday"  the Friday of the previous calendar week (weeks start on Monday)
//   下周五 / "next Friday"  the Friday of the following calendar week
//   这周五, 周五 / "this Friday", "on Friday"  the first Friday on or after the day said;
//   after a verb in the past ("met her on Friday") the latest Friday on or before it
// "in May" / "5月" / "五月" is May of the year said; "last May" the latest May before the
// month said, "next May" the first May after it. Stateless and thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/civil_date.h"  // DaysFromCivil, CivilFromDays (used with these times)
#include "engram/memory.h"

namespace engram {

enum class TimeGranularity { kDay, kWeek, kMonth, kYear };

struct TimeExpression {
  size_t begin = 0;  // byte span of the expression in the searched text
  size_t end = 0;
  TimestampMs at = 0;  // 00:00 UTC of the resolved day (week: Monday, month: 1st, year: Jan 1)
  TimeGranularity granularity = TimeGranularity::kDay;
};

// Expressions in `text`, left to right, non-overlapping. `now` is when the text was said.
// English matching is case-insensitive; Chinese numbers may be digits or 一..九十九 (两 too).
std::vector<TimeExpression> FindEnglishTimeExpressions(std::string_view text, TimestampMs now);
// A lower-case English word in the past tense ("met", "went", "visited"): a bare weekday after
// one ("met her on Monday") is the latest such day, not the next.
bool IsEnglishPastForm(std::string_view w);
std::vector<TimeExpression> FindChineseTimeExpressions(std::string_view text, TimestampMs now);

// "2026-12-11" for a day or week, "2026-12" for a month, "2026" for a year.
std::string FormatTimeExpression(const TimeExpression& t);

}  // namespace engram
