// Engine: the write path's primitives — applying one decided change (ADD, UPDATE, SUPERSEDE,
// NOOP) in one transaction, and finding what a candidate must be compared with.
#include <algorithm>
#include <numeric>
#include <set>

#include "core/status_macros.h"
#include "engine/engine_impl.h"
#include "engine/validation.h"
#include "retrieval/scope_index.h"
#include "storage/memory_store.h"
#include "text/analyzer.h"
#include "text/normalizer.h"

namespace engram {
namespace {

// Same-slot items considered per candidate; a slot holds one or a few values in practice.
constexpr int kMaxSlotItems = 20;

double Cosine(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size() || a.empty()) return 0;
  return std::inner_product(a.begin(), a.end(), b.begin(), 0.0);
}

Status RequireActive(const MemoryItem& m) {
  if (m.status == ItemStatus::kActive) return Status::Ok();
  return Status::Conflict("memory '" + m.id + "' is " + std::string(ToString(m.status)) +
                          ", not active");
}

// True when `content` states `value`: it holds the value's text, or every analyzer term of it
// ("coffees" holds "coffee", "nursing" the stem of "nurse").
bool States(const std::string& content, const std::string& value) {
  const std::string c = NormalizeForMatching(content);
  const std::string v = NormalizeForMatching(value);
  if (v.empty()) return false;
  if (c.find(v) != std::string::npos) return true;
  const Analysis want = AnalyzeText(value);
  if (want.words.empty()) return false;
  const Analysis have = AnalyzeText(content);
  for (const std::string& w : want.words) {
    if (std::find(have.words.begin(), have.words.end(), w) == have.words.end()) return false;
  }
  return true;
}

// The slot family: the slot up to its key ("user/pet:豆豆" → "user/pet").
std::string FamilyOf(const std::string& slot) {
  const size_t colon = slot.find(':');
  return colon == std::string::npos ? slot : slot.substr(0, colon);
}

void AppendNew(std::vector<std::string>* to, const std::vector<std::string>& from) {
  for (const std::string& s : from) {
    if (std::find(to->begin(), to->end(), s) == to->end()) to->push_back(s);
  }
}

}  // namespace

Result<WriteOutcome> Engine::Impl::ApplyWrite(const Scope& scope, const PlannedWrite& write) {
  ENGRAM_RETURN_IF_ERROR(ValidateScope(scope));
  ENGRAM_RETURN_IF_ERROR(ValidateText("reason", write.reason, options_.max_content_bytes));
  const bool by_turn = !write.superseded_by_turn.empty();
  if (by_turn) {
    if (write.decision != WriteDecision::kSupersede) {
      return Status::InvalidArgument("superseded_by_turn is for a SUPERSEDE");
    }
    ENGRAM_RETURN_IF_ERROR(ValidateId(write.superseded_by_turn));
  }
  const bool inserts = write.decision == WriteDecision::kAdd ||
                       (write.decision == WriteDecision::kSupersede && !by_turn);
  const bool has_target = write.decision != WriteDecision::kAdd;
  if (has_target) ENGRAM_RETURN_IF_ERROR(ValidateId(write.target_id));
  const TimestampMs now = Now();

  std::vector<StoreOp> ops;
  std::optional<StoredVector> vector;
  if (inserts || write.decision == WriteDecision::kUpdate) {
    if (write.memory.content.empty()) return Status::InvalidArgument("content must not be empty");
    ENGRAM_ASSIGN_OR_RETURN(auto values, EmbedOne(write.memory.content));
    vector = StoredVector{embedder_->model(), std::move(values)};
  }
  if (inserts) {
    NewMemory m = write.memory;
    m.reason = write.reason;
    ENGRAM_ASSIGN_OR_RETURN(MemoryItem item, Materialize(scope, m, now));
    if (write.decision == WriteDecision::kSupersede) item.supersedes = write.target_id;
    item.embedding_model = vector->model;
    StoreOp op;
    op.insert = PendingItem{std::move(item), write.reason, vector};
    op.insert->graph = write.memory.graph;
    ops.push_back(std::move(op));
  }
  if (has_target) {
    StoreOp op;
    op.id = write.target_id;
    op.reason = write.reason;
    // A restated fact (UPDATE, NOOP) states its relations again: the target gets them as a
    // source too (an edge it already states is left as is).
    if (write.decision == WriteDecision::kUpdate || write.decision == WriteDecision::kNoop) {
      op.graph = write.memory.graph;
    }
    switch (write.decision) {
      case WriteDecision::kSupersede: {
        op.event = HistoryEvent::kSupersede;
        if (by_turn) {
          // Corrected: the old value never held (an empty validity), the turn says what does.
          op.mutation = [turn = write.superseded_by_turn](MemoryItem& m) -> Result<bool> {
            ENGRAM_RETURN_IF_ERROR(RequireActive(m));
            m.status = ItemStatus::kSuperseded;
            m.superseded_by = turn;
            m.valid_to = m.valid_from;
            return true;
          };
          break;
        }
        // Copies: `ops` grows below, so a reference into it would dangle.
        const std::string next_id = ops.front().insert->item.id;
        const TimestampMs next_from = ops.front().insert->item.valid_from;
        op.mutation = [next_id, next_from](MemoryItem& m) -> Result<bool> {
          ENGRAM_RETURN_IF_ERROR(RequireActive(m));
          m.status = ItemStatus::kSuperseded;
          m.superseded_by = next_id;
          m.valid_to = std::max(next_from, m.valid_from);
          return true;
        };
        break;
      }
      case WriteDecision::kUpdate: {
        op.event = HistoryEvent::kUpdate;
        op.vector = vector;
        const NewMemory& m2 = write.memory;
        op.mutation = [&m2](MemoryItem& m) -> Result<bool> {
          ENGRAM_RETURN_IF_ERROR(RequireActive(m));
          m.content = m2.content;
          AppendNew(&m.entities, m2.entities);
          AppendNew(&m.tags, m2.tags);
          AppendNew(&m.source.message_ids, m2.source.message_ids);
          AppendNew(&m.source.turn_ids, m2.source.turn_ids);
          m.importance = std::max(m.importance, m2.importance.value_or(m.importance));
          m.confidence = std::max(m.confidence, m2.confidence.value_or(m.confidence));
          if (m.slot.empty()) m.slot = m2.slot;
          return true;
        };
        break;
      }
      case WriteDecision::kNoop: {
        op.event = HistoryEvent::kUpdate;
        op.reason = "NOOP: " + write.reason;
        const std::vector<std::string>& turns = write.turn_ids;
        op.mutation = [now, &turns](MemoryItem& m) -> Result<bool> {
          ENGRAM_RETURN_IF_ERROR(RequireActive(m));
          m.importance = std::min(1.0, m.importance + 0.1 * (1.0 - m.importance));
          m.access_count += 1;
          m.last_accessed = std::max(m.last_accessed.value_or(0), now);
          AppendNew(&m.source.turn_ids, turns);
          return true;
        };
        break;
      }
      case WriteDecision::kAdd:
        break;
    }
    ops.push_back(std::move(op));
  }
  // What the new item also replaces ("I quit coffee" closes the memory of drinking it).
  if (inserts) {
    const std::string next_id = ops.front().insert->item.id;
    const TimestampMs next_from = ops.front().insert->item.valid_from;
    for (const std::string& id : write.also_supersede) {
      if (id == write.target_id) continue;
      StoreOp close;
      close.id = id;
      close.event = HistoryEvent::kSupersede;
      close.reason = write.reason;
      close.skip_missing = true;
      close.mutation = [next_id, next_from](MemoryItem& m) -> Result<bool> {
        if (m.status != ItemStatus::kActive) return false;
        m.status = ItemStatus::kSuperseded;
        m.superseded_by = next_id;
        m.valid_to = std::max(next_from, m.valid_from);
        return true;
      };
      ops.push_back(std::move(close));
    }
  }
  // Each source turn learns what it produced, in the same transaction.
  const std::string written_id = inserts ? ops.front().insert->item.id : write.target_id;
  for (const std::string& turn_id : write.turn_ids) {
    if (turn_id == written_id) continue;
    StoreOp link;
    link.id = turn_id;
    link.record_history = false;
    link.skip_missing = true;
    link.mutation = [written_id](MemoryItem& m) -> Result<bool> {
      if (std::find(m.derived_ids.begin(), m.derived_ids.end(), written_id) !=
          m.derived_ids.end()) {
        return false;
      }
      m.derived_ids.push_back(written_id);
      return true;
    };
    ops.push_back(std::move(link));
  }

  std::lock_guard<std::mutex> lock(write_mu_);
  ENGRAM_RETURN_IF_ERROR(store_->Apply(scope, ops, now));
  if (auto index = LoadedIndex(scope)) {
    size_t bytes = 0;
    {
      std::unique_lock<std::shared_mutex> index_lock(index->mu);
      for (const StoreOp& op : ops) {
        if (op.seq == 0) continue;  // a link to a turn purged meanwhile
        const std::vector<float>* values = nullptr;
        if (op.insert && op.insert->vector) values = &op.insert->vector->values;
        if (!op.insert && op.vector) values = &op.vector->values;
        index->Upsert(op.seq, op.result, values);
      }
      RequestGraphIfDue(index);
      bytes = index->MemoryBytes();
    }
    TrackIndexBytes(scope, bytes);
  }
  WriteOutcome out;
  out.decision = write.decision;
  switch (write.decision) {
    case WriteDecision::kAdd:
      out.memory = ops[0].result;
      break;
    case WriteDecision::kSupersede:
      out.memory = ops[0].result;  // by a turn: the corrected item, as closed
      out.replaced = by_turn ? ops[0].result : ops[1].result;
      break;
    case WriteDecision::kUpdate:
    case WriteDecision::kNoop:
      out.memory = ops[0].result;
      break;
  }
  return out;
}

Result<std::vector<Neighbour>> Engine::Impl::FindNeighbours(const Scope& scope,
                                                            const NeighbourQuery& query) {
  ENGRAM_ASSIGN_OR_RETURN(std::vector<Neighbour> out,
                          FindNeighbours(scope, query.content, query.slot, query.k));
  Scope user_scope = scope;
  user_scope.session_id.clear();
  std::set<std::string> seen;
  for (const Neighbour& n : out) seen.insert(n.item.id);
  std::vector<float> vector;
  auto similarity = [&](const MemoryItem& item) -> double {
    if (vector.empty()) {
      auto v = EmbedOne(query.content);
      if (!v.ok()) return 0;
      vector = std::move(v).value();
    }
    auto stored = store_->GetVector(user_scope, item.id, embedder_->model());
    return stored.ok() ? Cosine(vector, *stored) : 0;
  };
  // Adds `item` or, when present, marks it with `flag`.
  auto add = [&](MemoryItem item, bool Neighbour::*flag) {
    if (IsKeptTurn(item) || item.status != ItemStatus::kActive) return;
    if (!seen.insert(item.id).second) {
      for (Neighbour& n : out) {
        if (n.item.id == item.id) n.*flag = true;
      }
      return;
    }
    Neighbour n;
    n.similarity = similarity(item);
    n.same_slot = !query.slot.empty() && item.slot == query.slot;
    n.same_family = !query.slot.empty() && FamilyOf(item.slot) == FamilyOf(query.slot);
    n.*flag = true;
    n.item = std::move(item);
    out.push_back(std::move(n));
  };
  for (Neighbour& n : out) {
    n.same_family = !query.slot.empty() && !n.item.slot.empty() &&
                    FamilyOf(n.item.slot) == FamilyOf(query.slot);
  }
  if (!query.slot.empty()) {
    ListQuery q;
    q.slot_family = FamilyOf(query.slot);
    q.limit = kMaxSlotItems;
    ENGRAM_ASSIGN_OR_RETURN(ListPage page, store_->List(user_scope, q));
    for (MemoryItem& item : page.items) add(std::move(item), &Neighbour::same_family);
  }
  for (const std::string& value : query.ends) {
    if (value.empty()) continue;
    SearchQuery q;
    q.text = value;
    q.k = 20;
    q.diversify = false;
    q.record_access = false;
    q.time_weight = 0;
    q.newest_evidence = false;  // the write path compares what is stored, old and new alike
    ENGRAM_ASSIGN_OR_RETURN(auto hits, Search(user_scope, q));
    for (SearchHit& hit : hits) {
      if (States(hit.item.content, value)) add(std::move(hit.item), &Neighbour::ended);
    }
  }
  if (query.latest_since > 0) {
    ListQuery q;
    q.created_after = query.latest_since;
    q.limit = 20;
    ENGRAM_ASSIGN_OR_RETURN(ListPage page, store_->List(user_scope, q));
    for (MemoryItem& item : page.items) {
      if (IsKeptTurn(item)) continue;
      add(std::move(item), &Neighbour::latest);
      break;
    }
  }
  return out;
}

Result<std::vector<Neighbour>> Engine::Impl::FindNeighbours(const Scope& scope,
                                                            const std::string& content,
                                                            const std::string& slot, int k) {
  ENGRAM_RETURN_IF_ERROR(ValidateScope(scope));
  if (content.empty()) return Status::InvalidArgument("content must not be empty");
  Scope user_scope = scope;
  user_scope.session_id.clear();
  ENGRAM_ASSIGN_OR_RETURN(std::vector<float> vector, EmbedOne(content));
  std::vector<Neighbour> out;
  std::set<std::string> seen;
  if (!slot.empty()) {
    ListQuery q;
    q.slot = slot;
    q.limit = kMaxSlotItems;
    ENGRAM_ASSIGN_OR_RETURN(ListPage page, store_->List(user_scope, q));
    for (MemoryItem& item : page.items) {
      Neighbour n;
      auto stored = store_->GetVector(user_scope, item.id, embedder_->model());
      n.similarity = stored.ok() ? Cosine(vector, *stored) : 0;
      n.same_slot = true;
      seen.insert(item.id);
      n.item = std::move(item);
      out.push_back(std::move(n));
    }
  }
  if (k > 0) {
    SearchQuery q;
    q.text = content;
    q.k = std::min(3 * k, 100);  // kept turns are not compared; k others at most
    q.keyword_weight = 0;        // nearest by vector: the decision compares meanings
    q.relevance_weight = 1;
    q.importance_weight = 0;
    q.recency_weight = 0;
    q.context_weight = 0;
    q.session_weight = 0;
    q.time_weight = 0;  // a date in the candidate says when it holds, not which items to compare
    q.diversify = false;
    q.record_access = false;
    q.newest_evidence = false;  // the write path compares what is stored, old and new alike
    q.explain = true;
    ENGRAM_ASSIGN_OR_RETURN(auto hits, Search(user_scope, q));
    int taken = 0;
    for (SearchHit& hit : hits) {
      if (IsKeptTurn(hit.item) || !seen.insert(hit.item.id).second) continue;
      if (taken++ >= k) break;
      Neighbour n;
      n.similarity = hit.explain.vector;
      n.same_slot = !slot.empty() && hit.item.slot == slot;
      n.item = std::move(hit.item);
      out.push_back(std::move(n));
    }
  }
  return out;
}

}  // namespace engram
