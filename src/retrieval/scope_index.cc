#include "retrieval/scope_index.h"

#include <algorithm>
#include <functional>
#include <nlohmann/json.hpp>

#include "core/status_macros.h"
#include "engram/lifecycle.h"
#include "index/hnsw_index.h"
#include "index/scan_index.h"
#include "retrieval/entity_graph.h"
#include "retrieval/slot_terms.h"
#include "text/keyword_terms.h"

namespace engram {
namespace {

std::vector<std::pair<std::string, MetadataValue>> FlattenMetadata(const std::string& text) {
  std::vector<std::pair<std::string, MetadataValue>> out;
  if (text.empty() || text == "{}") return out;
  auto j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return out;
  for (const auto& [key, v] : j.items()) {
    if (v.is_null())
      out.emplace_back(key, nullptr);
    else if (v.is_boolean())
      out.emplace_back(key, v.get<bool>());
    else if (v.is_number_integer())
      out.emplace_back(key, v.get<int64_t>());
    else if (v.is_number())
      out.emplace_back(key, v.get<double>());
    else if (v.is_string())
      out.emplace_back(key, v.get<std::string>());
  }
  return out;
}

DocInfo MakeDocInfo(const MemoryItem& m) {
  DocInfo d;
  d.id = m.id;
  d.agent_id = m.scope.agent_id;
  d.session_id = m.scope.session_id;
  d.type = m.type;
  d.tier = m.tier;
  d.status = m.status;
  d.created_at = m.created_at;
  d.valid_from = m.valid_from;
  d.valid_to = m.valid_to;
  d.importance = m.importance;
  d.tags = m.tags;
  d.entities = m.entities;
  d.metadata = FlattenMetadata(m.metadata);
  d.kept_turn = IsKeptTurn(m);
  // One pass over the text for what freshness and the index need (text/topics.h).
  const TextTraits traits = ReadTextTraits(m.content);
  d.topics = TopicOfSlot(m.slot);
  if (!m.slot.empty()) {
    d.about_user = m.slot.starts_with("user/");
    // a slotted statement's kinds are its text's (a schedule slot that names tennis is a sport)
    d.topics |= traits.topics & ManyValuedTopics();
  } else {
    d.topics = traits.topics;
    // A kept turn speaks as the user; an extracted fact names the user ("User …", "用户…").
    const bool names_user = d.kept_turn
                                ? traits.first_person
                                : m.content.starts_with("User") || m.content.starts_with("用户");
    d.about_user = names_user && !traits.others;
  }
  d.past = traits.past;
  d.question = traits.question;
  for (const std::string& id : m.derived_ids) d.derived.push_back(std::hash<std::string>{}(id));
  d.last_used = std::max({m.created_at, m.updated_at, m.last_accessed.value_or(0)});
  d.access_count = m.access_count;
  d.critical_tag = std::find(m.tags.begin(), m.tags.end(), kCriticalTag) != m.tags.end();
  d.expires_at = m.expires_at;
  return d;
}

}  // namespace

// The vector index of a scope with a graph: the HNSW graph plus an exact tail of the vectors
// written since, disjoint (a key in the tail is tombstoned in the graph).
class ScopeIndex::LayeredVectors final : public VectorIndex {
 public:
  // Candidate list of a merge insert. Graphs are built with 100; a vector merged into a built
  // graph finds its neighbours through links that are already good, so half the list gives the
  // same search recall for a much cheaper insert (figures: bench/results/retrieval.md).
  static constexpr size_t kMergeEfConstruction = 50;

  explicit LayeredVectors(std::unique_ptr<HnswIndex> graph)
      : graph_(std::move(graph)), tail_(MakeExactIndex(graph_->dimension())) {}

  size_t tail_size() const { return tail_->size(); }
  size_t waiting() const { return to_merge_.size(); }  // tail keys not yet offered to the graph

  int dimension() const override { return graph_->dimension(); }
  size_t size() const override { return graph_->size() + tail_->size(); }
  Status Upsert(int64_t key, const float* vector) override {
    ENGRAM_RETURN_IF_ERROR(tail_->Upsert(key, vector));
    to_merge_.insert(key);
    return graph_->Remove(key);
  }
  Status Remove(int64_t key) override {
    to_merge_.erase(key);
    ENGRAM_RETURN_IF_ERROR(tail_->Remove(key));
    return graph_->Remove(key);
  }
  bool Get(int64_t key, std::vector<float>* out) const override {
    return tail_->Get(key, out) || graph_->Get(key, out);
  }
  // The tail's rows only: a graph's vector is copied out by Get.
  const float* Peek(int64_t key) const override { return tail_->Peek(key); }
  std::vector<VectorHit> Search(const float* query, size_t k,
                                const KeyFilter& filter) const override {
    std::vector<VectorHit> hits = graph_->Search(query, k, filter);
    if (tail_->size() == 0) return hits;
    std::vector<VectorHit> recent = tail_->Search(query, k, filter);
    hits.insert(hits.end(), recent.begin(), recent.end());
    std::sort(hits.begin(), hits.end(), [](const VectorHit& a, const VectorHit& b) {
      return a.score != b.score ? a.score > b.score : a.key < b.key;
    });
    if (hits.size() > k) hits.resize(k);
    return hits;
  }
  size_t MemoryBytes() const override {
    return graph_->MemoryBytes() + tail_->MemoryBytes() + to_merge_.size() * 48;
  }

  // Moves up to `max` tail vectors into the graph, lowest keys (oldest writes) first, and
  // returns how many wait. A vector the graph refuses stays in the tail, where it is found.
  size_t Merge(size_t max) {
    std::vector<float> v;
    for (size_t done = 0; done < max && !to_merge_.empty(); ++done) {
      const int64_t key = *to_merge_.begin();
      to_merge_.erase(to_merge_.begin());
      if (tail_->Get(key, &v) && graph_->UpsertWithEf(key, v.data(), kMergeEfConstruction).ok()) {
        (void)tail_->Remove(key);
      }
    }
    return to_merge_.size();
  }

  HnswIndex* graph() const { return graph_.get(); }

 private:
  std::unique_ptr<HnswIndex> graph_;
  std::unique_ptr<VectorIndex> tail_;
  std::set<int64_t> to_merge_;  // tail keys not yet offered to the graph
};

ScopeIndex::ScopeIndex(const ScopeIndexOptions& options)
    : options_(options),
      bm25_(options.bm25),
      session_index_(options.bm25),
      vectors_(MakeScanIndex(options.dimension, {.huge_pages = options.huge_pages})) {}

void ScopeIndex::UpdateInfo(int64_t seq, const MemoryItem& item) {
  auto it = docs_.find(seq);
  if (it == docs_.end()) return Upsert(seq, item, nullptr);
  NoteChange();
  DocInfo& doc = it->second;
  if (doc.status != ItemStatus::kActive) --inactive_;
  doc = MakeDocInfo(item);
  if (doc.status != ItemStatus::kActive) ++inactive_;
  NoteStatus(doc, &item);
}

void ScopeIndex::NoteStatus(const DocInfo& doc, const MemoryItem* item) {
  const uint64_t h = std::hash<std::string>{}(doc.id);
  if (item && doc.status == ItemStatus::kSuperseded) {
    replaced_[h] = item->superseded_by;
  } else {
    replaced_.erase(h);
  }
}

const std::string* ScopeIndex::ReplacedBy(uint64_t id_hash) const {
  auto it = replaced_.find(id_hash);
  return it == replaced_.end() ? nullptr : &it->second;
}

void ScopeIndex::NoteChange() {
  ++change_generation_;
  entity_graph_.reset();
  entity_graph_bytes_ = 0;
}

void ScopeIndex::SetEntityGraph(std::shared_ptr<const EntityGraph> graph, uint64_t generation) {
  if (generation != change_generation_) return;
  entity_graph_bytes_ = graph ? graph->MemoryBytes() : 0;
  entity_graph_ = std::move(graph);
}

void ScopeIndex::Upsert(int64_t seq, const MemoryItem& item, const std::vector<float>* vector) {
  NoteChange();
  // DocInfo keeps no content, so the text is re-indexed whenever the item is given.
  RemoveFromSession(seq);
  DocInfo& doc = docs_[seq];
  if (doc.status != ItemStatus::kActive) --inactive_;  // a new entry starts active
  doc = MakeDocInfo(item);
  if (doc.status != ItemStatus::kActive) ++inactive_;
  NoteStatus(doc, &item);
  if (!item.scope.session_id.empty()) {
    sessions_[item.scope.session_id].insert({item.created_at, seq});
  }
  std::vector<std::string> terms = KeywordTerms(item.content);
  if (!item.slot.empty()) {
    // Questions name the attribute a fact fills ("what's my job?"); the fact names its value.
    for (std::string& t : KeywordTerms(SlotSearchText(item.slot))) terms.push_back(std::move(t));
    // … and the kind of what it names ("what sports do I do?" for "plays tennis on weekends")
    if (doc.about_user && !doc.past && !doc.question) {
      for (const std::string& word :
           QuestionWordsOfTopics(doc.topics & ManyValuedTopics() & ~TopicOfSlot(item.slot))) {
        for (std::string& t : KeywordTerms(word)) terms.push_back(std::move(t));
      }
    }
  } else if (doc.about_user && doc.topics != 0 && !doc.past && !doc.question &&
             doc.derived.empty()) {
    // So does a statement no rule gave a slot (a fact without one, a kept turn nothing was
    // extracted from): "got hired at Costco as a baker" answers "where do I work now?" by the
    // words asked about its topic. Not a question, nor a statement about the past.
    for (const std::string& word : QuestionWordsOfTopics(doc.topics)) {
      for (std::string& t : KeywordTerms(word)) terms.push_back(std::move(t));
    }
  }
  if (item.scope.session_id.empty()) {
    session_index_.Remove(seq);
  } else {
    session_index_.Add(seq, item.scope.session_id, terms);
  }
  bm25_.Add(seq, terms);
  if (vector && static_cast<int>(vector->size()) == options_.dimension) {
    (void)vectors_->Upsert(seq, vector->data());
    ++vector_generation_;
    NoteVectorChange(seq);
  }
}

void ScopeIndex::NoteVectorChange(int64_t seq) {
  if (graph_state_ == GraphState::kBuilding) changed_during_build_.insert(seq);
}

void ScopeIndex::RemoveFromSession(int64_t seq) {
  auto it = docs_.find(seq);
  if (it == docs_.end() || it->second.session_id.empty()) return;
  auto session = sessions_.find(it->second.session_id);
  if (session == sessions_.end()) return;
  session->second.erase({it->second.created_at, seq});
  if (session->second.empty()) sessions_.erase(session);
}

std::pair<int64_t, int64_t> ScopeIndex::SessionNeighbours(int64_t seq, const DocInfo& doc) const {
  if (doc.session_id.empty()) return {0, 0};
  auto session = sessions_.find(doc.session_id);
  if (session == sessions_.end()) return {0, 0};
  const auto& order = session->second;
  auto it = order.find({doc.created_at, seq});
  if (it == order.end()) return {0, 0};
  int64_t before = it == order.begin() ? 0 : std::prev(it)->second;
  int64_t after = std::next(it) == order.end() ? 0 : std::next(it)->second;
  return {before, after};
}

void ScopeIndex::Remove(int64_t seq) {
  NoteChange();
  RemoveFromSession(seq);
  auto doc = docs_.find(seq);
  if (doc != docs_.end()) {
    if (doc->second.status != ItemStatus::kActive) --inactive_;
    NoteStatus(doc->second, nullptr);
    docs_.erase(doc);
  }
  session_index_.Remove(seq);
  bm25_.Remove(seq);
  (void)vectors_->Remove(seq);
  ++vector_generation_;
  NoteVectorChange(seq);
}

void ScopeIndex::AdoptVectors(std::unique_ptr<HnswIndex> vectors) {
  auto layered = std::make_unique<LayeredVectors>(std::move(vectors));
  layered_ = layered.get();
  vectors_ = std::move(layered);
}

const HnswIndex* ScopeIndex::hnsw() const { return layered_ ? layered_->graph() : nullptr; }

size_t ScopeIndex::tail_size() const { return layered_ ? layered_->tail_size() : 0; }

bool ScopeIndex::RequestMerge() {
  if (merge_requested_ || !layered_ || layered_->waiting() == 0) return false;
  merge_requested_ = true;
  return true;
}

size_t ScopeIndex::MergeTail(size_t max) {
  const size_t remaining = layered_ ? layered_->Merge(max) : 0;
  if (remaining == 0) merge_requested_ = false;
  return remaining;
}

// A DocInfo with its strings (ids are 36 bytes), its map node and its place in a session:
// about 400 bytes before tags, entities and metadata, which are usually short.
size_t ScopeIndex::MemoryBytes() const {
  constexpr size_t kDocBytes = 400;
  return docs_.size() * kDocBytes + replaced_.size() * 80 + bm25_.MemoryBytes() +
         vectors_->MemoryBytes() + entity_graph_bytes_;
}

const DocInfo* ScopeIndex::Find(int64_t seq) const {
  auto it = docs_.find(seq);
  return it == docs_.end() ? nullptr : &it->second;
}

bool ScopeIndex::RequestGraph() {
  if (layered_ || graph_state_ != GraphState::kNone) return false;
  if (vectors_->size() < options_.hnsw_threshold) return false;
  graph_state_ = GraphState::kRequested;
  return true;
}

VectorSet ScopeIndex::BeginGraphBuild() {
  VectorSet set;
  for (const auto& [seq, doc] : docs_) set.keys.push_back(seq);
  std::sort(set.keys.begin(), set.keys.end());
  const size_t dim = static_cast<size_t>(options_.dimension);
  set.data.reserve(vectors_->size() * dim);
  std::vector<float> v;
  size_t kept = 0;
  for (int64_t seq : set.keys) {
    if (!vectors_->Get(seq, &v)) continue;  // an item without a vector of this model
    set.keys[kept++] = seq;
    set.data.insert(set.data.end(), v.begin(), v.end());
  }
  set.keys.resize(kept);
  graph_state_ = GraphState::kBuilding;
  changed_during_build_.clear();
  return set;
}

std::vector<VectorChange> ScopeIndex::TakeVectorChanges() {
  std::vector<VectorChange> changes;
  changes.reserve(changed_during_build_.size());
  for (int64_t seq : changed_during_build_) {
    VectorChange c{seq, std::vector<float>()};
    if (!vectors_->Get(seq, &*c.vector)) c.vector.reset();
    changes.push_back(std::move(c));
  }
  changed_during_build_.clear();
  return changes;
}

void ScopeIndex::EndGraphBuild(std::unique_ptr<HnswIndex> graph, bool retry_later) {
  changed_during_build_.clear();
  if (graph) {
    AdoptVectors(std::move(graph));
    graph_state_ = GraphState::kNone;
  } else {
    graph_state_ = retry_later ? GraphState::kNone : GraphState::kFailed;
  }
}

}  // namespace engram
