#include "retrieval/entity_graph.h"

#include <unicode/uchar.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <unordered_set>

#include "text/normalizer.h"
#include "text/utf8.h"

namespace engram {
namespace {

constexpr char kUnitSeparator = '\x1f';
// A name longer than this many units is not looked for in queries (no entity name is).
constexpr size_t kLongestKey = 8;
// Credit kept per relation walked: an entity two relations away counts a quarter of a seed.
constexpr double kHopDecay = 0.5;

std::string Join(const std::vector<std::string>& units, size_t from, size_t n) {
  std::string key;
  for (size_t i = from; i < from + n; ++i) {
    if (i > from) key += kUnitSeparator;
    key += units[i];
  }
  return key;
}

bool IsCjkUnit(const std::string& unit) {
  size_t i = 0;
  return !unit.empty() && IsCjkCodepoint(NextCodepoint(unit, &i));
}

// How much one mention of an entity says, as a term's IDF does: 1 for an entity one memory
// names, falling to 0 for one that every memory naming anyone names (in a transcript, its
// speaker), among the `named` memories that name any entity.
double Specificity(size_t mentions, size_t named) {
  if (mentions == 0 || named < 2) return 1.0;
  const double n = static_cast<double>(named) + 1;
  return std::max(0.0, std::log(n / static_cast<double>(mentions)) / std::log(n));
}

size_t SlotOf(int64_t seq, size_t slots) {
  return static_cast<size_t>((static_cast<uint64_t>(seq) * 0x9E3779B97F4A7C15ull) >> 32) &
         (slots - 1);
}

}  // namespace

std::vector<std::string> NameUnits(std::string_view text) {
  const std::string norm = NormalizeForMatching(text);
  std::vector<std::string> units;
  std::string word;
  size_t i = 0;
  while (i < norm.size()) {
    const size_t start = i;
    const char32_t c = NextCodepoint(norm, &i);
    if (IsCjkCodepoint(c)) {
      if (!word.empty()) units.push_back(std::move(word)), word.clear();
      units.emplace_back(norm.substr(start, i - start));
    } else if (u_isalnum(static_cast<UChar32>(c))) {
      word.append(norm, start, i - start);
    } else if (!word.empty()) {
      units.push_back(std::move(word));
      word.clear();
    }
  }
  if (!word.empty()) units.push_back(std::move(word));
  return units;
}

EntityGraph::EntityGraph(const GraphRows& rows) {
  std::unordered_map<std::string, uint32_t> index_of;
  nodes_.reserve(rows.entities.size());
  for (const GraphRows::Entity& e : rows.entities) {
    const uint32_t at = static_cast<uint32_t>(nodes_.size());
    index_of[e.id] = at;
    nodes_.push_back({e.name, e.kind, e.items, {}});
    for (int64_t seq : e.items) item_entities_[seq].push_back(at);
    if (e.kind == EntityKind::kUser) continue;  // never a seed (FindSeeds)
    std::unordered_set<std::string> keys;
    for (const std::string& norm : e.norms) {
      const std::vector<std::string> units = NameUnits(norm);
      if (units.empty() || units.size() > kLongestKey) continue;
      // One CJK character ("王", "猫") or one Latin letter names too much to be looked for.
      if (units.size() == 1 && (IsCjkUnit(units[0]) || units[0].size() < 2)) continue;
      if (keys.insert(Join(units, 0, units.size())).second) {
        by_name_[Join(units, 0, units.size())].push_back(at);
        longest_name_ = std::max(longest_name_, units.size());
      }
    }
  }
  for (const GraphRows::Edge& e : rows.edges) {
    auto s = index_of.find(e.subject_id);
    auto o = index_of.find(e.object_id);
    if (!e.active || s == index_of.end() || o == index_of.end() || s->second == o->second) {
      continue;
    }
    const uint32_t edge = static_cast<uint32_t>(edge_items_.size());
    edge_items_.push_back(e.items);
    for (int64_t seq : e.items) item_edges_[seq].push_back(edge);
    nodes_[s->second].links.push_back({o->second, edge});
    nodes_[o->second].links.push_back({s->second, edge});
  }
  named_items_ = item_entities_.size();
}

void EntityGraph::FindSeeds(std::string_view text, double weight,
                            std::vector<GraphSeed>* seeds) const {
  if (by_name_.empty() || weight <= 0) return;
  const std::vector<std::string> units = NameUnits(text);
  for (size_t i = 0; i < units.size(); ++i) {
    std::string key;
    for (size_t n = 1; n <= longest_name_ && i + n <= units.size(); ++n) {
      if (n > 1) key += kUnitSeparator;
      key += units[i + n - 1];
      auto it = by_name_.find(key);
      if (it == by_name_.end()) continue;
      for (uint32_t entity : it->second) {
        auto known = std::find_if(seeds->begin(), seeds->end(),
                                  [&](const GraphSeed& s) { return s.entity == entity; });
        if (known == seeds->end()) {
          seeds->push_back({entity, weight});
        } else {
          known->weight = std::max(known->weight, weight);
        }
      }
    }
  }
}

GraphWalkResult EntityGraph::Walk(const std::vector<GraphSeed>& seeds, int hops, int max_nodes,
                                  size_t limit) const {
  GraphWalkResult out;
  if (seeds.empty() || limit == 0) return out;
  // Breadth first from every seed at once: each entity at its shortest distance, with the
  // credit of the best seed that reaches it there.
  auto& reached = out.reached;  // entity → (hops, weight)
  std::deque<uint32_t> frontier;
  for (const GraphSeed& s : seeds) {
    if (static_cast<int>(reached.size()) >= max_nodes) {
      out.truncated = true;
      break;
    }
    auto [it, fresh] = reached.try_emplace(s.entity, 0, s.weight);
    if (fresh) {
      frontier.push_back(s.entity);
    } else {
      it->second.second = std::max(it->second.second, s.weight);
    }
  }
  // The memories credited so far (a few thousand at most): a flat array with an open-addressing
  // index, sized for the mentions the reached entities can credit, where a node-based map cost
  // an allocation per memory.
  struct Credit {
    int64_t seq = 0;
    double score = 0;
    double best = 0;  // the largest single contribution, and whose
    uint32_t via = 0;
    int hops = 0;
  };
  std::vector<Credit> credits;
  std::vector<uint32_t> slots(256, 0);  // 1 + index into credits; 0: empty; a power of two long
  auto credit = [&](int64_t seq, double amount, uint32_t via, int at) {
    if (2 * (credits.size() + 1) > slots.size()) {
      slots.assign(2 * slots.size(), 0);
      for (size_t n = 0; n < credits.size(); ++n) {
        size_t i = SlotOf(credits[n].seq, slots.size());
        while (slots[i] != 0) i = (i + 1) & (slots.size() - 1);
        slots[i] = static_cast<uint32_t>(n + 1);
      }
    }
    size_t i = SlotOf(seq, slots.size());
    while (slots[i] != 0 && credits[slots[i] - 1].seq != seq) i = (i + 1) & (slots.size() - 1);
    if (slots[i] == 0) {
      credits.push_back({seq, 0, 0, 0, 0});
      slots[i] = static_cast<uint32_t>(credits.size());
    }
    Credit& c = credits[slots[i] - 1];
    c.score += amount;
    if (amount > c.best) c.best = amount, c.via = via, c.hops = at;
  };
  while (!frontier.empty()) {
    const uint32_t at = frontier.front();
    frontier.pop_front();
    const auto [distance, weight] = reached[at];
    const Node& node = nodes_[at];
    // The user's own entity links to everything they said of anyone: a walk through it would
    // reach the whole graph. It is reached (its relation to a seed counts), not walked through.
    if (distance >= hops || node.kind == EntityKind::kUser) continue;
    for (const Link& link : node.links) {
      // The statement of the relation walked counts as much as the entity it reaches.
      double& walked = out.walked[link.edge];
      if (weight * kHopDecay > walked) {
        for (int64_t seq : edge_items_[link.edge]) {
          credit(seq, weight * kHopDecay - walked, link.other, distance + 1);
        }
        walked = weight * kHopDecay;
      }
      if (reached.count(link.other)) continue;
      if (static_cast<int>(reached.size()) >= max_nodes) {
        out.truncated = true;
        continue;
      }
      reached.emplace(link.other, std::make_pair(distance + 1, weight * kHopDecay));
      frontier.push_back(link.other);
    }
  }
  for (const auto& [entity, reach] : reached) {
    const Node& node = nodes_[entity];
    if (node.kind == EntityKind::kUser) continue;  // every memory is the user's
    const double each = reach.second * Specificity(node.items.size(), named_items_);
    const size_t from =
        node.items.size() > kMaxMentionsCredited ? node.items.size() - kMaxMentionsCredited : 0;
    for (size_t i = from; i < node.items.size(); ++i)
      credit(node.items[i], each, entity, reach.first);
  }
  out.visited = static_cast<int>(reached.size());
  out.credits.reserve(credits.size());
  for (const Credit& c : credits) out.credits.push_back({c.seq, c.score, c.via, c.hops});
  auto better = [](const GraphCredit& a, const GraphCredit& b) {
    return a.score != b.score ? a.score > b.score : a.seq > b.seq;  // newer first on ties
  };
  if (out.credits.size() > limit) {
    std::partial_sort(out.credits.begin(), out.credits.begin() + static_cast<ptrdiff_t>(limit),
                      out.credits.end(), better);
    out.credits.resize(limit);
  } else {
    std::sort(out.credits.begin(), out.credits.end(), better);
  }
  return out;
}

GraphCredit EntityGraph::CreditOf(int64_t seq, const GraphWalkResult& walk) const {
  GraphCredit out{seq, 0, 0, 0};
  double best = 0;
  if (auto it = item_entities_.find(seq); it != item_entities_.end()) {
    for (uint32_t entity : it->second) {
      auto reach = walk.reached.find(entity);
      if (reach == walk.reached.end() || nodes_[entity].kind == EntityKind::kUser) continue;
      const double amount =
          reach->second.second * Specificity(nodes_[entity].items.size(), named_items_);
      out.score += amount;
      if (amount > best) best = amount, out.via = entity, out.hops = reach->second.first;
    }
  }
  if (auto it = item_edges_.find(seq); it != item_edges_.end()) {
    for (uint32_t edge : it->second) {
      auto walked = walk.walked.find(edge);
      if (walked != walk.walked.end()) out.score += walked->second;
    }
  }
  return out;
}

size_t EntityGraph::MemoryBytes() const {
  size_t bytes = sizeof(*this) + nodes_.capacity() * sizeof(Node);
  for (const Node& n : nodes_) {
    bytes += n.name.capacity() + n.items.capacity() * sizeof(int64_t) +
             n.links.capacity() * sizeof(Link);
  }
  for (const auto& items : edge_items_) bytes += sizeof(items) + items.capacity() * sizeof(int64_t);
  // Hash nodes of the two reverse maps: a key, a vector and a pointer each, and their lists.
  for (const auto* reverse : {&item_entities_, &item_edges_}) {
    for (const auto& [seq, list] : *reverse) bytes += 48 + list.capacity() * sizeof(uint32_t);
  }
  for (const auto& [key, list] : by_name_) {
    bytes += 64 + key.capacity() + list.capacity() * sizeof(uint32_t);
  }
  return bytes;
}

}  // namespace engram
