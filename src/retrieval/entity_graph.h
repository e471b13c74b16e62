// Retrieval's graph channel (issue 39): a user's entity graph held in memory, the entities a
// query names found in it, and the memories reached from them within a few relations.
//
// A query naming an entity ("What does Caroline's sister do?", "老王在哪上班") seeds a
// breadth-first walk over the relations that still hold; every memory that mentions a reached
// entity, and every memory that states a walked relation, is credited, less the further it is
// from the seed and the more memories name the entity (as a term's IDF: an entity most
// memories name says little about which one a query wants). The credits become a third ranked list
// beside BM25 and vectors (retrieval/searcher.h). The walk is bounded by a node cap whatever the
// graph holds, and an entity named by very many memories (the user's best friend, their home town)
// credits only its newest mentions: such an entity says little about which of its memories a query
// wants.
//
// Immutable once built; built from GraphRows (include/engram/graph.h) read in one snapshot.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engram/graph.h"

namespace engram {

// An entity a query names, and the weight of the text that named it (the query 1, a recent
// turn its recent_turn_weight).
struct GraphSeed {
  uint32_t entity = 0;
  double weight = 1;
};

// A memory the walk reached, with its credit and the entity that gave the most of it.
struct GraphCredit {
  int64_t seq = 0;
  double score = 0;
  uint32_t via = 0;  // entity index
  int hops = 0;      // that entity's distance from a seed
};

struct GraphWalkResult {
  std::vector<GraphCredit> credits;  // best first, at most the limit asked
  int visited = 0;                   // entities reached, seeds included
  bool truncated = false;            // the node cap stopped the walk
  // What the walk reached: entity → (distance, weight), and the relations walked → weight.
  std::unordered_map<uint32_t, std::pair<int, double>> reached;
  std::unordered_map<uint32_t, double> walked;
};

class EntityGraph {
 public:
  explicit EntityGraph(const GraphRows& rows);

  // Adds the entities `text` names (by name or alias, whole words; CJK names of two characters
  // or more) as seeds of `weight`. The user's own entity is never a seed: every memory is theirs.
  void FindSeeds(std::string_view text, double weight, std::vector<GraphSeed>* seeds) const;

  // Walks up to `hops` relations from the seeds, visiting at most `max_nodes` entities, and
  // returns the best `limit` memories it credits.
  GraphWalkResult Walk(const std::vector<GraphSeed>& seeds, int hops, int max_nodes,
                       size_t limit) const;

  // The credit the walk gives any memory (one of its list or not, such as a keyword match
  // naming a reached entity): what it would have had in the list, hubs' mentions uncapped. 0:
  // the walk reached nothing it mentions or states.
  GraphCredit CreditOf(int64_t seq, const GraphWalkResult& walk) const;

  size_t entities() const { return nodes_.size(); }
  const std::string& name(uint32_t entity) const { return nodes_[entity].name; }
  size_t MemoryBytes() const;

  // Most mentions an entity credits (its newest); the rest of a hub's mentions are left to the
  // other channels.
  static constexpr size_t kMaxMentionsCredited = 64;

 private:
  struct Link {
    uint32_t other = 0;
    uint32_t edge = 0;
  };
  struct Node {
    std::string name;
    EntityKind kind = EntityKind::kPerson;
    std::vector<int64_t> items;  // mentions, oldest first
    std::vector<Link> links;     // relations that still hold
  };
  std::vector<Node> nodes_;
  std::vector<std::vector<int64_t>> edge_items_;  // the items stating each edge
  // The other way round: each item's entities and the edges it states.
  std::unordered_map<int64_t, std::vector<uint32_t>> item_entities_;
  std::unordered_map<int64_t, std::vector<uint32_t>> item_edges_;
  size_t named_items_ = 0;  // items that mention any entity
  // Name and alias keys (NameKey) → entities.
  std::unordered_map<std::string, std::vector<uint32_t>> by_name_;
  size_t longest_name_ = 0;  // in units (NameUnits)
};

// Matching units of a text, normalized (NFKC case-folded): each run of letters and digits
// outside CJK is one unit, each CJK character another. Exposed for tests.
std::vector<std::string> NameUnits(std::string_view text);

}  // namespace engram
