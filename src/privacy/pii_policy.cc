// PiiPolicy parsing and ApplyPiiPolicy: keep, redact, hash or reject each finding.
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "engram/privacy.h"
#include "privacy/scan_chars.h"

namespace engram {
namespace {

constexpr std::array<PiiKind, 6> kKinds = {PiiKind::kEmail,     PiiKind::kPhone,
                                           PiiKind::kChineseId, PiiKind::kBankCard,
                                           PiiKind::kIpAddress, PiiKind::kSecret};
constexpr std::array<PiiAction, 4> kActions = {PiiAction::kKeep, PiiAction::kRedact,
                                               PiiAction::kHash, PiiAction::kReject};

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

Result<PiiAction> ParseAction(std::string_view word) {
  for (PiiAction action : kActions) {
    if (ToString(action) == word) return action;
  }
  return Status::InvalidArgument("unknown privacy action \"" + std::string(word) +
                                 "\" (expected keep, redact, hash or reject)");
}

Result<PiiKind> ParseKind(std::string_view word) {
  for (PiiKind kind : kKinds) {
    if (ToString(kind) == word) return kind;
  }
  return Status::InvalidArgument("unknown kind of personal data \"" + std::string(word) +
                                 "\" (expected email, phone, cn_id, bank_card, ip or secret)");
}

// One "kind=action" entry into `policy`.
Status ParseOverride(std::string_view entry, PiiPolicy* policy) {
  size_t eq = entry.find('=');
  Result<PiiKind> kind = ParseKind(Trim(entry.substr(0, eq)));
  if (!kind.ok()) return kind.status();
  Result<PiiAction> action = ParseAction(Trim(entry.substr(eq + 1)));
  if (!action.ok()) return action.status();
  if (!policy->overrides.emplace(*kind, *action).second) {
    return Status::InvalidArgument("privacy policy sets \"" + std::string(ToString(*kind)) +
                                   "\" twice");
  }
  return Status::Ok();
}

std::string_view Description(PiiKind kind) {
  switch (kind) {
    case PiiKind::kEmail:
      return "an e-mail address";
    case PiiKind::kPhone:
      return "a phone number";
    case PiiKind::kChineseId:
      return "a Chinese resident ID number";
    case PiiKind::kBankCard:
      return "a bank card number";
    case PiiKind::kIpAddress:
      return "an IP address";
    case PiiKind::kSecret:
      return "a secret (key, token or password)";
  }
  return "personal data";
}

// OK, or InvalidArgument naming the rejected kinds in order of appearance. The message names
// kinds only: it travels to clients and logs, so it must never carry the value.
Status Rejection(const std::vector<PiiFinding>& findings, const PiiPolicy& policy) {
  std::vector<PiiKind> kinds;
  for (const PiiFinding& f : findings) {
    if (policy.ActionFor(f.kind) != PiiAction::kReject) continue;
    if (std::find(kinds.begin(), kinds.end(), f.kind) == kinds.end()) kinds.push_back(f.kind);
  }
  if (kinds.empty()) return Status::Ok();
  std::string message = "content contains ";
  for (size_t k = 0; k < kinds.size(); ++k) {
    if (k > 0) message += k + 1 == kinds.size() ? " and " : ", ";
    message += Description(kinds[k]);
  }
  message +=
      kinds.size() == 1 ? "; the privacy policy rejects it" : "; the privacy policy rejects them";
  return Status::InvalidArgument(std::move(message));
}

// The form of a value that the hash sees, so one value written differently hashes alike:
// numbers as ASCII digits (a Chinese mobile without +86 / 0086), ids with an upper-case X,
// e-mail and IPv6 addresses in lower case.
std::string Normalized(PiiKind kind, std::string_view value) {
  std::string out;
  switch (kind) {
    case PiiKind::kPhone:
      out = pii::DigitsOf(value, 0, value.size());
      if (out.rfind("0086", 0) == 0) out.erase(0, 2);
      if (out.size() == 13 && out.rfind("861", 0) == 0) out.erase(0, 2);
      return out;
    case PiiKind::kChineseId:
      out = pii::DigitsOf(value, 0, value.size());
      if (out.size() == 17) out.push_back('X');  // the one character that is not a digit
      return out;
    case PiiKind::kBankCard:
      return pii::DigitsOf(value, 0, value.size());
    case PiiKind::kEmail:
    case PiiKind::kIpAddress:
      for (char c : value) out.push_back(pii::AsciiLower(c));
      return out;
    case PiiKind::kSecret:
      break;
  }
  return std::string(value);
}

// "[kind:xxxxxxxx]": the first 4 bytes of HMAC-SHA256(key, normalized value) in hex.
std::string HashPlaceholder(PiiKind kind, std::string_view value, const std::string& key) {
  std::string normalized = Normalized(kind, value);
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int mac_len = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(normalized.data()), normalized.size(), mac, &mac_len);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "[" + std::string(ToString(kind)) + ":";
  for (int k = 0; k < 4; ++k) {
    out.push_back(kHex[mac[k] >> 4]);
    out.push_back(kHex[mac[k] & 0xF]);
  }
  return out + "]";
}

std::string Rewrite(std::string_view text, const std::vector<PiiFinding>& findings,
                    const PiiPolicy& policy) {
  std::string out;
  out.reserve(text.size());
  size_t copied = 0;
  for (const PiiFinding& f : findings) {
    std::string_view value = text.substr(f.offset, f.length);
    out.append(text.substr(copied, f.offset - copied));
    switch (policy.ActionFor(f.kind)) {
      case PiiAction::kRedact:
        out += "[" + std::string(ToString(f.kind)) + "]";
        break;
      case PiiAction::kHash:
        out += HashPlaceholder(f.kind, value, policy.hash_key);
        break;
      case PiiAction::kKeep:
      case PiiAction::kReject:
        out.append(value);
        break;  // a rejection never gets here
    }
    copied = f.offset + f.length;
  }
  out.append(text.substr(copied));
  return out;
}

bool UsesHash(const PiiPolicy& policy) {
  if (policy.action == PiiAction::kHash) return true;
  for (const auto& [kind, action] : policy.overrides) {
    if (action == PiiAction::kHash) return true;
  }
  return false;
}

}  // namespace

std::string_view ToString(PiiAction action) {
  switch (action) {
    case PiiAction::kKeep:
      return "keep";
    case PiiAction::kRedact:
      return "redact";
    case PiiAction::kHash:
      return "hash";
    case PiiAction::kReject:
      return "reject";
  }
  return "unknown";
}

Result<PiiPolicy> PiiPolicy::Parse(std::string_view spec) {
  if (Trim(spec).empty()) {
    return Status::InvalidArgument(
        "empty privacy policy (expected e.g. \"redact\" or "
        "\"redact,email=keep,secret=reject\")");
  }
  PiiPolicy policy;
  bool first = true;
  for (size_t begin = 0; begin <= spec.size(); first = false) {
    size_t comma = std::min(spec.find(',', begin), spec.size());
    std::string_view entry = Trim(spec.substr(begin, comma - begin));
    begin = comma + 1;
    if (entry.empty()) return Status::InvalidArgument("privacy policy has an empty entry");
    if (entry.find('=') != std::string_view::npos) {
      Status st = ParseOverride(entry, &policy);
      if (!st.ok()) return st;
      continue;
    }
    if (!first) {
      return Status::InvalidArgument("privacy policy: the default action \"" + std::string(entry) +
                                     "\" must come first");
    }
    Result<PiiAction> action = ParseAction(entry);
    if (!action.ok()) return action.status();
    policy.action = *action;
  }
  return policy;
}

PiiAction PiiPolicy::ActionFor(PiiKind kind) const {
  auto it = overrides.find(kind);
  return it == overrides.end() ? action : it->second;
}

Result<PiiOutcome> ApplyPiiPolicy(std::string_view text, const PiiPolicy& policy) {
  if (UsesHash(policy) && policy.hash_key.empty()) {
    return Status::InvalidArgument("the privacy policy hashes personal data but has no hash key");
  }
  PiiOutcome outcome;
  outcome.findings = DetectPii(text);
  Status rejected = Rejection(outcome.findings, policy);
  if (!rejected.ok()) return rejected;
  outcome.text = Rewrite(text, outcome.findings, policy);
  return outcome;
}

}  // namespace engram
