// LLM providers for the write path: a chat client for any OpenAI-compatible
// /v1/chat/completions endpoint, and the extractor and conflict resolver built on it.
//
// Prompts are versioned files under prompts/ compiled into the binary; every item an LLM
// produces records the extractor ("llm:<model>") and the prompt version. Memory ids are never
// shown to the model: neighbours are numbered 0..n-1 and mapped back.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engram/clock.h"
#include "engram/embedder.h"  // HttpTransport
#include "engram/extraction.h"
#include "engram/status.h"

namespace engram {

struct ChatMessage {
  std::string role;  // "system", "user", "assistant"
  std::string content;
};

struct ChatRequest {
  std::vector<ChatMessage> messages;
  bool json_object = true;  // ask for response_format {"type":"json_object"} where supported
  double temperature = 0;
  int max_tokens = 1024;
};

struct ChatReply {
  std::string content;
  std::string finish_reason;  // "stop", "length" (truncated), ...
};

class LlmClient {
 public:
  virtual ~LlmClient() = default;
  virtual const std::string& model() const = 0;
  // Thread-safe. Unavailable when the provider failed after retries (timeouts, 429, 5xx) or
  // its reply is not a chat completion; PermissionDenied on 401/403 (a missing or wrong key)
  // and InvalidArgument on other 4xx, not retried — the message names the HTTP status and
  // carries the provider's explanation. The content is returned as the model wrote it.
  virtual Result<ChatReply> Chat(const ChatRequest& request) = 0;
};

struct OpenAIChatOptions {
  std::string base_url = "https://api.openai.com/v1";  // ".../v1"; "/chat/completions" appended
  std::string model = "gpt-4o-mini";
  std::string api_key_env = "OPENAI_API_KEY";  // the key is read from this variable; may be unset
  int timeout_ms = 60000;
  int max_retries = 3;           // on 429, 5xx and transport failures
  int initial_backoff_ms = 500;  // doubles per retry; Retry-After is honoured when larger
  // Send response_format json_object. Some servers reject it (400 naming response_format):
  // the client then retries once without it and remembers.
  bool json_mode = true;
  std::shared_ptr<HttpTransport> transport;  // default: MakeHttpTransport()
};
Result<std::unique_ptr<LlmClient>> MakeOpenAIChatClient(const OpenAIChatOptions& options);

// Extraction by an LLM with a JSON contract (prompts/extract-v<N>.txt). The prompt shows each
// turn with its date and weekday and the current time, so the model resolves "昨天" or "next
// Friday" to dates; no memory or message id is shown. The reply is parsed strictly; on a
// malformed or truncated reply the model is asked once to repair it, then the call fails with
// Unavailable (the write path keeps the raw turn). Candidates below min_confidence are dropped.
// A candidate in another language than the user's turns (English memories from Chinese input)
// is sent back once for rewriting in the input's language when the repair was not spent, and
// dropped if it stays wrong. Results carry extractor "llm:<model>" and the prompt version.
// Every failure is Unavailable, a refused key (401) included, with the client's code and the
// HTTP status in the message: the write path keeps the turns and falls back to the rules.
// Thread-safe when the client is.
struct LlmExtractorOptions {
  double min_confidence = 0.6;
  int max_tokens = 2048;  // per reply; a longer reply is cut off ("length") and repaired once
  // The offset of the users' local time from UTC, for the dates shown to the model and the
  // valid_from dates it returns (midnight local time). Turns carry UTC instants only.
  int utc_offset_minutes = 0;
  const Clock* clock = nullptr;  // "now" in the prompt, for turns with no time; default: system
};
std::unique_ptr<Extractor> MakeLlmExtractor(std::shared_ptr<LlmClient> llm,
                                            const LlmExtractorOptions& options = {});

// Update decisions by an LLM over the candidate and its numbered neighbours
// (prompts/decide-v<N>.txt), with the same strict parsing and one repair attempt. Neighbours
// are shown as 0..n-1 with content, type, slot and dates, never their ids; a target outside
// the list is a bad reply. With no neighbours the decision is ADD without asking the model.
// Failures are Unavailable, as for the extractor. Name "llm-decide:<model>". Thread-safe when
// the client is.
struct LlmResolverOptions {
  int max_tokens = 512;
  // The users' offset from UTC for the dates shown (as LlmExtractorOptions: valid_from is
  // midnight local time, so a UTC date would show the day before east of Greenwich).
  int utc_offset_minutes = 0;
};
std::unique_ptr<ConflictResolver> MakeLlmResolver(std::shared_ptr<LlmClient> llm,
                                                  const LlmResolverOptions& options = {});

}  // namespace engram
