#include "storage/item_cache.h"

#include <algorithm>
#include <cstring>
#include <string_view>
#include <vector>

namespace engram {
namespace {

constexpr size_t kShards = 16;
constexpr size_t kShardedFrom = size_t{4} << 20;  // smaller caches keep one exact LRU

size_t ShardCount(size_t capacity) { return capacity >= kShardedFrom ? kShards : 1; }

// Packed layout: the fixed-width fields at fixed offsets (so that AddAccess updates them in
// place), then every string as a LEB128 length and its bytes, tenant and user first (so that
// Get checks the scope before unpacking), then the three string lists as a count and strings.
constexpr size_t kAccessCount = 0, kLastAccessed = 8, kCreated = 16, kUpdated = 24, kValidFrom = 32,
                 kValidTo = 40, kImportance = 48, kConfidence = 56, kTier = 64, kType = 65,
                 kStatus = 66, kFlags = 67, kExpiresAt = 68, kHeader = 76;
constexpr uint8_t kHasLastAccessed = 1, kHasValidTo = 2, kHasExpiresAt = 4;

template <typename T>
void PutAt(std::string* out, size_t at, T v) {
  std::memcpy(out->data() + at, &v, sizeof v);
}
template <typename T>
T GetAt(std::string_view in, size_t at) {
  T v;
  std::memcpy(&v, in.data() + at, sizeof v);
  return v;
}

void AppendLength(std::string* out, size_t n) {  // LEB128
  do {
    out->push_back(static_cast<char>((n & 0x7F) | (n > 0x7F ? 0x80 : 0)));
    n >>= 7;
  } while (n > 0);
}

void AppendString(std::string* out, std::string_view s) {
  AppendLength(out, s.size());
  out->append(s);
}

void AppendList(std::string* out, const std::vector<std::string>& list) {
  AppendLength(out, list.size());
  for (const std::string& s : list) AppendString(out, s);
}

// Reads what AppendString / AppendList wrote, from `*at` on. The bytes are our own, written by
// Pack in this process, so they are trusted.
size_t ReadLength(std::string_view in, size_t* at) {
  size_t n = 0;
  for (int shift = 0;; shift += 7) {
    const auto byte = static_cast<uint8_t>(in[(*at)++]);
    n |= static_cast<size_t>(byte & 0x7F) << shift;
    if (!(byte & 0x80)) return n;
  }
}
std::string_view ReadString(std::string_view in, size_t* at) {
  const size_t n = ReadLength(in, at);
  std::string_view s = in.substr(*at, n);
  *at += n;
  return s;
}
void ReadList(std::string_view in, size_t* at, std::vector<std::string>* list) {
  const size_t n = ReadLength(in, at);
  list->clear();
  list->reserve(n);
  for (size_t i = 0; i < n; ++i) list->emplace_back(ReadString(in, at));
}

std::string Pack(const MemoryItem& m) {
  std::string out(kHeader, '\0');
  out.reserve(kHeader + 64 + m.id.size() + m.content.size() + m.metadata.size());
  PutAt<int64_t>(&out, kAccessCount, m.access_count);
  PutAt<int64_t>(&out, kLastAccessed, m.last_accessed.value_or(0));
  PutAt<int64_t>(&out, kCreated, m.created_at);
  PutAt<int64_t>(&out, kUpdated, m.updated_at);
  PutAt<int64_t>(&out, kValidFrom, m.valid_from);
  PutAt<int64_t>(&out, kValidTo, m.valid_to.value_or(0));
  PutAt<int64_t>(&out, kExpiresAt, m.expires_at.value_or(0));
  PutAt<double>(&out, kImportance, m.importance);
  PutAt<double>(&out, kConfidence, m.confidence);
  PutAt<uint8_t>(&out, kTier, static_cast<uint8_t>(m.tier));
  PutAt<uint8_t>(&out, kType, static_cast<uint8_t>(m.type));
  PutAt<uint8_t>(&out, kStatus, static_cast<uint8_t>(m.status));
  PutAt<uint8_t>(
      &out, kFlags,
      static_cast<uint8_t>((m.last_accessed ? kHasLastAccessed : 0) |
                           (m.valid_to ? kHasValidTo : 0) | (m.expires_at ? kHasExpiresAt : 0)));
  for (const std::string* s :
       {&m.scope.tenant, &m.scope.user_id, &m.scope.agent_id, &m.scope.session_id, &m.id,
        &m.content, &m.metadata, &m.source.session_id, &m.source.extractor,
        &m.source.prompt_version, &m.supersedes, &m.superseded_by, &m.embedding_model, &m.slot,
        &m.source.role}) {
    AppendString(&out, *s);
  }
  for (const auto* list :
       {&m.entities, &m.tags, &m.source.message_ids, &m.source.turn_ids, &m.derived_ids}) {
    AppendList(&out, *list);
  }
  out.shrink_to_fit();
  return out;
}

bool InScope(std::string_view packed, const Scope& scope) {
  size_t at = kHeader;
  return ReadString(packed, &at) == scope.tenant && ReadString(packed, &at) == scope.user_id;
}

void Unpack(std::string_view in, MemoryItem* m) {
  const auto flags = GetAt<uint8_t>(in, kFlags);
  m->access_count = GetAt<int64_t>(in, kAccessCount);
  m->last_accessed.reset();
  if (flags & kHasLastAccessed) m->last_accessed = GetAt<int64_t>(in, kLastAccessed);
  m->created_at = GetAt<int64_t>(in, kCreated);
  m->updated_at = GetAt<int64_t>(in, kUpdated);
  m->valid_from = GetAt<int64_t>(in, kValidFrom);
  m->valid_to.reset();
  if (flags & kHasValidTo) m->valid_to = GetAt<int64_t>(in, kValidTo);
  m->expires_at.reset();
  if (flags & kHasExpiresAt) m->expires_at = GetAt<int64_t>(in, kExpiresAt);
  m->importance = GetAt<double>(in, kImportance);
  m->confidence = GetAt<double>(in, kConfidence);
  m->tier = static_cast<Tier>(GetAt<uint8_t>(in, kTier));
  m->type = static_cast<MemoryType>(GetAt<uint8_t>(in, kType));
  m->status = static_cast<ItemStatus>(GetAt<uint8_t>(in, kStatus));
  size_t at = kHeader;
  for (std::string* s :
       {&m->scope.tenant, &m->scope.user_id, &m->scope.agent_id, &m->scope.session_id, &m->id,
        &m->content, &m->metadata, &m->source.session_id, &m->source.extractor,
        &m->source.prompt_version, &m->supersedes, &m->superseded_by, &m->embedding_model, &m->slot,
        &m->source.role}) {
    s->assign(ReadString(in, &at));
  }
  for (auto* list :
       {&m->entities, &m->tags, &m->source.message_ids, &m->source.turn_ids, &m->derived_ids}) {
    ReadList(in, &at, list);
  }
}

}  // namespace

size_t ItemCache::Footprint(const MemoryItem& item) { return Pack(item).size() + kEntryOverhead; }

ItemCache::ItemCache(size_t capacity)
    : capacity_(capacity),
      shard_count_(ShardCount(capacity)),
      shard_capacity_(capacity / ShardCount(capacity)),
      shards_(new Shard[ShardCount(capacity)]) {}

size_t ItemCache::size() const {
  size_t n = 0;
  for (size_t i = 0; i < shard_count_; ++i) {
    std::lock_guard<std::mutex> lock(shards_[i].mu);
    n += shards_[i].entries.size();
  }
  return n;
}

size_t ItemCache::bytes() const {
  size_t n = 0;
  for (size_t i = 0; i < shard_count_; ++i) {
    std::lock_guard<std::mutex> lock(shards_[i].mu);
    n += shards_[i].bytes;
  }
  return n;
}

namespace {

std::string ScopeKey(std::string_view tenant, std::string_view user_id) {
  std::string key(tenant);
  key += '\x1f';  // in no tenant or user id
  key += user_id;
  return key;
}

}  // namespace

uint64_t ItemCache::ScopeEpoch(std::string_view tenant, std::string_view user_id) const {
  if (!any_epochs_.load(std::memory_order_acquire)) return 0;
  const std::string key = ScopeKey(tenant, user_id);
  std::lock_guard<std::mutex> lock(epochs_mu_);
  auto it = scope_epochs_.find(key);
  return it == scope_epochs_.end() ? 0 : it->second;
}

void ItemCache::ForgetScope(std::string_view tenant, std::string_view user_id) {
  if (!enabled()) return;
  std::lock_guard<std::mutex> lock(epochs_mu_);
  ++scope_epochs_[ScopeKey(tenant, user_id)];
  any_epochs_.store(true, std::memory_order_release);
}

bool ItemCache::Get(int64_t seq, const Scope& scope, MemoryItem* out) {
  if (!enabled()) return false;
  const uint64_t epoch = ScopeEpoch(scope.tenant, scope.user_id);
  Shard& shard = ShardOf(seq);
  std::unique_lock<std::mutex> lock(shard.mu);
  auto it = shard.entries.find(seq);
  const bool found = it != shard.entries.end() && InScope(it->second.packed, scope);
  const bool stale = found && it->second.scope_epoch != epoch;  // forgotten since cached
  if (stale) EraseEntry(shard, it);
  if (!found || stale) {
    lock.unlock();
    misses_.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  shard.lru.splice(shard.lru.begin(), shard.lru, it->second.lru);
  Unpack(it->second.packed, out);
  lock.unlock();
  hits_.fetch_add(1, std::memory_order_relaxed);
  return true;
}

void ItemCache::Put(uint64_t generation, int64_t seq, const MemoryItem& item) {
  Insert(generation, seq, item, /*evict=*/true);
}

void ItemCache::Offer(uint64_t generation, int64_t seq, const MemoryItem& item) {
  Insert(generation, seq, item, /*evict=*/false);
}

void ItemCache::EraseEntry(Shard& shard, std::unordered_map<int64_t, Entry>::iterator it) {
  shard.bytes -= it->second.packed.size() + kEntryOverhead;
  shard.lru.erase(it->second.lru);
  shard.entries.erase(it);
}

void ItemCache::Insert(uint64_t generation, int64_t seq, const MemoryItem& item, bool evict) {
  if (!enabled()) return;
  std::string packed = Pack(item);  // outside the lock
  const size_t cost = packed.size() + kEntryOverhead;
  if (cost > shard_capacity_) return;
  const uint64_t epoch = ScopeEpoch(item.scope.tenant, item.scope.user_id);
  Shard& shard = ShardOf(seq);
  std::lock_guard<std::mutex> lock(shard.mu);
  const uint64_t now = generation_.load();
  if (generation != now || now % 2 != 0) return;  // a write overlapped the read
  if (auto it = shard.entries.find(seq); it != shard.entries.end()) {
    if (!evict) return;  // already there, and at least as recent as a whole-scope read
    EraseEntry(shard, it);
  }
  if (shard.bytes + cost > shard_capacity_ && !evict) return;
  while (shard.bytes + cost > shard_capacity_) {
    EraseEntry(shard, shard.entries.find(shard.lru.back()));
  }
  // Offered entries go to the cold end: a scope's fill ranks below what searches returned.
  const auto pos = shard.lru.insert(evict ? shard.lru.begin() : shard.lru.end(), seq);
  shard.entries.emplace(seq, Entry{std::move(packed), pos, epoch});
  shard.bytes += cost;
}

ItemCache::WriteWindow::WriteWindow(ItemCache* cache) : cache_(cache) { ++cache_->generation_; }

ItemCache::WriteWindow::~WriteWindow() { ++cache_->generation_; }

void ItemCache::Erase(int64_t seq) {
  if (!enabled()) return;
  Shard& shard = ShardOf(seq);
  std::lock_guard<std::mutex> lock(shard.mu);
  auto it = shard.entries.find(seq);
  if (it == shard.entries.end()) return;
  EraseEntry(shard, it);
}

void ItemCache::Clear() {
  for (size_t i = 0; i < shard_count_; ++i) {
    std::lock_guard<std::mutex> lock(shards_[i].mu);
    shards_[i].entries.clear();
    shards_[i].lru.clear();
    shards_[i].bytes = 0;
  }
}

void ItemCache::AddAccess(int64_t seq, int64_t count, TimestampMs last) {
  if (!enabled()) return;
  Shard& shard = ShardOf(seq);
  std::lock_guard<std::mutex> lock(shard.mu);
  auto it = shard.entries.find(seq);
  if (it == shard.entries.end()) return;
  std::string& packed = it->second.packed;
  PutAt<int64_t>(&packed, kAccessCount, GetAt<int64_t>(packed, kAccessCount) + count);
  const auto flags = GetAt<uint8_t>(packed, kFlags);
  const TimestampMs had = (flags & kHasLastAccessed) ? GetAt<int64_t>(packed, kLastAccessed) : 0;
  PutAt<int64_t>(&packed, kLastAccessed, std::max(had, last));
  PutAt<uint8_t>(&packed, kFlags, static_cast<uint8_t>(flags | kHasLastAccessed));
}

}  // namespace engram
