// How the CLI prints items and history: aligned text for people, JSON with --json.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "engram/engine.h"
#include "engram/memory.h"

namespace engram::cli {

void PrintItem(std::ostream& out, const MemoryItem& item, bool json);
void PrintPage(std::ostream& out, const ListPage& page, bool json);
void PrintHistory(std::ostream& out, const std::vector<HistoryEntry>& history, bool json);
// A short date for tables: "2026-11-30 05:23".
std::string ShortTime(TimestampMs t);
// The p-quantile (0..1) of `v` by the nearest rank below; 0 for no values (bench reports).
double Percentile(std::vector<double> v, double p);

}  // namespace engram::cli
