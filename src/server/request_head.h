// Checks of a request's head (request line and header fields) made before libmicrohttpd sees
// it: the server reads the first request of every plain-HTTP connection with MSG_PEEK and hands
// the connection to the library only when its head is sound, so the errors a client can cause
// with it come back as Engram's JSON error body (the library answers them with HTML, and with
// a malformed Content-Length it sends its status line twice), and framing a proxy could read
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

// True when the path part (before '?') of a raw request target has a control character, raw or
// percent-encoded (%00-%1F, %7F).
bool PathHasControlCharacter(std::string_view target);

// A complete HTTP/1.1 response carrying the JSON error body {"error": {code, message}}, with
// `Connection: close`, for the answers the server writes itself (the head checks above, and
// the 503 of a connection over the limits).
std::string JsonErrorResponse(int status, std::string_view code, std::string_view message);

}  // namespace engram::server
