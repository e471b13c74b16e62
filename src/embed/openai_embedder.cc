// The remote embedder for any OpenAI-compatible /v1/embeddings endpoint.
//
// Embed() cuts the input into batches and sends them one after another; each batch is retried on
// its own, so a long re-embedding survives a rate limit halfway through. Retry policy:
//   - 408, 429, 5xx and transport failures (no response) are transient: retried up to
//     max_retries times, waiting initial_backoff_ms * 2^n, or Retry-After when that is longer,
//     never more than provider::kMaxBackoffMs at once (the loop is embed/provider_http.h's,
//     shared with the chat client).
//   - A 2xx whose body is not the expected JSON is retried at most once (within max_retries):
//     a proxy cutting the body short is transient, but a server that speaks another dialect will
//     answer the same way every time, and retrying it max_retries times only adds latency.
//   - Other statuses are the caller's problem and are not retried: 401/403 -> PermissionDenied,
//     anything else -> InvalidArgument, carrying the provider's own message.
//   - Vectors of the wrong dimension or all zeros are InvalidArgument, not retried: the same
//     input would give the same answer.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/status_macros.h"
#include "embed/provider_http.h"
#include "engram/embedder.h"
#include "text/utf8.h"

namespace engram {
namespace {

using json = nlohmann::json;
using Vectors = std::vector<std::vector<float>>;

using provider::AttemptOutcome;
using provider::Failure;

constexpr int kMaxBatchSize = 2048;  // OpenAI's limit on inputs per request

Status BadOption(std::string_view what) {
  return Status::InvalidArgument("openai embedder options: " + std::string(what));
}

Status ValidateOptions(const OpenAIEmbedderOptions& o) {
  if (o.base_url.empty()) return BadOption("base_url is empty");
  if (!provider::HasHttpScheme(o.base_url)) {
    return BadOption("base_url must start with http:// or https://");
  }
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

struct Attempt {
  AttemptOutcome outcome;
  Vectors vectors;  // when outcome.failure == Failure::kNone
};

Attempt ClassifyResponse(const HttpResponse& response, const std::string& url, size_t count) {
  if (response.status < 200 || response.status >= 300) {
    return {provider::ClassifyErrorResponse(response, "openai embedder", url), {}};
  }
  Result<Vectors> vectors = ParseEmbeddings(response.body, count);
  if (!vectors.ok()) {
    return {{Failure::kMalformed,
             Status::Unavailable("openai embedder: provider returned malformed response: " +
                                 vectors.status().message())},
            {}};
  }
  return {{}, std::move(vectors).value()};
}

class OpenAIEmbedder final : public Embedder {
 public:
  explicit OpenAIEmbedder(const OpenAIEmbedderOptions& options)
      : options_(options),
        model_("openai:" + options.model),
        url_(provider::EndpointUrl(options.base_url, "/embeddings")),
        api_key_(provider::ReadApiKey(options.api_key_env)),
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
      return {provider::TransportFailure(response.status(), "openai embedder"), {}};
    }
    return ClassifyResponse(*response, url_, count);
  }

  Result<Vectors> EmbedBatch(std::span<const std::string> texts) {
    const HttpRequest request = BuildRequest(texts);
    Vectors vectors;
    ENGRAM_RETURN_IF_ERROR(provider::RunWithRetries(
        {options_.max_retries, options_.initial_backoff_ms}, [&]() -> AttemptOutcome {
          Attempt attempt = PostOnce(request, texts.size());
          if (attempt.outcome.failure == Failure::kNone) vectors = std::move(attempt.vectors);
          return attempt.outcome;
        }));
    ENGRAM_RETURN_IF_ERROR(CheckDimension(vectors));
    return vectors;
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
