#include "engram/clock.h"

#include <chrono>
#include <cstdio>

#include "core/civil_date.h"

namespace engram {
namespace {

int64_t FloorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

// Reads exactly `n` digits at text[*pos]; false if any is missing.
bool ReadDigits(std::string_view text, size_t* pos, int n, int* out) {
  if (*pos + n > text.size()) return false;
  int v = 0;
  for (int i = 0; i < n; ++i) {
    char c = text[*pos + i];
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  *pos += n;
  *out = v;
  return true;
}

bool ReadChar(std::string_view text, size_t* pos, char c) {
  if (*pos < text.size() && text[*pos] == c) {
    ++*pos;
    return true;
  }
  return false;
}

unsigned DaysInMonth(int y, int m) {
  static constexpr unsigned kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return m == 2 && leap ? 29 : kDays[m - 1];
}

// 0000-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z.
constexpr TimestampMs kMinTimestampMs = -62'167'219'200'000;
constexpr TimestampMs kMaxTimestampMs = 253'402'300'799'999;

}  // namespace

// Howard Hinnant's algorithms (civil_date.h).
int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

void CivilFromDays(int64_t z, int64_t* y, unsigned* m, unsigned* d) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  *d = doy - (153 * mp + 2) / 5 + 1;
  *m = mp < 10 ? mp + 3 : mp - 9;
  *y = static_cast<int64_t>(yoe) + era * 400 + (*m <= 2);
}

TimestampMs SystemClock::NowMs() const {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

const SystemClock* SystemClock::Default() {
  static const SystemClock* clock = new SystemClock();
  return clock;
}

void AppendTimestamp(std::string* out, TimestampMs t) {
  int64_t days = FloorDiv(t, 86'400'000);
  int64_t ms_of_day = t - days * 86'400'000;
  int64_t y;
  unsigned m, d;
  CivilFromDays(days, &y, &m, &d);
  if (y >= 0 && y <= 9999) {
    // The common case, written digit by digit rather than by snprintf: a search formats five
    // timestamps for every memory it returns.
    char text[] = "0000-00-00T00:00:00.000Z";
    auto put = [&](size_t end, int64_t value, int digits) {
      for (int i = 0; i < digits; ++i, value /= 10)
        text[end - i] = static_cast<char>('0' + value % 10);
    };
    put(3, y, 4);
    put(6, m, 2);
    put(9, d, 2);
    put(12, ms_of_day / 3'600'000, 2);
    put(15, ms_of_day / 60'000 % 60, 2);
    put(18, ms_of_day / 1000 % 60, 2);
    put(22, ms_of_day % 1000, 3);
    out->append(text, 24);
    return;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04lld-%02u-%02uT%02lld:%02lld:%02lld.%03lldZ",
                static_cast<long long>(y), m, d, static_cast<long long>(ms_of_day / 3'600'000),
                static_cast<long long>(ms_of_day / 60'000 % 60),
                static_cast<long long>(ms_of_day / 1000 % 60),
                static_cast<long long>(ms_of_day % 1000));
  out->append(buf);
}

std::string FormatTimestamp(TimestampMs t) {
  std::string out;
  AppendTimestamp(&out, t);
  return out;
}

Result<TimestampMs> ParseTimestamp(std::string_view text) {
  auto bad = [&](std::string_view why) {
    return Status::InvalidArgument("invalid timestamp '" + std::string(text) +
                                   "': " + std::string(why) +
                                   " (expected e.g. 2026-05-08 or 2026-05-08T13:56:00Z)");
  };
  size_t pos = 0;
  int y, mo, d, h = 0, mi = 0, s = 0, ms = 0;
  if (!ReadDigits(text, &pos, 4, &y) || !ReadChar(text, &pos, '-') ||
      !ReadDigits(text, &pos, 2, &mo) || !ReadChar(text, &pos, '-') ||
      !ReadDigits(text, &pos, 2, &d)) {
    return bad("date must be YYYY-MM-DD");
  }
  if (mo < 1 || mo > 12 || d < 1 || static_cast<unsigned>(d) > DaysInMonth(y, mo)) {
    return bad("no such date");
  }
  if (pos < text.size() && (text[pos] == 'T' || text[pos] == 't' || text[pos] == ' ')) {
    ++pos;
    if (!ReadDigits(text, &pos, 2, &h) || !ReadChar(text, &pos, ':') ||
        !ReadDigits(text, &pos, 2, &mi)) {
      return bad("time must be HH:MM[:SS[.fff]]");
    }
    if (ReadChar(text, &pos, ':') && !ReadDigits(text, &pos, 2, &s)) return bad("bad seconds");
    if (ReadChar(text, &pos, '.')) {
      int digits = 0;
      ms = 0;
      while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
        if (digits < 3) ms = ms * 10 + (text[pos] - '0');
        ++digits;
        ++pos;
      }
      if (digits == 0) return bad("empty fraction");
      for (int i = digits; i < 3; ++i) ms *= 10;
    }
    if (h > 23 || mi > 59 || s > 60) return bad("time out of range");
  }
  int64_t offset_min = 0;
  if (ReadChar(text, &pos, 'Z') || ReadChar(text, &pos, 'z')) {
  } else if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) {
    int sign = text[pos] == '-' ? -1 : 1;
    ++pos;
    int oh, om;
    if (!ReadDigits(text, &pos, 2, &oh) || !ReadChar(text, &pos, ':') ||
        !ReadDigits(text, &pos, 2, &om) || oh > 23 || om > 59) {
      return bad("offset must be +HH:MM");
    }
    offset_min = sign * (oh * 60 + om);
  }
  if (pos != text.size()) return bad("unexpected trailing characters");
  int64_t days = DaysFromCivil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d));
  TimestampMs t =
      days * 86'400'000 + (int64_t{h} * 3600 + mi * 60 + s) * 1000 + ms - offset_min * 60'000;
  // An offset or a leap second can carry 0000-01-01 or 9999-12-31 into a year that
  // FormatTimestamp writes with other than four digits, which would not parse back.
  if (t < kMinTimestampMs || t > kMaxTimestampMs)
    return bad("outside the years 0000 to 9999 (UTC)");
  return t;
}

}  // namespace engram
