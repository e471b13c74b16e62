// The remote embedder for any OpenAI-compatible /v1/embeddings endpoint.
//
// Embed() cuts the input into batches and sends them one after another; each batch is retried on
// its own, so a long re-embedding survives a rate limit halfway through. Retry policy:
//   - 408, 429, 5xx and transport failures (no response) are transient: retried up to
//     max_retries times, waiting initial_backoff_ms * 2^n, or Retry-After when that is longer,
//     never more than kMaxBackoffMs at once.
//   - A 2xx whose body is not the expected JSON is retried at most once (within max_retries):
//     a proxy cutting the body short is transient, but a server that speaks another dialect will
//     answer the same way every time, and retrying it max_retries times only adds latency.
//   - Other statuses are the caller's problem and are not retried: 401/403 -> PermissionDenied,
//     anything else -> InvalidArgument, carrying the provider's own message.
//   - Vectors of the wrong dimension or all zeros are InvalidArgument, not retried: the same
//     input would give the same answer.
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "core/status_macros.h"
#include "engram/embedder.h"
#include "text/utf8.h"

namespace engram {
namespace {

using json = nlohmann::json;
using Vectors = std::vector<std::vector<float>>;

constexpr int kMaxBatchSize = 2048;        // OpenAI's limit on inputs per request
constexpr int64_t kMaxBackoffMs = 30'000;  // a longer wait is better reported than slept
constexpr size_t kMaxProviderMessage = 300;

Status BadOption(std::string_view what) {
  return Status::InvalidArgument("openai embedder options: " + std::string(what));
}

bool HasHttpScheme(std::string_view url) {
  auto starts = [&](std::string_view p) {
    return url.size() >= p.size() &&
           std::equal(p.begin(), p.end(), url.begin(), [](char a, char b) {
             return a == std::tolower(static_cast<unsigned char>(b));
           });
  };
  return starts("http://") || starts("https://");
}

Status ValidateOptions(const OpenAIEmbedderOptions& o) {
  if (o.base_url.empty()) return BadOption("base_url is empty");
  if (!HasHttpScheme(o.base_url)) return BadOption("base_url must start with http:// or https://");
  if (o.model.empty()) return BadOption("model is empty");
  if (!IsValidUtf8(o.model)) return BadOption("model is not valid UTF-8");
  if (o.dimension < 0) return BadOption("dimension must be >= 0 (0: taken from the provider)");
  if (o.batch_size < 1 || o.batch_size > kMaxBatchSize) {
    return BadOption("batch_size must be 1.." + std::to_string(kMaxBatchSize));
  }
  if (o.timeout_ms <= 0) return BadOption("timeout_ms must be > 0");
  if (o.max_retries < 0) return BadOption("max_retries must be >= 0");
  if (o.initial_backoff_ms < 0) return BadOption("initial_backoff_ms must be >= 0");
  return Status::Ok();
}

std::string EmbeddingsUrl(std::string base_url) {
  while (!base_url.empty() && base_url.back() == '/') base_url.pop_back();
  return base_url + "/embeddings";
}

// The key is read once, when the embedder is made: getenv is not safe against a concurrent
// setenv, and a process that rotates keys makes a new embedder anyway.
std::string ReadApiKey(const std::string& env_name) {
  if (env_name.empty()) return "";
  const char* value = std::getenv(env_name.c_str());
  return value == nullptr ? "" : value;
}

const std::string* FindHeader(const HttpResponse& response, std::string_view name) {
  for (const auto& [key, value] : response.headers) {
    if (key.size() == name.size() &&
        std::equal(key.begin(), key.end(), name.begin(), [](char a, char b) {
          return std::tolower(static_cast<unsigned char>(a)) == b;
        })) {
      return &value;
    }
  }
  return nullptr;
}

// Retry-After in seconds (fractions accepted), as milliseconds; 0 when absent or an HTTP-date.
int64_t RetryAfterMs(const HttpResponse& response) {
  const std::string* value = FindHeader(response, "retry-after");
  if (value == nullptr) return 0;
  char* end = nullptr;
  double seconds = std::strtod(value->c_str(), &end);
  while (end != nullptr && *end == ' ') ++end;
  if (end == value->c_str() || *end != '\0' || !(seconds >= 0)) return 0;
  return static_cast<int64_t>(std::min(seconds * 1000.0, static_cast<double>(kMaxBackoffMs)));
}

std::string Truncate(std::string s) {
  if (s.size() > kMaxProviderMessage) s = s.substr(0, kMaxProviderMessage) + "...";
  return s;
}

// The provider's explanation of an error: OpenAI's {"error":{"message":...}}, the
// {"error":"..."} of Ollama and TEI, or failing those the start of the raw body.
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

// ---- response parsing: every failure here means "malformed" ----

Result<size_t> ItemIndex(const json& item, size_t count) {
  auto index = item.find("index");
  if (index == item.end() || !index->is_number_integer()) {
    return Status::Unavailable("an item has no integer \"index\"");
  }
  const bool in_range = index->is_number_unsigned()
                            ? index->get<uint64_t>() < count
                            : index->get<int64_t>() >= 0 && index->get<int64_t>() < int64_t(count);
  if (!in_range) {
    return Status::Unavailable("index " + index->dump() + " is outside 0.." +
                               std::to_string(count - 1));
  }
  return static_cast<size_t>(index->get<uint64_t>());
}

Result<std::vector<float>> ItemVector(const json& item) {
  auto embedding = item.find("embedding");
  if (embedding == item.end() || !embedding->is_array() || embedding->empty()) {
    return Status::Unavailable("an item's \"embedding\" is not a non-empty array");
  }
  std::vector<float> vector;
  vector.reserve(embedding->size());
  for (const json& x : *embedding) {
    if (!x.is_number()) return Status::Unavailable("an embedding holds a non-number");
    const float f = static_cast<float>(x.get<double>());
    if (!std::isfinite(f)) return Status::Unavailable("an embedding holds a non-finite number");
    vector.push_back(f);
  }
  return vector;
}

// {"data":[{"index":i,"embedding":[...]}, ...]} with exactly `count` items, placed by index.
Result<Vectors> ParseEmbeddings(const std::string& body, size_t count) {
  const json doc = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return Status::Unavailable("body is not valid JSON");
  if (!doc.is_object()) return Status::Unavailable("body is not a JSON object");
  auto data = doc.find("data");
  if (data == doc.end() || !data->is_array())
    return Status::Unavailable("\"data\" is not an array");
  if (data->size() != count) {
    return Status::Unavailable("expected " + std::to_string(count) + " embeddings, got " +
                               std::to_string(data->size()));
  }
  Vectors vectors(count);
  std::vector<bool> seen(count, false);
  for (const json& item : *data) {
    if (!item.is_object()) return Status::Unavailable("an item of \"data\" is not an object");
    ENGRAM_ASSIGN_OR_RETURN(size_t index, ItemIndex(item, count));
    if (seen[index]) return Status::Unavailable("index " + std::to_string(index) + " repeats");
    seen[index] = true;
    ENGRAM_ASSIGN_OR_RETURN(vectors[index], ItemVector(item));
  }
  return vectors;  // count items, distinct indexes in 0..count-1: every slot is filled
}

Status NormalizeAll(Vectors* vectors, size_t first_text) {
  for (size_t i = 0; i < vectors->size(); ++i) {
    std::vector<float>& v = (*vectors)[i];
    double sum = 0;
    for (float x : v) sum += double(x) * x;
    const double norm = std::sqrt(sum);
    if (!(norm > 0) || !std::isfinite(norm)) {
      return Status::InvalidArgument("openai embedder: provider returned a zero vector for text " +
                                     std::to_string(first_text + i));
    }
    for (float& x : v) x = static_cast<float>(x / norm);
  }
  return Status::Ok();
}

// ---- one attempt and the retry loop ----

enum class Failure { kNone, kTransient, kMalformed, kPermanent };

struct Attempt {
  Failure failure = Failure::kNone;
  Status status;    // why it failed
  Vectors vectors;  // when failure == kNone
  int64_t retry_after_ms = 0;
};

Attempt Failed(Failure failure, Status status, int64_t retry_after_ms = 0) {
  return Attempt{failure, std::move(status), {}, retry_after_ms};
}

Attempt ClassifyResponse(const HttpResponse& response, const std::string& url, size_t count) {
  const int code = response.status;
  if (code >= 200 && code < 300) {
    Result<Vectors> vectors = ParseEmbeddings(response.body, count);
    if (!vectors.ok()) {
      return Failed(Failure::kMalformed,
                    Status::Unavailable("openai embedder: provider returned malformed response: " +
                                        vectors.status().message()));
    }
    return Attempt{Failure::kNone, Status::Ok(), std::move(vectors).value(), 0};
  }
  const std::string what = "openai embedder: HTTP " + std::to_string(code) + " from " + url + ": " +
                           ProviderMessage(response.body);
  if (code == 408 || code == 429 || code >= 500) {
    return Failed(Failure::kTransient, Status::Unavailable(what), RetryAfterMs(response));
  }
  if (code == 401 || code == 403)
    return Failed(Failure::kPermanent, Status::PermissionDenied(what));
  return Failed(Failure::kPermanent, Status::InvalidArgument(what));
}

int64_t BackoffMs(int retry, int initial_backoff_ms, int64_t retry_after_ms) {
  int64_t wait = initial_backoff_ms;
  for (int i = 0; i < retry && wait < kMaxBackoffMs; ++i) wait *= 2;
  return std::min(std::max(wait, retry_after_ms), kMaxBackoffMs);
}

class OpenAIEmbedder final : public Embedder {
 public:
  explicit OpenAIEmbedder(const OpenAIEmbedderOptions& options)
      : options_(options),
        model_("openai:" + options.model),
        url_(EmbeddingsUrl(options.base_url)),
        api_key_(ReadApiKey(options.api_key_env)),
        transport_(options.transport ? options.transport : MakeHttpTransport()),
        dimension_(options.dimension) {}

  const std::string& model() const override { return model_; }

  int dimension() const override {
    std::lock_guard<std::mutex> lock(mutex_);
    return dimension_;
  }

  Result<Vectors> Embed(const std::vector<std::string>& texts) override {
    for (size_t i = 0; i < texts.size(); ++i) {
      size_t offset = 0;
      if (!IsValidUtf8(texts[i], &offset)) {
        return Status::InvalidArgument("text " + std::to_string(i) +
                                       " is not valid UTF-8 at byte " + std::to_string(offset));
      }
    }
    Vectors out;
    out.reserve(texts.size());
    const size_t batch = static_cast<size_t>(options_.batch_size);
    for (size_t start = 0; start < texts.size(); start += batch) {
      std::span<const std::string> slice(texts.data() + start,
                                         std::min(batch, texts.size() - start));
      ENGRAM_ASSIGN_OR_RETURN(Vectors vectors, EmbedBatch(slice));
      ENGRAM_RETURN_IF_ERROR(NormalizeAll(&vectors, start));
      for (auto& v : vectors) out.push_back(std::move(v));
    }
    return out;
  }

 private:
  HttpRequest BuildRequest(std::span<const std::string> texts) const {
    json body = {{"model", options_.model}, {"input", json::array()}, {"encoding_format", "float"}};
    for (const std::string& text : texts) body["input"].push_back(text);
    HttpRequest request;
    request.url = url_;
    request.headers.emplace_back("Content-Type", "application/json");
    if (!api_key_.empty()) request.headers.emplace_back("Authorization", "Bearer " + api_key_);
    // Inputs were checked for UTF-8, so "replace" never fires; it only rules out a throw.
    request.body = body.dump(-1, ' ', false, json::error_handler_t::replace);
    request.timeout_ms = options_.timeout_ms;
    return request;
  }

  Attempt PostOnce(const HttpRequest& request, size_t count) {
    Result<HttpResponse> response = transport_->Post(request);
    if (!response.ok()) {
      const bool transient = response.status().code() == StatusCode::kUnavailable;
      return Failed(transient ? Failure::kTransient : Failure::kPermanent,
                    response.status().WithContext("openai embedder"));
    }
    return ClassifyResponse(*response, url_, count);
  }

  Result<Vectors> EmbedBatch(std::span<const std::string> texts) {
    const HttpRequest request = BuildRequest(texts);
    bool malformed_retried = false;
    for (int attempt = 0;; ++attempt) {
      Attempt outcome = PostOnce(request, texts.size());
      if (outcome.failure == Failure::kNone) {
        ENGRAM_RETURN_IF_ERROR(CheckDimension(outcome.vectors));
        return std::move(outcome.vectors);
      }
      const bool retryable = outcome.failure == Failure::kTransient ||
                             (outcome.failure == Failure::kMalformed && !malformed_retried);
      if (!retryable || attempt >= options_.max_retries) {
        if (attempt == 0) return outcome.status;
        return Status(outcome.status.code(), outcome.status.message() + " (gave up after " +
                                                 std::to_string(attempt + 1) + " attempts)");
      }
      malformed_retried |= outcome.failure == Failure::kMalformed;
      std::this_thread::sleep_for(std::chrono::milliseconds(
          BackoffMs(attempt, options_.initial_backoff_ms, outcome.retry_after_ms)));
    }
  }

  // Checks every vector against the expected dimension; the first vector ever seen fixes it
  // when the options left it at 0.
  Status CheckDimension(const Vectors& vectors) {
    std::lock_guard<std::mutex> lock(mutex_);
    const size_t expected = dimension_ > 0 ? size_t(dimension_) : vectors.front().size();
    for (const auto& v : vectors) {
      if (v.size() != expected) {
        return Status::InvalidArgument("openai embedder: dimension mismatch: expected " +
                                       std::to_string(expected) + ", got " +
                                       std::to_string(v.size()));
      }
    }
    dimension_ = static_cast<int>(expected);
    return Status::Ok();
  }

  const OpenAIEmbedderOptions options_;
  const std::string model_;
  const std::string url_;
  const std::string api_key_;
  const std::shared_ptr<HttpTransport> transport_;  // thread-safe by contract
  mutable std::mutex mutex_;
  int dimension_;  // guarded by mutex_; options.dimension, or learned from the first response
};

}  // namespace

Result<std::unique_ptr<Embedder>> MakeOpenAIEmbedder(const OpenAIEmbedderOptions& options) {
  ENGRAM_RETURN_IF_ERROR(ValidateOptions(options));
  return std::unique_ptr<Embedder>(std::make_unique<OpenAIEmbedder>(options));
}

}  // namespace engram
