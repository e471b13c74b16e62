#include "codec/field_names.h"

#include <algorithm>
#include <array>
#include <span>
#include <utility>
#include <vector>

namespace engram {
namespace {

// Names clients commonly send for a field under another name: other memory APIs' words, and
// the obvious short forms. Only suggested where the target is a known field.
constexpr std::array<std::pair<std::string_view, std::string_view>, 16> kAliases = {{
    {"memory", "content"},
    {"body", "content"},
    {"value", "content"},
    {"data", "content"},
    {"q", "query"},
    {"search", "query"},
    {"top_k", "k"},
    {"topk", "k"},
    {"top_n", "k"},
    {"limit", "k"},
    {"n", "limit"},
    {"page_size", "limit"},
    {"user", "user_id"},
    {"agent", "agent_id"},
    {"session", "session_id"},
    {"budget", "token_budget"},
}};

// Deprecated names still accepted, and the names that replace them: a suggestion never
// points a client at a name that is going.
constexpr std::array<std::pair<std::string_view, std::string_view>, 1> kDeprecated = {{
    {"text", "content"},
}};

// Lower case without '_' and '-': "userId", "user-id" and "user_id" compare equal.
std::string Folded(std::string_view name) {
  std::string out;
  out.reserve(name.size());
  for (char c : name) {
    if (c == '_' || c == '-') continue;
    out.push_back(c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c);
  }
  return out;
}

size_t MaxDistance(size_t length) { return length <= 4 ? 1 : std::max<size_t>(2, length / 3); }

std::string Canonical(std::string name, const std::set<std::string>& known) {
  for (const auto& [old_name, replacement] : kDeprecated) {
    if (name == old_name && known.count(std::string(replacement))) {
      return std::string(replacement);
    }
  }
  return name;
}

}  // namespace

size_t EditDistance(std::string_view a, std::string_view b) {
  // Three rows of the optimal-string-alignment table: names are short, this runs only on
  // the error path.
  std::vector<size_t> before(b.size() + 1), prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        cur[j] = std::min(cur[j], before[j - 2] + 1);
      }
    }
    std::swap(before, prev);
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string SuggestFieldName(std::string_view unknown, const std::set<std::string>& known) {
  const std::string folded = Folded(unknown);
  // A deprecated name where it was never accepted ("text" in a PATCH body) is an alias too.
  using Table = std::span<const std::pair<std::string_view, std::string_view>>;
  for (Table table : {Table(kAliases), Table(kDeprecated)}) {
    for (const auto& [alias, target] : table) {
      if (folded == Folded(alias) && known.count(std::string(target)) && target != unknown) {
        return std::string(target);
      }
    }
  }
  std::string best;
  size_t best_distance = MaxDistance(folded.size()) + 1;
  for (const std::string& name : known) {
    if (name == unknown) continue;
    const size_t d = EditDistance(folded, Folded(name));
    if (d < best_distance) {  // ties keep the first in the set's (sorted) order
      best = name;
      best_distance = d;
    }
  }
  if (best.empty()) return best;
  best = Canonical(std::move(best), known);
  return best == unknown ? std::string() : best;
}

std::string DidYouMean(std::string_view unknown, const std::set<std::string>& known) {
  const std::string suggestion = SuggestFieldName(unknown, known);
  return suggestion.empty() ? std::string() : "; did you mean '" + suggestion + "'?";
}

}  // namespace engram
