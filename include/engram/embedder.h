// Embedders turn text into vectors for the vector channel of retrieval.
//
// Every stored vector carries its embedder's model() string; vectors of two models are never
// compared, and changing the model means re-embedding (`engram reembed`).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engram/status.h"

namespace engram {

class Embedder {
 public:
  virtual ~Embedder() = default;
  // Identifies the vector space, including anything that changes vectors: "hash-v1-384",
  // "openai:text-embedding-3-small". Stored with every vector.
  virtual const std::string& model() const = 0;
  virtual int dimension() const = 0;
  // One L2-normalized vector of dimension() floats per text, in order. Thread-safe.
  // InvalidArgument for unusable input; Unavailable when a remote provider fails after retries.
  virtual Result<std::vector<std::vector<float>>> Embed(const std::vector<std::string>& texts) = 0;
};

// The built-in embedder: signed feature hashing of words, stems, character n-grams and CJK
// bigrams, weighted and L2-normalized. Needs no model file and no network; deterministic.
struct HashEmbedderOptions {
  int dimension = 384;  // 16..4096
};
Result<std::unique_ptr<Embedder>> MakeHashEmbedder(const HashEmbedderOptions& options);

// Sends one HTTP POST; injected so tests and embedders can replace the network.
struct HttpRequest {
  std::string url;  // absolute: http(s)://host[:port]/path
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  int timeout_ms = 30000;
};
struct HttpResponse {
  int status = 0;
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
};
// What a streamed POST hands its caller as the response arrives (HttpTransport::PostStream).
struct HttpStreamHandler {
  // The status and headers, once, before any body; false abandons the request.
  std::function<bool(int status, const std::vector<std::pair<std::string, std::string>>& headers)>
      on_response;
  // Each piece of the body as it arrives; false abandons the request.
  std::function<bool(std::string_view piece)> on_body;
};

class HttpTransport {
 public:
  virtual ~HttpTransport() = default;
  // A response of any HTTP status is OK; Unavailable only when no response arrived
  // (connection refused, timeout). Thread-safe.
  virtual Result<HttpResponse> Post(const HttpRequest& request) = 0;
  // The same POST with the response handed over as it arrives (a server-sent event stream).
  // OK once the body ended or a handler abandoned it; Unavailable when no response arrived or
  // the body broke off (then on_response may have been called). request.timeout_ms bounds
  // each wait for bytes, not the whole stream. The default posts and hands over the whole
  // body at once (for transports that cannot stream, such as test fakes).
  virtual Status PostStream(const HttpRequest& request, const HttpStreamHandler& handler);
  // The same streamed POST without waiting for it: returns at once; the handler's calls, then
  // `done` with PostStream's status, come on another thread (a handler must not block). The
  // transport must outlive `done`. The default runs PostStream on a thread of its own; the
  // default transport reads all its streams on one thread (libcurl's multi interface).
  virtual void StartStream(HttpRequest request, HttpStreamHandler handler,
                           std::function<void(Status)> done);
};
// The default transport (cpp-httplib, HTTP and HTTPS).
std::unique_ptr<HttpTransport> MakeHttpTransport();

// Any OpenAI-compatible /v1/embeddings endpoint: OpenAI, Ollama, vLLM, TEI, DashScope
// compatible mode, llama.cpp server.
struct OpenAIEmbedderOptions {
  std::string base_url = "https://api.openai.com/v1";  // ".../v1"; "/embeddings" is appended
  std::string model = "text-embedding-3-small";
  std::string api_key_env = "OPENAI_API_KEY";  // the key is read from this variable; may be unset
  int dimension = 0;    // expected dimension; 0: taken from the first response
  int batch_size = 64;  // texts per request
  int timeout_ms = 30000;
  int max_retries = 4;           // on 429, 5xx and transport failures
  int initial_backoff_ms = 250;  // doubles per retry; Retry-After is honoured when larger
  std::shared_ptr<HttpTransport> transport;  // default: MakeHttpTransport()
};
Result<std::unique_ptr<Embedder>> MakeOpenAIEmbedder(const OpenAIEmbedderOptions& options);

}  // namespace engram
