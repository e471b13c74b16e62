#include "text/time_expressions.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <string>
#include <unordered_set>

#include "text/utf8.h"

namespace engram {
namespace {

constexpr TimestampMs kDayMs = 86'400'000;

int64_t FloorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

int64_t DayOf(TimestampMs t) { return FloorDiv(t, kDayMs); }
int Weekday(int64_t days) { return static_cast<int>(((days % 7) + 7 + 3) % 7); }  // Monday 0

int64_t MondayOf(int64_t days) { return days - Weekday(days); }

// The first day of the month `delta` months from the one holding `days`.
int64_t MonthStart(int64_t days, int64_t delta) {
  int64_t y;
  unsigned m, d;
  CivilFromDays(days, &y, &m, &d);
  int64_t months = y * 12 + (m - 1) + delta;
  return DaysFromCivil(FloorDiv(months, 12),
                       static_cast<unsigned>(months - FloorDiv(months, 12) * 12) + 1, 1);
}

int64_t YearOf(int64_t days) {
  int64_t y;
  unsigned m, d;
  CivilFromDays(days, &y, &m, &d);
  return y;
}

unsigned MonthOf(int64_t days) {
  int64_t y;
  unsigned m, d;
  CivilFromDays(days, &y, &m, &d);
  return m;
}

// "last/next/this <weekday>" per the header's rules; which: -1, +1, 0.
int64_t WeekdayDay(int64_t today, int weekday, int which) {
  if (which == 0) return today + ((weekday - Weekday(today)) + 7) % 7;
  return MondayOf(today) + 7 * which + weekday;
}

// A month by name relative to today; which: -1 last, +1 next, 0 this year.
int64_t NamedMonth(int64_t today, unsigned month, int which) {
  int64_t year = YearOf(today);
  unsigned current = MonthOf(today);
  if (which < 0 && month >= current) --year;
  if (which > 0 && month <= current) ++year;
  return DaysFromCivil(year, month, 1);
}

TimeExpression Make(size_t begin, size_t end, int64_t days, TimeGranularity g) {
  return TimeExpression{begin, end, days * kDayMs, g};
}

// ---- English ----

struct Word {
  std::string text;  // lower-case ASCII letters and digits
  size_t begin, end;
};

std::vector<Word> Words(std::string_view s) {
  std::vector<Word> out;
  size_t i = 0;
  while (i < s.size()) {
    auto c = static_cast<unsigned char>(s[i]);
    if (!std::isalnum(c)) {
      ++i;
      continue;
    }
    size_t b = i;
    std::string w;
    while (i < s.size() && std::isalnum(static_cast<unsigned char>(s[i]))) {
      w += static_cast<char>(std::tolower(static_cast<unsigned char>(s[i])));
      ++i;
    }
    out.push_back({std::move(w), b, i});
  }
  return out;
}

int WeekdayIndex(std::string_view w) {
  static constexpr std::array<std::string_view, 7> kNames = {
      "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"};
  for (int i = 0; i < 7; ++i) {
    if (w == kNames[i]) return i;
  }
  return -1;
}

unsigned MonthIndex(std::string_view w) {
  static constexpr std::array<std::string_view, 12> kNames = {
      "january", "february", "march",     "april",   "may",      "june",
      "july",    "august",   "september", "october", "november", "december"};
  static constexpr std::array<std::string_view, 12> kShort = {
      "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"};
  for (unsigned i = 0; i < 12; ++i) {
    if (w == kNames[i] || (w.size() == 3 && w == kShort[i] && w != "mar" && w != "may")) {
      return i + 1;
    }
  }
  if (w == "sept") return 9;
  return 0;
}

// "3", "three", "a", "an" → count; -1 if not a count.
int Count(std::string_view w) {
  static constexpr std::array<std::string_view, 13> kNumbers = {
      "zero",  "one",   "two",  "three", "four",   "five",  "six",
      "seven", "eight", "nine", "ten",   "eleven", "twelve"};
  if (w == "a" || w == "an") return 1;
  for (int i = 0; i < 13; ++i) {
    if (w == kNumbers[i]) return i;
  }
  if (!w.empty() && w.size() <= 3 && std::all_of(w.begin(), w.end(), ::isdigit))
    return std::stoi(std::string(w));
  return -1;
}

// "5", "5th", "21st" → day of month; 0 if not one.
unsigned DayNumber(std::string_view w) {
  size_t n = 0;
  while (n < w.size() && std::isdigit(static_cast<unsigned char>(w[n]))) ++n;
  if (n == 0 || n > 2) return 0;
  std::string_view rest = w.substr(n);
  if (!rest.empty() && rest != "st" && rest != "nd" && rest != "rd" && rest != "th") return 0;
  unsigned d = static_cast<unsigned>(std::stoi(std::string(w.substr(0, n))));
  return d >= 1 && d <= 31 ? d : 0;
}

int Year4(std::string_view w) {
  if (w.size() != 4 || !std::all_of(w.begin(), w.end(), ::isdigit)) return 0;
  int y = std::stoi(std::string(w));
  return y >= 1900 && y <= 2100 ? y : 0;
}

// Unit word → days per unit (months and years are handled by the caller: 30, 365 sentinel).
int UnitDays(std::string_view w) {
  if (w == "day" || w == "days") return 1;
  if (w == "week" || w == "weeks") return 7;
  if (w == "month" || w == "months") return 30;
  if (w == "year" || w == "years") return 365;
  return 0;
}

int64_t ShiftUnits(int64_t today, int unit_days, int64_t n) {
  if (unit_days == 30) return today;  // replaced below by calendar arithmetic
  return today + unit_days * n;
}

struct EnMatch {
  size_t words = 0;  // words consumed
  int64_t days = 0;
  TimeGranularity g = TimeGranularity::kDay;
};

// Month name at w[i] with an optional day before or after and an optional year.
EnMatch MatchMonthDate(const std::vector<Word>& w, size_t i, int64_t today,
                       bool after_preposition) {
  EnMatch m;
  unsigned month = MonthIndex(w[i].text);
  size_t n = 1;
  unsigned day = 0;
  if (month == 0) {
    day = DayNumber(w[i].text);
    if (day == 0 || i + 1 >= w.size() || (month = MonthIndex(w[i + 1].text)) == 0) return m;
    n = 2;
  } else if (i + 1 < w.size() && (day = DayNumber(w[i + 1].text)) != 0) {
    n = 2;
  } else if (!after_preposition && (w[i].text == "may" || w[i].text == "march")) {
    return m;  // the verbs "may" and "march"
  }
  int64_t year = YearOf(today);
  if (i + n < w.size() && Year4(w[i + n].text) != 0) {
    year = Year4(w[i + n].text);
    ++n;
  }
  m.words = n;
  m.days = DaysFromCivil(year, month, day == 0 ? 1 : day);
  m.g = day == 0 ? TimeGranularity::kMonth : TimeGranularity::kDay;
  return m;
}

// The expression starting at w[i], if any.
EnMatch MatchEnglishAt(const std::vector<Word>& w, size_t i, int64_t today) {
  auto at = [&](size_t k) -> std::string_view {
    return i + k < w.size() ? std::string_view(w[i + k].text) : "";
  };
  EnMatch none;
  if (at(0) == "the" && at(1) == "day" && (at(2) == "before" || at(2) == "after")) {
    if (at(2) == "before" && at(3) == "yesterday") return {4, today - 2};
    if (at(2) == "after" && at(3) == "tomorrow") return {4, today + 2};
  }
  if (at(0) == "day" && at(1) == "before" && at(2) == "yesterday") return {3, today - 2};
  if (at(0) == "today" || at(0) == "tonight") return {1, today};
  if (at(0) == "yesterday") return {1, today - 1};
  if (at(0) == "tomorrow") return {1, today + 1};
  if (at(0) == "this" && (at(1) == "morning" || at(1) == "afternoon" || at(1) == "evening")) {
    return {2, today};
  }
  if (at(0) == "last" || at(0) == "next" || at(0) == "this") {
    int which = at(0) == "last" ? -1 : at(0) == "next" ? 1 : 0;
    if (int wd = WeekdayIndex(at(1)); wd >= 0) return {2, WeekdayDay(today, wd, which)};
    if (at(1) == "weekend") {
      return {2, which == 0 ? WeekdayDay(today, 5, 0) : MondayOf(today) + 7 * which + 5};
    }
    if (at(1) == "week") return {2, MondayOf(today) + 7 * which, TimeGranularity::kWeek};
    if (at(1) == "month") return {2, MonthStart(today, which), TimeGranularity::kMonth};
    if (at(1) == "year") {
      return {2, DaysFromCivil(YearOf(today) + which, 1, 1), TimeGranularity::kYear};
    }
    if (unsigned month = MonthIndex(at(1)); month != 0 && which != 0) {
      return {2, NamedMonth(today, month, which), TimeGranularity::kMonth};
    }
    return none;
  }
  // "every Monday" is a schedule, not a date
  if (int wd = WeekdayIndex(at(at(0) == "on" ? 1 : 0));
      wd >= 0 && !(i > 0 && (w[i - 1].text == "every" || w[i - 1].text == "each"))) {
    // "I met her on Monday": after a verb in the past, the latest such day, not the next
    bool past = false;
    for (size_t j = i >= 6 ? i - 6 : 0; j < i; ++j) past = past || IsEnglishPastForm(w[j].text);
    const int64_t day = past ? today - ((Weekday(today) - wd + 7) % 7) : WeekdayDay(today, wd, 0);
    return {at(0) == "on" ? 2u : 1u, day};
  }
  if (int n = Count(at(0)); n >= 0 && UnitDays(at(1)) != 0 && at(2) == "ago") {
    int unit = UnitDays(at(1));
    if (unit == 30) return {3, MonthStart(today, -n), TimeGranularity::kMonth};
    if (unit == 365) return {3, DaysFromCivil(YearOf(today) - n, 1, 1), TimeGranularity::kYear};
    return {3, ShiftUnits(today, unit, -n)};
  }
  if (at(0) == "in" || at(0) == "since" || at(0) == "during" || at(0) == "on") {
    if (int n = Count(at(1)); n >= 0 && at(0) == "in" && UnitDays(at(2)) != 0) {
      int unit = UnitDays(at(2));
      if (unit == 30) return {3, MonthStart(today, n), TimeGranularity::kMonth};
      if (unit == 365) return {3, DaysFromCivil(YearOf(today) + n, 1, 1), TimeGranularity::kYear};
      return {3, ShiftUnits(today, unit, n)};
    }
    if (int y = Year4(at(1)); y != 0 && at(0) != "on") {
      return {2, DaysFromCivil(y, 1, 1), TimeGranularity::kYear};
    }
    if (i + 1 < w.size()) {
      EnMatch m = MatchMonthDate(w, i + 1, today, true);
      if (m.words != 0) return {m.words + 1, m.days, m.g};
    }
    return none;
  }
  EnMatch m = MatchMonthDate(w, i, today, false);
  if (m.words != 0) return m;
  return none;
}

// yyyy-mm-dd written with hyphens.
bool MatchIsoDate(std::string_view s, const std::vector<Word>& w, size_t i, EnMatch* out) {
  if (i + 2 >= w.size() || Year4(w[i].text) == 0) return false;
  if (w[i + 1].begin != w[i].end + 1 || s[w[i].end] != '-') return false;
  if (w[i + 2].begin != w[i + 1].end + 1 || s[w[i + 1].end] != '-') return false;
  if (w[i + 1].text.size() > 2 || w[i + 2].text.size() > 2) return false;
  if (!std::all_of(w[i + 1].text.begin(), w[i + 1].text.end(), ::isdigit) ||
      !std::all_of(w[i + 2].text.begin(), w[i + 2].text.end(), ::isdigit)) {
    return false;
  }
  unsigned m = static_cast<unsigned>(std::stoi(w[i + 1].text));
  unsigned d = static_cast<unsigned>(std::stoi(w[i + 2].text));
  if (m < 1 || m > 12 || d < 1 || d > 31) return false;
  *out = {3, DaysFromCivil(Year4(w[i].text), m, d)};
  return true;
}

// ---- Chinese ----

bool At(std::string_view s, size_t i, std::string_view word) {
  return s.substr(i, word.size()) == word;
}

// A number written in digits or Chinese numerals (up to 99) at s[i]; -1 if none. *len: bytes.
int ChineseNumber(std::string_view s, size_t i, size_t* len) {
  size_t j = i;
  int value = 0;
  while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j])) && j - i < 4) {
    value = value * 10 + (s[j] - '0');
    ++j;
  }
  if (j > i) {
    *len = j - i;
    return value;
  }
  static constexpr std::array<std::string_view, 10> kDigits = {"零", "一", "二", "三", "四",
                                                               "五", "六", "七", "八", "九"};
  auto digit = [&](size_t k) -> int {
    if (At(s, k, "两")) return 2;
    for (int d = 0; d < 10; ++d) {
      if (At(s, k, kDigits[d])) return d;
    }
    return -1;
  };
  int tens = -1;
  if (At(s, j, "十")) {
    tens = 1;
    j += 3;
  } else if (int d = digit(j); d >= 0) {
    j += 3;
    if (At(s, j, "十")) {
      tens = d;
      j += 3;
    } else {
      *len = j - i;
      return d;
    }
  } else {
    return -1;
  }
  value = tens * 10;
  if (int d = digit(j); d > 0) {
    value += d;
    j += 3;
  }
  *len = j - i;
  return value;
}

int ChineseWeekday(std::string_view s, size_t i) {
  static constexpr std::array<std::string_view, 6> kDays = {"一", "二", "三", "四", "五", "六"};
  for (int d = 0; d < 6; ++d) {
    if (At(s, i, kDays[d])) return d;
  }
  if (At(s, i, "日") || At(s, i, "天")) return 6;
  if (At(s, i, "末")) return 5;  // 周末: Saturday
  return -1;
}

struct ZhMatch {
  size_t len = 0;
  int64_t days = 0;
  TimeGranularity g = TimeGranularity::kDay;
};

// "N月[N日|号]" at s[i] in `year`.
ZhMatch MatchZhMonthDay(std::string_view s, size_t i, int64_t year) {
  size_t n = 0;
  int month = ChineseNumber(s, i, &n);
  if (month < 1 || month > 12 || !At(s, i + n, "月")) return {};
  size_t j = i + n + 3;
  if (At(s, j, "份")) j += 3;
  size_t dn = 0;
  int day = ChineseNumber(s, j, &dn);
  if (day >= 1 && day <= 31 && (At(s, j + dn, "日") || At(s, j + dn, "号"))) {
    return {j + dn + 3 - i, DaysFromCivil(year, month, day)};
  }
  return {j - i, DaysFromCivil(year, month, 1), TimeGranularity::kMonth};
}

ZhMatch MatchZhWeek(std::string_view s, size_t i, int64_t today) {
  struct Prefix {
    std::string_view text;
    int which;
  };
  static constexpr std::array<Prefix, 15> kPrefixes = {{{"上上个星期", -2},
                                                        {"上上周", -2},
                                                        {"上个星期", -1},
                                                        {"上个礼拜", -1},
                                                        {"上星期", -1},
                                                        {"上礼拜", -1},
                                                        {"上周", -1},
                                                        {"下个星期", 1},
                                                        {"下个礼拜", 1},
                                                        {"下星期", 1},
                                                        {"下礼拜", 1},
                                                        {"下周", 1},
                                                        {"这个星期", 0},
                                                        {"这周", 0},
                                                        {"本周", 0}}};
  for (const Prefix& p : kPrefixes) {
    if (!At(s, i, p.text)) continue;
    size_t j = i + p.text.size();
    int wd = ChineseWeekday(s, j);
    if (wd < 0) return {p.text.size(), MondayOf(today) + 7 * p.which, TimeGranularity::kWeek};
    int64_t day = p.which == 0 ? WeekdayDay(today, wd, 0) : MondayOf(today) + 7 * p.which + wd;
    return {j + 3 - i, day};
  }
  for (std::string_view p : {"星期", "礼拜", "周"}) {
    if (!At(s, i, p)) continue;
    int wd = ChineseWeekday(s, i + p.size());
    if (wd < 0) return {};
    // "每周三", "每个星期三" are schedules, not dates.
    if ((i >= 3 && (At(s, i - 3, "每") || At(s, i - 3, "个")))) return {};
    // "周一去了趟医院", "星期天见过他": 了 or 过 in what follows (to the clause's end) says it
    // happened, on the latest such day; without them ("周五要去体检") the next one
    const size_t after = i + p.size() + 3;
    std::string_view rest = s.substr(std::min(after, s.size()));
    for (std::string_view end : {"，", "。", "！", "？", ",", " ", "；"}) {
      rest = rest.substr(0, rest.find(end));
    }
    const bool past =
        rest.size() <= 36 &&
        (rest.find("了") != std::string_view::npos || rest.find("过") != std::string_view::npos) &&
        rest.find("要") == std::string_view::npos && rest.find("会") == std::string_view::npos &&
        rest.find("打算") == std::string_view::npos;
    const int64_t day = past ? today - ((Weekday(today) - wd + 7) % 7) : WeekdayDay(today, wd, 0);
    return {p.size() + 3, day};
  }
  return {};
}

// N天前, 三个月后, 两年前, 半年前 …
ZhMatch MatchZhRelative(std::string_view s, size_t i, int64_t today) {
  size_t n = 0;
  int count = 0;
  if (At(s, i, "半")) {
    n = 3;
    count = -1;  // half
  } else {
    count = ChineseNumber(s, i, &n);
    if (count < 0) return {};
  }
  size_t j = i + n;
  enum { kDays, kWeeks, kMonths, kYears } unit;
  if (At(s, j, "天") || At(s, j, "日")) {
    unit = kDays;
    j += 3;
  } else if (At(s, j, "个星期") || At(s, j, "个礼拜")) {
    unit = kWeeks;
    j += 9;
  } else if (At(s, j, "星期") || At(s, j, "礼拜")) {
    unit = kWeeks;
    j += 6;
  } else if (At(s, j, "周")) {
    unit = kWeeks;
    j += 3;
  } else if (At(s, j, "个月")) {
    unit = kMonths;
    j += 6;
  } else if (At(s, j, "年")) {
    unit = kYears;
    j += 3;
  } else {
    return {};
  }
  int sign = 0;
  for (std::string_view w : {"之前", "以前", "前"}) {
    if (At(s, j, w)) {
      sign = -1;
      j += w.size();
      break;
    }
  }
  if (sign == 0) {
    for (std::string_view w : {"之后", "以后", "后"}) {
      if (At(s, j, w)) {
        sign = 1;
        j += w.size();
        break;
      }
    }
  }
  if (sign == 0) return {};
  size_t len = j - i;
  if (count == -1) {  // 半年 = 6 months, 半个月 = 15 days
    if (unit == kYears) return {len, MonthStart(today, sign * 6), TimeGranularity::kMonth};
    if (unit == kMonths) return {len, today + sign * 15};
    return {};
  }
  switch (unit) {
    case kDays:
      return {len, today + sign * count};
    case kWeeks:
      return {len, today + sign * 7 * count};
    case kMonths:
      return {len, MonthStart(today, sign * count), TimeGranularity::kMonth};
    case kYears:
      return {len, DaysFromCivil(YearOf(today) + sign * count, 1, 1), TimeGranularity::kYear};
  }
  return {};
}

// True if a Chinese time expression can start with the code point: most characters of a
// sentence cannot, and the scanner skips them without trying every pattern.
bool CanStartChinese(char32_t c) {
  static const std::vector<bool> kStarts = [] {
    std::vector<bool> bits(0x10000, false);
    std::string_view firsts = "大前昨今明后刚上下这本星礼周去半零一二两三四五六七八九十";
    for (size_t i = 0; i < firsts.size(); i += CodepointLength(firsts, i))
      bits[CodepointAt(firsts, i)] = true;
    for (char d = '0'; d <= '9'; ++d) bits[static_cast<unsigned char>(d)] = true;
    return bits;
  }();
  return c < kStarts.size() && kStarts[c];
}

ZhMatch MatchChineseAt(std::string_view s, size_t i, int64_t today) {
  if (!CanStartChinese(CodepointAt(s, i))) return {};
  struct Fixed {
    std::string_view text;
    int offset;
  };
  static constexpr std::array<Fixed, 19> kDays = {{{"大前天", -3},
                                                   {"大后天", 3},
                                                   {"前天", -2},
                                                   {"昨天", -1},
                                                   {"昨日", -1},
                                                   {"昨晚", -1},
                                                   {"昨儿", -1},
                                                   {"今天", 0},
                                                   {"今日", 0},
                                                   {"今晚", 0},
                                                   {"今早", 0},
                                                   {"今儿", 0},
                                                   {"明天", 1},
                                                   {"明日", 1},
                                                   {"明早", 1},
                                                   {"明晚", 1},
                                                   {"明儿", 1},
                                                   {"后天", 2},
                                                   {"刚才", 0}}};
  for (const Fixed& f : kDays) {
    if (At(s, i, f.text)) return {f.text.size(), today + f.offset};
  }
  if (ZhMatch m = MatchZhWeek(s, i, today); m.len) return m;
  struct Month {
    std::string_view text;
    int delta;
  };
  static constexpr std::array<Month, 6> kMonths = {
      {{"上个月", -1}, {"上月", -1}, {"下个月", 1}, {"下月", 1}, {"这个月", 0}, {"本月", 0}}};
  for (const Month& m : kMonths) {
    if (At(s, i, m.text))
      return {m.text.size(), MonthStart(today, m.delta), TimeGranularity::kMonth};
  }
  // A year, then optionally its month and day.
  int64_t year = 0;
  size_t ylen = 0;
  struct Year {
    std::string_view text;
    int delta;
  };
  static constexpr std::array<Year, 5> kYears = {
      {{"去年", -1}, {"前年", -2}, {"今年", 0}, {"明年", 1}, {"后年", 2}}};
  for (const Year& y : kYears) {
    if (At(s, i, y.text)) {
      year = YearOf(today) + y.delta;
      ylen = y.text.size();
      break;
    }
  }
  if (ylen == 0 && i + 4 < s.size() && At(s, i + 4, "年")) {
    std::string_view d = s.substr(i, 4);
    if (Year4(d) != 0) {
      year = Year4(d);
      ylen = 7;
    }
  }
  if (ylen != 0) {
    ZhMatch md = MatchZhMonthDay(s, i + ylen, year);
    if (md.len) return {ylen + md.len, md.days, md.g};
    return {ylen, DaysFromCivil(year, 1, 1), TimeGranularity::kYear};
  }
  if (ZhMatch m = MatchZhRelative(s, i, today); m.len) return m;
  return MatchZhMonthDay(s, i, YearOf(today));
}

}  // namespace

bool IsEnglishPastForm(std::string_view w) {
  static const std::unordered_set<std::string_view> k = {
      "went",   "had",        "got",   "saw",    "met",     "bought", "took",  "came",  "left",
      "began",  "ate",        "did",   "made",   "was",     "were",   "found", "lost",  "won",
      "gave",   "flew",       "ran",   "wrote",  "grew",    "became", "told",  "said",  "thought",
      "felt",   "kept",       "spent", "sold",   "built",   "broke",  "drove", "fell",  "forgot",
      "heard",  "knew",       "paid",  "read",   "sent",    "sat",    "slept", "spoke", "stood",
      "taught", "understood", "wore",  "caught", "brought", "chose"};
  // ("need", "speed", "breed" end in "ed" and are no past forms; "agreed", "freed" are)
  if (k.contains(w)) return true;
  if (w.size() <= 3 || !w.ends_with("ed")) return false;
  return !w.ends_with("eed") || w == "agreed" || w == "freed";
}

std::vector<TimeExpression> FindEnglishTimeExpressions(std::string_view text, TimestampMs now) {
  std::vector<TimeExpression> out;
  const std::vector<Word> w = Words(text);
  const int64_t today = DayOf(now);
  for (size_t i = 0; i < w.size();) {
    EnMatch m;
    if (!MatchIsoDate(text, w, i, &m)) m = MatchEnglishAt(w, i, today);
    if (m.words == 0) {
      ++i;
      continue;
    }
    size_t begin = w[i].begin;
    // "on 2024-05-03", "since 2019-01-02": the preposition goes with the date
    if (i > 0 && m.words >= 1 && (w[i - 1].text == "on" || w[i - 1].text == "since") &&
        (out.empty() || out.back().end <= w[i - 1].begin)) {
      begin = w[i - 1].begin;
    }
    out.push_back(Make(begin, w[i + m.words - 1].end, m.days, m.g));
    i += m.words;
  }
  return out;
}

std::vector<TimeExpression> FindChineseTimeExpressions(std::string_view text, TimestampMs now) {
  std::vector<TimeExpression> out;
  const int64_t today = DayOf(now);
  for (size_t i = 0; i < text.size();) {
    ZhMatch m = MatchChineseAt(text, i, today);
    if (m.len == 0) {
      i += CodepointLength(text, i);
      continue;
    }
    out.push_back(Make(i, i + m.len, m.days, m.g));
    i += m.len;
  }
  return out;
}

std::string FormatTimeExpression(const TimeExpression& t) {
  int64_t y;
  unsigned m, d;
  CivilFromDays(DayOf(t.at), &y, &m, &d);
  char buf[32];
  switch (t.granularity) {
    case TimeGranularity::kYear:
      std::snprintf(buf, sizeof buf, "%04lld", static_cast<long long>(y));
      break;
    case TimeGranularity::kMonth:
      std::snprintf(buf, sizeof buf, "%04lld-%02u", static_cast<long long>(y), m);
      break;
    default:
      std::snprintf(buf, sizeof buf, "%04lld-%02u-%02u", static_cast<long long>(y), m, d);
  }
  return buf;
}

}  // namespace engram
