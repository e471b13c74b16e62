// Request-head checks (request_head.h).
#include "server/request_head.h"

#include <strings.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <nlohmann/json.hpp>

namespace engram::server {
namespace {

bool IsTokenChar(unsigned char c) {
  if (std::isalnum(c)) return true;
  switch (c) {
    case '!':
    case '#':
    case '$':
    case '%':
    case '&':
    case '\'':
    case '*':
    case '+':
    case '-':
    case '.':
    case '^':
    case '_':
    case '`':
    case '|':
    case '~':
      return true;
    default:
      return false;
  }
}

bool IsToken(std::string_view s) {
  if (s.empty()) return false;
  for (unsigned char c : s) {
    if (!IsTokenChar(c)) return false;
  }
  return true;
}

// `name` is a token (no NUL), so strncasecmp sees all of it.
bool IsField(std::string_view name, std::string_view field) {
  return name.size() == field.size() && strncasecmp(name.data(), field.data(), name.size()) == 0;
}

std::string_view TrimSpaces(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

HeadVerdict Refuse(int status, std::string code, std::string message) {
  HeadVerdict v;
  v.complete = true;
  v.status = status;
  v.code = std::move(code);
  v.message = std::move(message);
  return v;
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Checks the request line; status 0 when sound.
HeadVerdict CheckRequestLine(std::string_view line, const HeadLimits& limits) {
  const size_t sp1 = line.find(' ');
  const size_t sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos || line.find(' ', sp2 + 1) != std::string_view::npos) {
    return Refuse(400, "bad_request", "the request line must be 'METHOD /path HTTP/1.1'");
  }
  const std::string_view method = line.substr(0, sp1);
  const std::string_view target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  const std::string_view version = line.substr(sp2 + 1);
  if (!IsToken(method)) return Refuse(400, "bad_request", "the request method is not a token");
  if (target.size() > limits.max_uri_bytes) {
    return Refuse(
        414, "uri_too_long",
        "the request target is longer than " + std::to_string(limits.max_uri_bytes) + " bytes");
  }
  if (target.empty() || target.front() != '/') {
    return Refuse(400, "bad_request", "the request target must start with '/'");
  }
  for (unsigned char c : target) {
    if (c < 0x21 || c == 0x7f) {
      return Refuse(400, "bad_request", "the request target holds a control character");
    }
  }
  if (PathHasControlCharacter(target)) {
    return Refuse(400, "bad_request",
                  "the path holds an encoded control character (such as %00): ids never do");
  }
  if (version != "HTTP/1.1" && version != "HTTP/1.0") {
    if (version.size() == 8 && version.substr(0, 5) == "HTTP/" && std::isdigit(version[5]) &&
        version[6] == '.' && std::isdigit(version[7])) {
      return Refuse(505, "http_version_not_supported",
                    "HTTP/1.0 and HTTP/1.1 are served, not " + std::string(version));
    }
    return Refuse(400, "bad_request", "the request line does not end with an HTTP version");
  }
  return HeadVerdict{};
}

}  // namespace

bool PathHasControlCharacter(std::string_view target) {
  const std::string_view path = target.substr(0, target.find('?'));
  for (size_t i = 0; i < path.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(path[i]);
    if (c < 0x20 || c == 0x7f) return true;
    if (c == '%' && i + 2 < path.size()) {
      const int hi = HexValue(path[i + 1]), lo = HexValue(path[i + 2]);
      if (hi >= 0 && lo >= 0) {
        const int v = hi * 16 + lo;
        if (v < 0x20 || v == 0x7f) return true;
      }
    }
  }
  return false;
}

HeadVerdict CheckRequestHead(std::string_view data, const HeadLimits& limits) {
  // Where the head ends: the first empty line (CRLF CRLF, or bare LFs, which the library takes).
  size_t end = std::string_view::npos;
  for (size_t i = data.find('\n'); i != std::string_view::npos; i = data.find('\n', i + 1)) {
    if (i + 1 < data.size() && data[i + 1] == '\n') {
      end = i + 1;
      break;
    }
    if (i + 2 < data.size() && data[i + 1] == '\r' && data[i + 2] == '\n') {
      end = i + 1;
      break;
    }
  }
  const size_t line_end = data.find('\n');
  if (line_end != std::string_view::npos) {
    std::string_view line = data.substr(0, line_end);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    HeadVerdict v = CheckRequestLine(line, limits);
    if (v.status != 0) return v;
  } else if (data.size() > limits.max_uri_bytes + 64) {
    return Refuse(
        414, "uri_too_long",
        "the request target is longer than " + std::to_string(limits.max_uri_bytes) + " bytes");
  }
  if (end == std::string_view::npos) {
    if (data.size() > limits.max_head_bytes) {
      return Refuse(
          431, "request_header_fields_too_large",
          "the request head is longer than " + std::to_string(limits.max_head_bytes) + " bytes");
    }
    return HeadVerdict{};  // wait for more
  }
  if (end > limits.max_head_bytes) {
    return Refuse(
        431, "request_header_fields_too_large",
        "the request head is longer than " + std::to_string(limits.max_head_bytes) + " bytes");
  }
  int content_lengths = 0;
  int transfer_encodings = 0;
  int64_t content_length = -1;
  size_t pos = line_end + 1;
  while (pos < end) {
    size_t nl = data.find('\n', pos);
    std::string_view field = data.substr(pos, nl - pos);
    pos = nl + 1;
    if (!field.empty() && field.back() == '\r') field.remove_suffix(1);
    if (field.empty()) break;
    if (field.front() == ' ' || field.front() == '\t') {
      return Refuse(400, "bad_request", "folded header lines are not accepted");
    }
    const size_t colon = field.find(':');
    if (colon == std::string_view::npos || !IsToken(field.substr(0, colon))) {
      return Refuse(400, "bad_request", "a header line is not 'Name: value'");
    }
    const std::string_view name = field.substr(0, colon);
    const std::string_view value = TrimSpaces(field.substr(colon + 1));
    for (unsigned char c : value) {
      if ((c < 0x20 && c != '\t') || c == 0x7f) {
        return Refuse(400, "bad_request", "a header value holds a control character");
      }
    }
    if (IsField(name, "Content-Length")) {
      if (++content_lengths > 1) {
        return Refuse(400, "bad_request", "more than one Content-Length header");
      }
      bool digits = !value.empty() && value.size() <= 19;
      for (char c : value) digits = digits && c >= '0' && c <= '9';
      if (!digits || (value.size() == 19 && value > "9223372036854775807")) {
        return Refuse(400, "bad_request", "Content-Length must be a decimal number of bytes");
      }
      content_length = 0;
      for (char c : value) content_length = content_length * 10 + (c - '0');
    } else if (IsField(name, "Transfer-Encoding")) {
      if (++transfer_encodings > 1 || !IsField(value, "chunked")) {
        return Refuse(400, "bad_request",
                      "Transfer-Encoding must be 'chunked' alone (or leave it out and send "
                      "Content-Length)");
      }
    }
  }
  if (content_lengths > 0 && transfer_encodings > 0) {
    return Refuse(400, "bad_request",
                  "Content-Length and Transfer-Encoding together: the body's length is ambiguous");
  }
  HeadVerdict v;
  v.complete = true;
  v.head_bytes = end + (data[end] == '\r' ? 2 : 1);
  v.content_length = content_length;
  v.chunked = transfer_encodings > 0;
  return v;
}

namespace {

constexpr size_t kMaxChunkLine = 4096;  // a chunk-size line, extensions included

// A chunk-size line without its line end ("1a;ext=v"): the size, or -1 when it is not one.
int64_t ChunkSize(std::string_view line) {
  int64_t size = 0;
  size_t i = 0;
  for (; i < line.size(); ++i) {
    const int digit = HexValue(line[i]);
    if (digit < 0) break;
    if (i >= 15) return -1;  // 2^60 and past: no body here is that long
    size = size * 16 + digit;
  }
  if (i == 0) return -1;
  const std::string_view rest = line.substr(i);
  if (!rest.empty() && rest.front() != ';' && rest.front() != ' ' && rest.front() != '\t') {
    return -1;
  }
  return size;
}

// Passes on up to `left` bytes of `data` (consumed); true once `left` is 0.
bool PassOn(uint64_t& left, std::string_view& data, std::string* out) {
  const size_t take = static_cast<size_t>(std::min<uint64_t>(left, data.size()));
  out->append(data.substr(0, take));
  data.remove_prefix(take);
  left -= take;
  return left == 0;
}

}  // namespace

bool RequestFramer::Fail(int status, std::string code, std::string message) {
  error_ = Refuse(status, std::move(code), std::move(message));
  return false;
}

bool RequestFramer::Feed(std::string_view data, std::string* out) {
  if (error_.status != 0) return false;
  std::string carry;  // the bytes after a head, read together with it
  while (!data.empty()) {
    switch (phase_) {
      case Phase::kHead: {
        if (head_.empty()) {
          while (!data.empty() && (data.front() == '\r' || data.front() == '\n')) {
            data.remove_prefix(1);
          }
          if (data.empty()) break;
        }
        const size_t old = head_.size();
        const size_t take = std::min(limits_.max_head_bytes + 1 - old, data.size());
        head_.append(data.substr(0, take));
        data.remove_prefix(take);
        // Judged when a line ends, or when it is over a limit: not once per byte trickled in.
        const size_t uri_guard = limits_.max_uri_bytes + 64;
        const bool decide = head_.find('\n', old) != std::string::npos ||
                            head_.size() > limits_.max_head_bytes ||
                            (old <= uri_guard && head_.size() > uri_guard);
        if (!decide) break;
        const HeadVerdict v = CheckRequestHead(head_, limits_);
        if (v.status != 0) {
          error_ = v;
          return false;
        }
        if (!v.complete) break;
        out->append(head_, 0, v.head_bytes);
        std::string rest = head_.substr(v.head_bytes);
        head_.clear();
        ++requests_;
        if (v.chunked) {
          phase_ = Phase::kChunked;
          chunk_ = Chunk::kSize;
          line_.clear();
          trailer_bytes_ = 0;
        } else if (v.content_length > 0) {
          phase_ = Phase::kBody;
          body_left_ = static_cast<uint64_t>(v.content_length);
        }
        if (!rest.empty()) {
          rest.append(data);
          carry = std::move(rest);
          data = carry;
        }
        break;
      }
      case Phase::kBody:
        if (PassOn(body_left_, data, out)) phase_ = Phase::kHead;
        break;
      case Phase::kChunked: {
        if (chunk_ == Chunk::kData) {
          if (PassOn(chunk_left_, data, out)) chunk_ = Chunk::kDataEnd;
          break;
        }
        // A line is passed on once whole and sound: the library never sees a bad one.
        const size_t nl = data.find('\n');
        const std::string_view piece = data.substr(0, nl == std::string_view::npos ? nl : nl + 1);
        line_.append(piece);
        data.remove_prefix(piece.size());
        const bool too_long = chunk_ == Chunk::kTrailer
                                  ? trailer_bytes_ + line_.size() > limits_.max_head_bytes
                                  : line_.size() > kMaxChunkLine;
        if (too_long) {
          return Fail(400, "bad_request",
                      "a chunk line or the trailer of a chunked body is too long");
        }
        if (nl == std::string_view::npos) break;
        std::string_view text(line_);
        text.remove_suffix(1);
        if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
        if (chunk_ == Chunk::kSize) {
          const int64_t size = ChunkSize(text);
          if (size < 0) return Fail(400, "bad_request", "the chunked body is malformed");
          chunk_ = size == 0 ? Chunk::kTrailer : Chunk::kData;
          chunk_left_ = static_cast<uint64_t>(size);
        } else if (chunk_ == Chunk::kDataEnd) {
          if (!text.empty()) return Fail(400, "bad_request", "the chunked body is malformed");
          chunk_ = Chunk::kSize;
        } else if (text.empty()) {
          phase_ = Phase::kHead;  // the trailer's end: the request is complete
        } else {
          trailer_bytes_ += line_.size();
        }
        out->append(line_);
        line_.clear();
        break;
      }
    }
  }
  return true;
}

std::string JsonErrorResponse(int status, std::string_view code, std::string_view message) {
  const char* reason = "Error";
  switch (status) {
    case 400:
      reason = "Bad Request";
      break;
    case 408:
      reason = "Request Timeout";
      break;
    case 413:
      reason = "Content Too Large";
      break;
    case 414:
      reason = "URI Too Long";
      break;
    case 431:
      reason = "Request Header Fields Too Large";
      break;
    case 503:
      reason = "Service Unavailable";
      break;
    case 505:
      reason = "HTTP Version Not Supported";
      break;
    default:
      break;
  }
  const std::string body = nlohmann::json{{"error", {{"code", code}, {"message", message}}}}.dump();
  std::string out =
      "HTTP/1.1 " + std::to_string(status) + " " + reason +
      "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
      "\r\nConnection: close\r\n";
  if (status == 503) out += "Retry-After: 1\r\n";
  return out + "\r\n" + body;
}

}  // namespace engram::server
