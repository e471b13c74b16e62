// The entity graph's storage (issue 39; include/engram/graph.h; tables: migrations.cc version 13,
// pg_migrations.cc migration 7). Written inside the transaction that writes the item stating it
// (InsertLocked, Apply), ended inside the one that supersedes or deletes that item
// (MutateLocked), and removed by the items' cascades and the tables' triggers on a hard delete.
// Every statement names the scope's id, resolved from (tenant, user) like every other call of
// the store: an entity or edge of another user or tenant is NotFound, exactly as a missing one.
#include <algorithm>
#include <deque>
#include <map>
#include <set>

#include "core/status_macros.h"
#include "storage/memory_store.h"
#include "storage/memory_store_internal.h"
#include "text/lexicon_data.h"
#include "text/normalizer.h"

namespace engram {
namespace {

// Relations that hold one object at a time (data/lexicon/graph_predicates.tsv): a new one ends
// the subject's open edge to another object, from the new one's start.
bool Exclusive(std::string_view predicate) {
  for (const auto& [key, words] : LexiconEntries("graph_predicates.tsv")) {
    if (key == "exclusive") return std::find(words.begin(), words.end(), predicate) != words.end();
  }
  return false;
}

std::string NormName(std::string_view name) { return NormalizeForMatching(name); }

Result<EntityKind> KindOf(std::string_view text) {
  auto kind = ParseEntityKind(text);
  if (!kind) return Status::Corruption("graph entity of unknown kind '" + std::string(text) + "'");
  return *kind;
}

}  // namespace

Result<std::string> MemoryStore::EnsureEntityLocked(int64_t scope_id, EntityKind kind,
                                                    const std::string& name,
                                                    const std::string& norm, TimestampMs now) {
  ENGRAM_ASSIGN_OR_RETURN(
      ScopedStatement find,
      writer_->Prepare(
          "SELECT id FROM graph_entities WHERE scope_id = ? AND kind = ? AND norm = ?"));
  find->Bind(1, scope_id).Bind(2, ToString(kind)).Bind(3, norm);
  ENGRAM_ASSIGN_OR_RETURN(bool row, find->Step());
  if (row) {
    std::string id = find->String(0);
    find->Reset();
    ENGRAM_ASSIGN_OR_RETURN(
        ScopedStatement touch,
        writer_->Prepare("UPDATE graph_entities SET updated_at = max(updated_at, ?) WHERE id = ?"));
    ENGRAM_RETURN_IF_ERROR(touch->Bind(1, now).Bind(2, id).Run());
    return id;
  }
  find->Reset();
  std::string id = "ent_" + graph_ids_.Next(now);
  ENGRAM_ASSIGN_OR_RETURN(
      ScopedStatement ins,
      writer_->Prepare("INSERT INTO graph_entities (id, scope_id, kind, name, norm, created_at, "
                       "updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)"));
  ENGRAM_RETURN_IF_ERROR(ins->Bind(1, id)
                             .Bind(2, scope_id)
                             .Bind(3, ToString(kind))
                             .Bind(4, name)
                             .Bind(5, norm)
                             .Bind(6, now)
                             .Bind(7, now)
                             .Run());
  return id;
}

Status MemoryStore::WriteGraphLocked(int64_t scope_id, int64_t item_seq, const MemoryItem& item,
                                     const GraphFacts& graph, TimestampMs now) {
  if (graph.empty()) return Status::Ok();
  std::map<std::string, std::string> ids;  // name in `graph` → entity id
  auto self = [&]() -> Result<std::string> {
    auto it = ids.find(std::string(kSelfEntity));
    if (it != ids.end()) return it->second;
    ENGRAM_ASSIGN_OR_RETURN(std::string id,
                            EnsureEntityLocked(scope_id, EntityKind::kUser, item.scope.user_id,
                                               NormName(item.scope.user_id), now));
    ids[std::string(kSelfEntity)] = id;
    return id;
  };
  ENGRAM_ASSIGN_OR_RETURN(
      ScopedStatement mention,
      writer_->Prepare("INSERT INTO graph_mentions (entity_id, item_seq) VALUES (?, ?) " +
                       UpsertOn(writer_.get(), "entity_id, item_seq") + " DO NOTHING"));
  ENGRAM_ASSIGN_OR_RETURN(
      ScopedStatement alias,
      writer_->Prepare("INSERT INTO graph_aliases (entity_id, scope_id, alias, norm, item_seq) "
                       "VALUES (?, ?, ?, ?, ?) " +
                       UpsertOn(writer_.get(), "entity_id, norm, item_seq") + " DO NOTHING"));
  // The latest alias given: "我老公" names whoever the user last called so.
  ENGRAM_ASSIGN_OR_RETURN(
      ScopedStatement by_alias,
      writer_->Prepare("SELECT a.entity_id FROM graph_aliases a JOIN items i ON i.seq = a.item_seq "
                       "WHERE a.scope_id = ? AND a.norm = ? AND i.status = 'active' "
                       "ORDER BY a.item_seq DESC LIMIT 1"));
  for (const GraphEntity& e : graph.entities) {
    if (e.name.empty() || e.name == kSelfEntity) continue;
    const std::string norm = NormName(e.name);
    if (norm.empty()) continue;
    std::string id;
    if (e.reference_only) {
      by_alias->Reset();
      by_alias->Bind(1, scope_id).Bind(2, norm);
      ENGRAM_ASSIGN_OR_RETURN(bool row, by_alias->Step());
      if (!row) continue;  // a role never named: nothing to attach it to, nothing invented
      id = by_alias->String(0);
      by_alias->Reset();
    } else {
      ENGRAM_ASSIGN_OR_RETURN(id, EnsureEntityLocked(scope_id, e.kind, e.name, norm, now));
    }
    ids[e.name] = id;
    mention->Reset();
    ENGRAM_RETURN_IF_ERROR(mention->Bind(1, id).Bind(2, item_seq).Run());
    for (const std::string& a : e.aliases) {
      const std::string alias_norm = NormName(a);
      if (alias_norm.empty()) continue;
      alias->Reset();
      ENGRAM_RETURN_IF_ERROR(alias->Bind(1, id)
                                 .Bind(2, scope_id)
                                 .Bind(3, a)
                                 .Bind(4, alias_norm)
                                 .Bind(5, item_seq)
                                 .Run());
    }
  }
  for (const GraphRelation& r : graph.relations) {
    auto resolve = [&](const std::string& name) -> Result<std::string> {
      if (name == kSelfEntity) return self();
      auto it = ids.find(name);
      return it == ids.end() ? std::string() : it->second;
    };
    ENGRAM_ASSIGN_OR_RETURN(std::string s, resolve(r.subject));
    ENGRAM_ASSIGN_OR_RETURN(std::string o, resolve(r.object));
    if (s.empty() || o.empty() || s == o || r.predicate.empty()) continue;
    ENGRAM_RETURN_IF_ERROR(WriteEdgeLocked(scope_id, item_seq, item, s, r, o, now));
  }
  return Status::Ok();
}

Status MemoryStore::WriteEdgeLocked(int64_t scope_id, int64_t item_seq, const MemoryItem& item,
                                    const std::string& s, const GraphRelation& r,
                                    const std::string& o, TimestampMs now) {
  const TimestampMs from = r.valid_from.value_or(item.valid_from);
  ENGRAM_ASSIGN_OR_RETURN(
      ScopedStatement open,
      writer_->Prepare("SELECT id FROM graph_edges WHERE scope_id = ? AND subject_id = ? AND "
                       "predicate = ? AND object_id = ? AND valid_to IS NULL AND "
                       "expired_at IS NULL"));
  open->Bind(1, scope_id).Bind(2, s).Bind(3, r.predicate).Bind(4, o);
  ENGRAM_ASSIGN_OR_RETURN(bool row, open->Step());
  std::string edge = row ? open->String(0) : "";
  open->Reset();
  ENGRAM_ASSIGN_OR_RETURN(
      ScopedStatement source,
      writer_->Prepare("INSERT INTO graph_edge_sources (edge_id, item_seq) VALUES (?, ?) " +
                       UpsertOn(writer_.get(), "edge_id, item_seq") + " DO NOTHING"));
  if (r.ended) {
    // "我从北京搬到杭州": the open edge to 北京 ends where the text dates the move.
    if (edge.empty()) return Status::Ok();  // never known to hold: no edge is made up
    ENGRAM_ASSIGN_OR_RETURN(
        ScopedStatement end,
        writer_->Prepare("UPDATE graph_edges SET valid_to = max(valid_from, ?), expired_at = ?, "
                         "ended_by = ? WHERE id = ?"));
    ENGRAM_RETURN_IF_ERROR(end->Bind(1, from).Bind(2, now).Bind(3, item.id).Bind(4, edge).Run());
    return source->Bind(1, edge).Bind(2, item_seq).Run();
  }
  if (edge.empty()) {
    edge = "rel_" + graph_ids_.Next(now);
    ENGRAM_ASSIGN_OR_RETURN(
        ScopedStatement ins,
        writer_->Prepare("INSERT INTO graph_edges (id, scope_id, subject_id, predicate, "
                         "object_id, valid_from, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)"));
    ENGRAM_RETURN_IF_ERROR(ins->Bind(1, edge)
                               .Bind(2, scope_id)
                               .Bind(3, s)
                               .Bind(4, r.predicate)
                               .Bind(5, o)
                               .Bind(6, from)
                               .Bind(7, now)
                               .Run());
    if (Exclusive(r.predicate)) {
      // One home city, one employer: the subject's other open edge of the predicate ends where
      // this one begins (a move said about 张伟, whose memory no slot rule superseded).
      ENGRAM_ASSIGN_OR_RETURN(
          ScopedStatement others,
          writer_->Prepare("UPDATE graph_edges SET valid_to = max(valid_from, ?), "
                           "expired_at = ?, ended_by = ? WHERE scope_id = ? AND subject_id = ? "
                           "AND predicate = ? AND object_id <> ? AND valid_to IS NULL AND "
                           "expired_at IS NULL AND valid_from <= ?"));
      ENGRAM_RETURN_IF_ERROR(others->Bind(1, from)
                                 .Bind(2, now)
                                 .Bind(3, item.id)
                                 .Bind(4, scope_id)
                                 .Bind(5, s)
                                 .Bind(6, r.predicate)
                                 .Bind(7, o)
                                 .Bind(8, from)
                                 .Run());
    }
  }
  return source->Bind(1, edge).Bind(2, item_seq).Run();
}

Status MemoryStore::EndEdgesLocked(int64_t item_seq, const MemoryItem& item, TimestampMs now) {
  // The edges this item states end with it, unless another active memory (not a kept turn:
  // a turn is the record of what was said, not a current belief) still states them. A
  // superseded fact's relation stopped holding in the world when the fact did (valid_to); a
  // deleted one is only no longer believed (expired_at).
  const bool superseded = item.status == ItemStatus::kSuperseded;
  ENGRAM_ASSIGN_OR_RETURN(
      ScopedStatement end,
      writer_->Prepare(
          "UPDATE graph_edges SET valid_to = CASE WHEN ?1 = 1 THEN max(valid_from, ?2) "
          "ELSE valid_to END, expired_at = ?3, ended_by = ?4 "
          "WHERE expired_at IS NULL AND id IN (SELECT edge_id FROM graph_edge_sources "
          "WHERE item_seq = ?5) AND NOT EXISTS (SELECT 1 FROM graph_edge_sources s2 JOIN items i "
          "ON i.seq = s2.item_seq WHERE s2.edge_id = graph_edges.id AND s2.item_seq <> ?5 AND "
          "i.status = 'active' AND i.type <> 'message')"));
  return end->Bind(1, int64_t{superseded ? 1 : 0})
      .Bind(2, item.valid_to.value_or(now))
      .Bind(3, now)
      .Bind(4, superseded && !item.superseded_by.empty() ? item.superseded_by : item.id)
      .Bind(5, item_seq)
      .Run();
}

// ---------------------------------------------------------------- reads

namespace {

constexpr std::string_view kEntityColumns =
    "e.id, e.name, e.kind, e.created_at, e.updated_at, "
    "(SELECT count(*) FROM graph_mentions m WHERE m.entity_id = e.id), "
    "(SELECT count(*) FROM graph_edges g WHERE g.subject_id = e.id OR g.object_id = e.id), "
    "(SELECT count(*) FROM graph_edges g WHERE (g.subject_id = e.id OR g.object_id = e.id) AND "
    "g.valid_to IS NULL AND g.expired_at IS NULL)";

Result<EntityRecord> ReadEntity(Statement* st) {
  EntityRecord e;
  e.id = st->String(0);
  e.name = st->String(1);
  ENGRAM_ASSIGN_OR_RETURN(e.kind, KindOf(st->Text(2)));
  e.created_at = st->Int(3);
  e.updated_at = st->Int(4);
  e.mentions = st->Int(5);
  e.edges = st->Int(6);
  e.active_edges = st->Int(7);
  return e;
}

// The first column of every row of `sql`, its one parameter bound to `id`.
Status ReadColumn(Database* db, const std::string& sql, const std::string& id,
                  std::vector<std::string>* out) {
  ENGRAM_ASSIGN_OR_RETURN(ScopedStatement st, db->Prepare(sql));
  st->Bind(1, id);
  while (true) {
    ENGRAM_ASSIGN_OR_RETURN(bool row, st->Step());
    if (!row) return Status::Ok();
    out->push_back(st->String(0));
  }
}

Status ReadAliases(Database* db, EntityRecord* e) {
  return ReadColumn(db,
                    "SELECT alias FROM graph_aliases WHERE entity_id = ? GROUP BY alias "
                    "ORDER BY min(item_seq)",
                    e->id, &e->aliases);
}

constexpr std::string_view kEdgeSelect =
    "SELECT g.id, g.subject_id, s.name, g.predicate, g.object_id, o.name, g.valid_from, "
    "g.valid_to, g.created_at, g.expired_at, g.ended_by FROM graph_edges g "
    "JOIN graph_entities s ON s.id = g.subject_id JOIN graph_entities o ON o.id = g.object_id ";

EdgeRecord ReadEdge(Statement* st) {
  EdgeRecord r;
  r.id = st->String(0);
  r.subject_id = st->String(1);
  r.subject_name = st->String(2);
  r.predicate = st->String(3);
  r.object_id = st->String(4);
  r.object_name = st->String(5);
  r.valid_from = st->Int(6);
  r.valid_to = st->OptionalInt(7);
  r.created_at = st->Int(8);
  r.expired_at = st->OptionalInt(9);
  r.ended_by = st->String(10);
  return r;
}

Status ReadSources(Database* db, EdgeRecord* r) {
  return ReadColumn(db,
                    "SELECT i.id FROM graph_edge_sources x JOIN items i ON i.seq = x.item_seq "
                    "WHERE x.edge_id = ? ORDER BY x.item_seq",
                    r->id, &r->sources);
}

// The edges touching `entity` in the scope, newest first (active only unless `ended`).
Result<std::vector<EdgeRecord>> EdgesOf(Database* db, int64_t scope_id, const std::string& entity,
                                        bool ended) {
  std::string sql = std::string(kEdgeSelect) +
                    "WHERE g.scope_id = ?1 AND (g.subject_id = ?2 OR g.object_id = ?2)";
  if (!ended) sql += " AND g.valid_to IS NULL AND g.expired_at IS NULL";
  sql += " ORDER BY g.created_at DESC, g.id DESC";
  ENGRAM_ASSIGN_OR_RETURN(ScopedStatement st, db->Prepare(sql));
  st->Bind(1, scope_id).Bind(2, entity);
  std::vector<EdgeRecord> out;
  while (true) {
    ENGRAM_ASSIGN_OR_RETURN(bool row, st->Step());
    if (!row) break;
    out.push_back(ReadEdge(st));
  }
  st->Reset();
  for (EdgeRecord& r : out) ENGRAM_RETURN_IF_ERROR(ReadSources(db, &r));
  return out;
}

Result<std::optional<EntityRecord>> FindEntity(Database* db, int64_t scope_id,
                                               std::string_view id) {
  ENGRAM_ASSIGN_OR_RETURN(ScopedStatement st,
                          db->Prepare("SELECT " + std::string(kEntityColumns) +
                                      " FROM graph_entities e WHERE e.scope_id = ? AND e.id = ?"));
  st->Bind(1, scope_id).Bind(2, id);
  ENGRAM_ASSIGN_OR_RETURN(bool row, st->Step());
  if (!row) return std::optional<EntityRecord>();
  ENGRAM_ASSIGN_OR_RETURN(EntityRecord e, ReadEntity(st));
  st->Reset();
  ENGRAM_RETURN_IF_ERROR(ReadAliases(db, &e));
  return std::optional<EntityRecord>(std::move(e));
}

}  // namespace

Result<EntityPage> MemoryStore::ListEntities(const Scope& scope, const EntityQuery& query) {
  ENGRAM_ASSIGN_OR_RETURN(ReaderLease lease, AcquireReader());
  Database* db = lease.db();
  ENGRAM_ASSIGN_OR_RETURN(auto scope_id, FindScopeId(db, scope));
  EntityPage page;
  if (!scope_id) return page;
  // Every parameter appears whatever the query sets (PostgreSQL types each from its use).
  static const std::string kSql =
      "SELECT " + std::string(kEntityColumns) +
      " FROM graph_entities e WHERE e.scope_id = ?1 AND (?2 = '' OR e.kind = ?2) AND "
      "(?3 = '' OR instr(e.norm, ?3) > 0 OR EXISTS (SELECT 1 FROM graph_aliases a WHERE "
      "a.entity_id = e.id AND instr(a.norm, ?3) > 0)) "
      // Most connected first (what a user's graph is mostly about), then by name.
      "ORDER BY 7 DESC, 6 DESC, e.name, e.id LIMIT ?4 OFFSET ?5";
  const std::string needle = NormName(query.name);
  ENGRAM_ASSIGN_OR_RETURN(ScopedStatement st, db->Prepare(kSql));
  st->Bind(1, *scope_id);
  // A string, never a null view (which binds NULL, and NULL = '' is no match).
  const std::string kind(query.kind ? ToString(*query.kind) : "");
  st->Bind(2, kind);
  st->Bind(3, needle);
  st->Bind(4, int64_t{query.limit} + 1).Bind(5, query.offset);
  while (true) {
    ENGRAM_ASSIGN_OR_RETURN(bool row, st->Step());
    if (!row) break;
    ENGRAM_ASSIGN_OR_RETURN(EntityRecord e, ReadEntity(st));
    page.entities.push_back(std::move(e));
  }
  st->Reset();
  if (page.entities.size() > static_cast<size_t>(query.limit)) {
    page.entities.pop_back();
    page.next_offset = query.offset + query.limit;
  }
  for (EntityRecord& e : page.entities) ENGRAM_RETURN_IF_ERROR(ReadAliases(db, &e));
  return page;
}

Result<EntityDetail> MemoryStore::GetEntity(const Scope& scope, std::string_view id) {
  ENGRAM_ASSIGN_OR_RETURN(ReaderLease lease, AcquireReader());
  Database* db = lease.db();
  ENGRAM_ASSIGN_OR_RETURN(auto scope_id, FindScopeId(db, scope));
  const Status missing = Status::NotFound("entity '" + std::string(id) + "' not found");
  if (!scope_id) return missing;
  ReadTransaction read(db);
  ENGRAM_RETURN_IF_ERROR(read.Begin());
  ENGRAM_ASSIGN_OR_RETURN(auto found, FindEntity(db, *scope_id, id));
  if (!found) return missing;
  EntityDetail out;
  out.entity = std::move(*found);
  ENGRAM_ASSIGN_OR_RETURN(out.edges, EdgesOf(db, *scope_id, out.entity.id, /*ended=*/true));
  ENGRAM_ASSIGN_OR_RETURN(
      ScopedStatement st,
      db->Prepare("SELECT i.id FROM graph_mentions m JOIN items i ON i.seq = m.item_seq "
                  "WHERE m.entity_id = ? ORDER BY m.item_seq DESC LIMIT 200"));
  st->Bind(1, out.entity.id);
  while (true) {
    ENGRAM_ASSIGN_OR_RETURN(bool row, st->Step());
    if (!row) break;
    out.mentioned_in.push_back(st->String(0));
  }
  return out;
}

Result<Neighbourhood> MemoryStore::EntityNeighbours(const Scope& scope, std::string_view id,
                                                    const GraphWalk& walk) {
  ENGRAM_ASSIGN_OR_RETURN(ReaderLease lease, AcquireReader());
  Database* db = lease.db();
  ENGRAM_ASSIGN_OR_RETURN(auto scope_id, FindScopeId(db, scope));
  const Status missing = Status::NotFound("entity '" + std::string(id) + "' not found");
  if (!scope_id) return missing;
  ReadTransaction read(db);
  ENGRAM_RETURN_IF_ERROR(read.Begin());
  ENGRAM_ASSIGN_OR_RETURN(auto root, FindEntity(db, *scope_id, id));
  if (!root) return missing;
  Neighbourhood out;
  out.root = *root;
  // Breadth first: each entity once, at its shortest distance; at most max_nodes entities
  // besides the root are visited, whatever the graph holds.
  std::map<std::string, int> distance{{root->id, 0}};
  std::set<std::string> edge_seen;
  std::deque<std::string> frontier{root->id};
  while (!frontier.empty()) {
    const std::string at = frontier.front();
    frontier.pop_front();
    const int d = distance[at];
    if (d >= walk.hops) continue;
    ENGRAM_ASSIGN_OR_RETURN(auto edges, EdgesOf(db, *scope_id, at, walk.include_ended));
    for (EdgeRecord& e : edges) {
      const std::string& other = e.subject_id == at ? e.object_id : e.subject_id;
      if (!distance.count(other)) {
        if (static_cast<int>(out.entities.size()) >= walk.max_nodes) {
          out.truncated = true;
          continue;
        }
        distance[other] = d + 1;
        ENGRAM_ASSIGN_OR_RETURN(auto found, FindEntity(db, *scope_id, other));
        if (!found) continue;
        out.entities.push_back({std::move(*found), d + 1});
        frontier.push_back(other);
      }
      if (edge_seen.insert(e.id).second) out.edges.push_back(std::move(e));
    }
  }
  std::stable_sort(out.entities.begin(), out.entities.end(),
                   [](const NeighbourEntity& a, const NeighbourEntity& b) {
                     return a.distance != b.distance ? a.distance < b.distance
                                                     : a.entity.name < b.entity.name;
                   });
  return out;
}

Result<GraphRows> MemoryStore::LoadGraphRows(const Scope& scope) {
  ENGRAM_ASSIGN_OR_RETURN(ReaderLease lease, AcquireReader());
  Database* db = lease.db();
  ENGRAM_ASSIGN_OR_RETURN(auto scope_id, FindScopeId(db, scope));
  GraphRows out;
  if (!scope_id) return out;
  ReadTransaction read(db);  // one snapshot: no mention of an entity the read has not seen
  ENGRAM_RETURN_IF_ERROR(read.Begin());
  // Each statement: its rows, handed over one at a time.
  auto each_row = [&](const std::string& sql, const auto& take) -> Status {
    ENGRAM_ASSIGN_OR_RETURN(ScopedStatement st, db->Prepare(sql));
    st->Bind(1, *scope_id);
    while (true) {
      ENGRAM_ASSIGN_OR_RETURN(bool row, st->Step());
      if (!row) return Status::Ok();
      ENGRAM_RETURN_IF_ERROR(take(st));
    }
  };
  std::map<std::string, size_t> entity_at;
  ENGRAM_RETURN_IF_ERROR(
      each_row("SELECT id, name, kind, norm FROM graph_entities WHERE scope_id = ? ORDER BY id",
               [&](Statement* st) -> Status {
                 GraphRows::Entity e;
                 e.id = st->String(0);
                 e.name = st->String(1);
                 ENGRAM_ASSIGN_OR_RETURN(e.kind, KindOf(st->Text(2)));
                 e.norms.push_back(st->String(3));
                 entity_at[e.id] = out.entities.size();
                 out.entities.push_back(std::move(e));
                 return Status::Ok();
               }));
  ENGRAM_RETURN_IF_ERROR(
      each_row("SELECT DISTINCT entity_id, norm FROM graph_aliases WHERE scope_id = ?",
               [&](Statement* st) -> Status {
                 auto it = entity_at.find(st->String(0));
                 if (it == entity_at.end()) return Status::Ok();
                 std::vector<std::string>& norms = out.entities[it->second].norms;
                 std::string norm = st->String(1);
                 if (std::find(norms.begin(), norms.end(), norm) == norms.end())
                   norms.push_back(std::move(norm));
                 return Status::Ok();
               }));
  ENGRAM_RETURN_IF_ERROR(
      each_row("SELECT m.entity_id, m.item_seq FROM graph_mentions m JOIN graph_entities e ON "
               "e.id = m.entity_id WHERE e.scope_id = ? ORDER BY m.item_seq",
               [&](Statement* st) -> Status {
                 auto it = entity_at.find(st->String(0));
                 if (it != entity_at.end()) out.entities[it->second].items.push_back(st->Int(1));
                 return Status::Ok();
               }));
  std::string last;  // the edge of the row before
  ENGRAM_RETURN_IF_ERROR(each_row(
      "SELECT g.id, g.subject_id, g.object_id, g.predicate, CASE WHEN g.valid_to IS NULL AND "
      "g.expired_at IS NULL THEN 1 ELSE 0 END, x.item_seq FROM graph_edges g JOIN "
      "graph_edge_sources x ON x.edge_id = g.id WHERE g.scope_id = ? ORDER BY g.id, x.item_seq",
      [&](Statement* st) -> Status {
        std::string id = st->String(0);
        if (out.edges.empty() || id != last) {
          GraphRows::Edge e;
          e.subject_id = st->String(1);
          e.object_id = st->String(2);
          e.predicate = st->String(3);
          e.active = st->Int(4) != 0;
          out.edges.push_back(std::move(e));
          last = std::move(id);
        }
        out.edges.back().items.push_back(st->Int(5));
        return Status::Ok();
      }));
  return out;
}

}  // namespace engram
