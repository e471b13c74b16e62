// Asking an LLM for a JSON object and holding it to the contract: the strict parse, and the one
// repair request that shows the model its bad reply and what is wrong with it. Shared by the
// extractor and the resolver.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "engram/llm.h"
#include "engram/status.h"

namespace engram::llm {

// Reads the parsed reply into the caller's value; a non-OK status says, in words the model can
// act on, what is wrong ("memories[2].turn is 5, but the turns are numbered 0..2").
using JsonDecoder = std::function<Status(const nlohmann::json&)>;

// The conversation with the model so far. After a successful AskForJson it ends with the
// model's accepted reply as an assistant message, so a caller can ask a follow-up.
struct JsonExchange {
  ChatRequest request;
  bool repaired = false;  // the one repair request was spent
};

// The reply's problem, or OK: cut off (finish_reason "length"), not JSON, not an object, or
// refused by `decode`. One surrounding markdown code fence (```json ... ```) is tolerated,
// since models without JSON mode add it; nothing else is.
Status CheckJsonReply(const ChatReply& reply, const JsonDecoder& decode);

// Every failure of the provider as Unavailable, the client's own code kept in the message
// ("<who>: the LLM request failed (permission_denied): ... HTTP 401 ..."): to the
// write path a wrong key or a refused request means what a timeout means: keep the turns and
// fall back to the rules (extraction.h). Unavailable statuses only gain the context.
Status ProviderFailure(const Status& status, std::string_view who);

// Sends exchange->request and checks the reply. On a bad reply, and when no repair was spent,
// appends the reply and a repair request naming the problem and asks once more. Provider
// failures come back through ProviderFailure; a reply still bad after the repair is
// Unavailable ("<who>: ... after one repair: <problem>").
Status AskForJson(LlmClient& llm, const JsonDecoder& decode, std::string_view who,
                  JsonExchange* exchange);

}  // namespace engram::llm
