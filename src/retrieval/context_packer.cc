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

// "Conversation summary: …\nRecent turns:\nuser: …\n\n" within `budget` tokens.
std::string SessionBlock(const ContextRequest& req, int budget, ContextResult* result) {
  std::string summary;
  if (!req.session_summary.empty()) {
    summary = "Conversation summary: " + OneLine(req.session_summary) + "\n";
    if (CountTokens(summary) > budget) summary.clear();
  }
  const std::string kTurnsHeader = "Recent turns:\n";
  int used = CountTokens(summary) + CountTokens(kTurnsHeader) + 1;
  std::vector<std::string> lines;  // newest first
  for (auto it = req.session_turns.rbegin(); it != req.session_turns.rend(); ++it) {
    std::string line = OneLine(it->role) + ": " + OneLine(it->content) + "\n";
    int cost = CountTokens(line);
    if (used + cost > budget) break;
    used += cost;
    lines.push_back(std::move(line));
  }
  result->session_summary = !summary.empty();
  result->session_turns = static_cast<int>(lines.size());
  std::string block = summary;
  if (!lines.empty()) {
    block += kTurnsHeader;
    for (auto it = lines.rbegin(); it != lines.rend(); ++it) block += *it;
  }
  if (!block.empty()) block += "\n";
  return block;
}

}  // namespace

ContextResult PackContext(const std::vector<SearchHit>& ranked, const ContextRequest& request) {
  if (request.session_summary.empty() && request.session_turns.empty() && request.profile.empty()) {
    return PackContext(ranked, request.token_budget);
  }
  std::string lead = request.profile;
  if (!lead.empty() && lead.back() != '\n') lead += '\n';
  if (!lead.empty()) lead += '\n';
  if (CountTokens(lead) > request.token_budget) lead.clear();
  ContextResult session;
  const int share = static_cast<int>(request.token_budget * request.session_share);
  std::string block = lead + SessionBlock(request, share, &session);
  int memory_budget = request.token_budget - CountTokens(block);
  // Token counts of two texts need not add up exactly: shrink until the whole fits.
  for (int attempt = 0; attempt < 8; ++attempt) {
    ContextResult out = memory_budget > 0 ? PackContext(ranked, memory_budget) : ContextResult{};
    out.text = block + out.text;
    out.tokens = CountTokens(out.text);
    out.session_turns = session.session_turns;
    out.session_summary = session.session_summary;
    out.profile = !lead.empty();
    if (out.tokens <= request.token_budget) return out;
    memory_budget -= out.tokens - request.token_budget;
  }
  ContextResult only;
  only.text = CountTokens(block) <= request.token_budget ? block : "";
  only.tokens = CountTokens(only.text);
  only.profile = !lead.empty() && !only.text.empty();
  return only;
}

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

std::string PackKnowledge(const std::vector<KnowledgeHit>& knowledge, int token_budget,
                          std::vector<KnowledgeHit>* included) {
  static constexpr const char* kKnowledgeHeader = "Relevant knowledge (most relevant first):\n";
  included->clear();
  int used = CountTokens(kKnowledgeHeader);
  if (knowledge.empty() || used >= token_budget) return "";
  std::string body;
  for (const KnowledgeHit& hit : knowledge) {
    const std::string cite = "- " + KnowledgeCitation(hit) + " ";
    std::string line = cite + OneLine(hit.text) + "\n";
    int cost = CountTokens(line);
    if (used + cost > token_budget) {
      if (!included->empty()) continue;
      // Only the best chunk is cut to fit, as the best memory is.
      const std::string text = OneLine(hit.text);
      size_t lo = 0, hi = text.size();
      line.clear();
      while (lo < hi) {
        const size_t mid = (lo + hi + 1) / 2;
        std::string candidate = cite + CutUtf8(text, mid) + "…\n";
        if (used + CountTokens(candidate) <= token_budget) {
          line = std::move(candidate);
          lo = mid;
        } else {
          hi = mid - 1;
        }
      }
      if (line.empty()) continue;
      cost = CountTokens(line);
    }
    body += line;
    used += cost;
    included->push_back(hit);
  }
  return included->empty() ? "" : kKnowledgeHeader + body;
}

ContextResult PackContext(const std::vector<SearchHit>& ranked,
                          const std::vector<KnowledgeHit>& knowledge,
                          const ContextRequest& request) {
  if (knowledge.empty()) return PackContext(ranked, request);
  // The profile and session block first, as without knowledge; then the two sides share what
  // they leave.
  ContextRequest lead_only = request;
  ContextResult lead = PackContext({}, lead_only);
  const int left = request.token_budget - lead.tokens;
  std::vector<KnowledgeHit> chunks;
  int knowledge_budget = ranked.empty() ? left : static_cast<int>(left * request.knowledge_share);
  std::string knowledge_text = PackKnowledge(knowledge, knowledge_budget, &chunks);
  ContextResult memories = PackContext(ranked, left - CountTokens(knowledge_text));
  if (!ranked.empty()) {  // what the memories left unused goes to the knowledge
    knowledge_text = PackKnowledge(knowledge, left - memories.tokens, &chunks);
  }
  // Token counts of joined texts need not add up exactly: shrink until the whole fits.
  for (int attempt = 0; attempt < 8; ++attempt) {
    ContextResult out = memories;
    out.text = lead.text + memories.text +
               (memories.text.empty() || knowledge_text.empty() ? "" : "\n") + knowledge_text;
    out.tokens = CountTokens(out.text);
    out.session_turns = lead.session_turns;
    out.session_summary = lead.session_summary;
    out.profile = lead.profile;
    out.knowledge = chunks;
    if (out.tokens <= request.token_budget) return out;
    const int over = out.tokens - request.token_budget;
    knowledge_text = PackKnowledge(knowledge, CountTokens(knowledge_text) - over, &chunks);
  }
  return lead;
}

}  // namespace engram
