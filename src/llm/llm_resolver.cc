// Update decisions by an LLM: prompts/decide-v1.txt filled with the candidate and its
// neighbours numbered 0..n-1 (never their ids), the reply held to the
// {"decision","target","merged_content","reason"} contract with one repair.
#include <cctype>
#include <cmath>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "core/status_macros.h"
#include "engram/clock.h"
#include "engram/llm.h"
#include "llm/json_exchange.h"
#include "llm/prompts.h"
#include "text/language.h"

namespace engram {
namespace {

using json = nlohmann::json;
// Keys in the order the prompt's examples show them.
using ordered_json = nlohmann::ordered_json;

// "2026-03-11", the local date of an instant.
std::string Day(TimestampMs t, int utc_offset_minutes) {
  return FormatTimestamp(t + int64_t{utc_offset_minutes} * 60'000).substr(0, 10);
}

ordered_json DescribeCandidate(const Candidate& c, int offset) {
  return {{"content", c.content},
          {"type", ToString(c.type)},
          {"slot", c.slot},
          {"exclusive", c.exclusive},
          {"correction", c.correction},
          {"valid_from", c.valid_from ? ordered_json(Day(*c.valid_from, offset)) : ordered_json()}};
}

// The item's slot (MemoryItem::slot), else the candidate's when the caller found them to
// share it.
std::string NeighbourSlot(const Neighbour& n, const Candidate& candidate) {
  if (!n.item.slot.empty()) return n.item.slot;
  return n.same_slot ? candidate.slot : "";
}

// What the model sees of a stored memory. Deliberately no id, source or scope: the model
// answers with the number, and ids it never saw cannot be invented or leaked.
ordered_json DescribeNeighbour(const Neighbour& n, const Candidate& candidate, int offset) {
  return {{"content", n.item.content},
          {"type", ToString(n.item.type)},
          {"slot", NeighbourSlot(n, candidate)},
          {"same_slot", n.same_slot},
          {"valid_from",
           n.item.valid_from != 0 ? ordered_json(Day(n.item.valid_from, offset)) : ordered_json()},
          {"recorded", Day(n.item.created_at, offset)},
          {"similarity", std::round(n.similarity * 100) / 100}};
}

Status Bad(std::string what) { return Status::InvalidArgument(std::move(what)); }

Result<WriteDecision> ParseDecision(const json& doc) {
  auto it = doc.find("decision");
  if (it != doc.end() && it->is_string()) {
    std::string s = it->get<std::string>();
    for (char& ch : s) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    if (s == "ADD") return WriteDecision::kAdd;
    if (s == "UPDATE") return WriteDecision::kUpdate;
    if (s == "SUPERSEDE") return WriteDecision::kSupersede;
    if (s == "NOOP") return WriteDecision::kNoop;
  }
  return Bad("\"decision\" must be \"ADD\", \"UPDATE\", \"SUPERSEDE\" or \"NOOP\"");
}

// The target of UPDATE, SUPERSEDE and NOOP: a number from the list.
Result<int> ParseTarget(const json& doc, size_t count) {
  auto it = doc.find("target");
  const std::string range = "0 to " + std::to_string(count - 1);
  if (it == doc.end() || !it->is_number_integer()) {
    return Bad("\"target\" must be the number of a stored memory, " + range);
  }
  const int64_t target = it->get<int64_t>();
  if (target < 0 || target >= static_cast<int64_t>(count)) {
    return Bad("\"target\" is " + std::to_string(target) + ", but the stored memories are " +
               "numbered " + range);
  }
  return static_cast<int>(target);
}

// UPDATE's merged content: required, and in the candidate's language.
Result<std::string> ParseMerged(const json& doc, const Candidate& candidate) {
  auto it = doc.find("merged_content");
  if (it == doc.end() || !it->is_string() || it->get<std::string>().empty()) {
    return Bad("\"merged_content\" must be a non-empty string for UPDATE");
  }
  std::string merged = it->get<std::string>();
  const Language want = DetectLanguage(candidate.content);
  const Language got = DetectLanguage(merged);
  if (want != Language::kUnknown && got != Language::kUnknown && got != want) {
    return Bad("\"merged_content\" must be written in the language of the candidate's content");
  }
  return merged;
}

Status DecodeDecision(const json& doc, const Candidate& candidate, size_t count,
                      DecisionResult* out) {
  DecisionResult d;
  ENGRAM_ASSIGN_OR_RETURN(d.decision, ParseDecision(doc));
  auto reason = doc.find("reason");
  if (reason == doc.end() || !reason->is_string()) return Bad("\"reason\" must be a string");
  d.reason = reason->get<std::string>();
  if (d.decision != WriteDecision::kAdd) {
    ENGRAM_ASSIGN_OR_RETURN(d.target, ParseTarget(doc, count));
  }  // an ADD's target, if the model gave one anyway, means nothing
  if (d.decision == WriteDecision::kUpdate) {
    ENGRAM_ASSIGN_OR_RETURN(d.merged_content, ParseMerged(doc, candidate));
  }
  *out = std::move(d);
  return Status::Ok();
}

class LlmResolver final : public ConflictResolver {
 public:
  LlmResolver(std::shared_ptr<LlmClient> llm, const LlmResolverOptions& options)
      : llm_(std::move(llm)),
        options_(options),
        name_("llm-decide:" + (llm_ ? llm_->model() : std::string("none"))) {}

  const std::string& name() const override { return name_; }

  Result<DecisionResult> Decide(const Candidate& candidate,
                                const std::vector<Neighbour>& neighbours) override {
    if (!llm_) return Status::InvalidArgument("llm resolver: no LLM client");
    if (neighbours.empty()) {
      return DecisionResult{WriteDecision::kAdd, -1, "", "no stored memory to compare with"};
    }
    DecisionResult result;
    llm::JsonExchange exchange{BuildRequest(candidate, neighbours)};
    ENGRAM_RETURN_IF_ERROR(llm::AskForJson(
        *llm_,
        [&](const json& doc) { return DecodeDecision(doc, candidate, neighbours.size(), &result); },
        "llm resolver", &exchange));
    return result;
  }

 private:
  ChatRequest BuildRequest(const Candidate& candidate,
                           const std::vector<Neighbour>& neighbours) const {
    const int offset = options_.utc_offset_minutes;
    std::string listed;
    for (size_t i = 0; i < neighbours.size(); ++i) {
      if (i > 0) listed += "\n";
      listed += "[" + std::to_string(i) + "] " +
                DescribeNeighbour(neighbours[i], candidate, offset)
                    .dump(-1, ' ', false, ordered_json::error_handler_t::replace);
    }
    const llm::Prompt& prompt = llm::DecidePrompt();
    ChatRequest request;
    request.messages = {
        {"system", std::string(prompt.system)},
        {"user",
         llm::FillTemplate(
             prompt.user_template,
             {{"candidate", DescribeCandidate(candidate, offset)
                                .dump(-1, ' ', false, ordered_json::error_handler_t::replace)},
              {"neighbours", listed}})}};
    request.json_object = true;
    request.temperature = 0;
    request.max_tokens = options_.max_tokens > 0 ? options_.max_tokens : 512;
    return request;
  }

  const std::shared_ptr<LlmClient> llm_;
  const LlmResolverOptions options_;
  const std::string name_;
};

}  // namespace

std::unique_ptr<ConflictResolver> MakeLlmResolver(std::shared_ptr<LlmClient> llm,
                                                  const LlmResolverOptions& options) {
  return std::make_unique<LlmResolver>(std::move(llm), options);
}

}  // namespace engram
