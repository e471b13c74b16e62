// Checks of a request's head (request line and header fields), and of a connection's request
// framing, made before libmicrohttpd sees them: on plain HTTP the server's relay
// (edge_relay.h) passes a request on only when these find it sound, so the errors a client can
// cause come back as Engram's JSON error body (the library answers them with HTML, and with a
// malformed Content-Length it sends its status line twice), and framing two parties could read
// differently (two Content-Length headers, Content-Length with Transfer-Encoding) is refused
// instead of guessed. Pure functions: the fuzzer runs them on arbitrary bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace engram::server {

struct HeadLimits {
  size_t max_uri_bytes = 8192;    // a longer request target: 414
  size_t max_head_bytes = 16384;  // a longer head (line and fields, up to the blank line): 431
};

struct HeadVerdict {
  bool complete = false;  // the blank line ending the head was seen
  int status = 0;         // 0: acceptable so far; otherwise the HTTP status to answer with
  std::string code;       // the error body's code
  std::string message;    // and its message
  // When complete and sound: how the body is framed, so a relay knows where the next request
  // starts. head_bytes counts the blank line too.
  size_t head_bytes = 0;
  int64_t content_length = -1;  // -1: no Content-Length
  bool chunked = false;         // Transfer-Encoding: chunked
};

// Looks at the bytes a client has sent so far (`data`, the start of the connection). Until the
// head is complete, status is non-zero only when it can already be refused (too long, a request
// line that cannot become valid). When complete: the method is a token, the target starts with
// '/' and holds no control characters (raw, or percent-encoded in its path: a NUL in an id
// would otherwise be cut there and served), the version is HTTP/1.0 or HTTP/1.1, each field is
// `name: value` with a token name, Content-Length appears at most once as decimal digits below
// 2^63, and not together with Transfer-Encoding, which, when present, is exactly `chunked` (the
// library would read any other coding as an empty body and take the body for the next
// request).
HeadVerdict CheckRequestHead(std::string_view data, const HeadLimits& limits);

// Follows the requests a client sends on one connection, byte by byte as they arrive, and says
// what may be passed on: each head only once it is complete and sound (CheckRequestHead), then
// its body exactly as framed (Content-Length bytes, or a chunked body through its trailer).
// Empty lines between requests are dropped (RFC 9112 §2.2). At the first error it stops taking
// bytes and holds the verdict. Pure: the fuzzer feeds it arbitrary bytes in arbitrary cuts.
class RequestFramer {
 public:
  explicit RequestFramer(HeadLimits limits = {}) : limits_(limits) {}

  // Takes the next bytes; appends to `out` what may be passed on. Returns false once refused
  // (then and afterwards, nothing more is taken).
  bool Feed(std::string_view data, std::string* out);

  const HeadVerdict& error() const { return error_; }  // status != 0 once refused
  int64_t requests() const { return requests_; }       // heads passed on
  // A request has begun and is not yet all passed on (its head, or the rest of its body).
  bool in_request() const { return !head_.empty() || phase_ != Phase::kHead; }
  // The last head passed on still has body to come.
  bool in_body() const { return phase_ == Phase::kBody || phase_ == Phase::kChunked; }
  std::string_view pending_head() const { return head_; }  // what arrived of a head held back

 private:
  enum class Phase { kHead, kBody, kChunked };
  enum class Chunk { kSize, kData, kDataEnd, kTrailer };
  bool Fail(int status, std::string code, std::string message);
  const HeadLimits limits_;
  Phase phase_ = Phase::kHead;
  std::string head_;  // a head arriving, up to the limit + 1 byte
  uint64_t body_left_ = 0;
  Chunk chunk_ = Chunk::kSize;
  std::string line_;  // a chunk-size line, a chunk's closing CRLF or a trailer line arriving
  uint64_t chunk_left_ = 0;
  size_t trailer_bytes_ = 0;
  int64_t requests_ = 0;
  HeadVerdict error_;
};

// True when the path part (before '?') of a raw request target has a control character, raw or
// percent-encoded (%00-%1F, %7F).
bool PathHasControlCharacter(std::string_view target);

// A complete HTTP/1.1 response carrying the JSON error body {"error": {code, message}}, with
// `Connection: close`, for the answers the server writes itself (the head checks above, and
// the 503 of a connection over the limits).
std::string JsonErrorResponse(int status, std::string_view code, std::string_view message);

}  // namespace engram::server
