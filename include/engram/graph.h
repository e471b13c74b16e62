// The entity graph of one user (issue 39): the people, places, organisations, pets, projects and
// products their memories name, and the relations between them as bi-temporal edges.
//
// Value types only. Extraction (rules: include/engram/extraction.h ExtractGraph; an LLM:
// include/engram/llm.h) fills GraphFacts; the store writes them in the same transaction as the
// memory or turn that states them (storage/memory_store_graph.cc); Engine reads them back
// (Engine::ListEntities, GetEntity, EntityNeighbours). The graph is per (tenant, user): agents and
// sessions of a user share it, and nothing in it is visible to another user or tenant.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engram/memory.h"

namespace engram {

enum class EntityKind {
  kUser,  // the user the memories belong to (one per scope; named by the user_id)
  kPerson,
  kPlace,
  kOrganization,
  kPet,
  kProject,
  kProduct,
};

// "user", "person", "place", "organization", "pet", "project", "product".
std::string_view ToString(EntityKind kind);
// The inverse of ToString; also accepts "org", "organisation", "location", "city", "task".
std::optional<EntityKind> ParseEntityKind(std::string_view text);

// The name an extractor gives the user themself as a relation's subject or object.
inline constexpr std::string_view kSelfEntity = "@user";

// An entity a text names, in its own script ("张伟", "杭州", "Figma").
struct GraphEntity {
  std::string name;
  EntityKind kind = EntityKind::kPerson;
  // Names the text itself gives the same entity ("我老公老王": 老王 is also "老公"); never a
  // guess that two names are one entity.
  std::vector<std::string> aliases;
  // A role word with no name ("我老公喜欢钓鱼", "my wife works at Figma"): it names an entity
  // only through an alias stated before ("我老公老王"); with none stored, the store creates
  // nothing for it and drops the relations that need it.
  bool reference_only = false;
};

// A relation a text states: subject and object are entity names of the same GraphFacts, or
// kSelfEntity. Predicates are snake_case words from data/lexicon/*/graph_*.tsv ("lives_in",
// "works_at", "partner", "has_pet", "leads", "part_of", …).
struct GraphRelation {
  std::string subject;
  std::string predicate;
  std::string object;
  // When it began to hold in the world, when the text says; else when it was said.
  std::optional<TimestampMs> valid_from;
  // The text says it stopped holding ("moved from 北京 to 杭州": lives_in 北京 ended).
  bool ended = false;
};

struct GraphFacts {
  std::vector<GraphEntity> entities;
  std::vector<GraphRelation> relations;
  bool empty() const { return entities.empty() && relations.empty(); }
};

// A stored entity with its counts (Engine::ListEntities).
struct EntityRecord {
  std::string id;  // "ent_" + UUIDv7
  std::string name;
  EntityKind kind = EntityKind::kPerson;
  std::vector<std::string> aliases;
  int64_t mentions = 0;      // memories and turns that name it
  int64_t edges = 0;         // relations it takes part in (ended ones too)
  int64_t active_edges = 0;  // of those, the ones that still hold
  TimestampMs created_at = 0;
  TimestampMs updated_at = 0;
};

// A stored relation: valid_from/valid_to in the world, created_at/expired_at in Engram.
struct EdgeRecord {
  std::string id;  // "rel_" + UUIDv7
  std::string subject_id, subject_name;
  std::string predicate;
  std::string object_id, object_name;
  TimestampMs valid_from = 0;
  std::optional<TimestampMs> valid_to;  // set: it stopped holding then
  TimestampMs created_at = 0;
  std::optional<TimestampMs> expired_at;  // set: Engram stopped taking it as current then
  std::string ended_by;                   // the memory whose write ended it, if any
  std::vector<std::string> sources;       // ids of the memories and turns that state it
  bool active() const { return !valid_to && !expired_at; }
};

struct EntityQuery {
  std::optional<EntityKind> kind;
  std::string name;    // substring of the name or an alias (case-insensitive for ASCII); "": any
  int limit = 100;     // 1..1000
  int64_t offset = 0;  // entities to skip (EntityPage::next_offset of the page before)
};

struct EntityPage {
  std::vector<EntityRecord> entities;
  std::optional<int64_t> next_offset;  // set when more entities follow
};

struct EntityDetail {
  EntityRecord entity;
  std::vector<EdgeRecord> edges;          // newest first; ended ones too
  std::vector<std::string> mentioned_in;  // memory and turn ids, newest first (at most 200)
};

// Neighbourhood of an entity (Engine::EntityNeighbours): entities within `hops` relations, each
// with its distance, and the relations walked. Bounded by the node cap, whatever the data.
struct GraphWalk {
  int hops = 1;                // 1..3
  int max_nodes = 200;         // entities visited at most (1..1000)
  bool include_ended = false;  // walk relations that no longer hold too
};
struct NeighbourEntity {
  EntityRecord entity;
  int distance = 0;
};
struct Neighbourhood {
  EntityRecord root;
  std::vector<NeighbourEntity> entities;  // root excluded, by distance then name
  std::vector<EdgeRecord> edges;
  bool truncated = false;  // the node cap stopped the walk
};

// A user's whole entity graph as stored, read in one snapshot for retrieval's graph channel
// (src/retrieval/entity_graph.h, from MemoryStore::LoadGraphRows). Names are normalized as
// stored (NFKC case-folded); items are the store's internal keys (seqs), as the scope index
// knows them.
struct GraphRows {
  struct Entity {
    std::string id;
    std::string name;
    EntityKind kind = EntityKind::kPerson;
    std::vector<std::string> norms;  // its name's, then its aliases'
    std::vector<int64_t> items;      // the items that mention it
  };
  struct Edge {
    std::string subject_id, object_id, predicate;
    bool active = true;          // still holds (neither ended in the world nor in Engram)
    std::vector<int64_t> items;  // the items that state it
  };
  std::vector<Entity> entities;
  std::vector<Edge> edges;
};

}  // namespace engram
