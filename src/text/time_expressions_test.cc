#include "text/time_expressions.h"

#include <gtest/gtest.h>

#include <string>

namespace engram {
namespace {

constexpr TimestampMs kDay = 86'400'000;
// Monday 2026-11-30, 10:00 UTC.
const TimestampMs kNow = DaysFromCivil(2026, 11, 30) * kDay + 10 * 3'600'000;

std::string En(std::string_view text) {
  auto found = FindEnglishTimeExpressions(text, kNow);
  return found.empty() ? "" : FormatTimeExpression(found.front());
}

std::string Zh(std::string_view text) {
  auto found = FindChineseTimeExpressions(text, kNow);
  return found.empty() ? "" : FormatTimeExpression(found.front());
}

TEST(TimeExpressionsTest, CivilDaysRoundTrip) {
  EXPECT_EQ(DaysFromCivil(1970, 1, 1), 0);
  EXPECT_EQ(DaysFromCivil(2000, 3, 1), 11017);
  int64_t y;
  unsigned m, d;
  CivilFromDays(DaysFromCivil(2024, 2, 29), &y, &m, &d);
  EXPECT_EQ(y, 2024);
  EXPECT_EQ(m, 2u);
  EXPECT_EQ(d, 29u);
}

TEST(TimeExpressionsTest, EnglishDays) {
  EXPECT_EQ(En("I saw her yesterday"), "2026-11-29");
  EXPECT_EQ(En("Today is fine"), "2026-11-30");
  EXPECT_EQ(En("tomorrow at noon"), "2026-12-01");
  EXPECT_EQ(En("the day before yesterday"), "2026-11-28");
  EXPECT_EQ(En("3 days ago"), "2026-11-27");
  EXPECT_EQ(En("three days ago"), "2026-11-27");
  EXPECT_EQ(En("a week ago"), "2026-11-23");
  EXPECT_EQ(En("in 2 weeks"), "2026-12-14");
}

TEST(TimeExpressionsTest, EnglishWeekdaysFollowCalendarWeeks) {
  EXPECT_EQ(En("last Friday"), "2026-11-27");  // Friday of the previous week
  EXPECT_EQ(En("next Friday"), "2026-12-11");  // Friday of the following week
  EXPECT_EQ(En("this Friday"), "2026-12-04");
  EXPECT_EQ(En("on Friday"), "2026-12-04");
  EXPECT_EQ(En("next Monday"), "2026-12-07");
  EXPECT_EQ(En("every Monday"), "");  // a schedule, not a date
  // after a verb in the past, the latest such day (on or before today), not the next
  EXPECT_EQ(En("I met her on Friday"), "2026-11-27");
  EXPECT_EQ(En("we visited grandma on Sunday"), "2026-11-29");
  EXPECT_EQ(En("I went to the gym on Monday"), "2026-11-30");
  EXPECT_EQ(En("I need to call her on Friday"), "2026-12-04");  // "need" is no past form
  EXPECT_TRUE(IsEnglishPastForm("visited"));
  EXPECT_TRUE(IsEnglishPastForm("agreed"));
  EXPECT_FALSE(IsEnglishPastForm("speed"));
  EXPECT_FALSE(IsEnglishPastForm("bed"));
}

TEST(TimeExpressionsTest, EnglishMonthsAndYears) {
  EXPECT_EQ(En("last year"), "2025");
  EXPECT_EQ(En("next month"), "2026-12");
  EXPECT_EQ(En("last month"), "2026-10");
  EXPECT_EQ(En("2 years ago"), "2024");
  EXPECT_EQ(En("in May"), "2026-05");
  EXPECT_EQ(En("last May"), "2026-05");
  EXPECT_EQ(En("next May"), "2027-05");
  EXPECT_EQ(En("last December"), "2025-12");
  EXPECT_EQ(En("on May 5th"), "2026-05-05");
  EXPECT_EQ(En("5 March 2024"), "2024-03-05");
  EXPECT_EQ(En("in 2019"), "2019");
  EXPECT_EQ(En("started on 2024-05-03"), "2024-05-03");
  EXPECT_EQ(En("you may go"), "");  // the verb
  EXPECT_EQ(En("I live in Shanghai"), "");
}

TEST(TimeExpressionsTest, EnglishSpansCoverPrepositions) {
  auto found = FindEnglishTimeExpressions("I joined on 2024-05-03 and left", kNow);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].begin, 9u);  // "on"
  EXPECT_EQ(found[0].end, 22u);
  EXPECT_EQ(found[0].granularity, TimeGranularity::kDay);
  EXPECT_EQ(found[0].at, DaysFromCivil(2024, 5, 3) * kDay);
}

TEST(TimeExpressionsTest, ChineseDays) {
  EXPECT_EQ(Zh("我昨天去了医院"), "2026-11-29");
  EXPECT_EQ(Zh("前天"), "2026-11-28");
  EXPECT_EQ(Zh("大前天"), "2026-11-27");
  EXPECT_EQ(Zh("明天"), "2026-12-01");
  EXPECT_EQ(Zh("后天"), "2026-12-02");
  EXPECT_EQ(Zh("三天前"), "2026-11-27");
  EXPECT_EQ(Zh("3天后"), "2026-12-03");
  EXPECT_EQ(Zh("两个星期前"), "2026-11-16");
}

TEST(TimeExpressionsTest, ChineseWeeks) {
  EXPECT_EQ(Zh("上周五"), "2026-11-27");
  EXPECT_EQ(Zh("下周五"), "2026-12-11");
  EXPECT_EQ(Zh("下个星期三"), "2026-12-09");
  EXPECT_EQ(Zh("这周日"), "2026-12-06");
  EXPECT_EQ(Zh("周五"), "2026-12-04");
  EXPECT_EQ(Zh("上周"), "2026-11-23");
  EXPECT_EQ(Zh("上周末"), "2026-11-28");
  EXPECT_EQ(Zh("每周三"), "");  // a schedule
  // 了 or 过 after a weekday said alone: it happened, on the latest such day
  EXPECT_EQ(Zh("周五去了趟医院"), "2026-11-27");
  EXPECT_EQ(Zh("星期天见过他"), "2026-11-29");
  EXPECT_EQ(Zh("周五要去体检了"), "2026-12-04");  // 要: still to come
}

TEST(TimeExpressionsTest, ChineseMonthsAndYears) {
  EXPECT_EQ(Zh("上个月"), "2026-10");
  EXPECT_EQ(Zh("下个月"), "2026-12");
  EXPECT_EQ(Zh("去年"), "2025");
  EXPECT_EQ(Zh("前年"), "2024");
  EXPECT_EQ(Zh("明年"), "2027");
  EXPECT_EQ(Zh("两年前"), "2024");
  EXPECT_EQ(Zh("半年前"), "2026-05");
  EXPECT_EQ(Zh("五月"), "2026-05");
  EXPECT_EQ(Zh("5月3日"), "2026-05-03");
  EXPECT_EQ(Zh("去年5月"), "2025-05");
  EXPECT_EQ(Zh("2023年"), "2023");
  EXPECT_EQ(Zh("2023年十二月二十五号"), "2023-12-25");
  EXPECT_EQ(Zh("三个月"), "");  // a duration, not a date
}

TEST(TimeExpressionsTest, ChineseSpans) {
  const std::string s = "我去年搬到了北京";
  auto found = FindChineseTimeExpressions(s, kNow);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(s.substr(found[0].begin, found[0].end - found[0].begin), "去年");
  EXPECT_EQ(found[0].granularity, TimeGranularity::kYear);
}

}  // namespace
}  // namespace engram
