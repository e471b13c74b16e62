// The loaded knowledge indexes (retrieval/knowledge_index.h), one per knowledge scope, for
// Engine::SearchKnowledge. An index is built whole on first use and replaced whole when its
// scope's documents change: at once for this engine's own ingests and deletes (Invalidate),
// and within about a second for another process's (a replica on PostgreSQL, or `engram ingest`
// writing the SQLite file a server has open), whose changes the store's fingerprint of the
// scope shows. When that check cannot reach the database, the loaded index keeps serving.
//
// Threads: safe to share; the map is guarded by mu_, loads run outside it.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "engram/knowledge.h"
#include "engram/status.h"
#include "retrieval/knowledge_index.h"
#include "storage/memory_store.h"

namespace engram {

class KnowledgeIndexes {
 public:
  // How a missing or stale index is built: the scope's fingerprint is read before its chunks.
  using Loader = std::function<Result<std::shared_ptr<const KnowledgeIndex>>(
      const KnowledgeScope& scope, KnowledgeFingerprint* fingerprint)>;
  using Fingerprinter = std::function<Result<KnowledgeFingerprint>(const KnowledgeScope& scope)>;

  KnowledgeIndexes(Loader load, Fingerprinter fingerprint)
      : load_(std::move(load)), fingerprint_(std::move(fingerprint)) {}

  Result<std::shared_ptr<const KnowledgeIndex>> Get(const KnowledgeScope& scope);
  // The scope changed here: its index goes, and a load begun before is not kept.
  void Invalidate(const KnowledgeScope& scope);
  // Every scope of the tenant (a tenant's erasure).
  void InvalidateTenant(const std::string& tenant);

 private:
  static constexpr auto kRecheck = std::chrono::seconds(1);
  static constexpr size_t kMaxLoaded = 1024;  // scopes kept; the least recently checked goes
  struct Entry {
    std::shared_ptr<const KnowledgeIndex> index;
    KnowledgeFingerprint fingerprint;
    std::chrono::steady_clock::time_point checked;
  };
  static std::string Key(const KnowledgeScope& scope) {
    return scope.tenant + '\x1f' + scope.agent_id;
  }

  Loader load_;
  Fingerprinter fingerprint_;
  std::mutex mu_;
  std::unordered_map<std::string, Entry> loaded_;  // guarded by mu_
  uint64_t generation_ = 0;                        // guarded by mu_: bumped by every Invalidate
};

}  // namespace engram
