// Proleptic Gregorian calendar arithmetic on day numbers (days since 1970-01-01), shared by
// timestamp formatting (clock.cc) and relative-date resolution (text/time_expressions.cc).
#pragma once

#include <cstdint>

namespace engram {

int64_t DaysFromCivil(int64_t year, unsigned month, unsigned day);
void CivilFromDays(int64_t days, int64_t* year, unsigned* month, unsigned* day);

}  // namespace engram
