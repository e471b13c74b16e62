#include "embed/provider_http.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <thread>
#include <utility>

namespace engram::provider {
namespace {

using json = nlohmann::json;

constexpr size_t kMaxProviderMessage = 300;

bool EqualsLowerCase(std::string_view s, std::string_view lower) {
  return s.size() == lower.size() &&
         std::equal(s.begin(), s.end(), lower.begin(), [](char a, char b) {
           return std::tolower(static_cast<unsigned char>(a)) == b;
         });
}

std::string Truncate(std::string s) {
  if (s.size() > kMaxProviderMessage) s = s.substr(0, kMaxProviderMessage) + "...";
  return s;
}

}  // namespace

bool HasHttpScheme(std::string_view url) {
  return EqualsLowerCase(url.substr(0, 7), "http://") ||
         EqualsLowerCase(url.substr(0, 8), "https://");
}

std::string EndpointUrl(std::string base_url, std::string_view path) {
  while (!base_url.empty() && base_url.back() == '/') base_url.pop_back();
  return base_url + std::string(path);
}

std::string ReadApiKey(const std::string& env_name) {
  if (env_name.empty()) return "";
  const char* value = std::getenv(env_name.c_str());
  return value == nullptr ? "" : value;
}

const std::string* FindHeader(const HttpResponse& response, std::string_view lower_case_name) {
  for (const auto& [key, value] : response.headers) {
    if (EqualsLowerCase(key, lower_case_name)) return &value;
  }
  return nullptr;
}

int64_t RetryAfterMs(const HttpResponse& response) {
  const std::string* value = FindHeader(response, "retry-after");
  if (value == nullptr) return 0;
  char* end = nullptr;
  double seconds = std::strtod(value->c_str(), &end);
  while (end != nullptr && *end == ' ') ++end;
  if (end == value->c_str() || *end != '\0' || !(seconds >= 0)) return 0;
  return static_cast<int64_t>(std::min(seconds * 1000.0, static_cast<double>(kMaxBackoffMs)));
}

std::string ProviderMessage(const std::string& body) {
  const json doc = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (doc.is_object()) {
    auto error = doc.find("error");
    if (error != doc.end() && error->is_string()) return Truncate(error->get<std::string>());
    if (error != doc.end() && error->is_object()) {
      auto message = error->find("message");
      if (message != error->end() && message->is_string()) {
        return Truncate(message->get<std::string>());
      }
    }
    auto message = doc.find("message");
    if (message != doc.end() && message->is_string()) return Truncate(message->get<std::string>());
  }
  return body.empty() ? "(empty body)" : Truncate(body);
}

int64_t BackoffMs(int retry, int initial_backoff_ms, int64_t retry_after_ms) {
  int64_t wait = initial_backoff_ms;
  for (int i = 0; i < retry && wait < kMaxBackoffMs; ++i) wait *= 2;
  return std::min(std::max(wait, retry_after_ms), kMaxBackoffMs);
}

AttemptOutcome ClassifyErrorResponse(const HttpResponse& response, std::string_view client,
                                     std::string_view url) {
  const int code = response.status;
  const std::string what = std::string(client) + ": HTTP " + std::to_string(code) + " from " +
                           std::string(url) + ": " + ProviderMessage(response.body);
  if (code == 408 || code == 429 || code >= 500) {
    return {Failure::kTransient, Status::Unavailable(what), RetryAfterMs(response)};
  }
  if (code == 401 || code == 403) return {Failure::kPermanent, Status::PermissionDenied(what)};
  return {Failure::kPermanent, Status::InvalidArgument(what)};
}

AttemptOutcome TransportFailure(const Status& status, std::string_view client) {
  const bool transient = status.code() == StatusCode::kUnavailable;
  return {transient ? Failure::kTransient : Failure::kPermanent, status.WithContext(client)};
}

Status RunWithRetries(const RetryPolicy& policy, const std::function<AttemptOutcome()>& attempt) {
  bool malformed_retried = false;
  for (int n = 0;; ++n) {
    AttemptOutcome outcome = attempt();
    if (outcome.failure == Failure::kNone) return Status::Ok();
    const bool retryable = outcome.failure == Failure::kTransient ||
                           (outcome.failure == Failure::kMalformed && !malformed_retried);
    if (!retryable || n >= policy.max_retries) {
      if (n == 0) return outcome.status;
      return Status(outcome.status.code(), outcome.status.message() + " (gave up after " +
                                               std::to_string(n + 1) + " attempts)");
    }
    malformed_retried |= outcome.failure == Failure::kMalformed;
    std::this_thread::sleep_for(
        std::chrono::milliseconds(BackoffMs(n, policy.initial_backoff_ms, outcome.retry_after_ms)));
  }
}

}  // namespace engram::provider
