// Verified purges (Engine::PurgeScopeVerified, Engine::FindTraces): a hard delete proven by a
// byte scan of every file the engine writes.
#include <chrono>
#include <map>

#include "core/status_macros.h"
#include "engine/engine_impl.h"
#include "engine/validation.h"
#include "storage/memory_store.h"
#include "storage/trace_scan.h"

namespace engram {
namespace {

int64_t MsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                               start)
      .count();
}

// The first bytes of a found text, printable (a cut UTF-8 sequence is left out).
std::string Shown(const std::string& text) {
  std::string out = text.substr(0, 24);
  while (!out.empty() && (static_cast<unsigned char>(out.back()) & 0xC0) == 0x80) out.pop_back();
  if (!out.empty() && static_cast<unsigned char>(out.back()) >= 0xC0) out.pop_back();
  for (char& c : out) {
    if (static_cast<unsigned char>(c) < 0x20) c = ' ';
  }
  return out + (out.size() < text.size() ? "…" : "");
}

}  // namespace

Result<TraceReport> Engine::Impl::FindTraces(const std::vector<std::string>& texts,
                                             const std::vector<std::string>& vectors) {
  std::vector<std::string> needles = texts;
  needles.insert(needles.end(), vectors.begin(), vectors.end());
  TraceReport report;
  for (const std::string& n : needles) report.needles += n.size() >= kMinNeedleBytes ? 1 : 0;
  const std::vector<std::string> files = EngramFiles(options_.path);
  report.files = static_cast<int64_t>(files.size());
  ENGRAM_ASSIGN_OR_RETURN(std::vector<TraceHit> hits,
                          ScanForNeedles(files, needles, &report.bytes));
  std::map<size_t, bool> held;  // needle → held by data that stays
  for (const TraceHit& hit : hits) {
    const bool vector = hit.needle >= texts.size();
    auto it = held.find(hit.needle);
    if (it == held.end()) {
      ENGRAM_ASSIGN_OR_RETURN(bool live, store_->HeldByLiveData(needles[hit.needle], vector));
      it = held.emplace(hit.needle, live).first;
      if (live) ++report.shared;
    }
    if (it->second) continue;
    report.traces.push_back(
        hit.file + " at byte " + std::to_string(hit.offset) + ": " +
        (vector ? std::string("vector bytes") : "text '" + Shown(needles[hit.needle]) + "'"));
  }
  return report;
}

Result<VerifiedPurge> Engine::Impl::PurgeScopeVerified(const Scope& scope) {
  ENGRAM_RETURN_IF_ERROR(ValidateScope(scope));
  const auto started = std::chrono::steady_clock::now();
  ENGRAM_ASSIGN_OR_RETURN(ScopeTraces traces, store_->TracesOf(scope));
  VerifiedPurge out;
  ENGRAM_ASSIGN_OR_RETURN(out.removed, PurgeScope(scope));
  out.purge_ms = MsSince(started);
  const auto scan_started = std::chrono::steady_clock::now();
  ENGRAM_ASSIGN_OR_RETURN(out.scan, FindTraces(traces.texts, traces.vectors));
  out.scan_ms = MsSince(scan_started);
  return out;
}

}  // namespace engram
