// The built-in conflict resolver ("rules-v1"). Rules, first match wins:
//  1. A neighbour in the same slot:
//     same normalized text → NOOP; the candidate is a correction → SUPERSEDE; opposite
//     polarity ("likes X" / "does not like X", same slot user/likes:x) → SUPERSEDE; the
//     candidate contains the neighbour's text → UPDATE; the neighbour contains the candidate's
//     → NOOP; an exclusive slot with another value → SUPERSEDE; a keyed multi-valued slot
//     (user/likes:x, user/pet:max: the key names the value) → NOOP. Topic slots that many
//     statements share (user/family:wife, user/routine:monday) go on to rule 2.
//  2. Any neighbour: same normalized text, or similarity ≥ 0.95 with the same polarity and the
//     same numbers → NOOP; similarity ≥ 0.9 with opposite polarity → SUPERSEDE; the candidate
//     contains the neighbour's text, or similarity ≥ 0.85 and the candidate is longer (same
//     numbers) → UPDATE with the candidate's content.
//  3. Otherwise ADD.
#include <cstdio>
#include <string>

#include "engram/extraction.h"
#include "text/normalizer.h"

namespace engram {
namespace {

constexpr double kNearIdentical = 0.95;
constexpr double kOppositeSimilar = 0.9;
constexpr double kMoreDetail = 0.85;

// NFKC-casefolded text without spaces and punctuation: "User lives in Shanghai." and
// "user lives in shanghai" compare equal.
std::string Norm(std::string_view s) {
  std::string n = NormalizeForMatching(s);
  std::string out;
  for (size_t i = 0; i < n.size(); ++i) {
    auto c = static_cast<unsigned char>(n[i]);
    if (c < 0x80 && !std::isalnum(c)) continue;
    // CJK punctuation (U+3000–U+303F) and full-width forms are dropped too.
    if (c == 0xE3 && i + 1 < n.size() && static_cast<unsigned char>(n[i + 1]) == 0x80) {
      i += 2;
      continue;
    }
    if (c == 0xEF && i + 1 < n.size() &&
        (static_cast<unsigned char>(n[i + 1]) == 0xBC ||
         static_cast<unsigned char>(n[i + 1]) == 0xBD)) {
      i += 2;
      continue;
    }
    out += n[i];
  }
  return out;
}

std::string Digits(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (std::isdigit(static_cast<unsigned char>(c))) out += c;
  }
  return out;
}

// True when the statement denies or reverses ("dislikes", "no longer", "不喜欢", "不再").
bool Negative(std::string_view content) {
  std::string low = NormalizeForMatching(content);
  for (std::string_view m : {" not ", "n't ", " never ", " no longer ", " dislikes ", " hates ",
                             " cannot ", " detests ", " loathes "}) {
    if ((" " + low + " ").find(m) != std::string::npos) return true;
  }
  for (std::string_view m : {"不喜欢", "不爱", "讨厌", "不再", "不吃", "不喝", "受不了", "厌恶",
                             "没有", "不想", "不打算", "不能", "不感兴趣", "不养", "没养", "怕"}) {
    if (low.find(m) != std::string::npos) return true;
  }
  return false;
}

bool TopicSlot(std::string_view slot) {
  return slot.starts_with("user/family:") || slot.starts_with("user/routine:");
}

std::string Percent(double similarity) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%.2f", similarity);
  return buf;
}

DecisionResult Result_(WriteDecision d, int target, std::string reason, std::string merged = "") {
  return DecisionResult{d, target, std::move(merged), std::move(reason)};
}

class RuleResolver final : public ConflictResolver {
 public:
  const std::string& name() const override { return name_; }

  Result<DecisionResult> Decide(const Candidate& candidate,
                                const std::vector<Neighbour>& neighbours) override {
    const std::string cand = Norm(candidate.content);
    const bool cand_negative = Negative(candidate.content);
    std::vector<std::string> norms;
    norms.reserve(neighbours.size());
    for (const Neighbour& n : neighbours) norms.push_back(Norm(n.item.content));
    const std::string& slot = candidate.slot;
    // 1. same slot: an equal statement first, then the first decisive neighbour.
    for (size_t i = 0; i < neighbours.size(); ++i) {
      if (neighbours[i].same_slot && norms[i] == cand) {
        return Result_(WriteDecision::kNoop, static_cast<int>(i),
                       "same slot " + slot + ", same value");
      }
    }
    for (size_t i = 0; i < neighbours.size(); ++i) {
      if (!neighbours[i].same_slot) continue;
      const int t = static_cast<int>(i);
      if (candidate.correction) {
        return Result_(WriteDecision::kSupersede, t, "correction of slot " + slot);
      }
      if (Negative(neighbours[i].item.content) != cand_negative) {
        return Result_(WriteDecision::kSupersede, t, "same slot " + slot + ", opposite polarity");
      }
      if (!norms[i].empty() && cand.find(norms[i]) != std::string::npos) {
        return Result_(WriteDecision::kUpdate, t, "same slot " + slot + ", more detail",
                       candidate.content);
      }
      if (!cand.empty() && norms[i].find(cand) != std::string::npos) {
        return Result_(WriteDecision::kNoop, t,
                       "same slot " + slot + ", already known in more detail");
      }
      if (candidate.exclusive) {
        return Result_(WriteDecision::kSupersede, t,
                       "exclusive slot " + slot + ": new value replaces \"" +
                           neighbours[i].item.content + "\"");
      }
      if (!TopicSlot(slot)) {
        return Result_(WriteDecision::kNoop, t, "same slot " + slot + ", same polarity");
      }
    }
    // 2. near-identical text or the same fact in more detail.
    int best = -1;
    for (size_t i = 0; i < neighbours.size(); ++i) {
      if (best < 0 || neighbours[i].similarity > neighbours[best].similarity)
        best = static_cast<int>(i);
      if (norms[i] == cand) {
        return Result_(WriteDecision::kNoop, static_cast<int>(i), "near-identical text");
      }
    }
    for (size_t i = 0; i < neighbours.size(); ++i) {
      if (norms[i].size() >= 6 && cand.size() > norms[i].size() &&
          cand.find(norms[i]) != std::string::npos &&
          Negative(neighbours[i].item.content) == cand_negative) {
        return Result_(WriteDecision::kUpdate, static_cast<int>(i),
                       "contains the stored text and adds detail", candidate.content);
      }
    }
    if (best >= 0) {
      const Neighbour& n = neighbours[best];
      const bool same_polarity = Negative(n.item.content) == cand_negative;
      const bool same_numbers = Digits(n.item.content) == Digits(candidate.content);
      const std::string sim = "similarity " + Percent(n.similarity);
      if (n.similarity >= kNearIdentical && same_polarity && same_numbers) {
        return Result_(WriteDecision::kNoop, best, "near-identical (" + sim + ")");
      }
      if (n.similarity >= kOppositeSimilar && !same_polarity) {
        return Result_(WriteDecision::kSupersede, best,
                       "same statement with opposite polarity (" + sim + ")");
      }
      if (n.similarity >= kMoreDetail && same_polarity && same_numbers &&
          candidate.content.size() > n.item.content.size()) {
        return Result_(WriteDecision::kUpdate, best, "same fact in more detail (" + sim + ")",
                       candidate.content);
      }
    }
    return Result_(WriteDecision::kAdd, -1,
                   slot.empty() ? "new: no similar memory" : "new: no memory in slot " + slot);
  }

 private:
  std::string name_ = "rules-v1";
};

}  // namespace

std::unique_ptr<ConflictResolver> MakeRuleResolver() { return std::make_unique<RuleResolver>(); }

}  // namespace engram
