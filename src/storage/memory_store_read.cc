// MemoryStore: every read. Each statement carries the caller's ScopeFilter.
#include <charconv>
#include <cstring>
#include <unordered_map>

#include "codec/item_json.h"
#include "core/status_macros.h"
#include "storage/memory_store.h"
#include "storage/memory_store_internal.h"
#include "storage/row_codec.h"

namespace engram {
namespace {

const std::string& kSelectItems = SelectItemsSql();

struct Cursor {
  int64_t created_at = 0;
  int64_t seq = 0;
};

std::string EncodeCursor(const Cursor& c) {
  return std::to_string(c.created_at) + "_" + std::to_string(c.seq);
}

Result<Cursor> DecodeCursor(std::string_view text) {
  auto bad = Status::InvalidArgument("invalid cursor '" + std::string(text) +
                                     "' (pass next_cursor from a previous page)");
  size_t sep = text.find('_');
  if (sep == std::string_view::npos) return bad;
  Cursor c;
  auto r1 = std::from_chars(text.data(), text.data() + sep, c.created_at);
  auto r2 = std::from_chars(text.data() + sep + 1, text.data() + text.size(), c.seq);
  if (r1.ec != std::errc() || r1.ptr != text.data() + sep || r2.ec != std::errc() ||
      r2.ptr != text.data() + text.size()) {
    return bad;
  }
  return c;
}

std::string Placeholders(size_t n) {
  std::string s = "(";
  for (size_t i = 0; i < n; ++i) s += i ? ", ?" : "?";
  return s + ")";
}

std::string MetadataPath(const std::string& key) { return "$.\"" + key + "\""; }

// Appends the SQL for one metadata condition and records what to bind.
struct ListSql {
  std::string sql;
  std::vector<std::function<void(Statement*, int)>> binds;

  template <typename T>
  void Add(std::string clause, T value) {
    sql += std::move(clause);
    binds.push_back([value](Statement* st, int i) { st->Bind(i, value); });
  }
  void Raw(std::string clause) { sql += std::move(clause); }
};

// PostgreSQL's JSON operators in place of SQLite's json_type / json_extract; the key is bound as
// it is (text), not as a path.
void AddPgMetadataCondition(ListSql* q, const MetadataCondition& c) {
  const std::string field = "(metadata::jsonb -> CAST(? AS text))";
  const std::string text = "(metadata::jsonb ->> CAST(? AS text))";
  std::visit(
      [&](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::nullptr_t>) {
          q->Add(" AND jsonb_typeof" + field + " = 'null'", c.key);
        } else if constexpr (std::is_same_v<T, bool>) {
          q->Add(" AND " + field + (v ? " = 'true'::jsonb" : " = 'false'::jsonb"), c.key);
        } else if constexpr (std::is_same_v<T, std::string>) {
          q->Add(" AND jsonb_typeof" + field + " = 'string'", c.key);
          q->Add(" AND " + text + " = CAST(? AS text)", c.key);
          q->binds.push_back([v](Statement* st, int i) { st->Bind(i, std::string_view(v)); });
        } else {
          q->Add(" AND jsonb_typeof" + field + " = 'number'", c.key);
          q->Add(" AND CAST(" + text + " AS double precision) = ?", c.key);
          q->binds.push_back([v](Statement* st, int i) { st->Bind(i, v); });
        }
      },
      c.value);
}

void AddMetadataCondition(ListSql* q, const MetadataCondition& c, SqlDialect dialect) {
  if (dialect == SqlDialect::kPostgres) return AddPgMetadataCondition(q, c);
  const std::string path = MetadataPath(c.key);
  std::visit(
      [&](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::nullptr_t>) {
          q->Add(" AND json_type(metadata, ?) = 'null'", path);
        } else if constexpr (std::is_same_v<T, bool>) {
          q->Add(
              v ? " AND json_type(metadata, ?) = 'true'" : " AND json_type(metadata, ?) = 'false'",
              path);
        } else if constexpr (std::is_same_v<T, std::string>) {
          q->Add(" AND json_type(metadata, ?) = 'text'", path);
          q->Add(" AND json_extract(metadata, ?) = ?", path);
          q->binds.push_back([v](Statement* st, int i) { st->Bind(i, std::string_view(v)); });
        } else {
          q->Add(" AND json_type(metadata, ?) IN ('integer', 'real')", path);
          q->Add(" AND json_extract(metadata, ?) = ?", path);
          q->binds.push_back([v](Statement* st, int i) { st->Bind(i, v); });
        }
      },
      c.value);
}

template <typename E>
void AddEnumSet(ListSql* q, std::string_view column, const std::vector<E>& values) {
  if (values.empty()) return;
  q->Raw(" AND " + std::string(column) + " IN " + Placeholders(values.size()));
  for (E e : values) {
    std::string name(ToString(e));
    q->binds.push_back([name](Statement* st, int i) { st->Bind(i, std::string_view(name)); });
  }
}

Result<ListSql> BuildListSql(const ListQuery& query, SqlDialect dialect) {
  ListSql q;
  AddEnumSet(&q, "type", query.types);
  AddEnumSet(&q, "tier", query.tiers);
  if (query.as_of) {
    // A superseded item was active at as_of when its validity covered it (see ListQuery).
    AddEnumSet(&q, "(CASE status WHEN 'superseded' THEN 'active' ELSE status END)", query.statuses);
    q.Add(" AND valid_from <= ?", *query.as_of);
    q.Add(" AND (valid_to IS NULL OR valid_to > ?)", *query.as_of);
  } else {
    AddEnumSet(&q, "status", query.statuses);
  }
  if (query.created_after) q.Add(" AND created_at >= ?", *query.created_after);
  if (query.created_before) q.Add(" AND created_at < ?", *query.created_before);
  for (const std::string& tag : query.tags) {
    q.Add(" AND EXISTS (SELECT 1 FROM json_each(items.tags) WHERE value = ?)", tag);
  }
  for (const MetadataCondition& c : query.metadata) AddMetadataCondition(&q, c, dialect);
  if (!query.slot.empty()) q.Add(" AND slot = ?", query.slot);
  if (!query.slot_family.empty()) {
    // A range on the (scope_id, slot) index: ':' sorts just below ';'.
    q.Add(" AND (slot = ?", query.slot_family);
    q.Add(" OR (slot >= ?", query.slot_family + ":");
    q.Add(" AND slot < ?))", query.slot_family + ";");
  }
  if (!query.cursor.empty()) {
    ENGRAM_ASSIGN_OR_RETURN(Cursor c, DecodeCursor(query.cursor));
    q.Add(" AND (created_at < ?", c.created_at);
    q.Add(" OR (created_at = ?", c.created_at);
    q.Add(" AND seq < ?))", c.seq);
  }
  q.Raw(" ORDER BY created_at DESC, seq DESC LIMIT ?");
  q.binds.push_back([n = int64_t{query.limit} + 1](Statement* st, int i) { st->Bind(i, n); });
  return q;
}

}  // namespace

Result<MemoryItem> MemoryStore::GetOn(Database* db, const ScopeFilter& filter, const Scope& scope,
                                      std::string_view id, int64_t* seq) {
  ENGRAM_ASSIGN_OR_RETURN(ScopedStatement st,
                          db->Prepare(kSelectItems + "WHERE id = ? AND " + filter.Sql()));
  st->Bind(1, id);
  filter.Bind(st, 2);
  ENGRAM_ASSIGN_OR_RETURN(bool row, st->Step());
  if (!row) return Status::NotFound("memory '" + std::string(id) + "' not found");
  return ReadItemRow(*st, scope, seq);
}

Result<MemoryItem> MemoryStore::Get(const Scope& scope, std::string_view id) {
  ENGRAM_ASSIGN_OR_RETURN(ReaderLease lease, AcquireReader());
  ENGRAM_ASSIGN_OR_RETURN(ScopeFilter filter, ResolveForRead(lease.db(), scope));
  return GetOn(lease.db(), filter, scope, id, nullptr);
}

Result<ListPage> MemoryStore::List(const Scope& scope, const ListQuery& query) {
  ENGRAM_ASSIGN_OR_RETURN(ReaderLease lease, AcquireReader());
  Database* db = lease.db();
  ENGRAM_ASSIGN_OR_RETURN(ListSql q, BuildListSql(query, db->dialect()));
  ENGRAM_ASSIGN_OR_RETURN(ScopeFilter filter, ResolveForRead(db, scope));
  ListPage page;
  if (filter.scope_id < 0) return page;
  ENGRAM_ASSIGN_OR_RETURN(ScopedStatement st,
                          db->Prepare(kSelectItems + "WHERE " + filter.Sql() + q.sql));
  int next = filter.Bind(st, 1);
  for (auto& bind : q.binds) bind(st, next++);
  int64_t last_seq = 0;
  while (true) {
    ENGRAM_ASSIGN_OR_RETURN(bool row, st->Step());
    if (!row) break;
    if (static_cast<int>(page.items.size()) == query.limit) {
      const MemoryItem& last = page.items.back();
      page.next_cursor = EncodeCursor({last.created_at, last_seq});
      break;
    }
    ENGRAM_ASSIGN_OR_RETURN(MemoryItem item, ReadItemRow(*st, scope, &last_seq));
    page.items.push_back(std::move(item));
  }
  st->Reset();
  return page;
}

Result<std::vector<HistoryEntry>> MemoryStore::HistoryOn(Database* db, int64_t item_seq,
                                                         std::string_view item_id) {
  ENGRAM_ASSIGN_OR_RETURN(
      ScopedStatement st,
      db->Prepare("SELECT seq, event, old_content, new_content, previous, reason, at "
                  "FROM item_history WHERE item_seq = ? ORDER BY seq"));
  st->Bind(1, item_seq);
  std::vector<HistoryEntry> out;
  while (true) {
    ENGRAM_ASSIGN_OR_RETURN(bool row, st->Step());
    if (!row) break;
    HistoryEntry h;
    h.seq = st->Int(0);
    h.item_id = std::string(item_id);
    auto event = ParseHistoryEvent(st->Text(1));
    if (!event.ok()) return Status::Corruption("stored " + event.status().message());
    h.event = *event;
    if (!st->IsNull(2)) h.old_content = st->String(2);
    if (!st->IsNull(3)) h.new_content = st->String(3);
    if (!st->IsNull(4)) {
      auto j = nlohmann::json::parse(st->Text(4), nullptr, /*allow_exceptions=*/false);
      auto prev = ItemFromJson(j);
      if (!prev.ok())
        return Status::Corruption("stored history snapshot: " + prev.status().message());
      h.previous = std::move(prev).value();
    }
    h.reason = st->String(5);
    h.at = st->Int(6);
    out.push_back(std::move(h));
  }
  return out;
}

Result<std::vector<HistoryEntry>> MemoryStore::History(const Scope& scope, std::string_view id) {
  ENGRAM_ASSIGN_OR_RETURN(ReaderLease lease, AcquireReader());
  ENGRAM_ASSIGN_OR_RETURN(ScopeFilter filter, ResolveForRead(lease.db(), scope));
  int64_t seq = 0;
  ENGRAM_ASSIGN_OR_RETURN(MemoryItem item, GetOn(lease.db(), filter, scope, id, &seq));
  return HistoryOn(lease.db(), seq, item.id);
}

Result<std::vector<StoredVector>> MemoryStore::VectorsOn(Database* db, int64_t item_seq) {
  ENGRAM_ASSIGN_OR_RETURN(
      ScopedStatement st,
      db->Prepare("SELECT model, dim, vector FROM embeddings WHERE item_seq = ? ORDER BY model"));
  st->Bind(1, item_seq);
  std::vector<StoredVector> out;
  while (true) {
    ENGRAM_ASSIGN_OR_RETURN(bool row, st->Step());
    if (!row) break;
    StoredVector v{.model = st->String(0)};
    int64_t dim = st->Int(1);
    if (dim < 0 || static_cast<int64_t>(st->BlobSize(2)) != dim * 4) {
      return Status::Corruption("stored vector size does not match its dimension");
    }
    v.values.resize(static_cast<size_t>(dim));
    if (dim > 0) std::memcpy(v.values.data(), st->Blob(2), static_cast<size_t>(dim) * 4);
    out.push_back(std::move(v));
  }
  return out;
}

Result<std::vector<float>> MemoryStore::GetVector(const Scope& scope, std::string_view id,
                                                  std::string_view model) {
  ENGRAM_ASSIGN_OR_RETURN(ReaderLease lease, AcquireReader());
  ENGRAM_ASSIGN_OR_RETURN(ScopeFilter filter, ResolveForRead(lease.db(), scope));
  int64_t seq = 0;
  ENGRAM_RETURN_IF_ERROR(GetOn(lease.db(), filter, scope, id, &seq).status());
  ENGRAM_ASSIGN_OR_RETURN(auto vectors, VectorsOn(lease.db(), seq));
  for (StoredVector& v : vectors) {
    if (v.model == model) return std::move(v.values);
  }
  return Status::NotFound("memory '" + std::string(id) + "' has no vector for model '" +
                          std::string(model) + "'");
}

Status MemoryStore::Export(const Scope& scope,
                           const std::function<Status(const MemoryRecord&)>& sink) {
  ENGRAM_ASSIGN_OR_RETURN(ReaderLease lease, AcquireReader());
  Database* db = lease.db();
  // One read transaction: the export is a consistent snapshot even while writes go on.
  ReadTransaction read(db);
  ENGRAM_RETURN_IF_ERROR(read.Begin());
  ENGRAM_ASSIGN_OR_RETURN(ScopeFilter filter, ResolveForRead(db, scope));
  if (filter.scope_id < 0) return Status::Ok();
  ENGRAM_ASSIGN_OR_RETURN(auto st, db->PrepareUncached(kSelectItems + "WHERE " + filter.Sql() +
                                                       " ORDER BY created_at, seq"));
  filter.Bind(st.get(), 1);
  while (true) {
    ENGRAM_ASSIGN_OR_RETURN(bool row, st->Step());
    if (!row) break;
    MemoryRecord record;
    int64_t seq = 0;
    ENGRAM_ASSIGN_OR_RETURN(record.item, ReadItemRow(*st, scope, &seq));
    ENGRAM_ASSIGN_OR_RETURN(record.history, HistoryOn(db, seq, record.item.id));
    ENGRAM_ASSIGN_OR_RETURN(record.vectors, VectorsOn(db, seq));
    ENGRAM_RETURN_IF_ERROR(sink(record));
  }
  return Status::Ok();
}

Result<std::vector<ScopeSummary>> MemoryStore::ListScopes(std::string_view tenant) {
  ENGRAM_ASSIGN_OR_RETURN(ReaderLease lease, AcquireReader());
  ENGRAM_RETURN_IF_ERROR(tenant.empty() ? lease.db()->BindAllTenants()
                                        : lease.db()->BindTenant(tenant));
  // Grouped by the whole key: on PostgreSQL scopes.id is no longer the primary key.
  ENGRAM_ASSIGN_OR_RETURN(
      ScopedStatement st,
      lease.db()->Prepare("SELECT s.tenant, s.user_id, count(i.seq) FROM scopes s "
                          "LEFT JOIN items i ON i.scope_id = s.id "
                          "WHERE ?1 = '' OR s.tenant = ?1 GROUP BY s.id, s.tenant, s.user_id "
                          "ORDER BY s.tenant, s.user_id"));
  st->Bind(1, tenant);
  std::vector<ScopeSummary> out;
  while (true) {
    ENGRAM_ASSIGN_OR_RETURN(bool row, st->Step());
    if (!row) break;
    out.push_back({st->String(0), st->String(1), st->Int(2)});
  }
  return out;
}

Result<MemoryStore::Counts> MemoryStore::CountAll() {
  ENGRAM_ASSIGN_OR_RETURN(ReaderLease lease, AcquireReader());
  ENGRAM_RETURN_IF_ERROR(lease.db()->BindAllTenants());
  Counts counts;
  ENGRAM_ASSIGN_OR_RETURN(
      ScopedStatement st,
      lease.db()->Prepare("SELECT status, count(*) FROM items GROUP BY status"));
  while (true) {
    ENGRAM_ASSIGN_OR_RETURN(bool row, st->Step());
    if (!row) break;
    auto status = ParseItemStatus(st->Text(0));
    if (status.ok()) counts.items_by_status[static_cast<size_t>(*status)] = st->Int(1);
  }
  ENGRAM_ASSIGN_OR_RETURN(ScopedStatement sc, lease.db()->Prepare("SELECT count(*) FROM scopes"));
  ENGRAM_ASSIGN_OR_RETURN(bool row, sc->Step());
  counts.scopes = row ? sc->Int(0) : 0;
  sc->Reset();
  return counts;
}

Status MemoryStore::Scan(const Scope& scope, const std::string& model, bool with_vectors,
                         const std::function<Status(ScannedItem&&)>& sink) {
  ENGRAM_ASSIGN_OR_RETURN(ReaderLease lease, AcquireReader());
  Database* db = lease.db();
  const uint64_t generation = cache_.Generation();  // before the read transaction starts
  ReadTransaction read(db);
  ENGRAM_RETURN_IF_ERROR(read.Begin());
  const Scope whole{scope.tenant, scope.user_id, "", ""};
  ENGRAM_ASSIGN_OR_RETURN(ScopeFilter filter, ResolveForRead(db, whole));
  if (filter.scope_id < 0) return Status::Ok();
  std::unordered_map<int64_t, std::vector<float>> vectors;
  ENGRAM_ASSIGN_OR_RETURN(
      ScopedStatement vs,
      db->Prepare("SELECT e.item_seq, e.dim, CASE WHEN ?3 <> 0 THEN e.vector END FROM embeddings e "
                  "JOIN items i ON i.seq = e.item_seq WHERE i.scope_id = ?1 AND e.model = ?2"));
  vs->Bind(1, filter.scope_id).Bind(2, model).Bind(3, int64_t{with_vectors});
  while (true) {
    ENGRAM_ASSIGN_OR_RETURN(bool row, vs->Step());
    if (!row) break;
    if (!with_vectors) {
      vectors.emplace(vs->Int(0), std::vector<float>());
      continue;
    }
    int64_t dim = vs->Int(1);
    if (dim <= 0 || vs->BlobSize(2) != dim * 4) {
      return Status::Corruption("stored vector size does not match its dimension");
    }
    std::vector<float> v(static_cast<size_t>(dim));
    std::memcpy(v.data(), vs->Blob(2), static_cast<size_t>(dim) * 4);
    vectors.emplace(vs->Int(0), std::move(v));
  }
  ENGRAM_ASSIGN_OR_RETURN(ScopedStatement st,
                          db->Prepare(kSelectItems + "WHERE scope_id = ? ORDER BY seq"));
  st->Bind(1, filter.scope_id);
  while (true) {
    ENGRAM_ASSIGN_OR_RETURN(bool row, st->Step());
    if (!row) break;
    ScannedItem scanned;
    ENGRAM_ASSIGN_OR_RETURN(scanned.item, ReadItemRow(*st, whole, &scanned.seq));
    cache_.Offer(generation, scanned.seq, scanned.item);  // into free room only
    if (auto it = vectors.find(scanned.seq); it != vectors.end()) {
      scanned.has_vector = true;
      if (with_vectors) scanned.vector = std::move(it->second);
    }
    ENGRAM_RETURN_IF_ERROR(sink(std::move(scanned)));
  }
  return Status::Ok();
}

Result<std::vector<ScannedItem>> MemoryStore::GetBySeqs(const Scope& scope,
                                                        const std::vector<int64_t>& seqs,
                                                        ReadSource* from_db) {
  const Scope whole{scope.tenant, scope.user_id, "", ""};
  std::vector<ScannedItem> out;
  std::vector<int64_t> missing;
  for (int64_t seq : seqs) {
    ScannedItem cached;
    if (cache_.Get(seq, whole, &cached.item)) {
      cached.seq = seq;
      out.push_back(std::move(cached));
    } else {
      missing.push_back(seq);
    }
  }
  if (missing.empty()) return out;
  const uint64_t generation = cache_.Generation();  // before the read transaction starts
  ENGRAM_ASSIGN_OR_RETURN(ReaderLease lease, AcquireReader());
  Database* db = lease.db();
  ReadTransaction read(db);
  ENGRAM_RETURN_IF_ERROR(read.Begin());
  ENGRAM_ASSIGN_OR_RETURN(ScopeFilter filter, ResolveForRead(db, whole));
  if (filter.scope_id < 0) return out;
  if (from_db != nullptr) {  // in the same snapshot as the rows
    ENGRAM_ASSIGN_OR_RETURN(ScopedStatement epoch,
                            db->Prepare("SELECT flushes FROM access_epoch WHERE id = 1"));
    ENGRAM_ASSIGN_OR_RETURN(bool row, epoch->Step());
    if (!row) return Status::Corruption("access_epoch has no row");
    from_db->access_epoch = epoch->Int(0);
    epoch->Reset();
  }
  ENGRAM_ASSIGN_OR_RETURN(ScopedStatement st,
                          db->Prepare(kSelectItems + "WHERE seq = ? AND scope_id = ?"));
  for (int64_t seq : missing) {
    st->Reset();
    st->Bind(1, seq).Bind(2, filter.scope_id);
    ENGRAM_ASSIGN_OR_RETURN(bool row, st->Step());
    if (!row) continue;
    ScannedItem scanned;
    ENGRAM_ASSIGN_OR_RETURN(scanned.item, ReadItemRow(*st, whole, &scanned.seq));
    cache_.Put(generation, scanned.seq, scanned.item);
    if (from_db != nullptr) from_db->from_db.push_back(scanned.seq);
    out.push_back(std::move(scanned));
  }
  return out;
}

Result<VectorFingerprint> MemoryStore::Fingerprint(const Scope& scope, const std::string& model) {
  ENGRAM_ASSIGN_OR_RETURN(ReaderLease lease, AcquireReader());
  const Scope whole{scope.tenant, scope.user_id, "", ""};
  ENGRAM_ASSIGN_OR_RETURN(ScopeFilter filter, ResolveForRead(lease.db(), whole));
  ENGRAM_ASSIGN_OR_RETURN(
      ScopedStatement st,
      lease.db()->Prepare("SELECT count(*), coalesce(max(e.item_seq), 0), "
                          "coalesce(sum(e.item_seq), 0), coalesce(sum(e.created_at % 1000003), 0), "
                          "coalesce(sum(e.dim), 0) FROM embeddings e JOIN items i "
                          "ON i.seq = e.item_seq WHERE i.scope_id = ? AND e.model = ?"));
  st->Bind(1, filter.scope_id).Bind(2, model);
  ENGRAM_ASSIGN_OR_RETURN(bool row, st->Step());
  VectorFingerprint fp;
  if (!row) return fp;
  fp.count = st->Int(0);
  // FNV-1a over the aggregates: any added, removed or replaced vector changes one of them.
  uint64_t h = 1469598103934665603ull;
  for (int col = 0; col < 5; ++col) {
    uint64_t v = static_cast<uint64_t>(st->Int(col));
    for (int b = 0; b < 8; ++b) {
      h ^= (v >> (8 * b)) & 0xFF;
      h *= 1099511628211ull;
    }
  }
  fp.value = h;
  return fp;
}

Result<std::optional<int64_t>> MemoryStore::ScopeId(const Scope& scope) {
  ENGRAM_ASSIGN_OR_RETURN(ReaderLease lease, AcquireReader());
  return FindScopeId(lease.db(), Scope{scope.tenant, scope.user_id, "", ""});
}

}  // namespace engram
