// What every remote provider client (the OpenAI-compatible embedder, the chat client in
// src/llm/) does the same way over HttpTransport: the endpoint URL and API key, the reading of
// an error reply, and the retry loop with exponential backoff that honours Retry-After.
// Internal to engram_core; not part of the public API.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "engram/embedder.h"
#include "engram/status.h"

namespace engram::provider {

bool HasHttpScheme(std::string_view url);

// base_url without trailing slashes, then `path` ("/embeddings", "/chat/completions").
std::string EndpointUrl(std::string base_url, std::string_view path);

// The value of the environment variable `env_name`, or "" when unset or env_name is empty.
// Read once, when a client is made: getenv is not safe against a concurrent setenv, and a
// process that rotates keys makes a new client anyway.
std::string ReadApiKey(const std::string& env_name);

const std::string* FindHeader(const HttpResponse& response, std::string_view lower_case_name);

// Retry-After in seconds (fractions accepted), as milliseconds, capped at kMaxBackoffMs; 0 when
// absent or an HTTP-date.
int64_t RetryAfterMs(const HttpResponse& response);

// The provider's explanation of an error: OpenAI's {"error":{"message":...}}, the
// {"error":"..."} of Ollama and TEI, or failing those the start of the raw body (truncated).
std::string ProviderMessage(const std::string& body);

constexpr int64_t kMaxBackoffMs = 30'000;  // a longer wait is better reported than slept

// initial_backoff_ms * 2^retry, or retry_after_ms when that is longer, never over kMaxBackoffMs.
int64_t BackoffMs(int retry, int initial_backoff_ms, int64_t retry_after_ms);

// How one attempt ended.
enum class Failure {
  kNone,       // success
  kTransient,  // 408, 429, 5xx, no response: retried up to max_retries times
  kMalformed,  // a 2xx whose body is not what the API promises: retried at most once, because
               // a proxy cutting a body short is transient but a server speaking another dialect
               // answers the same way every time
  kPermanent,  // the caller's problem (4xx): never retried
};

struct AttemptOutcome {
  Failure failure = Failure::kNone;
  Status status;  // why it failed; OK with kNone
  int64_t retry_after_ms = 0;
};

// A non-2xx response as an outcome: 408/429/5xx transient (Unavailable), 401/403
// PermissionDenied, other statuses InvalidArgument. The message is
// "<client>: HTTP <code> from <url>: <provider message>".
AttemptOutcome ClassifyErrorResponse(const HttpResponse& response, std::string_view client,
                                     std::string_view url);

// A transport failure (no response) as an outcome: Unavailable is transient, anything else
// (an unusable URL or header) permanent.
AttemptOutcome TransportFailure(const Status& status, std::string_view client);

struct RetryPolicy {
  int max_retries = 3;
  int initial_backoff_ms = 500;
};

// Calls `attempt` until it succeeds, fails permanently, or the retries allowed for its failure
// are spent, sleeping BackoffMs between attempts. Returns OK, or the last failure's status
// with " (gave up after N attempts)" when there was more than one.
Status RunWithRetries(const RetryPolicy& policy, const std::function<AttemptOutcome()>& attempt);

}  // namespace engram::provider
