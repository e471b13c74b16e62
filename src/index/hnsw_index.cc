// HNSW index over hnswlib 0.6.2, and its snapshot file (layout: hnsw_index.h).
#include "index/hnsw_index.h"

#include <fcntl.h>
#include <hnswlib/hnswlib.h>
#include <sodium.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <mutex>
#include <new>
#include <stdexcept>
#include <thread>
#include <type_traits>
#include <utility>

#include "core/status_macros.h"
#include "index/dot_product.h"

namespace engram {
namespace {

using Graph = hnswlib::HierarchicalNSW<float>;

static_assert(sizeof(hnswlib::labeltype) == sizeof(int64_t), "keys map 1:1 onto hnswlib labels");
static_assert(std::endian::native == std::endian::little, "the hnswlib payload is native-endian");

constexpr int kMaxDimension = 65536;
constexpr size_t kMaxM = 1024;
constexpr int kMaxGraphSearches = 4;  // per filtered Search, before the exact scan
constexpr char kMagic[8] = {'E', 'N', 'G', 'R', 'A', 'M', 'H', 'N'};
constexpr char kSealedMagic[8] = {'E', 'N', 'G', 'R', 'A', 'M', 'H', 'S'};
constexpr uint32_t kFormatVersion = 1;
constexpr size_t kFixedHeaderSize = 64;  // header length without the model name
constexpr size_t kMaxModelLength = 4096;
constexpr size_t kGraphPreambleSize = 96;  // saveIndex's 13 leading scalars
constexpr size_t kCopyChunk = size_t{1} << 20;

// Maps whatever hnswlib or the allocator threw to a Status. Call only inside a catch block.
Status CurrentExceptionStatus(const std::string& what) {
  try {
    throw;
  } catch (const std::bad_alloc&) {
    return Status::Unavailable("hnsw " + what + ": out of memory");
  } catch (const std::exception& e) {
    return Status::Internal("hnsw " + what + ": " + e.what());
  } catch (...) {
    return Status::Internal("hnsw " + what + ": unknown exception");
  }
}

Status ValidateOptions(const HnswOptions& o) {
  if (o.dimension < 1 || o.dimension > kMaxDimension) {
    return Status::InvalidArgument("hnsw: dimension must be 1..65536, got " +
                                   std::to_string(o.dimension));
  }
  if (o.M < 2 || o.M > kMaxM) {
    return Status::InvalidArgument("hnsw: M must be 2..1024, got " + std::to_string(o.M));
  }
  if (o.ef_construction < 1 || o.initial_capacity < 1) {
    return Status::InvalidArgument("hnsw: ef_construction and initial_capacity must be >= 1");
  }
  return Status::Ok();
}

// hnswlib 0.6.2 leaves num_deleted_ uninitialized when loading (then counts onto it).
void RecountTombstones(Graph& graph) {
  graph.num_deleted_ = 0;
  for (hnswlib::tableint id = 0; id < graph.cur_element_count; ++id) {
    if (graph.isMarkedDeleted(id)) ++graph.num_deleted_;
  }
}

// hnswlib's inner-product space with engram's distance function. hnswlib picks its SIMD code
// when it is compiled, so a portable build (no -mavx) gets SSE with one running sum, bound by
// addition latency; InnerProduct chooses AVX2 at load time and keeps 32 partial sums, which
// hide that latency. Same distance (1 - inner product) up to float rounding, so graphs
// and snapshots are interchangeable with hnswlib's own space.
class DotProductSpace final : public hnswlib::SpaceInterface<float> {
 public:
  explicit DotProductSpace(size_t dimension) : dimension_(dimension) {}
  size_t get_data_size() override { return dimension_ * sizeof(float); }
  hnswlib::DISTFUNC<float> get_dist_func() override { return &Distance; }
  void* get_dist_func_param() override { return &dimension_; }

 private:
  static float Distance(const void* a, const void* b, const void* dimension) {
    return 1.0f - InnerProduct(static_cast<const float*>(a), static_cast<const float*>(b),
                               *static_cast<const size_t*>(dimension));
  }
  size_t dimension_;
};

}  // namespace

HnswIndex::HnswIndex(const HnswOptions& options, std::unique_ptr<Space> space,
                     std::unique_ptr<Graph> graph)
    : options_(options),
      space_(std::move(space)),
      graph_(std::move(graph)),
      codes_(static_cast<size_t>(options.dimension)) {
  graph_->metric_distance_computations = 0;  // never initialized by hnswlib
  graph_->metric_hops = 0;
  live_ = graph_->cur_element_count - graph_->num_deleted_;
  key_of_node_.resize(graph_->cur_element_count);
  for (hnswlib::tableint id = 0; id < graph_->cur_element_count; ++id) {
    key_of_node_[id] =
        graph_->isMarkedDeleted(id) ? -1 : static_cast<int64_t>(graph_->getExternalLabel(id));
  }
  QuantizeAllNodes();
}

void HnswIndex::QuantizeAllNodes() {
  codes_.Resize(graph_->max_elements_);
  for (hnswlib::tableint id = 0; id < graph_->cur_element_count; ++id) {
    codes_.Set(id, reinterpret_cast<const float*>(graph_->getDataByInternalId(id)));
  }
}

size_t EfSearchForSize(size_t nodes) {
  constexpr double kBase = 64, kBaseNodes = 10'000, kPerDecade = 170;
  if (nodes <= kBaseNodes) return static_cast<size_t>(kBase);
  return static_cast<size_t>(kBase +
                             kPerDecade * std::log10(static_cast<double>(nodes) / kBaseNodes));
}

size_t HnswIndex::effective_ef_search() const {
  return options_.ef_search != kAutoEfSearch ? options_.ef_search : EfSearchForSize(live_);
}

HnswIndex::~HnswIndex() = default;

Result<std::unique_ptr<HnswIndex>> HnswIndex::Create(const HnswOptions& options) {
  ENGRAM_RETURN_IF_ERROR(ValidateOptions(options));
  try {
    auto space = std::make_unique<DotProductSpace>(static_cast<size_t>(options.dimension));
    auto graph = std::make_unique<Graph>(space.get(), options.initial_capacity, options.M,
                                         options.ef_construction);
    return std::unique_ptr<HnswIndex>(new HnswIndex(options, std::move(space), std::move(graph)));
  } catch (...) {
    return CurrentExceptionStatus("create");
  }
}

Result<std::unique_ptr<HnswIndex>> HnswIndex::Build(const HnswOptions& options,
                                                    const HnswBuildInput& input) {
  HnswOptions sized = options;
  sized.initial_capacity = std::max(options.initial_capacity, input.count);
  ENGRAM_ASSIGN_OR_RETURN(std::unique_ptr<HnswIndex> index, Create(sized));
  index->options_.initial_capacity = options.initial_capacity;
  std::atomic<size_t> next{0};
  const int threads = std::clamp(input.threads, 1, 64);
  std::vector<Status> errors(static_cast<size_t>(threads));
  std::vector<std::thread> helpers;
  for (int t = 1; t < threads; ++t) {
    helpers.emplace_back([&, t] { errors[t] = index->InsertRows(input, &next); });
  }
  errors[0] = index->InsertRows(input, &next);
  for (std::thread& h : helpers) h.join();
  for (const Status& e : errors) ENGRAM_RETURN_IF_ERROR(e);
  if (input.cancel && input.cancel->load()) return Status::Unavailable("hnsw build: cancelled");
  Graph& g = *index->graph_;
  index->key_of_node_.assign(g.cur_element_count, -1);
  for (hnswlib::tableint id = 0; id < g.cur_element_count; ++id) {
    index->key_of_node_[id] = static_cast<int64_t>(g.getExternalLabel(id));
  }
  index->live_ = g.cur_element_count;
  index->QuantizeAllNodes();
  return index;
}

// Claims rows in small chunks from `next`, so threads share the work evenly, until the input
// is exhausted, an insert fails, or the build is cancelled.
Status HnswIndex::InsertRows(const HnswBuildInput& input, std::atomic<size_t>* next) {
  constexpr size_t kChunk = 64;
  const size_t dim = static_cast<size_t>(options_.dimension);
  try {
    for (;;) {
      if (input.cancel && input.cancel->load(std::memory_order_relaxed)) return Status::Ok();
      const size_t begin = next->fetch_add(kChunk);
      if (begin >= input.count) return Status::Ok();
      for (size_t i = begin; i < std::min(begin + kChunk, input.count); ++i) {
        const float* v = input.data + i * dim;
        if (input.keys[i] < 0 ||
            !std::all_of(v, v + dim, [](float x) { return std::isfinite(x); })) {
          next->store(input.count);  // the others stop at their next chunk
          return Status::InvalidArgument("hnsw build: bad key or vector for key " +
                                         std::to_string(input.keys[i]));
        }
        graph_->addPoint(v, static_cast<hnswlib::labeltype>(input.keys[i]));
      }
    }
  } catch (...) {
    next->store(input.count);
    return CurrentExceptionStatus("build");
  }
}

Result<std::unique_ptr<VectorIndex>> MakeHnswIndex(const HnswOptions& options) {
  ENGRAM_ASSIGN_OR_RETURN(std::unique_ptr<HnswIndex> index, HnswIndex::Create(options));
  return std::unique_ptr<VectorIndex>(std::move(index));
}

void HnswIndex::set_ef_search(size_t ef_search) { options_.ef_search = ef_search; }

bool HnswIndex::Get(int64_t key, std::vector<float>* out) const {
  if (key < 0 || out == nullptr) return false;
  auto it = graph_->label_lookup_.find(static_cast<hnswlib::labeltype>(key));
  if (it == graph_->label_lookup_.end() || graph_->isMarkedDeleted(it->second)) return false;
  const auto* data = reinterpret_cast<const float*>(graph_->getDataByInternalId(it->second));
  out->assign(data, data + options_.dimension);
  return true;
}

size_t HnswIndex::capacity() const { return graph_->max_elements_; }

// Per allocated node: a lock, a level and a link pointer (constructed at allocation); per used
// node: its level-0 record (vector, links, label), a label-map node, our key, and upper-level
// links for the 1/M of nodes that have them. The level-0 records of unused nodes are counted
// out: growing reallocates them untouched, and the kernel backs pages when first written, so
// a graph that just doubled its capacity does not look twice as large (which evicted other
// scopes' indexes at 100 users × 10k memories after their first adds).
size_t HnswIndex::MemoryBytes() const {
  const Graph& g = *graph_;
  const size_t per_allocated = sizeof(std::mutex) + sizeof(int) + sizeof(void*);
  const size_t per_used =
      g.size_data_per_element_ + 40 + sizeof(int64_t) + g.size_links_per_element_ / options_.M + 1;
  return g.max_elements_ * per_allocated + g.cur_element_count * per_used + codes_.MemoryBytes();
}
size_t HnswIndex::deleted_count() const { return graph_->num_deleted_; }

void HnswIndex::GrowIfFull() {
  if (graph_->cur_element_count < graph_->max_elements_) return;
  graph_->resizeIndex(std::max(graph_->max_elements_ * 2, options_.initial_capacity));
}

Status HnswIndex::Upsert(int64_t key, const float* vector) {
  if (key < 0) return Status::InvalidArgument("hnsw: negative key " + std::to_string(key));
  if (vector == nullptr) return Status::InvalidArgument("hnsw: null vector");
  for (int i = 0; i < options_.dimension; ++i) {
    if (!std::isfinite(vector[i])) {
      return Status::InvalidArgument("hnsw: non-finite component " + std::to_string(i) +
                                     " in the vector of key " + std::to_string(key));
    }
  }
  const auto label = static_cast<hnswlib::labeltype>(key);
  try {
    auto it = graph_->label_lookup_.find(label);
    const bool is_new = it == graph_->label_lookup_.end();
    const bool was_removed = !is_new && graph_->isMarkedDeleted(it->second);
    if (is_new) GrowIfFull();
    graph_->addPoint(vector, label);  // replaces (and un-deletes) an existing label
    const hnswlib::tableint id = graph_->label_lookup_.at(label);
    if (id >= key_of_node_.size()) key_of_node_.resize(id + 1, -1);
    key_of_node_[id] = key;
    codes_.Set(id, vector);
    if (is_new || was_removed) ++live_;
    return Status::Ok();
  } catch (...) {
    return CurrentExceptionStatus("upsert");
  }
}

Status HnswIndex::UpsertWithEf(int64_t key, const float* vector, size_t ef_construction) {
  const size_t saved = graph_->ef_construction_;
  graph_->ef_construction_ = std::max(ef_construction, options_.M);
  Status st = Upsert(key, vector);  // never throws: hnswlib errors become a Status
  graph_->ef_construction_ = saved;
  return st;
}

Status HnswIndex::Remove(int64_t key) {
  if (key < 0) return Status::InvalidArgument("hnsw: negative key " + std::to_string(key));
  const auto label = static_cast<hnswlib::labeltype>(key);
  auto it = graph_->label_lookup_.find(label);
  if (it == graph_->label_lookup_.end() || graph_->isMarkedDeleted(it->second)) {
    return Status::Ok();
  }
  try {
    graph_->markDelete(label);
  } catch (...) {
    return CurrentExceptionStatus("remove");
  }
  // Hard deletion: the tombstone keeps its links for navigation, not the vector.
  std::memset(graph_->getDataByInternalId(it->second), 0, graph_->data_size_);
  codes_.Clear(it->second);
  key_of_node_[it->second] = -1;
  --live_;
  return Status::Ok();
}

namespace {

// After a graph search returned `seen` candidates of which `passed` passed the filter: how many
// candidates the next graph search needs, or 0 if scoring the passing nodes exactly is cheaper.
// The cost model, in units of one distance computation at dimension 384: a graph search ~4*M
// per candidate (its links are read at random addresses, with heap work around each); an exact
// scan ~1/4 per node (a filter call, about a hash lookup) plus 1 per passing node.
size_t NextCandidates(size_t k, size_t seen, size_t passed, size_t nodes, size_t M) {
  const double pass_rate = std::max(static_cast<double>(passed), 0.5) / static_cast<double>(seen);
  const double want =
      std::max(1.25 * static_cast<double>(k) / pass_rate, 2.0 * static_cast<double>(seen));
  const double graph_cost = want * 4.0 * static_cast<double>(M);
  const double exact_cost = static_cast<double>(nodes) * (0.25 + pass_rate);
  if (want >= static_cast<double>(nodes) || graph_cost > exact_cost) return 0;
  return static_cast<size_t>(want);
}

}  // namespace

std::vector<VectorHit> HnswIndex::Search(const float* query, size_t k,
                                         const KeyFilter& filter) const {
  if (query == nullptr || k == 0 || live_ == 0) return {};
  try {
    const size_t nodes = graph_->cur_element_count;
    // The graph search visits ef_search candidates anyway: asking for them all costs nothing.
    size_t candidates = std::min(std::max(k, effective_ef_search()), nodes);
    for (int attempt = 0; attempt < kMaxGraphSearches && candidates > 0; ++attempt) {
      size_t seen = 0;
      std::vector<VectorHit> hits = SearchGraph(query, candidates, filter, &seen);
      if (hits.size() >= k || (!filter && hits.size() >= live_)) {
        hits.resize(std::min(hits.size(), k));
        return hits;
      }
      candidates = NextCandidates(k, std::max<size_t>(seen, 1), hits.size(), nodes, options_.M);
    }
    return SearchExact(query, k, filter);
  } catch (...) {
    return {};  // hnswlib threw: a bug or out of memory; Search has no error channel
  }
}

std::vector<VectorHit> HnswIndex::SearchGraph(const float* query, size_t candidates,
                                              const KeyFilter& filter, size_t* seen) const {
  const size_t dim = static_cast<size_t>(options_.dimension);
  thread_local std::vector<int8_t> query_codes;
  query_codes.resize(dim);
  const float query_scale = QuantizeInt8(query, dim, query_codes.data());
  const size_t ef = std::max(effective_ef_search(), candidates);
  std::vector<uint32_t> nodes;
  if (quantized_traversal_) {
    nodes = TraverseQuantized(query_codes.data(), query_scale, ef);
  } else {
    for (auto queue = graph_->searchKnn(query, ef); !queue.empty(); queue.pop()) {
      nodes.push_back(graph_->label_lookup_.at(queue.top().second));
    }
  }
  *seen = nodes.size();
  // Re-rank with the float vectors: scores are exact, and so is the order among the nodes.
  std::vector<VectorHit> hits;
  hits.reserve(nodes.size());
  for (uint32_t id : nodes) {
    const int64_t key = key_of_node_[id];
    if (filter && !filter(key)) continue;
    const auto* row = reinterpret_cast<const float*>(graph_->getDataByInternalId(id));
    hits.push_back({key, InnerProduct(query, row, dim)});
  }
  auto better = [](const VectorHit& a, const VectorHit& b) {
    return a.score != b.score ? a.score > b.score : a.key < b.key;
  };
  if (hits.size() > candidates) {
    std::partial_sort(hits.begin(), hits.begin() + static_cast<ptrdiff_t>(candidates), hits.end(),
                      better);
    hits.resize(candidates);
  } else {
    std::sort(hits.begin(), hits.end(), better);
  }
  return hits;
}

namespace {

struct Near {
  float distance;  // -(approximate inner product): smaller is nearer
  uint32_t id;
};
struct Nearer {  // min-heap order: the nearest on top
  bool operator()(const Near& a, const Near& b) const { return a.distance > b.distance; }
};
struct Farther {  // max-heap order: the farthest on top
  bool operator()(const Near& a, const Near& b) const { return a.distance < b.distance; }
};

// Visited marks for one thread's searches: a generation tag per node, so nothing is cleared
// between searches (only when the 16-bit tag wraps).
class VisitedMarks {
 public:
  void Begin(size_t nodes) {
    if (marks_.size() < nodes) marks_.resize(nodes, 0);
    if (++tag_ == 0) {
      std::fill(marks_.begin(), marks_.end(), 0);
      tag_ = 1;
    }
  }
  // True the first time `id` is seen in this search.
  bool Visit(uint32_t id) {
    if (marks_[id] == tag_) return false;
    marks_[id] = tag_;
    return true;
  }
  const uint16_t* at(uint32_t id) const { return marks_.data() + id; }

 private:
  std::vector<uint16_t> marks_;
  uint16_t tag_ = 0;
};

void PrefetchRow(const int8_t* row, size_t bytes) {
  for (size_t offset = 0; offset < bytes; offset += 64) __builtin_prefetch(row + offset);
}

}  // namespace

// hnswlib's searchKnn (greedy descent through the upper layers, then a best-first search of
// layer 0 keeping the ef nearest), with distances from the int8 rows and prefetching of the
// next neighbour's row. The graph's float rows are not read at all.
std::vector<uint32_t> HnswIndex::TraverseQuantized(const int8_t* query, float query_scale,
                                                   size_t ef) const {
  const Graph& g = *graph_;
  const size_t row_bytes = codes_.dimension();
  auto distance = [&](uint32_t id) { return -codes_.Dot(query, query_scale, id); };
  uint32_t current = g.enterpoint_node_;
  float current_distance = distance(current);
  for (int level = g.maxlevel_; level > 0; --level) {
    for (bool changed = true; changed;) {
      changed = false;
      auto* links = g.get_linklist(current, level);
      const int count = g.getListCount(links);
      for (int i = 1; i <= count; ++i) {
        const float d = distance(links[i]);
        if (d < current_distance) current_distance = d, current = links[i], changed = true;
      }
    }
  }
  thread_local VisitedMarks visited;
  visited.Begin(g.cur_element_count);
  std::vector<Near> frontier, best;  // heaps: Nearer, Farther
  frontier.reserve(ef * 4);
  best.reserve(ef + 1);
  float bound = std::numeric_limits<float>::max();  // distance of the worst kept node
  auto keep = [&](uint32_t id, float d) {
    frontier.push_back({d, id});
    std::push_heap(frontier.begin(), frontier.end(), Nearer());
    __builtin_prefetch(g.get_linklist0(frontier.front().id));  // likely the next node expanded
    if (key_of_node_[id] >= 0) {
      best.push_back({d, id});
      std::push_heap(best.begin(), best.end(), Farther());
      if (best.size() > ef) {
        std::pop_heap(best.begin(), best.end(), Farther());
        best.pop_back();
      }
    }
    if (!best.empty()) bound = best.front().distance;
  };
  visited.Visit(current);
  keep(current, current_distance);
  const bool has_tombstones = g.num_deleted_ > 0;
  while (!frontier.empty()) {
    const Near next = frontier.front();
    if (next.distance > bound && (best.size() == ef || !has_tombstones)) break;
    std::pop_heap(frontier.begin(), frontier.end(), Nearer());
    frontier.pop_back();
    auto* links = g.get_linklist0(next.id);
    const int count = g.getListCount(links);
    if (count > 0) PrefetchRow(codes_.codes(links[1]), row_bytes);
    for (int i = 1; i <= count; ++i) {
      const uint32_t id = links[i];
      if (i < count) {
        PrefetchRow(codes_.codes(links[i + 1]), row_bytes);
        __builtin_prefetch(visited.at(links[i + 1]));
      }
      if (!visited.Visit(id)) continue;
      const float d = distance(id);
      if (best.size() < ef || d < bound) keep(id, d);
    }
  }
  std::vector<uint32_t> ids;
  ids.reserve(best.size());
  for (const Near& n : best) ids.push_back(n.id);
  return ids;
}

std::vector<VectorHit> HnswIndex::SearchExact(const float* query, size_t k,
                                              const KeyFilter& filter) const {
  const Graph& g = *graph_;
  auto worse = [](const VectorHit& a, const VectorHit& b) { return a.score > b.score; };
  std::vector<VectorHit> heap;  // the k best so far, worst on top
  // key_of_node_ is dense: the scan touches a node's record only if its key passes.
  for (size_t id = 0; id < key_of_node_.size(); ++id) {
    const int64_t key = key_of_node_[id];
    if (key < 0 || (filter && !filter(key))) continue;
    const float score =
        1.0f - g.fstdistfunc_(query, g.getDataByInternalId(static_cast<hnswlib::tableint>(id)),
                              g.dist_func_param_);
    if (heap.size() < k) {
      heap.push_back({key, score});
      std::push_heap(heap.begin(), heap.end(), worse);
    } else if (score > heap.front().score) {
      std::pop_heap(heap.begin(), heap.end(), worse);
      heap.back() = {key, score};
      std::push_heap(heap.begin(), heap.end(), worse);
    }
  }
  std::sort_heap(heap.begin(), heap.end(), worse);
  return heap;
}

namespace {  // snapshot helpers: encoding, CRC-32, files, header, graph payload

void PutU32(std::string* out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<char>(v >> (8 * i)));
}
void PutU64(std::string* out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out->push_back(static_cast<char>(v >> (8 * i)));
}
uint64_t GetLE(const char* p, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | static_cast<uint8_t>(p[i]);
  return v;
}
uint32_t GetU32(const char* p) { return static_cast<uint32_t>(GetLE(p, 4)); }
uint64_t GetU64(const char* p) { return GetLE(p, 8); }

// CRC-32 as in zlib/PNG (reflected, polynomial 0xEDB88320). zlib is not linked into engram_core;
// a table-driven loop (~0.5-1 GB/s) is fast enough next to building or loading the graph.
constexpr std::array<uint32_t, 256> MakeCrcTable() {
  std::array<uint32_t, 256> table{};
  for (uint32_t n = 0; n < 256; ++n) {
    uint32_t c = n;
    for (int bit = 0; bit < 8; ++bit) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    table[n] = c;
  }
  return table;
}
constexpr std::array<uint32_t, 256> kCrcTable = MakeCrcTable();

// Continues `crc` (0 to start) over `n` bytes.
uint32_t Crc32(uint32_t crc, const char* data, size_t n) {
  crc = ~crc;
  for (size_t i = 0; i < n; ++i)
    crc = kCrcTable[(crc ^ static_cast<uint8_t>(data[i])) & 0xFFu] ^ (crc >> 8);
  return ~crc;
}

std::string ErrnoText() { return std::strerror(errno); }

class ScopedFd {
 public:
  explicit ScopedFd(int fd) : fd_(fd) {}
  ScopedFd(ScopedFd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  ~ScopedFd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }
  Status SyncAndClose(const std::string& path) {
    const bool ok = ::fsync(fd_) == 0;
    const int fd = std::exchange(fd_, -1);
    if (::close(fd) != 0 || !ok) return Status::IOError("fsync " + path + ": " + ErrnoText());
    return Status::Ok();
  }

 private:
  int fd_;
};

// A file name unlinked when it goes out of scope, unless released (after a rename).
class ScratchName {
 public:
  explicit ScratchName(std::string path, bool owned = true)
      : path_(owned ? std::move(path) : ""), shown_(owned ? "" : std::move(path)) {}
  ScratchName(ScratchName&& other) noexcept
      : path_(std::exchange(other.path_, "")), shown_(std::move(other.shown_)) {}
  ~ScratchName() {
    if (!path_.empty()) ::unlink(path_.c_str());
  }
  const std::string& path() const { return path_.empty() ? shown_ : path_; }
  void Release() {
    shown_ = path_;
    path_.clear();
  }

 private:
  std::string path_;   // unlinked at the end
  std::string shown_;  // a name not ours to unlink (a memory file's /proc path)
};

struct Scratch {
  ScratchName name;  // declared first: the descriptor closes before the unlink
  ScopedFd fd;
};

Result<Scratch> MakeScratch(const std::string& prefix) {
  std::string name = prefix + "XXXXXX";
  const int fd = ::mkostemp(name.data(), O_CLOEXEC);
  if (fd < 0) return Status::IOError("create " + name + ": " + ErrnoText());
  return Scratch{ScratchName(name), ScopedFd(fd)};
}

// A file in memory (memfd), reachable by path as /proc/self/fd/N for hnswlib, which opens
// paths only: where a sealed snapshot's plaintext goes, so it never reaches a disk.
Result<Scratch> MakeMemoryScratch(const char* what) {
  const int fd = ::memfd_create(what, MFD_CLOEXEC);
  if (fd < 0) return Status::IOError(std::string("memfd_create: ") + ErrnoText());
  return Scratch{ScratchName("/proc/self/fd/" + std::to_string(fd), false), ScopedFd(fd)};
}

Status WriteAll(int fd, const char* data, size_t n, const std::string& path) {
  while (n > 0) {
    const ssize_t w = ::write(fd, data, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return Status::IOError("write " + path + ": " + ErrnoText());
    data += w;
    n -= static_cast<size_t>(w);
  }
  return Status::Ok();
}

// Reads up to `n` bytes; fewer only at the end of the file.
Result<size_t> ReadUpTo(int fd, char* data, size_t n, const std::string& path) {
  size_t done = 0;
  while (done < n) {
    const ssize_t r = ::read(fd, data + done, n - done);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return Status::IOError("read " + path + ": " + ErrnoText());
    if (r == 0) break;
    done += static_cast<size_t>(r);
  }
  return done;
}

// Copies `length` bytes from the current offsets and returns their CRC-32.
Result<uint32_t> CopyWithCrc(int from, const std::string& from_path, int to,
                             const std::string& to_path, uint64_t length) {
  std::vector<char> buffer(kCopyChunk);
  uint32_t crc = 0;
  while (length > 0) {
    const size_t want = static_cast<size_t>(std::min<uint64_t>(length, buffer.size()));
    ENGRAM_ASSIGN_OR_RETURN(size_t got, ReadUpTo(from, buffer.data(), want, from_path));
    if (got < want) return Status::IOError("read " + from_path + ": file ended early");
    crc = Crc32(crc, buffer.data(), got);
    ENGRAM_RETURN_IF_ERROR(WriteAll(to, buffer.data(), got, to_path));
    length -= got;
  }
  return crc;
}

Status SyncParentDirectory(const std::string& path) {
  std::string dir = std::filesystem::path(path).parent_path().string();
  if (dir.empty()) dir = ".";
  ScopedFd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (fd.get() < 0) return Status::IOError("open directory " + dir + ": " + ErrnoText());
  return fd.SyncAndClose(dir);
}

struct SnapshotHeader {
  HnswSnapshotMeta meta;
  uint64_t header_length = 0;
  uint64_t payload_length = 0;
  uint32_t payload_crc = 0;
};

Status SnapshotCorruption(const std::string& path, const std::string& what) {
  return Status::Corruption("hnsw snapshot " + path + ": " + what);
}

std::string EncodeHeader(const HnswSnapshotMeta& meta, uint64_t payload_length,
                         uint32_t payload_crc) {
  std::string h(kMagic, sizeof(kMagic));
  PutU32(&h, kFormatVersion);
  PutU32(&h, static_cast<uint32_t>(kFixedHeaderSize + meta.model.size()));
  PutU32(&h, static_cast<uint32_t>(meta.dimension));
  PutU64(&h, meta.M);
  PutU64(&h, meta.ef_construction);
  PutU64(&h, meta.fingerprint);
  PutU32(&h, static_cast<uint32_t>(meta.model.size()));
  h += meta.model;
  PutU64(&h, payload_length);
  PutU32(&h, payload_crc);
  PutU32(&h, Crc32(0, h.data(), h.size()));
  return h;
}

// Reads the header and checks magic, version, length and checksum.
Result<std::string> ReadHeaderBytes(int fd, const std::string& path) {
  std::string h(16, '\0');
  ENGRAM_ASSIGN_OR_RETURN(size_t got, ReadUpTo(fd, h.data(), h.size(), path));
  if (got < h.size()) return SnapshotCorruption(path, "truncated header");
  if (std::memcmp(h.data(), kMagic, sizeof(kMagic)) != 0)
    return SnapshotCorruption(path, "bad magic");
  const uint32_t version = GetU32(&h[8]);
  if (version != kFormatVersion) {
    return SnapshotCorruption(path, "unsupported format version " + std::to_string(version));
  }
  const uint32_t length = GetU32(&h[12]);
  if (length < kFixedHeaderSize || length > kFixedHeaderSize + kMaxModelLength) {
    return SnapshotCorruption(path, "malformed header length " + std::to_string(length));
  }
  h.resize(length);
  ENGRAM_ASSIGN_OR_RETURN(got, ReadUpTo(fd, &h[16], length - 16, path));
  if (got < length - 16) return SnapshotCorruption(path, "truncated header");
  if (Crc32(0, h.data(), length - 4) != GetU32(&h[length - 4])) {
    return SnapshotCorruption(path, "header checksum mismatch");
  }
  return h;
}

Result<SnapshotHeader> ParseHeader(const std::string& h, const std::string& path) {
  SnapshotHeader out;
  out.header_length = h.size();
  const uint32_t dimension = GetU32(&h[16]);
  out.meta.M = GetU64(&h[20]);
  out.meta.ef_construction = GetU64(&h[28]);
  out.meta.fingerprint = GetU64(&h[36]);
  const uint32_t model_length = GetU32(&h[44]);
  if (kFixedHeaderSize + model_length != h.size() || dimension < 1 || dimension > kMaxDimension ||
      out.meta.M < 2 || out.meta.M > kMaxM || out.meta.ef_construction < 1) {
    return SnapshotCorruption(path, "malformed header fields");
  }
  out.meta.dimension = static_cast<int>(dimension);
  out.meta.model = h.substr(48, model_length);
  out.payload_length = GetU64(&h[48 + model_length]);
  out.payload_crc = GetU32(&h[56 + model_length]);
  return out;
}

Status CheckFileSize(int fd, const SnapshotHeader& header, const std::string& path) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return Status::IOError("stat " + path + ": " + ErrnoText());
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  if (header.payload_length > size || size - header.payload_length < header.header_length) {
    return SnapshotCorruption(path, "truncated (" + std::to_string(size) + " bytes)");
  }
  if (size != header.header_length + header.payload_length) {
    return SnapshotCorruption(path, "trailing bytes after the payload");
  }
  return Status::Ok();
}

Status CheckNotStale(const HnswSnapshotMeta& got, const HnswSnapshotMeta& want,
                     const std::string& path) {
  using std::to_string;
  const std::array<std::array<std::string, 3>, 5> fields = {{
      {"model", "'" + got.model + "'", "'" + want.model + "'"},
      {"dimension", to_string(got.dimension), to_string(want.dimension)},
      {"M", to_string(got.M), to_string(want.M)},
      {"ef_construction", to_string(got.ef_construction), to_string(want.ef_construction)},
      {"fingerprint", to_string(got.fingerprint), to_string(want.fingerprint)},
  }};
  for (const auto& [name, a, b] : fields) {
    if (a != b)
      return Status::Corruption("stale snapshot: " + name + " " + a + ", expected " + b + " (" +
                                path + ")");
  }
  return Status::Ok();
}

// Checks hnswlib's leading scalars against the header before hnswlib trusts (and allocates
// from) them; returns the node count.
Result<uint64_t> CheckGraphPreamble(const char* p, const SnapshotHeader& header,
                                    const std::string& path) {
  const HnswSnapshotMeta& m = header.meta;
  const uint64_t links0 = 2 * m.M * sizeof(hnswlib::tableint) + sizeof(hnswlib::linklistsizeint);
  const uint64_t data = static_cast<uint64_t>(m.dimension) * sizeof(float);
  const uint64_t per_node = links0 + data + sizeof(hnswlib::labeltype);
  const uint64_t count = GetU64(p + 16);
  const bool layout_ok =
      GetU64(p) == 0 && GetU64(p + 24) == per_node && GetU64(p + 32) == links0 + data &&
      GetU64(p + 40) == links0 && GetU64(p + 56) == m.M && GetU64(p + 64) == 2 * m.M &&
      GetU64(p + 72) == m.M && GetU64(p + 88) == std::max<uint64_t>(m.ef_construction, m.M);
  const uint64_t budget = (header.payload_length - kGraphPreambleSize) / (per_node + 4);
  const bool count_ok = count <= budget && (count == 0 || GetU32(p + 52) < count);
  if (!layout_ok || !count_ok) return SnapshotCorruption(path, "malformed graph payload");
  return count;
}

// Copies the payload to `scratch`, verifies its checksum and preamble; returns the node count.
Result<uint64_t> StagePayload(int in, const SnapshotHeader& header, const Scratch& scratch,
                              const std::string& path) {
  if (header.payload_length < kGraphPreambleSize) {
    return SnapshotCorruption(path, "malformed graph payload");
  }
  ENGRAM_ASSIGN_OR_RETURN(uint32_t crc, CopyWithCrc(in, path, scratch.fd.get(), scratch.name.path(),
                                                    header.payload_length));
  if (crc != header.payload_crc) return SnapshotCorruption(path, "payload checksum mismatch");
  char preamble[kGraphPreambleSize];
  if (::pread(scratch.fd.get(), preamble, sizeof(preamble), 0) !=
      static_cast<ssize_t>(sizeof(preamble))) {
    return Status::IOError("read " + scratch.name.path() + ": " + ErrnoText());
  }
  return CheckGraphPreamble(preamble, header, path);
}

// Writes through a buffer to a file descriptor, keeping the CRC-32 and length of what passed.
class CrcWriter {
 public:
  CrcWriter(int fd, const std::string& path) : fd_(fd), path_(path) { buffer_.reserve(kCopyChunk); }
  template <typename T>
  Status Put(const T& value) {
    static_assert(std::is_trivially_copyable_v<T>);
    return Write(reinterpret_cast<const char*>(&value), sizeof(T));
  }
  Status Write(const char* data, size_t n) {
    crc_ = Crc32(crc_, data, n);
    length_ += n;
    if (buffer_.size() + n > kCopyChunk) ENGRAM_RETURN_IF_ERROR(Flush());
    if (n >= kCopyChunk) return WriteAll(fd_, data, n, path_);
    buffer_.insert(buffer_.end(), data, data + n);
    return Status::Ok();
  }
  Status Flush() {
    Status st = WriteAll(fd_, buffer_.data(), buffer_.size(), path_);
    buffer_.clear();
    return st;
  }
  uint32_t crc() const { return crc_; }
  uint64_t length() const { return length_; }

 private:
  int fd_;
  const std::string& path_;
  std::vector<char> buffer_;
  uint32_t crc_ = 0;
  uint64_t length_ = 0;
};

// The bytes hnswlib 0.6.2's saveIndex writes (its 13 scalars, the level-0 records, then each
// node's upper-level links), written straight into the snapshot file: saveIndex writes only to
// a path of its own, which cost a second copy of the whole graph on disk and a read back.
Status WriteGraphPayload(const Graph& g, CrcWriter* out) {
  ENGRAM_RETURN_IF_ERROR(out->Put(g.offsetLevel0_));
  ENGRAM_RETURN_IF_ERROR(out->Put(g.max_elements_));
  ENGRAM_RETURN_IF_ERROR(out->Put(g.cur_element_count));
  ENGRAM_RETURN_IF_ERROR(out->Put(g.size_data_per_element_));
  ENGRAM_RETURN_IF_ERROR(out->Put(g.label_offset_));
  ENGRAM_RETURN_IF_ERROR(out->Put(g.offsetData_));
  ENGRAM_RETURN_IF_ERROR(out->Put(g.maxlevel_));
  ENGRAM_RETURN_IF_ERROR(out->Put(g.enterpoint_node_));
  ENGRAM_RETURN_IF_ERROR(out->Put(g.maxM_));
  ENGRAM_RETURN_IF_ERROR(out->Put(g.maxM0_));
  ENGRAM_RETURN_IF_ERROR(out->Put(g.M_));
  ENGRAM_RETURN_IF_ERROR(out->Put(g.mult_));
  ENGRAM_RETURN_IF_ERROR(out->Put(g.ef_construction_));
  if (out->length() != kGraphPreambleSize) return Status::Internal("hnsw snapshot: preamble size");
  ENGRAM_RETURN_IF_ERROR(
      out->Write(g.data_level0_memory_, g.cur_element_count * g.size_data_per_element_));
  for (size_t i = 0; i < g.cur_element_count; ++i) {
    const auto bytes = static_cast<unsigned int>(
        g.element_levels_[i] > 0 ? g.size_links_per_element_ * g.element_levels_[i] : 0);
    ENGRAM_RETURN_IF_ERROR(out->Put(bytes));
    if (bytes) ENGRAM_RETURN_IF_ERROR(out->Write(g.linkLists_[i], bytes));
  }
  return out->Flush();
}

// Writes header + payload to `tmp` (header last, once the payload checksum is known).
Status WriteSnapshotFile(const std::string& tmp, const HnswSnapshotMeta& meta, const Graph& graph) {
  ScopedFd out(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
  if (out.get() < 0) return Status::IOError("create " + tmp + ": " + ErrnoText());
  const std::string placeholder(kFixedHeaderSize + meta.model.size(), '\0');
  ENGRAM_RETURN_IF_ERROR(WriteAll(out.get(), placeholder.data(), placeholder.size(), tmp));
  CrcWriter payload(out.get(), tmp);
  ENGRAM_RETURN_IF_ERROR(WriteGraphPayload(graph, &payload));
  const std::string header = EncodeHeader(meta, payload.length(), payload.crc());
  if (::lseek(out.get(), 0, SEEK_SET) != 0)
    return Status::IOError("seek " + tmp + ": " + ErrnoText());
  ENGRAM_RETURN_IF_ERROR(WriteAll(out.get(), header.data(), header.size(), tmp));
  return out.SyncAndClose(tmp);
}

// A sealed snapshot: "ENGRAMHS", format version (4 bytes), the key id (16 hex digits), a
// libsodium secretstream header, then the plain snapshot in kSealChunk pieces, each pushed
// through crypto_secretstream_xchacha20poly1305 (the last tagged FINAL, so a cut-off file is
// told from a whole one).
constexpr size_t kSealChunk = 1 << 20;
constexpr size_t kSealedHeaderSize =
    sizeof(kSealedMagic) + 4 + 16 + crypto_secretstream_xchacha20poly1305_HEADERBYTES;

Status SealSnapshot(int plain, const std::string& plain_path, const EncryptionKey& key,
                    const std::string& out_path) {
  if (sodium_init() < 0) return Status::Internal("libsodium did not initialise");
  struct stat st {};
  if (::fstat(plain, &st) != 0) return Status::IOError("stat " + plain_path + ": " + ErrnoText());
  ScopedFd out(::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
  if (out.get() < 0) return Status::IOError("create " + out_path + ": " + ErrnoText());
  crypto_secretstream_xchacha20poly1305_state state;
  std::string header(kSealedMagic, sizeof(kSealedMagic));
  header.append("\x01\0\0\0", 4);
  header += key.Id();
  unsigned char stream_header[crypto_secretstream_xchacha20poly1305_HEADERBYTES];
  crypto_secretstream_xchacha20poly1305_init_push(&state, stream_header, key.bytes().data());
  header.append(reinterpret_cast<const char*>(stream_header), sizeof(stream_header));
  ENGRAM_RETURN_IF_ERROR(WriteAll(out.get(), header.data(), header.size(), out_path));
  std::vector<unsigned char> in(kSealChunk);
  std::vector<unsigned char> sealed(kSealChunk + crypto_secretstream_xchacha20poly1305_ABYTES);
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  uint64_t offset = 0;
  do {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(kSealChunk, size - offset));
    if (n > 0 &&
        ::pread(plain, in.data(), n, static_cast<off_t>(offset)) != static_cast<ssize_t>(n)) {
      return Status::IOError("read " + plain_path + ": " + ErrnoText());
    }
    offset += n;
    const unsigned char tag = offset == size ? crypto_secretstream_xchacha20poly1305_TAG_FINAL : 0;
    unsigned long long sealed_len = 0;
    crypto_secretstream_xchacha20poly1305_push(&state, sealed.data(), &sealed_len, in.data(), n,
                                               nullptr, 0, tag);
    ENGRAM_RETURN_IF_ERROR(WriteAll(out.get(), reinterpret_cast<const char*>(sealed.data()),
                                    static_cast<size_t>(sealed_len), out_path));
  } while (offset < size);
  sodium_memzero(in.data(), in.size());
  return out.SyncAndClose(out_path);
}

Status UnsealSnapshot(int in, const std::string& path, const EncryptionKey& key, int plain) {
  if (sodium_init() < 0) return Status::Internal("libsodium did not initialise");
  std::string header(kSealedHeaderSize, '\0');
  if (::pread(in, header.data(), header.size(), 0) != static_cast<ssize_t>(header.size())) {
    return SnapshotCorruption(path, "truncated sealed header");
  }
  if (GetU32(&header[sizeof(kSealedMagic)]) != 1) {
    return SnapshotCorruption(path, "unsupported sealed format version");
  }
  const std::string key_id = header.substr(sizeof(kSealedMagic) + 4, 16);
  if (key_id != key.Id()) {
    return SnapshotCorruption(path, "sealed with key id " + key_id + ", not " + key.Id());
  }
  crypto_secretstream_xchacha20poly1305_state state;
  if (crypto_secretstream_xchacha20poly1305_init_pull(
          &state, reinterpret_cast<const unsigned char*>(header.data()) + sizeof(kSealedMagic) + 20,
          key.bytes().data()) != 0) {
    return SnapshotCorruption(path, "bad sealed header");
  }
  std::vector<unsigned char> sealed(kSealChunk + crypto_secretstream_xchacha20poly1305_ABYTES);
  std::vector<unsigned char> out(kSealChunk);
  off_t offset = static_cast<off_t>(kSealedHeaderSize);
  while (true) {
    const ssize_t got = ::pread(in, sealed.data(), sealed.size(), offset);
    if (got < 0) return Status::IOError("read " + path + ": " + ErrnoText());
    if (got < static_cast<ssize_t>(crypto_secretstream_xchacha20poly1305_ABYTES)) {
      return SnapshotCorruption(path, "sealed stream cut short");
    }
    offset += got;
    unsigned long long n = 0;
    unsigned char tag = 0;
    if (crypto_secretstream_xchacha20poly1305_pull(&state, out.data(), &n, &tag, sealed.data(),
                                                   static_cast<unsigned long long>(got), nullptr,
                                                   0) != 0) {
      return SnapshotCorruption(path, "a sealed chunk fails authentication");
    }
    ENGRAM_RETURN_IF_ERROR(
        WriteAll(plain, reinterpret_cast<const char*>(out.data()), static_cast<size_t>(n), path));
    if (tag == crypto_secretstream_xchacha20poly1305_TAG_FINAL) {
      char extra;
      if (::pread(in, &extra, 1, offset) != 0) {
        return SnapshotCorruption(path, "trailing bytes after the sealed stream");
      }
      break;
    }
  }
  sodium_memzero(out.data(), out.size());
  return Status::Ok();
}

}  // namespace

Status SaveHnswSnapshot(const HnswIndex& index, const std::string& path,
                        const HnswSnapshotMeta& meta, const EncryptionKey* key) {
  if (meta.dimension != index.dimension() || meta.M != index.M() ||
      meta.ef_construction != index.ef_construction()) {
    return Status::InvalidArgument(
        "hnsw snapshot: meta (dimension, M, ef_construction) does not "
        "describe the index");
  }
  if (meta.model.size() > kMaxModelLength) {
    return Status::InvalidArgument("hnsw snapshot: model name longer than 4096 bytes");
  }
  ScratchName tmp(path + ".tmp");
  if (key) {
    ENGRAM_ASSIGN_OR_RETURN(Scratch plain, MakeMemoryScratch("engram-hnsw-snapshot"));
    ENGRAM_RETURN_IF_ERROR(WriteSnapshotFile(plain.name.path(), meta, *index.graph_));
    ENGRAM_RETURN_IF_ERROR(SealSnapshot(plain.fd.get(), plain.name.path(), *key, tmp.path()));
  } else {
    ENGRAM_RETURN_IF_ERROR(WriteSnapshotFile(tmp.path(), meta, *index.graph_));
  }
  if (::rename(tmp.path().c_str(), path.c_str()) != 0) {
    return Status::IOError("rename " + tmp.path() + " to " + path + ": " + ErrnoText());
  }
  tmp.Release();
  return SyncParentDirectory(path);
}

// Loads the plain snapshot read from `in` (positioned at its start); `path` names it in
// messages. The payload is staged in memory when `in_memory` (a sealed snapshot's plaintext),
// else in a scratch file beside `path`.
struct HnswSnapshotLoader {
  static Result<std::unique_ptr<HnswIndex>> LoadPlainSnapshot(int in, const std::string& path,
                                                              const HnswSnapshotMeta& expected,
                                                              size_t ef_search, bool in_memory) {
    ENGRAM_ASSIGN_OR_RETURN(std::string header_bytes, ReadHeaderBytes(in, path));
    ENGRAM_ASSIGN_OR_RETURN(SnapshotHeader header, ParseHeader(header_bytes, path));
    ENGRAM_RETURN_IF_ERROR(CheckFileSize(in, header, path));
    ENGRAM_RETURN_IF_ERROR(CheckNotStale(header.meta, expected, path));
    ENGRAM_ASSIGN_OR_RETURN(Scratch staged, in_memory ? MakeMemoryScratch("engram-hnsw-load")
                                                      : MakeScratch(path + ".load."));
    ENGRAM_ASSIGN_OR_RETURN(uint64_t count, StagePayload(in, header, staged, path));
    const HnswSnapshotMeta& m = header.meta;
    const HnswOptions options{m.dimension, m.M, m.ef_construction, ef_search};
    try {
      auto space = std::make_unique<DotProductSpace>(static_cast<size_t>(m.dimension));
      // The path constructor: if loadIndex throws, no destructor runs on a half-loaded graph.
      auto graph = std::make_unique<hnswlib::HierarchicalNSW<float>>(
          space.get(), staged.name.path(), false, std::max<uint64_t>(count, 1));
      RecountTombstones(*graph);
      return std::unique_ptr<HnswIndex>(new HnswIndex(options, std::move(space), std::move(graph)));
    } catch (const std::bad_alloc&) {
      return Status::Unavailable("hnsw snapshot " + path + ": out of memory");
    } catch (const std::exception& e) {
      return SnapshotCorruption(path, std::string("hnswlib rejected the graph: ") + e.what());
    }
  }
};

Result<std::unique_ptr<HnswIndex>> LoadHnswSnapshot(const std::string& path,
                                                    const HnswSnapshotMeta& expected,
                                                    size_t ef_search, const EncryptionKey* key) {
  ScopedFd in(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (in.get() < 0) {
    if (errno == ENOENT) return Status::NotFound("hnsw snapshot " + path + ": no such file");
    return Status::IOError("open " + path + ": " + ErrnoText());
  }
  char magic[sizeof(kSealedMagic)] = {};
  const bool sealed = ::pread(in.get(), magic, sizeof(magic), 0) == sizeof(magic) &&
                      std::memcmp(magic, kSealedMagic, sizeof(magic)) == 0;
  if (!sealed) {
    if (key) return SnapshotCorruption(path, "not sealed, and encryption is on");
    return HnswSnapshotLoader::LoadPlainSnapshot(in.get(), path, expected, ef_search, false);
  }
  if (!key) return SnapshotCorruption(path, "sealed, and no encryption key was given");
  ENGRAM_ASSIGN_OR_RETURN(Scratch plain, MakeMemoryScratch("engram-hnsw-snapshot"));
  ENGRAM_RETURN_IF_ERROR(UnsealSnapshot(in.get(), path, *key, plain.fd.get()));
  if (::lseek(plain.fd.get(), 0, SEEK_SET) != 0) {
    return Status::IOError("seek " + plain.name.path() + ": " + ErrnoText());
  }
  return HnswSnapshotLoader::LoadPlainSnapshot(plain.fd.get(), path, expected, ef_search, true);
}

}  // namespace engram
