// Approximate vector index: an HNSW graph (hnswlib 0.6.2, inner-product space) behind the
// VectorIndex interface, plus versioned, checksummed snapshots of it.
//
// Threads: not synchronized, like every VectorIndex. The owner holds a shared lock for Search,
// Get, the accessors and SaveHnswSnapshot (they only read; concurrent Searches are safe), and
// an exclusive lock for Upsert, Remove and set_ef_search.
//
// Removal is a tombstone: the key keeps its graph node (capacity, traversal cost) until the
// index is rebuilt, but its vector bytes are zeroed at once, so a removed vector is neither in
// memory nor in any later snapshot. deleted_count() tells the owner when a rebuild pays off.
//
// This header does not include hnswlib on purpose: hnswlib.h defines non-inline functions, so it
// may be included by one translation unit of a program only (hnsw_index.cc).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engram/encryption.h"
#include "engram/status.h"
#include "index/quantized_vectors.h"
#include "index/vector_index.h"

namespace hnswlib {
template <typename dist_t>
class HierarchicalNSW;
template <typename dist_t>
class SpaceInterface;
}  // namespace hnswlib

namespace engram {

// ef_search 0: the candidate list grows with the graph (EfSearchForSize), so that recall stays
// near the same level from thousands to millions of vectors.
inline constexpr size_t kAutoEfSearch = 0;

// The candidate list an automatic ef_search uses for a graph of `nodes` live vectors: 64 up to
// 10,000 nodes (small scopes keep a cheap search), then 170 more per tenfold growth (234 at
// 100k, 404 at 1M). Logarithmic, because recall at a fixed ef falls only slowly as a graph
// grows; the step is what brings a 1M-node graph (M 16, ef_construction 100) to the 0.95
// recall@10 target on the million bench's texts (figures: bench/results/retrieval.md).
size_t EfSearchForSize(size_t nodes);

struct HnswOptions {
  int dimension = 0;                 // 1..65536
  size_t M = 16;                     // graph degree (layer 0 keeps 2*M links); 2..1024
  size_t ef_construction = 100;      // candidate list while inserting; >= 1
  size_t ef_search = kAutoEfSearch;  // candidate list while searching; 0: automatic
  size_t initial_capacity = 1024;    // nodes before the first doubling; >= 1
};

// What a snapshot was built from. `fingerprint` is opaque here: the caller derives it from the
// database state (e.g. count and max seq of the scope's vectors) so a snapshot that no longer
// matches the database is detected as stale.
struct HnswSnapshotMeta {
  std::string model;  // embedding model name, at most 4096 bytes
  int dimension = 0;
  size_t M = 0;
  size_t ef_construction = 0;
  uint64_t fingerprint = 0;
};

class HnswIndex;

// The vectors a graph is built from: keys[i] has data[i * dimension, (i + 1) * dimension).
// Keys must be distinct and non-negative.
struct HnswBuildInput {
  const int64_t* keys = nullptr;
  const float* data = nullptr;
  size_t count = 0;
  int threads = 1;                            // inserting threads; 1 gives a reproducible graph
  const std::atomic<bool>* cancel = nullptr;  // when set and true, the build stops early
};

// Snapshot file, format version 1 (integers little-endian; L = model length, P = payload
// length):
//   offset  size  field
//   0       8     magic "ENGRAMHN"
//   8       4     format version (1)
//   12      4     header length H = 64 + L (bytes before the payload)
//   16      4     dimension
//   20      8     M
//   28      8     ef_construction
//   36      8     fingerprint
//   44      4     L
//   48      L     model name (bytes as given)
//   48+L    8     P
//   56+L    4     CRC-32 (zlib/IEEE polynomial) of the payload
//   60+L    4     CRC-32 of bytes [0, 60+L)
//   H       P     hnswlib 0.6.2 saveIndex bytes (x86-64 layout: little-endian, 8-byte size_t)
// Two checksums rather than one so the header (hence staleness) is verified without reading a
// payload that may be gigabytes long. File size must be exactly H + P.

// Writes `index` to `path` atomically: `path`.tmp is written, fsynced and renamed over `path`,
// then the directory is fsynced; the graph is written once, straight into `path`.tmp. The
// scratch file `path`.tmp is removed on every return path (after a crash it may remain and can
// be deleted). The file is created
// with mode 0600 (it holds embeddings). Reads the index only: a shared lock suffices.
// InvalidArgument: meta.dimension/M/ef_construction do not describe `index`, or the model name
// is too long. IOError: the file system refused; `path` is unchanged unless only the final
// directory fsync failed.
// With `key`, the file is sealed (a libsodium secretstream of the bytes above, see
// hnsw_index.cc) and the plaintext is built in memory only, never in a file on disk.
Status SaveHnswSnapshot(const HnswIndex& index, const std::string& path,
                        const HnswSnapshotMeta& meta, const EncryptionKey* key = nullptr);

// Loads a snapshot written by SaveHnswSnapshot. The loaded index searches with `ef_search`
// (kAutoEfSearch: scaled with its size) and
// grows by doubling like a new one. Codes (in every non-OK case: rebuild from the database):
//   NotFound    no file at `path`.
//   IOError     the file exists but could not be read, or scratch space could not be written.
//   Corruption  "hnsw snapshot ...: bad magic | unsupported format version N | truncated |
//               header checksum mismatch | payload checksum mismatch | malformed ..."
//   Corruption  "stale snapshot: <field> ..." when the (intact) snapshot's meta differs from
//               `expected` in any field (model, dimension, M, ef_construction, fingerprint).
// The payload is staged in a scratch file `path`.load.XXXXXX because hnswlib 0.6.2 loads from
// a path only; it is removed before returning.
// A sealed snapshot needs `key` (opened in memory; staged in memory too); a plain one must
// come without it: either mismatch is Corruption, so the caller rebuilds and saves anew.
Result<std::unique_ptr<HnswIndex>> LoadHnswSnapshot(const std::string& path,
                                                    const HnswSnapshotMeta& expected,
                                                    size_t ef_search = kAutoEfSearch,
                                                    const EncryptionKey* key = nullptr);

class HnswIndex final : public VectorIndex {
 public:
  // InvalidArgument for options out of range; Unavailable if memory runs out.
  static Result<std::unique_ptr<HnswIndex>> Create(const HnswOptions& options);
  // A graph holding every input vector, inserted from input.threads threads at once (hnswlib
  // locks per node, so inserts of distinct keys may run concurrently; the graph then depends on
  // thread timing, not on the input alone). Errors as Create and Upsert; Unavailable
  // ("cancelled") when input.cancel was raised.
  static Result<std::unique_ptr<HnswIndex>> Build(const HnswOptions& options,
                                                  const HnswBuildInput& input);
  ~HnswIndex() override;
  HnswIndex(const HnswIndex&) = delete;
  HnswIndex& operator=(const HnswIndex&) = delete;

  int dimension() const override { return options_.dimension; }
  size_t size() const override { return live_; }  // live keys (tombstones excluded)

  // InvalidArgument: negative key, null vector, or a non-finite component. Vectors are expected
  // L2-normalized (not checked). Replacing a key (live or removed) re-links its node.
  // Unavailable (out of memory) / Internal (hnswlib failed): the index state is unspecified and
  // the owner should rebuild it.
  Status Upsert(int64_t key, const float* vector) override;
  // Upsert with a candidate list of `ef_construction` (at least M) for this one insert instead of
  // the graph's: cheaper inserts into a graph that is already built (the graph's own value,
  // which snapshots record, is unchanged afterwards).
  Status UpsertWithEf(int64_t key, const float* vector, size_t ef_construction);
  // OK if absent or already removed; InvalidArgument for a negative key.
  Status Remove(int64_t key) override;
  // Copies the vector of a live key; false if absent or removed.
  bool Get(int64_t key, std::vector<float>* out) const override;
  // Best first; score = inner product (exact: float32). The graph is traversed with int8 copies
  // of the vectors (QuantizedVectors) for max(k, effective ef_search) candidates, which are then
  // re-ranked with the float vectors; the result is the exact order among those candidates.
  // With a filter, if fewer than k pass, the observed pass rate predicts
  // how many candidates would fill k; the graph search is repeated with that many (at least
  // twice as many) while it is predicted cheaper than scoring every passing node exactly, at
  // most 4 graph searches; otherwise the exact scan answers (exact results, so a filter that
  // passes fewer than k keys returns all of them). The interface has no error channel: if
  // hnswlib throws (a bug or out of memory) the result is empty.
  std::vector<VectorHit> Search(const float* query, size_t k,
                                const KeyFilter& filter) const override;

  size_t M() const { return options_.M; }
  size_t ef_construction() const { return options_.ef_construction; }
  size_t ef_search() const { return options_.ef_search; }  // as set; 0: automatic
  // What a search uses now: ef_search, or EfSearchForSize(size()) when automatic.
  size_t effective_ef_search() const;
  void set_ef_search(size_t ef_search);  // exclusive lock; 0 (kAutoEfSearch): automatic
  // False: traverse with the float rows (hnswlib's own search), as before the int8 copies; for
  // comparisons. Exclusive lock.
  void set_quantized_traversal(bool on) { quantized_traversal_ = on; }
  size_t capacity() const;  // nodes allocated (live + tombstones + free)
  size_t MemoryBytes() const override;
  size_t deleted_count() const;  // tombstones

 private:
  using Graph = hnswlib::HierarchicalNSW<float>;
  using Space = hnswlib::SpaceInterface<float>;
  HnswIndex(const HnswOptions& options, std::unique_ptr<Space> space, std::unique_ptr<Graph> graph);

  void GrowIfFull();  // may throw (hnswlib); callers catch
  // Inserts input rows [begin, end) with hnswlib directly; may run on several threads at once.
  Status InsertRows(const HnswBuildInput& input, std::atomic<size_t>* next);
  // The `candidates` best (exact scores) passing `filter`, best first, from a traversal with
  // ef = max(effective ef, candidates); *seen = nodes re-ranked before filtering.
  std::vector<VectorHit> SearchGraph(const float* query, size_t candidates, const KeyFilter& filter,
                                     size_t* seen) const;
  // Layer-0 internal ids nearest to the quantized query by approximate distance, at most ef,
  // tombstones excluded (hnswlib's search algorithm over our int8 rows).
  std::vector<uint32_t> TraverseQuantized(const int8_t* query, float query_scale, size_t ef) const;
  void QuantizeAllNodes();  // codes_ for every node from the graph's float rows
  std::vector<VectorHit> SearchExact(const float* query, size_t k, const KeyFilter& filter) const;

  friend Status SaveHnswSnapshot(const HnswIndex&, const std::string&, const HnswSnapshotMeta&,
                                 const EncryptionKey*);
  friend struct HnswSnapshotLoader;  // hnsw_index.cc

  HnswOptions options_;
  std::unique_ptr<Space> space_;  // outlives graph_ (declared first)
  std::unique_ptr<Graph> graph_;
  std::vector<int64_t> key_of_node_;  // by hnswlib internal id; -1 once removed
  QuantizedVectors codes_;            // by hnswlib internal id; derived, never saved
  bool quantized_traversal_ = true;
  size_t live_ = 0;
};

// The VectorIndex-typed factory; same errors as HnswIndex::Create.
Result<std::unique_ptr<VectorIndex>> MakeHnswIndex(const HnswOptions& options);

}  // namespace engram
