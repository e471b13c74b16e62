#include <algorithm>
#include <cmath>
#include <set>
#include <unordered_map>

#include "codec/item_validation.h"
#include "core/status_macros.h"
#include "engram/llm.h"
#include "engram/sessions.h"
#include "shared/redis.h"
#include "text/keyword_terms.h"
#include "text/token_counter.h"

namespace engram {
namespace {

// Idle buffers are looked for at most this often.
constexpr int64_t kEvictionIntervalMs = 60'000;
// Turns read to write a summary (the latest ones).
constexpr int kSummaryTurns = 400;

std::string BufferKey(const Scope& s) {
  return std::to_string(s.tenant.size()) + ":" + s.tenant + std::to_string(s.user_id.size()) + ":" +
         s.user_id + s.session_id;
}

int TurnTokens(const StoredTurn& t) { return CountTokens(t.role) + CountTokens(t.content) + 2; }

struct Sentence {
  size_t order = 0;
  std::string role;
  std::string text;
  std::vector<std::string> terms;
  double score = 0;
};

// Splits on sentence-final punctuation (ASCII and full-width) and newlines, keeping it.
std::vector<std::string> SplitSentences(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  auto flush = [&] {
    size_t b = cur.find_first_not_of(" \t\r\n");
    if (b != std::string::npos) out.push_back(cur.substr(b));
    cur.clear();
  };
  for (size_t i = 0; i < s.size(); ++i) {
    cur += s[i];
    const char c = s[i];
    bool end = c == '.' || c == '!' || c == '?' || c == '\n';
    // 。！？ are E3 80 82, EF BC 81, EF BC 9F.
    if (i >= 2) {
      std::string_view tail(s.data() + i - 2, 3);
      end = end || tail == "\xE3\x80\x82" || tail == "\xEF\xBC\x81" || tail == "\xEF\xBC\x9F";
    }
    if (end) flush();
  }
  flush();
  return out;
}

}  // namespace

SessionManager::SessionManager(Engine* engine, MemoryWriter* writer, SessionOptions options,
                               const Clock* clock)
    : engine_(engine),
      writer_(writer),
      options_(std::move(options)),
      clock_(clock ? clock : SystemClock::Default()) {}

void SessionManager::Trim(Buffer* b) const {
  size_t drop = 0;
  int tokens = b->tokens;
  while (drop < b->turns.size() &&
         (tokens > options_.working_token_budget ||
          static_cast<int>(b->turns.size() - drop) > options_.working_max_turns)) {
    tokens -= TurnTokens(b->turns[drop]);
    ++drop;
  }
  b->turns.erase(b->turns.begin(), b->turns.begin() + static_cast<long>(drop));
  b->tokens = tokens;
}

void SessionManager::EvictIdle(TimestampMs now) {
  if (now - last_eviction_ < kEvictionIntervalMs) return;
  last_eviction_ = now;
  std::erase_if(buffers_, [&](const auto& kv) {
    return kv.second.use_count() == 1 && now - kv.second->last_used > options_.ttl_ms;
  });
}

Result<std::shared_ptr<SessionManager::Buffer>> SessionManager::LoadBuffer(
    const Scope& scope, TimestampMs now, const SessionInfo* stored) {
  const std::string key = BufferKey(scope);
  // Read before the turns are: a hard delete after this point leaves the buffer stale-marked.
  const int64_t generation = engine_->PurgeGeneration();
  const int64_t count = stored ? stored->turn_count : 0;
  const int64_t last_seq = stored ? stored->last_turn_seq : 0;
  int64_t since_summary = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    EvictIdle(now);
    auto it = buffers_.find(key);
    if (it != buffers_.end() && now - it->second->last_used <= options_.ttl_ms) {
      Buffer& b = *it->second;
      if (b.generation == generation && b.turn_count == count && b.last_turn_seq == last_seq) {
        b.last_used = now;
        return it->second;
      }
      // Stale, not idle: another replica appended, or a hard delete took some of its turns.
      // Reloaded, keeping its own count towards the summary.
      since_summary = b.since_summary;
    }
    if (it != buffers_.end()) buffers_.erase(it);
  }
  auto buffer = std::make_shared<Buffer>();
  buffer->generation = generation;
  buffer->since_summary = since_summary;
  if (stored != nullptr) {
    auto info = engine_->GetSession(scope, options_.working_max_turns);
    if (info.ok()) {
      buffer->turns = info->recent;
      buffer->turn_count = info->turn_count;
      buffer->last_turn_seq = info->last_turn_seq;
      for (const StoredTurn& t : buffer->turns) buffer->tokens += TurnTokens(t);
      Trim(buffer.get());
    } else if (info.status().code() != StatusCode::kNotFound) {
      return info.status();
    }
  }
  buffer->last_used = now;
  std::lock_guard<std::mutex> lock(mu_);
  auto [it, inserted] = buffers_.emplace(key, buffer);
  if (!inserted) {
    Buffer& b = *it->second;
    if (b.generation == buffer->generation && b.turn_count == buffer->turn_count &&
        b.last_turn_seq == buffer->last_turn_seq) {
      b.last_used = now;
      return it->second;  // another call loaded the same turns meanwhile
    }
    it->second = buffer;
  }
  return buffer;
}

namespace {

// The shared count: one Redis hash per session, its TTL the buffer's, raised and reset in one
// script so two replicas taking turns at once never both (or neither) write the summary.
constexpr char kCountScript[] = R"(
local n = redis.call('HINCRBY', KEYS[1], 'since', ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
local every = tonumber(ARGV[2])
if every > 0 and n >= every then
  redis.call('HSET', KEYS[1], 'since', 0)
  return 1
end
return 0
)";

std::string SessionCounterKey(const Scope& scope) { return "engram:session:" + BufferKey(scope); }

}  // namespace

bool SessionManager::CountTowardsSummary(const Scope& scope, Buffer* buffer, int64_t turns) {
  if (options_.redis != nullptr) {
    auto due =
        options_.redis->Eval(kCountScript, {SessionCounterKey(scope)},
                             {std::to_string(turns), std::to_string(options_.summarize_every),
                              std::to_string(std::max<int64_t>(options_.ttl_ms, 1))});
    if (due.ok()) return due->integer == 1;
    // Redis is down (it logs that once): this replica counts alone until it is back.
  }
  std::lock_guard<std::mutex> lock(mu_);
  buffer->since_summary += turns;
  if (options_.summarize_every > 0 && buffer->since_summary >= options_.summarize_every) {
    buffer->since_summary = 0;
    return true;
  }
  return false;
}

Result<SessionAppendResult> SessionManager::Append(const Scope& scope,
                                                   const std::vector<Turn>& turns, bool infer,
                                                   const RememberOptions& options) {
  const TimestampMs now = clock_->NowMs();
  // The privacy policy applies to stored turns as to memories.
  std::vector<Turn> clean = turns;
  for (size_t i = 0; i < clean.size(); ++i) {
    auto text = writer_->ApplyPrivacy(clean[i].content);
    if (!text.ok()) return text.status().WithContext("message " + std::to_string(i));
    clean[i].content = std::move(text).value();
  }
  auto stored = engine_->GetSession(scope, 0);
  if (!stored.ok() && stored.status().code() != StatusCode::kNotFound) return stored.status();
  ENGRAM_ASSIGN_OR_RETURN(auto buffer,
                          LoadBuffer(scope, now, stored.ok() ? &stored.value() : nullptr));
  std::vector<StoredTurn> context;
  {
    std::lock_guard<std::mutex> lock(mu_);
    context = buffer->turns;
  }
  SessionAppendResult result;
  int64_t last_seq = 0;
  ENGRAM_ASSIGN_OR_RETURN(result.turns, engine_->AppendTurns(scope, clean, &last_seq));
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const StoredTurn& t : result.turns) {
      buffer->turns.push_back(t);
      buffer->tokens += TurnTokens(t);
    }
    Trim(buffer.get());
    // The version these turns make when no other call appended meanwhile; when one did, the
    // store's count is higher and the next use reloads.
    buffer->turn_count += static_cast<int64_t>(result.turns.size());
    buffer->last_turn_seq = last_seq;
  }
  const bool summarize =
      CountTowardsSummary(scope, buffer.get(), static_cast<int64_t>(result.turns.size()));
  if (infer) {
    std::vector<Turn> fresh, earlier;
    for (const StoredTurn& t : result.turns)
      fresh.push_back({t.role, t.content, t.at, t.message_id});
    for (const StoredTurn& t : context) earlier.push_back({t.role, t.content, t.at, t.message_id});
    ENGRAM_ASSIGN_OR_RETURN(result.remembered, writer_->Remember(scope, fresh, earlier, options));
  }
  if (summarize) {
    auto info = engine_->GetSession(scope, 0);
    auto summary =
        info.ok() ? WriteSummary(scope, *info, /*close=*/false) : Result<MemoryItem>(info.status());
    if (summary.ok()) {
      result.summary = std::move(summary).value();
    } else {
      result.summary_error = summary.status().ToString();
    }
  }
  return result;
}

Result<WorkingMemory> SessionManager::Working(const Scope& scope) {
  const TimestampMs now = clock_->NowMs();
  ENGRAM_ASSIGN_OR_RETURN(SessionInfo info, engine_->GetSession(scope, 0));
  WorkingMemory out;
  if (!info.closed_at) {
    ENGRAM_ASSIGN_OR_RETURN(auto buffer, LoadBuffer(scope, now, &info));
    std::lock_guard<std::mutex> lock(mu_);
    out.turns = buffer->turns;
    out.tokens = buffer->tokens;
  }
  if (!info.summary_id.empty()) {
    auto summary = engine_->Get(scope, info.summary_id);
    if (summary.ok()) out.summary = std::move(summary).value();
  }
  out.session = std::move(info);
  return out;
}

Result<std::optional<MemoryItem>> SessionManager::Close(const Scope& scope) {
  ENGRAM_ASSIGN_OR_RETURN(SessionInfo info, engine_->GetSession(scope, 0));
  {
    std::lock_guard<std::mutex> lock(mu_);
    buffers_.erase(BufferKey(scope));
  }
  // Best effort: left behind, the count expires with its TTL.
  if (options_.redis != nullptr) (void)options_.redis->Command({"DEL", SessionCounterKey(scope)});
  if (info.closed_at) {
    if (info.summary_id.empty()) return std::optional<MemoryItem>();
    auto summary = engine_->Get(scope, info.summary_id);
    if (!summary.ok()) return std::optional<MemoryItem>();
    return std::optional<MemoryItem>(std::move(summary).value());
  }
  ENGRAM_ASSIGN_OR_RETURN(MemoryItem summary, WriteSummary(scope, info, /*close=*/true));
  return std::optional<MemoryItem>(std::move(summary));
}

Result<MemoryItem> SessionManager::WriteSummary(const Scope& scope, const SessionInfo& info,
                                                bool close) {
  ENGRAM_ASSIGN_OR_RETURN(SessionInfo full, engine_->GetSession(scope, kSummaryTurns));
  std::string method;
  std::string text = Summarize(full.recent, &method);
  if (text.empty()) text = "(empty session)";
  // A source lists at most kMaxListEntries messages: the newest, which the summary leans on
  // (a long session's summary is still written, and names its latest turns).
  std::vector<std::string> ids;
  const size_t first =
      full.recent.size() > kMaxListEntries ? full.recent.size() - kMaxListEntries : 0;
  for (size_t i = first; i < full.recent.size(); ++i) ids.push_back(full.recent[i].message_id);
  Source source;
  source.extractor = "summary:" + method;
  source.session_id = scope.session_id;
  source.message_ids = ids;
  MemoryItem summary;
  bool rewritten = false;
  auto existing = info.summary_id.empty() ? Result<MemoryItem>(Status::NotFound("no summary"))
                                          : engine_->Get(scope, info.summary_id);
  if (existing.ok() && existing->status == ItemStatus::kActive) {
    MemoryPatch patch;
    patch.content = text;
    patch.source = source;  // the turns and method of this summary, not the first one's
    patch.reason =
        "session summary rewritten (" + method + ", " + std::to_string(full.turn_count) + " turns)";
    auto updated = engine_->Update(scope, info.summary_id, patch);
    // Deleted (or purged) by the user between the look and the rewrite: the session gets a
    // new summary, as if there had been none; a deleted summary is never brought back.
    if (updated.ok()) {
      summary = std::move(updated).value();
      rewritten = true;
    } else if (updated.status().code() != StatusCode::kNotFound &&
               updated.status().code() != StatusCode::kConflict) {
      return updated.status();
    }
  }
  if (!rewritten) {
    NewMemory m;
    m.content = text;
    m.type = MemoryType::kSummary;
    m.tier = Tier::kEpisodic;
    m.source = source;
    if (!full.recent.empty()) m.valid_from = full.recent.front().at;
    m.reason = "session summary (" + method + ", " + std::to_string(full.turn_count) + " turns)";
    ENGRAM_ASSIGN_OR_RETURN(summary, engine_->Add(scope, m));
  }
  ENGRAM_RETURN_IF_ERROR(engine_->SetSessionSummary(scope, summary.id, close));
  return summary;
}

std::string SessionManager::Summarize(const std::vector<StoredTurn>& turns, std::string* method) {
  if (options_.llm && !turns.empty()) {
    ChatRequest req;
    req.json_object = false;
    req.max_tokens = options_.summary_max_tokens * 2;
    std::string transcript;
    for (const StoredTurn& t : turns) transcript += t.role + ": " + t.content + "\n";
    req.messages = {
        {"system",
         "Summarize the conversation for a long-term memory store in at most 5 sentences: the "
         "facts, decisions, plans and preferences stated, with names and dates. Write in the "
         "language of the conversation. Reply with the summary only."},
        {"user", transcript}};
    auto reply = options_.llm->Chat(req);
    if (reply.ok() && !reply->content.empty() && reply->finish_reason != "length") {
      *method = "llm:" + options_.llm->model();
      return reply->content;
    }
  }
  *method = "extractive";
  return ExtractiveSummary(turns);
}

// Centrality: a sentence scores by how many other sentences share its terms (log-damped),
// normalized by its length, so the sentences about what the conversation kept returning to
// win; the user's own statements count a little more. Chosen within the token budget and
// printed in conversation order.
std::string SessionManager::ExtractiveSummary(const std::vector<StoredTurn>& turns) const {
  std::vector<Sentence> sentences;
  for (const StoredTurn& t : turns) {
    for (std::string& s : SplitSentences(t.content)) {
      Sentence x;
      x.order = sentences.size();
      x.role = t.role;
      x.text = std::move(s);
      std::vector<std::string> terms = KeywordTerms(x.text);
      std::sort(terms.begin(), terms.end());
      terms.erase(std::unique(terms.begin(), terms.end()), terms.end());
      x.terms = std::move(terms);
      sentences.push_back(std::move(x));
    }
  }
  std::unordered_map<std::string, int> df;
  for (const Sentence& s : sentences) {
    for (const std::string& t : s.terms) ++df[t];
  }
  for (Sentence& s : sentences) {
    if (s.terms.size() < 2) continue;
    double sum = 0;
    for (const std::string& t : s.terms) sum += std::log1p(df[t] - 1);
    s.score = sum / std::sqrt(static_cast<double>(s.terms.size()));
    if (s.role == "user") s.score *= 1.2;
    s.score += 1e-3 * s.terms.size();  // ties: the more informative sentence
  }
  std::vector<const Sentence*> ranked;
  for (const Sentence& s : sentences) {
    if (s.terms.size() >= 2) ranked.push_back(&s);
  }
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const Sentence* a, const Sentence* b) { return a->score > b->score; });
  std::set<size_t> chosen;
  int used = 0;
  auto cost = [](const Sentence& s) { return CountTokens(s.text) + CountTokens(s.role) + 2; };
  for (const Sentence* s : ranked) {
    if (used + cost(*s) > options_.summary_max_tokens) continue;
    used += cost(*s);
    chosen.insert(s->order);
  }
  if (chosen.empty()) {
    // Short turns ("I like jazz") share no two terms, and one long sentence may not fit: the
    // summary is then the user's sentences in order (everyone's when the user said none), as
    // many as fit and at least the first. A session with turns is never summarized as empty.
    const bool user_spoke = std::any_of(sentences.begin(), sentences.end(),
                                        [](const Sentence& s) { return s.role == "user"; });
    for (const Sentence& s : sentences) {
      if (user_spoke && s.role != "user") continue;
      if (!chosen.empty() && used + cost(s) > options_.summary_max_tokens) break;
      used += cost(s);
      chosen.insert(s.order);
    }
  }
  std::string out;
  for (size_t i : chosen) {
    if (!out.empty()) out += " ";
    out += sentences[i].role + ": " + sentences[i].text;
  }
  return out;
}

}  // namespace engram
