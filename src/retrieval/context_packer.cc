#include "retrieval/context_packer.h"

#include "engram/clock.h"
#include "text/token_counter.h"

namespace engram {
namespace {

constexpr const char* kHeader = "Relevant memories (most relevant first):\n";

std::string OneLine(const std::string& s) {
  std::string out = s;
  for (char& c : out) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  }
  return out;
}

std::string Line(const MemoryItem& m, const std::string& content) {
  return "- [" + FormatTimestamp(m.valid_from).substr(0, 10) + "] (" +
         std::string(ToString(m.type)) + ") " + content + " [" + m.id + "]\n";
}

// Cuts UTF-8 `s` to at most `bytes` bytes on a character boundary.
std::string CutUtf8(const std::string& s, size_t bytes) {
  if (s.size() <= bytes) return s;
  size_t end = bytes;
  while (end > 0 && (static_cast<unsigned char>(s[end]) & 0xC0) == 0x80) --end;
  return s.substr(0, end);
}

// The longest prefix of the content whose line fits in `budget` tokens, or "" if none does.
std::string TruncatedLine(const MemoryItem& m, int budget) {
  std::string content = OneLine(m.content);
  size_t lo = 0, hi = content.size();
  std::string best;
  while (lo <= hi && hi > 0) {
    size_t mid = (lo + hi) / 2;
    std::string line = Line(m, CutUtf8(content, mid) + "…");
    if (CountTokens(line) <= budget) {
      best = line;
      lo = mid + 1;
    } else {
      if (mid == 0) break;
      hi = mid - 1;
    }
  }
  return best;
}

}  // namespace

ContextResult PackContext(const std::vector<SearchHit>& ranked, int token_budget) {
  ContextResult result;
  const int header_tokens = CountTokens(kHeader);
  if (ranked.empty() || header_tokens >= token_budget) return result;
  int used = header_tokens;
  std::string body;
  for (const SearchHit& hit : ranked) {
    std::string line = Line(hit.item, OneLine(hit.item.content));
    int cost = CountTokens(line);
    if (used + cost > token_budget) {
      if (!result.memories.empty()) continue;
      line = TruncatedLine(hit.item, token_budget - used);
      if (line.empty()) continue;
      cost = CountTokens(line);
    }
    body += line;
    used += cost;
    result.memories.push_back(hit);
  }
  if (result.memories.empty()) return result;
  result.text = kHeader + body;
  result.tokens = CountTokens(result.text);
  return result;
}

}  // namespace engram
