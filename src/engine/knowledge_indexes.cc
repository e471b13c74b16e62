#include "engine/knowledge_indexes.h"

#include <algorithm>

namespace engram {

Result<std::shared_ptr<const KnowledgeIndex>> KnowledgeIndexes::Get(const KnowledgeScope& scope) {
  const std::string key = Key(scope);
  const auto now = std::chrono::steady_clock::now();
  uint64_t generation = 0;
  {
    std::unique_lock<std::mutex> lock(mu_);
    generation = generation_;
    auto it = loaded_.find(key);
    if (it != loaded_.end() && now - it->second.checked < kRecheck) return it->second.index;
    if (it != loaded_.end()) {
      // Another process may have changed the scope: compare, outside the lock.
      const Entry entry = it->second;
      lock.unlock();
      auto current = fingerprint_(scope);
      lock.lock();
      // The database out of reach (PostgreSQL restarting): the loaded index keeps serving, as
      // the loaded memory indexes do, and is checked again at the next search.
      if (!current.ok()) return entry.index;
      auto again = loaded_.find(key);
      if (*current == entry.fingerprint && again != loaded_.end() &&
          again->second.index == entry.index) {
        again->second.checked = now;
        return entry.index;
      }
      generation = generation_;
    }
  }
  KnowledgeFingerprint fingerprint;
  auto index = load_(scope, &fingerprint);
  if (!index.ok()) return index.status();
  std::lock_guard<std::mutex> lock(mu_);
  if (generation != generation_) return *index;  // changed meanwhile: used once, not kept
  if (loaded_.size() >= kMaxLoaded && !loaded_.count(key)) {
    auto oldest = std::min_element(
        loaded_.begin(), loaded_.end(),
        [](const auto& a, const auto& b) { return a.second.checked < b.second.checked; });
    loaded_.erase(oldest);
  }
  loaded_[key] = Entry{*index, fingerprint, now};
  return *index;
}

void KnowledgeIndexes::Invalidate(const KnowledgeScope& scope) {
  std::lock_guard<std::mutex> lock(mu_);
  ++generation_;
  loaded_.erase(Key(scope));
}

void KnowledgeIndexes::InvalidateTenant(const std::string& tenant) {
  std::lock_guard<std::mutex> lock(mu_);
  ++generation_;
  const std::string prefix = tenant + '\x1f';
  std::erase_if(loaded_, [&](const auto& e) { return e.first.starts_with(prefix); });
}

}  // namespace engram
