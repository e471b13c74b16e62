#include "llm/json_exchange.h"

#include <string>
#include <utility>

#include "text/utf8.h"

namespace engram::llm {
namespace {

using json = nlohmann::json;

constexpr size_t kMaxQuotedError = 400;

std::string_view Trim(std::string_view s) {
  const auto space = [](char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; };
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  return s;
}

// "```json\n{...}\n```" → "{...}"; anything else unchanged.
std::string_view StripCodeFence(std::string_view s) {
  s = Trim(s);
  if (s.size() < 6 || s.substr(0, 3) != "```" || s.substr(s.size() - 3) != "```") return s;
  s = s.substr(3, s.size() - 6);
  const size_t newline = s.find('\n');
  if (newline == std::string_view::npos) return Trim(s);
  const std::string_view language = Trim(s.substr(0, newline));
  if (!language.empty() && language != "json" && language != "JSON") return s;
  return Trim(s.substr(newline + 1));
}

std::string RepairInstruction(const Status& problem, const ChatReply& reply) {
  if (reply.finish_reason == "length") {
    return "Your reply was cut off before it ended because it was too long. Reply again with "
           "one complete JSON object in the format the instructions give, and keep it short "
           "enough to finish: fewer and shorter entries.";
  }
  std::string error = problem.message();
  if (error.size() > kMaxQuotedError) {
    size_t cut = kMaxQuotedError;  // on a character boundary: the request must stay UTF-8
    while (cut > 0 && (static_cast<unsigned char>(error[cut]) & 0xC0) == 0x80) --cut;
    error = error.substr(0, cut) + "...";
  }
  return "Your reply could not be used: " + error +
         ". Reply again with only the corrected JSON object, in exactly the format the "
         "instructions give, and nothing else.";
}

}  // namespace

Status ProviderFailure(const Status& status, std::string_view who) {
  if (status.code() == StatusCode::kUnavailable) return status.WithContext(who);
  return Status::Unavailable(std::string(who) + ": the LLM request failed (" +
                             std::string(StatusCodeName(status.code())) + "): " + status.message());
}

Status CheckJsonReply(const ChatReply& reply, const JsonDecoder& decode) {
  if (reply.finish_reason == "length") {
    return Status::InvalidArgument("the reply was cut off (finish_reason \"length\")");
  }
  json doc;
  try {
    doc = json::parse(StripCodeFence(reply.content));
  } catch (const json::parse_error& e) {
    // "[json.exception.parse_error.101] parse error at line 1, column 1: ..., last read: '…'"
    std::string detail = e.what();
    if (size_t bracket = detail.find("] "); bracket != std::string::npos) {
      detail = detail.substr(bracket + 2);
    }
    // The quoted token may end inside a multi-byte character; the model is sent valid UTF-8.
    if (!IsValidUtf8(detail)) detail = "syntax error at byte " + std::to_string(e.byte);
    return Status::InvalidArgument("the reply is not valid JSON (" + detail + ")");
  }
  if (!doc.is_object()) return Status::InvalidArgument("the reply is not a JSON object");
  return decode(doc);
}

Status AskForJson(LlmClient& llm, const JsonDecoder& decode, std::string_view who,
                  JsonExchange* exchange) {
  for (;;) {
    Result<ChatReply> reply = llm.Chat(exchange->request);
    if (!reply.ok()) return ProviderFailure(reply.status(), who);
    exchange->request.messages.push_back({"assistant", reply->content});
    const Status problem = CheckJsonReply(*reply, decode);
    if (problem.ok()) return problem;
    if (exchange->repaired) {
      return Status::Unavailable(std::string(who) +
                                 ": the model's reply was still unusable after "
                                 "one repair: " +
                                 problem.message());
    }
    exchange->repaired = true;
    exchange->request.messages.push_back({"user", RepairInstruction(problem, *reply)});
  }
}

}  // namespace engram::llm
