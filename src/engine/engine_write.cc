// Engine: the write path's primitives — applying one decided change (ADD, UPDATE, SUPERSEDE,
// NOOP) in one transaction, and finding what a candidate must be compared with.
#include <algorithm>
#include <map>
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

struct Engine::Impl::WriteOps {
  std::vector<StoreOp> ops;
  std::optional<size_t> inserted, target;  // the write's insert and change of its target
};

// A batch's view of an item it inserted or changed, with the item's vector when it has one.
struct BatchView {
  MemoryItem item;
  std::vector<float> vector;
};

struct Engine::WriteBatch::State {
  State(Engine::Impl* impl_in, const Scope& scope_in) : impl(impl_in), scope(scope_in) {
    user_scope = scope;
    user_scope.session_id.clear();  // a write changes items of any session of the user
  }
  Engine::Impl* impl;
  Scope scope, user_scope;
  std::vector<StoreOp> ops;  // every write's, in plan order
  struct Written {
    WriteDecision decision;
    bool by_turn = false;
    std::string id;      // the inserted item, else the target
    std::string target;  // kSupersede, kUpdate, kNoop
  };
  std::vector<Written> writes;
  std::map<std::string, BatchView, std::less<>> view;
  std::vector<std::string> inserted;  // ids, in plan order
  bool spent = false;
};

Result<std::vector<std::vector<float>>> Engine::Impl::EmbedTexts(
    const std::vector<std::string>& texts) {
  if (texts.empty()) return std::vector<std::vector<float>>{};
  ENGRAM_ASSIGN_OR_RETURN(auto vectors, embedder_->Embed(texts));
  if (vectors.size() != texts.size()) return Status::Internal("embedder returned a wrong count");
  for (const std::vector<float>& v : vectors) {
    if (static_cast<int>(v.size()) != embedder_->dimension()) {
      return Status::InvalidArgument("dimension mismatch: the embedder returned a vector of " +
                                     std::to_string(v.size()) + " values, expected " +
                                     std::to_string(embedder_->dimension()));
    }
  }
  return vectors;
}

Result<Engine::Impl::WriteOps> Engine::Impl::BuildWriteOps(const Scope& scope,
                                                           const PlannedWrite& write,
                                                           TimestampMs now) {
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

  WriteOps out;
  std::vector<StoreOp>& ops = out.ops;
  std::optional<StoredVector> vector;
  if (inserts || write.decision == WriteDecision::kUpdate) {
    if (write.memory.content.empty()) return Status::InvalidArgument("content must not be empty");
    std::vector<float> values = write.vector;
    if (values.empty()) {
      ENGRAM_ASSIGN_OR_RETURN(values, EmbedOne(write.memory.content));
    } else if (static_cast<int>(values.size()) != embedder_->dimension()) {
      return Status::InvalidArgument("dimension mismatch: the write's vector has " +
                                     std::to_string(values.size()) + " values, expected " +
                                     std::to_string(embedder_->dimension()));
    }
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
    out.inserted = ops.size();
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
    // The mutations capture by value: a batch applies them once to its own view when planned
    // and again in the store at its commit, after the PlannedWrite is gone.
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
        op.mutation = [m2 = write.memory](MemoryItem& m) -> Result<bool> {
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
        op.mutation = [now, turns = write.turn_ids](MemoryItem& m) -> Result<bool> {
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
    out.target = ops.size();
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
  return out;
}

Status Engine::Impl::CommitWriteOps(const Scope& scope, std::vector<StoreOp>& ops,
                                    TimestampMs now) {
  std::lock_guard<std::mutex> lock(write_mu_);
  ENGRAM_RETURN_IF_ERROR(store_->Apply(scope, ops, now));
  if (auto index = LoadedIndex(scope)) {
    size_t bytes = 0;
    {
      std::unique_lock<std::shared_mutex> index_lock(index->mu);
      // In order: an item a batch inserts and then changes ends as the last op left it.
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
  return Status::Ok();
}

Result<WriteOutcome> Engine::Impl::ApplyWrite(const Scope& scope, const PlannedWrite& write) {
  Engine::WriteBatch batch(std::make_unique<Engine::WriteBatch::State>(this, scope));
  ENGRAM_RETURN_IF_ERROR(batch.Plan(write).status());
  ENGRAM_ASSIGN_OR_RETURN(std::vector<WriteOutcome> outcomes, batch.Commit());
  return std::move(outcomes.front());
}

Result<std::vector<Neighbour>> Engine::Impl::FindNeighbours(const Scope& scope,
                                                            const NeighbourQuery& query) {
  std::vector<float> vector = query.vector;
  if (vector.empty()) {
    ENGRAM_RETURN_IF_ERROR(ValidateScope(scope));
    if (query.content.empty()) return Status::InvalidArgument("content must not be empty");
    ENGRAM_ASSIGN_OR_RETURN(vector, EmbedOne(query.content));
  }
  ENGRAM_ASSIGN_OR_RETURN(std::vector<Neighbour> out,
                          FindNeighbours(scope, query.content, vector, query.slot, query.k));
  Scope user_scope = scope;
  user_scope.session_id.clear();
  std::set<std::string> seen;
  for (const Neighbour& n : out) seen.insert(n.item.id);
  auto similarity = [&](const MemoryItem& item) -> double {
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
  if (query.amounts) {
    for (const char* family : {"user/budget", "user/amount"}) {
      ListQuery q;
      q.slot_family = family;
      q.limit = kMaxSlotItems;
      ENGRAM_ASSIGN_OR_RETURN(ListPage page, store_->List(user_scope, q));
      for (MemoryItem& item : page.items) add(std::move(item), &Neighbour::amount);
    }
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
  ENGRAM_ASSIGN_OR_RETURN(std::vector<float> vector, EmbedOne(content));
  return FindNeighbours(scope, content, vector, slot, k);
}

Result<std::vector<Neighbour>> Engine::Impl::FindNeighbours(const Scope& scope,
                                                            const std::string& content,
                                                            const std::vector<float>& vector,
                                                            const std::string& slot, int k) {
  ENGRAM_RETURN_IF_ERROR(ValidateScope(scope));
  if (content.empty()) return Status::InvalidArgument("content must not be empty");
  Scope user_scope = scope;
  user_scope.session_id.clear();
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
    ENGRAM_ASSIGN_OR_RETURN(auto hits, SearchWithVector(user_scope, q, vector));
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

std::unique_ptr<Engine::WriteBatch> Engine::BeginWrites(const Scope& scope) {
  return std::unique_ptr<WriteBatch>(
      new WriteBatch(std::make_unique<WriteBatch::State>(impl_.get(), scope)));
}

Engine::WriteBatch::WriteBatch(std::unique_ptr<State> state) : state_(std::move(state)) {}
Engine::WriteBatch::~WriteBatch() = default;

Result<std::vector<std::vector<float>>> Engine::WriteBatch::Embed(
    const std::vector<std::string>& texts) {
  return state_->impl->EmbedTexts(texts);
}

Result<WriteOutcome> Engine::WriteBatch::Plan(const PlannedWrite& write) {
  State& st = *state_;
  if (st.spent) return Status::Internal("a write batch planned after its commit");
  ENGRAM_ASSIGN_OR_RETURN(Impl::WriteOps planned,
                          st.impl->BuildWriteOps(st.scope, write, st.impl->Now()));
  // Each operation is applied to the batch's view as the store will apply it at the commit,
  // on copies first: a write that fails leaves the batch as it was.
  std::map<std::string, BatchView, std::less<>> changed;
  for (StoreOp& op : planned.ops) {
    if (op.insert) {
      const std::string id = op.insert->item.id;
      changed[id] = BatchView{op.insert->item, op.insert->vector->values};
      continue;
    }
    BatchView v;
    if (auto it = changed.find(op.id); it != changed.end()) {
      v = it->second;
    } else if (auto at = st.view.find(op.id); at != st.view.end()) {
      v = at->second;
    } else {
      auto stored = st.impl->Get(st.user_scope, op.id);
      if (!stored.ok()) {
        if (op.skip_missing && stored.status().code() == StatusCode::kNotFound) continue;
        return stored.status();
      }
      v.item = std::move(stored).value();
      auto vec = st.impl->GetVector(st.user_scope, op.id, st.impl->options().embedder->model());
      if (vec.ok()) v.vector = std::move(vec).value();
    }
    ENGRAM_ASSIGN_OR_RETURN(bool did, op.mutation(v.item));
    if (!did) continue;
    if (op.vector) v.vector = op.vector->values;
    changed[op.id] = std::move(v);
  }
  State::Written w{write.decision, !write.superseded_by_turn.empty(), "", write.target_id};
  if (planned.inserted) {
    w.id = planned.ops[*planned.inserted].insert->item.id;
    st.inserted.push_back(w.id);
  } else {
    w.id = write.target_id;
  }
  for (auto& [id, v] : changed) st.view[id] = std::move(v);
  for (StoreOp& op : planned.ops) st.ops.push_back(std::move(op));
  st.writes.push_back(w);

  WriteOutcome out;
  out.decision = write.decision;
  if (auto it = st.view.find(w.id); it != st.view.end()) out.memory = it->second.item;
  if (write.decision == WriteDecision::kSupersede) {
    if (auto it = st.view.find(w.target); it != st.view.end()) out.replaced = it->second.item;
  }
  return out;
}

Result<std::vector<Neighbour>> Engine::WriteBatch::FindNeighbours(const NeighbourQuery& given) {
  State& st = *state_;
  NeighbourQuery query = given;
  if (query.vector.empty()) {
    if (query.content.empty()) return Status::InvalidArgument("content must not be empty");
    ENGRAM_ASSIGN_OR_RETURN(auto vectors, st.impl->EmbedTexts({query.content}));
    query.vector = std::move(vectors.front());
  }
  ENGRAM_ASSIGN_OR_RETURN(std::vector<Neighbour> stored, st.impl->FindNeighbours(st.scope, query));
  if (st.view.empty()) return stored;
  // What is stored, as the batch left it: an item it closed is no neighbour any more.
  std::vector<Neighbour> out;
  for (Neighbour& n : stored) {
    if (auto it = st.view.find(n.item.id); it != st.view.end()) {
      if (it->second.item.status != ItemStatus::kActive) continue;
      n.item = it->second.item;
      if (!it->second.vector.empty()) n.similarity = Cosine(query.vector, it->second.vector);
    }
    out.push_back(std::move(n));
  }
  // What the batch inserts, compared as stored items are: those of the slot or its family,
  // stating an ended value, the latest memory, and those at least as near as the k-th.
  std::vector<double> similarities;
  for (const Neighbour& n : out) similarities.push_back(n.similarity);
  std::sort(similarities.begin(), similarities.end(), std::greater<>());
  const double bar = static_cast<int>(similarities.size()) < query.k
                         ? -2.0
                         : similarities[static_cast<size_t>(std::max(query.k, 1)) - 1];
  std::vector<Neighbour> slot_first, rest;
  bool latest = false;
  for (auto id = st.inserted.rbegin(); id != st.inserted.rend(); ++id) {  // newest first
    const BatchView& v = st.view.at(*id);
    if (IsKeptTurn(v.item) || v.item.status != ItemStatus::kActive) continue;
    Neighbour n;
    n.item = v.item;
    n.similarity = Cosine(query.vector, v.vector);
    n.this_message = true;
    n.same_slot = !query.slot.empty() && v.item.slot == query.slot;
    n.same_family = !query.slot.empty() && !v.item.slot.empty() &&
                    FamilyOf(v.item.slot) == FamilyOf(query.slot);
    for (const std::string& value : query.ends) {
      if (!value.empty() && States(v.item.content, value)) n.ended = true;
    }
    if (!latest && query.latest_since > 0 && v.item.created_at >= query.latest_since) {
      n.latest = latest = true;
    }
    if (!n.same_slot && !n.same_family && !n.ended && !n.latest && n.similarity < bar) continue;
    (n.same_slot ? slot_first : rest).push_back(std::move(n));
  }
  if (latest) {
    for (Neighbour& n : out) n.latest = false;  // the batch's newest memory is the latest
  }
  slot_first.insert(slot_first.end(), std::make_move_iterator(out.begin()),
                    std::make_move_iterator(out.end()));
  slot_first.insert(slot_first.end(), std::make_move_iterator(rest.begin()),
                    std::make_move_iterator(rest.end()));
  return slot_first;
}

const MemoryItem* Engine::WriteBatch::Planned(std::string_view id) const {
  auto it = state_->view.find(id);
  return it == state_->view.end() ? nullptr : &it->second.item;
}

std::vector<const MemoryItem*> Engine::WriteBatch::Inserted() const {
  std::vector<const MemoryItem*> out;
  for (const std::string& id : state_->inserted) out.push_back(&state_->view.at(id).item);
  return out;
}

Result<std::vector<WriteOutcome>> Engine::WriteBatch::Commit() {
  State& st = *state_;
  if (st.spent) return Status::Internal("a write batch committed twice");
  st.spent = true;
  if (!st.ops.empty()) {
    ENGRAM_RETURN_IF_ERROR(st.impl->CommitWriteOps(st.scope, st.ops, st.impl->Now()));
  }
  // Each item as the transaction left it: the last operation on it.
  std::map<std::string, const MemoryItem*, std::less<>> stored;
  for (const StoreOp& op : st.ops) {
    if (op.seq != 0) stored[op.result.id] = &op.result;
  }
  std::vector<WriteOutcome> out;
  out.reserve(st.writes.size());
  for (const State::Written& w : st.writes) {
    WriteOutcome o;
    o.decision = w.decision;
    if (auto it = stored.find(w.id); it != stored.end()) o.memory = *it->second;
    if (w.decision == WriteDecision::kSupersede) {
      if (auto it = stored.find(w.target); it != stored.end()) o.replaced = *it->second;
    }
    out.push_back(std::move(o));
  }
  return out;
}

}  // namespace engram
