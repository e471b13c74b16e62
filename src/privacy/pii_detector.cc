// DetectPii: runs every scanner, then keeps the best of overlapping candidates.
#include <algorithm>
#include <map>
#include <tuple>

#include "engram/privacy.h"
#include "privacy/pii_scanners.h"

namespace engram {
namespace {

// True if [begin, end) overlaps a taken interval; `taken` maps begin → end, disjoint.
bool Overlaps(const std::map<size_t, size_t>& taken, size_t begin, size_t end) {
  auto next = taken.lower_bound(begin);
  if (next != taken.end() && next->first < end) return true;
  return next != taken.begin() && std::prev(next)->second > begin;
}

// The more specific kind wins an overlap (pii::Rank); within a rank the earlier, then the
// longer candidate.
std::vector<PiiFinding> Resolve(pii::Candidates candidates) {
  std::sort(candidates.begin(), candidates.end(), [](const auto& a, const auto& b) {
    return std::make_tuple(a.rank, a.offset, b.length) <
           std::make_tuple(b.rank, b.offset, a.length);
  });
  std::map<size_t, size_t> taken;
  std::vector<PiiFinding> findings;
  for (const pii::Candidate& c : candidates) {
    if (c.length == 0 || Overlaps(taken, c.offset, c.offset + c.length)) continue;
    taken.emplace(c.offset, c.offset + c.length);
    findings.push_back({c.kind, c.offset, c.length});
  }
  std::sort(findings.begin(), findings.end(),
            [](const PiiFinding& a, const PiiFinding& b) { return a.offset < b.offset; });
  return findings;
}

}  // namespace

std::string_view ToString(PiiKind kind) {
  switch (kind) {
    case PiiKind::kEmail:
      return "email";
    case PiiKind::kPhone:
      return "phone";
    case PiiKind::kChineseId:
      return "cn_id";
    case PiiKind::kBankCard:
      return "bank_card";
    case PiiKind::kIpAddress:
      return "ip";
    case PiiKind::kSecret:
      return "secret";
  }
  return "unknown";
}

std::vector<PiiFinding> DetectPii(std::string_view text) {
  pii::Candidates candidates;
  pii::ScanSecrets(text, &candidates);
  pii::ScanEmails(text, &candidates);
  pii::ScanNumbers(text, &candidates);
  pii::ScanIpAddresses(text, &candidates);
  return Resolve(std::move(candidates));
}

}  // namespace engram
