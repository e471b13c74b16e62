#include "engram/clock.h"

#include <gtest/gtest.h>

#include <ctime>
#include <random>

namespace engram {
namespace {

TEST(TimestampTest, FormatsUtcWithMilliseconds) {
  EXPECT_EQ(FormatTimestamp(0), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(FormatTimestamp(1'683'554'160'123), "2023-05-08T13:56:00.123Z");
  EXPECT_EQ(FormatTimestamp(-1), "1969-12-31T23:59:59.999Z");
  EXPECT_EQ(FormatTimestamp(951'782'400'000), "2000-02-29T00:00:00.000Z");  // leap day
}

TEST(TimestampTest, AppendsAfterWhatIsThere) {
  std::string out = "at ";
  AppendTimestamp(&out, 1'683'554'160'123);
  AppendTimestamp(&out, 0);
  EXPECT_EQ(out, "at 2023-05-08T13:56:00.123Z1970-01-01T00:00:00.000Z");
}

// Against the C library's calendar (timegm's inverse, gmtime_r) over years 0000–9999 and the
// edges of the digit-by-digit path.
TEST(TimestampTest, FormatsLikeGmtime) {
  std::mt19937_64 rng(11);
  const TimestampMs first = *ParseTimestamp("0000-01-01T00:00:00Z");
  const TimestampMs last = *ParseTimestamp("9999-12-31T23:59:59.999Z");
  std::vector<TimestampMs> instants = {first, last, 0, -1, 253'402'300'799'999};
  for (int i = 0; i < 20000; ++i)
    instants.push_back(first + static_cast<TimestampMs>(rng() % (last - first + 1)));
  for (TimestampMs t : instants) {
    const std::time_t seconds = static_cast<std::time_t>((t - (((t % 1000) + 1000) % 1000)) / 1000);
    std::tm tm{};
    ASSERT_NE(gmtime_r(&seconds, &tm), nullptr);
    char want[40];
    std::snprintf(want, sizeof want, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                  tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                  static_cast<int>(((t % 1000) + 1000) % 1000));
    EXPECT_EQ(FormatTimestamp(t), want) << t;
  }
}

TEST(TimestampTest, ParsesTheFormsItDocuments) {
  EXPECT_EQ(*ParseTimestamp("2023-05-08T13:56:00.123Z"), 1'683'554'160'123);
  EXPECT_EQ(*ParseTimestamp("2023-05-08 13:56"), 1'683'554'160'000);
  EXPECT_EQ(*ParseTimestamp("2023-05-08"), 1'683'504'000'000);
  EXPECT_EQ(*ParseTimestamp("2023-05-08T21:56:00+08:00"), 1'683'554'160'000);
  EXPECT_EQ(*ParseTimestamp("2023-05-08T13:56:00.5Z"), 1'683'554'160'500);
}

TEST(TimestampTest, RoundTrips) {
  for (TimestampMs t : {TimestampMs{0}, TimestampMs{1}, TimestampMs{1'764'480'209'999},
                        TimestampMs{-86'400'001}, TimestampMs{4'102'444'800'000}}) {
    EXPECT_EQ(*ParseTimestamp(FormatTimestamp(t)), t) << t;
  }
}

TEST(TimestampTest, RejectsMalformedText) {
  for (const char* bad : {"", "2023", "2023-13-01", "2023-02-30", "2023-05-08T25:00",
                          "2023-05-08T13:56:00Zjunk", "yesterday", "2023-05-08T13:56:00+0800"}) {
    auto r = ParseTimestamp(bad);
    EXPECT_FALSE(r.ok()) << bad;
    if (!r.ok()) EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  }
}

// Found by fuzz/request_decoders_fuzzer: an offset carried 0000-01-01 into year -1, which
// FormatTimestamp wrote as "-001-12-31T23:59:00.000Z", so an imported item failed to re-import.
TEST(TimestampTest, RefusesInstantsItCannotFormatBack) {
  for (const char* bad :
       {"0000-01-01T00:00:00+00:01", "9999-12-31T23:59:00-00:01", "9999-12-31T23:59:60Z"}) {
    auto r = ParseTimestamp(bad);
    EXPECT_FALSE(r.ok()) << bad;
    if (!r.ok()) EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  }
  for (const char* edge :
       {"0000-01-01T00:00:00Z", "0000-01-01T00:01:00+00:01", "9999-12-31T23:59:59.999Z"}) {
    auto r = ParseTimestamp(edge);
    ASSERT_TRUE(r.ok()) << edge;
    EXPECT_EQ(*ParseTimestamp(FormatTimestamp(*r)), *r) << edge;
  }
}

TEST(ManualClockTest, MovesOnlyWhenTold) {
  ManualClock clock(1000);
  EXPECT_EQ(clock.NowMs(), 1000);
  clock.Advance(500);
  EXPECT_EQ(clock.NowMs(), 1500);
  clock.Set(42);
  EXPECT_EQ(clock.NowMs(), 42);
}

}  // namespace
}  // namespace engram
