// The chat client for any OpenAI-compatible /v1/chat/completions endpoint (OpenAI, DeepSeek,
// Qwen/DashScope compatible mode, Moonshot, vLLM, llama.cpp server, Ollama).
//
// Retries follow the embedder's policy (embed/provider_http.h): 408, 429, 5xx and transport
// failures (a timeout included) are retried with exponential backoff, honouring Retry-After;
// a 2xx whose envelope is not a chat completion is retried once; 401/403 are PermissionDenied
// and other 4xx InvalidArgument, never retried. One exception: a server that refuses
// response_format (a 400/422 whose message names it; older vLLM, some llama.cpp and Ollama
// versions) is asked again without it, and the client stops sending it from then on.
//
// Only the envelope is parsed here; whether the content is valid JSON is the caller's concern
// (the extractor and resolver repair it).
#include <atomic>
#include <cmath>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>

#include "core/status_macros.h"
#include "embed/provider_http.h"
#include "engram/llm.h"
#include "text/utf8.h"

namespace engram {
namespace {

using json = nlohmann::json;
using provider::AttemptOutcome;
using provider::Failure;

constexpr char kClient[] = "openai chat";

Status BadOption(std::string_view what) {
  return Status::InvalidArgument("openai chat options: " + std::string(what));
}

Status ValidateOptions(const OpenAIChatOptions& o) {
  if (o.base_url.empty()) return BadOption("base_url is empty");
  if (!provider::HasHttpScheme(o.base_url)) {
    return BadOption("base_url must start with http:// or https://");
  }
  if (o.model.empty()) return BadOption("model is empty");
  if (!IsValidUtf8(o.model)) return BadOption("model is not valid UTF-8");
  if (o.timeout_ms <= 0) return BadOption("timeout_ms must be > 0");
  if (o.max_retries < 0) return BadOption("max_retries must be >= 0");
  if (o.initial_backoff_ms < 0) return BadOption("initial_backoff_ms must be >= 0");
  return Status::Ok();
}

Status ValidateRequest(const ChatRequest& r) {
  if (r.messages.empty()) return Status::InvalidArgument("chat request has no messages");
  for (size_t i = 0; i < r.messages.size(); ++i) {
    const ChatMessage& m = r.messages[i];
    if (m.role.empty() || !IsValidUtf8(m.role) || !IsValidUtf8(m.content)) {
      return Status::InvalidArgument("chat message " + std::to_string(i) +
                                     " has an empty role or is not valid UTF-8");
    }
  }
  if (r.max_tokens <= 0) return Status::InvalidArgument("chat max_tokens must be > 0");
  if (!(r.temperature >= 0 && r.temperature <= 2)) {
    return Status::InvalidArgument("chat temperature must be 0..2");
  }
  return Status::Ok();
}

Status Malformed(std::string_view why) {
  return Status::Unavailable(std::string(kClient) +
                             ": provider returned malformed response: " + std::string(why));
}

// {"choices":[{"message":{"content":"..."},"finish_reason":"stop"}, ...]}: the first choice.
Result<ChatReply> ParseCompletion(const std::string& body) {
  const json doc = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return Malformed("body is not valid JSON");
  if (!doc.is_object()) return Malformed("body is not a JSON object");
  auto choices = doc.find("choices");
  if (choices == doc.end() || !choices->is_array() || choices->empty()) {
    if (doc.contains("error")) {
      return Malformed("error in a 2xx reply: " + provider::ProviderMessage(body));
    }
    return Malformed("\"choices\" is not a non-empty array");
  }
  const json& choice = choices->front();
  if (!choice.is_object()) return Malformed("choices[0] is not an object");
  auto message = choice.find("message");
  if (message == choice.end() || !message->is_object()) {
    return Malformed("choices[0].message is not an object");
  }
  auto content = message->find("content");
  if (content == message->end() || !content->is_string()) {
    auto refusal = message->find("refusal");
    if (refusal != message->end() && refusal->is_string()) {
      return Malformed("the model refused: " + refusal->get<std::string>());
    }
    return Malformed("choices[0].message.content is not a string");
  }
  auto finish = choice.find("finish_reason");
  if (finish == choice.end() || !finish->is_string()) {
    return Malformed("choices[0].finish_reason is not a string");
  }
  ChatReply reply;
  reply.content = content->get<std::string>();
  reply.finish_reason = finish->get<std::string>();
  if (!IsValidUtf8(reply.content)) return Malformed("content is not valid UTF-8");
  return reply;
}

// A 400 (422 on some servers) whose message names response_format: the server does not know
// JSON mode, and will answer the same to every request that asks for it.
bool RejectsResponseFormat(const HttpResponse& response) {
  return (response.status == 400 || response.status == 422) &&
         provider::ProviderMessage(response.body).find("response_format") != std::string::npos;
}

class OpenAIChatClient final : public LlmClient {
 public:
  explicit OpenAIChatClient(const OpenAIChatOptions& options)
      : options_(options),
        url_(provider::EndpointUrl(options.base_url, "/chat/completions")),
        api_key_(provider::ReadApiKey(options.api_key_env)),
        transport_(options.transport ? options.transport : MakeHttpTransport()),
        json_mode_(options.json_mode) {}

  const std::string& model() const override { return options_.model; }

  Result<ChatReply> Chat(const ChatRequest& request) override {
    ENGRAM_RETURN_IF_ERROR(ValidateRequest(request));
    const bool json_mode = request.json_object && json_mode_.load();
    bool format_rejected = false;
    Result<ChatReply> reply = Send(request, json_mode, &format_rejected);
    if (!format_rejected) return reply;
    json_mode_.store(false);  // remembered: later requests go without it at once
    return Send(request, /*json_mode=*/false, &format_rejected);
  }

 private:
  HttpRequest BuildRequest(const ChatRequest& r, bool json_mode) const {
    json messages = json::array();
    for (const ChatMessage& m : r.messages) {
      messages.push_back({{"role", m.role}, {"content", m.content}});
    }
    json body = {{"model", options_.model},
                 {"messages", std::move(messages)},
                 {"temperature", r.temperature},
                 {"max_tokens", r.max_tokens},
                 {"stream", false}};
    if (json_mode) body["response_format"] = {{"type", "json_object"}};
    HttpRequest request;
    request.url = url_;
    request.headers.emplace_back("Content-Type", "application/json");
    if (!api_key_.empty()) request.headers.emplace_back("Authorization", "Bearer " + api_key_);
    request.body = body.dump(-1, ' ', false, json::error_handler_t::replace);  // UTF-8 checked
    request.timeout_ms = options_.timeout_ms;
    return request;
  }

  // One request with retries. *format_rejected is set when the server refused response_format.
  Result<ChatReply> Send(const ChatRequest& r, bool json_mode, bool* format_rejected) {
    const HttpRequest request = BuildRequest(r, json_mode);
    ChatReply reply;
    ENGRAM_RETURN_IF_ERROR(provider::RunWithRetries(
        {options_.max_retries, options_.initial_backoff_ms}, [&]() -> AttemptOutcome {
          Result<HttpResponse> response = transport_->Post(request);
          if (!response.ok()) return provider::TransportFailure(response.status(), kClient);
          if (response->status < 200 || response->status >= 300) {
            *format_rejected = json_mode && RejectsResponseFormat(*response);
            return provider::ClassifyErrorResponse(*response, kClient, url_);
          }
          Result<ChatReply> parsed = ParseCompletion(response->body);
          if (!parsed.ok()) return {Failure::kMalformed, parsed.status()};
          reply = std::move(parsed).value();
          return {};
        }));
    return reply;
  }

  const OpenAIChatOptions options_;
  const std::string url_;
  const std::string api_key_;
  const std::shared_ptr<HttpTransport> transport_;  // thread-safe by contract
  std::atomic<bool> json_mode_;                     // false once the server refused response_format
};

}  // namespace

Result<std::unique_ptr<LlmClient>> MakeOpenAIChatClient(const OpenAIChatOptions& options) {
  ENGRAM_RETURN_IF_ERROR(ValidateOptions(options));
  return std::unique_ptr<LlmClient>(std::make_unique<OpenAIChatClient>(options));
}

}  // namespace engram
