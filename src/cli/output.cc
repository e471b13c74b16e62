#include "cli/output.h"

#include <algorithm>
#include <iomanip>
#include <nlohmann/json.hpp>

#include "api/responses.h"
#include "codec/item_json.h"
#include "engram/clock.h"
#include "text/utf8.h"

namespace engram::cli {
namespace {

std::string Join(const std::vector<std::string>& list) {
  std::string out;
  for (const std::string& s : list) {
    if (!out.empty()) out += ", ";
    out += s;
  }
  return out.empty() ? "-" : out;
}

// Cuts `s` to about `max_cols` display columns without splitting a UTF-8 sequence; CJK
// characters count as two columns.
std::string Clip(const std::string& s, size_t max_cols) {
  size_t cols = 0, i = 0;
  while (i < s.size()) {
    size_t len = CodepointLength(s, i);
    size_t width = len >= 3 ? 2 : 1;
    if (cols + width > max_cols) return s.substr(0, i) + "…";
    cols += width;
    i += len;
  }
  return s;
}

std::string OneLine(std::string s) {
  for (char& c : s) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  }
  return s;
}

}  // namespace

std::string ShortTime(TimestampMs t) {
  return FormatTimestamp(t).substr(0, 16).replace(10, 1, " ");
}

void PrintItem(std::ostream& out, const MemoryItem& m, bool json) {
  if (json) {
    out << ItemToJson(m).dump() << "\n";
    return;
  }
  auto row = [&](const char* label, const std::string& value) {
    out << "  " << std::left << std::setw(12) << label << value << "\n";
  };
  row("id", m.id);
  row("user", m.scope.user_id + (m.scope.agent_id.empty() ? "" : "  agent " + m.scope.agent_id) +
                  (m.scope.session_id.empty() ? "" : "  session " + m.scope.session_id));
  row("type", std::string(ToString(m.type)) + " (" + std::string(ToString(m.tier)) + " tier)");
  row("status", std::string(ToString(m.status)) +
                    (m.superseded_by.empty() ? "" : ", superseded by " + m.superseded_by));
  row("content", m.content);
  row("tags", Join(m.tags));
  row("entities", Join(m.entities));
  if (m.metadata != "{}") row("metadata", m.metadata);
  std::ostringstream scores;
  scores << std::fixed << std::setprecision(2) << "importance " << m.importance << "  confidence "
         << m.confidence << "  accessed " << m.access_count << "x";
  row("scores", scores.str());
  row("created", FormatTimestamp(m.created_at) + "  updated " + FormatTimestamp(m.updated_at));
  row("valid", FormatTimestamp(m.valid_from) + " .. " +
                   (m.valid_to ? FormatTimestamp(*m.valid_to) : std::string("now")));
  if (m.expires_at) row("expires", FormatTimestamp(*m.expires_at));
  row("source",
      m.source.extractor +
          (m.source.prompt_version.empty() ? "" : " (prompt " + m.source.prompt_version + ")"));
}

void PrintPage(std::ostream& out, const ListPage& page, bool json) {
  if (json) {
    // The body GET /v1/memories answers. `memories` repeats `results` under the key this
    // command printed before it took the HTTP name; deprecated, dropped in the next release.
    nlohmann::json body = api::PageToJson(page);
    body["memories"] = body["results"];
    out << body.dump() << "\n";
    return;
  }
  if (page.items.empty()) {
    out << "(no memories)\n";
    return;
  }
  for (const MemoryItem& m : page.items) {
    out << m.id << "  " << ShortTime(m.created_at) << "  " << std::left << std::setw(10)
        << ToString(m.type) << " "
        << (m.status == ItemStatus::kActive ? "" : "[" + std::string(ToString(m.status)) + "] ")
        << Clip(OneLine(m.content), 60) << "\n";
  }
  if (!page.next_cursor.empty()) out << "(more: --cursor " << page.next_cursor << ")\n";
}

void PrintHistory(std::ostream& out, const std::vector<HistoryEntry>& history, bool json) {
  if (json) {
    nlohmann::json entries = nlohmann::json::array();
    for (const HistoryEntry& h : history) entries.push_back(HistoryToJson(h));
    out << nlohmann::json{{"history", std::move(entries)}}.dump() << "\n";
    return;
  }
  for (const HistoryEntry& h : history) {
    out << FormatTimestamp(h.at) << "  " << std::left << std::setw(9) << ToString(h.event);
    if (h.event == HistoryEvent::kAdd) {
      out << " \"" << Clip(OneLine(h.new_content.value_or("")), 70) << "\"";
    } else if (h.old_content && h.new_content && *h.old_content != *h.new_content) {
      out << " \"" << Clip(OneLine(*h.old_content), 40) << "\" -> \""
          << Clip(OneLine(*h.new_content), 40) << "\"";
    } else if (h.previous) {
      out << " (was " << ToString(h.previous->status) << ")";
    }
    if (!h.reason.empty()) out << "  reason: " << Clip(OneLine(h.reason), 60);
    out << "\n";
  }
}

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size())))];
}

}  // namespace engram::cli
