#include "server/metrics.h"

#include <sstream>

namespace engram::server {
namespace {

// A label value with \, " and newline escaped, as the exposition format requires.
std::string Label(const std::string& v) {
  std::string out;
  for (char c : v) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

void Gauge(std::ostringstream& out, const char* name, const char* help, int64_t value) {
  out << "# HELP " << name << " " << help << "\n# TYPE " << name << " gauge\n"
      << name << " " << value << "\n";
}

}  // namespace

void Metrics::Observe(const std::string& route, int status, double seconds) {
  std::lock_guard<std::mutex> lock(mu_);
  ++requests_[{route, status}];
  Histogram& h = latency_[route];
  for (size_t i = 0; i < kBuckets.size(); ++i) {
    if (seconds <= kBuckets[i]) ++h.buckets[i];
  }
  ++h.count;
  h.sum += seconds;
}

void Metrics::ObservePhase(const std::string& phase, double seconds) {
  std::lock_guard<std::mutex> lock(mu_);
  PhaseHistogram& h = phases_[phase];
  for (size_t i = 0; i < kPhaseBuckets.size(); ++i) {
    if (seconds <= kPhaseBuckets[i]) ++h.buckets[i];
  }
  ++h.count;
  h.sum += seconds;
}

std::string Metrics::Render(const Engine::Stats* stats) const {
  std::ostringstream out;
  out << "# HELP engram_http_requests_total HTTP requests by route and status.\n"
         "# TYPE engram_http_requests_total counter\n";
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [key, n] : requests_) {
    out << "engram_http_requests_total{route=\"" << Label(key.first) << "\",status=\"" << key.second
        << "\"} " << n << "\n";
  }
  out << "# HELP engram_http_request_duration_seconds Time from routing to response.\n"
         "# TYPE engram_http_request_duration_seconds histogram\n";
  for (const auto& [route, h] : latency_) {
    const std::string l = "route=\"" + Label(route) + "\"";
    for (size_t i = 0; i < kBuckets.size(); ++i) {
      out << "engram_http_request_duration_seconds_bucket{" << l << ",le=\"" << kBuckets[i]
          << "\"} " << h.buckets[i] << "\n";
    }
    out << "engram_http_request_duration_seconds_bucket{" << l << ",le=\"+Inf\"} " << h.count
        << "\n";
    out << "engram_http_request_duration_seconds_sum{" << l << "} " << h.sum << "\n";
    out << "engram_http_request_duration_seconds_count{" << l << "} " << h.count << "\n";
  }
  out << "# HELP engram_proxy_seconds The chat proxy's own time: prepare (from a request to "
         "its upstream request: the memory search and prompt assembly) and chunk (a streamed "
         "chunk's wait in the server before its send).\n"
         "# TYPE engram_proxy_seconds histogram\n";
  for (const auto& [phase, h] : phases_) {
    const std::string l = "phase=\"" + phase + "\"";
    for (size_t i = 0; i < kPhaseBuckets.size(); ++i) {
      out << "engram_proxy_seconds_bucket{" << l << ",le=\"" << kPhaseBuckets[i] << "\"} "
          << h.buckets[i] << "\n";
    }
    out << "engram_proxy_seconds_bucket{" << l << ",le=\"+Inf\"} " << h.count << "\n";
    out << "engram_proxy_seconds_sum{" << l << "} " << h.sum << "\n";
    out << "engram_proxy_seconds_count{" << l << "} " << h.count << "\n";
  }
  out << "# HELP engram_http_rate_limited_total Requests refused with 429.\n"
         "# TYPE engram_http_rate_limited_total counter\n"
      << "engram_http_rate_limited_total " << rate_limited_.load() << "\n";
  if (!stats) return out.str();
  out << "# HELP engram_memories Stored memories by status (every tenant).\n"
         "# TYPE engram_memories gauge\n"
      << "engram_memories{status=\"active\"} " << stats->items_active << "\n"
      << "engram_memories{status=\"superseded\"} " << stats->items_superseded << "\n"
      << "engram_memories{status=\"archived\"} " << stats->items_archived << "\n"
      << "engram_memories{status=\"deleted\"} " << stats->items_deleted << "\n";
  Gauge(out, "engram_scopes", "Scopes (tenant, user) in the database.", stats->scopes);
  Gauge(out, "engram_index_loaded_scopes", "Scope search indexes held in memory.",
        stats->loaded_indexes);
  Gauge(out, "engram_index_hnsw_scopes", "Loaded scope indexes searching an HNSW graph.",
        stats->approximate_indexes);
  Gauge(out, "engram_index_documents", "Documents across the loaded indexes.",
        stats->indexed_items);
  Gauge(out, "engram_index_vectors", "Vectors across the loaded indexes.", stats->indexed_vectors);
  Gauge(out, "engram_item_cache_entries", "Memories held in the item cache.",
        stats->item_cache_entries);
  Gauge(out, "engram_item_cache_bytes", "Bytes the item cache's entries take.",
        stats->item_cache_bytes);
  Gauge(out, "engram_index_huge_page_bytes",
        "Bytes of index vector rows in the system's reserved huge pages.", stats->huge_page_bytes);
  out << "# HELP engram_item_cache_lookups_total Search hits looked up in the item cache, by "
         "whether it held them.\n"
         "# TYPE engram_item_cache_lookups_total counter\n"
      << "engram_item_cache_lookups_total{result=\"hit\"} " << stats->item_cache_hits << "\n"
      << "engram_item_cache_lookups_total{result=\"miss\"} " << stats->item_cache_misses << "\n";
  return out.str();
}

std::string RenderStorageMetrics(const Engine::WriteHealth& writes,
                                 const std::vector<std::pair<std::string, int64_t>>& errors) {
  std::ostringstream out;
  out << "# HELP engram_storage_errors_total Database errors met, by SQLite result code (busy, "
         "locked, ioerr, full, constraint, ...), on every connection of the process.\n"
         "# TYPE engram_storage_errors_total counter\n";
  for (const auto& [code, n] : errors) {
    out << "engram_storage_errors_total{code=\"" << code << "\"} " << n << "\n";
  }
  Gauge(out, "engram_storage_writes_ok",
        "1 while writes work, 0 from a write that failed for the database's reasons until one "
        "commits again.",
        writes.ok ? 1 : 0);
  out << "# HELP engram_storage_write_failures_total Writes that failed for the database's "
         "reasons (a lock held past the busy timeout, I/O, a full disk, a read-only file).\n"
         "# TYPE engram_storage_write_failures_total counter\n"
      << "engram_storage_write_failures_total " << writes.failures << "\n"
      << "# HELP engram_storage_writer_reopened_total Times the writer connection was replaced "
         "by a fresh one after it failed.\n"
         "# TYPE engram_storage_writer_reopened_total counter\n"
      << "engram_storage_writer_reopened_total " << writes.reopened << "\n";
  return out.str();
}

std::string RenderRedisMetrics(bool up, int64_t errors) {
  std::ostringstream out;
  Gauge(out, "engram_redis_up",
        "1 while Redis (the replicas' shared rate limits and session counts) answers, 0 while "
        "this replica works without it.",
        up ? 1 : 0);
  out << "# HELP engram_redis_errors_total Redis commands that failed (unreachable, timed out, "
         "or an error reply).\n"
         "# TYPE engram_redis_errors_total counter\n"
      << "engram_redis_errors_total " << errors << "\n";
  return out.str();
}

}  // namespace engram::server
