// The default HttpTransport: cpp-httplib clients (plain or TLS), pooled per scheme+host+port.
//
// Why a pool: a remote embedder sends many requests to one host, and a TLS handshake per batch
// costs about as much as the batch itself. Each request borrows an idle keep-alive client (or
// makes one), uses it without holding any lock, and gives it back if the exchange succeeded, so
// concurrent callers never wait for each other. A client whose exchange failed is dropped: its
// socket state is unknown.
//
// Streams started without waiting (StartStream, the chat proxy's) are not httplib's: they are
// read together on one thread by libcurl's multi interface (embed/stream_pump.h).
#include <httplib.h>

#include <algorithm>
#include <cctype>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "core/status_macros.h"
#include "embed/stream_pump.h"
#include "engram/embedder.h"

namespace engram {
namespace {

// Idle connections kept per host; enough for a few concurrent embedders, small enough that a
// long-lived process holds no pile of sockets.
constexpr size_t kMaxIdleClientsPerHost = 4;

struct ParsedUrl {
  bool tls = false;
  std::string host;  // IPv6 literals without brackets
  int port = 0;
  std::string path;  // starts with '/', may carry a query
  std::string key;   // scheme://host:port, the pool key
};

std::string Lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

Status BadUrl(std::string_view url, std::string_view why) {
  return Status::InvalidArgument("invalid URL \"" + std::string(url) + "\": " + std::string(why));
}

// "443" -> 443; anything but 1..65535 in plain decimal -> 0.
int ParsePort(std::string_view s) {
  if (s.empty() || s.size() > 5) return 0;
  int port = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return 0;
    port = port * 10 + (c - '0');
  }
  return port <= 65535 ? port : 0;
}

// Splits "host", "host:port", "[v6]" or "[v6]:port" into *url.
Status ParseAuthority(std::string_view url, std::string_view authority, ParsedUrl* out) {
  if (authority.find('@') != std::string_view::npos) {
    return BadUrl(url, "credentials in the URL are not supported; send them as a header");
  }
  std::string_view host = authority;
  std::string_view port;
  if (!authority.empty() && authority.front() == '[') {
    size_t close = authority.find(']');
    if (close == std::string_view::npos) return BadUrl(url, "unterminated IPv6 address");
    host = authority.substr(1, close - 1);
    std::string_view rest = authority.substr(close + 1);
    if (!rest.empty() && rest.front() != ':') return BadUrl(url, "junk after IPv6 address");
    if (!rest.empty()) port = rest.substr(1);
    if (!rest.empty() && port.empty()) return BadUrl(url, "empty port");
  } else if (size_t colon = authority.rfind(':'); colon != std::string_view::npos) {
    host = authority.substr(0, colon);
    port = authority.substr(colon + 1);
    if (port.empty()) return BadUrl(url, "empty port");
  }
  if (host.empty()) return BadUrl(url, "no host");
  out->host = std::string(host);
  if (!port.empty()) {
    out->port = ParsePort(port);
    if (out->port == 0) return BadUrl(url, "port must be 1..65535");
  }
  return Status::Ok();
}

// http(s)://host[:port][/path][?query][#fragment]; the fragment is dropped, as browsers do.
Result<ParsedUrl> ParseUrl(std::string_view url) {
  size_t sep = url.find("://");
  if (sep == std::string_view::npos) return BadUrl(url, "expected http:// or https://");
  std::string scheme = Lower(url.substr(0, sep));
  if (scheme != "http" && scheme != "https") return BadUrl(url, "scheme must be http or https");
  ParsedUrl out;
  out.tls = scheme == "https";
  out.port = out.tls ? 443 : 80;
  std::string_view rest = url.substr(sep + 3);
  rest = rest.substr(0, rest.find('#'));
  size_t path_start = std::min(rest.find('/'), rest.find('?'));
  std::string_view authority = rest.substr(0, path_start);
  ENGRAM_RETURN_IF_ERROR(ParseAuthority(url, authority, &out));
  std::string_view path = path_start == std::string_view::npos ? "" : rest.substr(path_start);
  out.path = path.empty() || path.front() != '/' ? "/" + std::string(path) : std::string(path);
  std::string host_part = out.host.find(':') != std::string::npos ? "[" + out.host + "]" : out.host;
  out.key = scheme + "://" + host_part + ":" + std::to_string(out.port);
  return out;
}

// httplib writes header values verbatim; a CR or LF (say, in a key read from the environment)
// would let a value smuggle in extra headers.
Status CheckHeaders(const HttpRequest& request) {
  for (const auto& [name, value] : request.headers) {
    if (name.empty() || (name + value).find_first_of("\r\n") != std::string::npos) {
      return Status::InvalidArgument("HTTP header \"" + name +
                                     "\" has an empty name or a line break");
    }
  }
  return Status::Ok();
}

void SetTimeouts(httplib::ClientImpl* client, int timeout_ms) {
  const time_t sec = timeout_ms / 1000;
  const time_t usec = (timeout_ms % 1000) * 1000;
  client->set_connection_timeout(sec, usec);
  client->set_read_timeout(sec, usec);
  client->set_write_timeout(sec, usec);
}

std::unique_ptr<httplib::ClientImpl> NewClient(const ParsedUrl& url) {
  std::unique_ptr<httplib::ClientImpl> client;
  if (url.tls) {
    // Server certificates are verified against the system store (httplib's default).
    client = std::make_unique<httplib::SSLClient>(url.host, url.port);
  } else {
    client = std::make_unique<httplib::ClientImpl>(url.host, url.port);
  }
  client->set_keep_alive(true);
  // httplib sends headers and body in separate writes; with Nagle's algorithm the body then
  // waits for the server's delayed ACK (~40 ms per request on Linux).
  client->set_tcp_nodelay(true);
  return client;
}

// Why no response arrived, in words a log reader can act on.
std::string DescribeFailure(const httplib::Result& result, httplib::ClientImpl* client, bool tls) {
  std::string why = httplib::to_string(result.error());
  if (tls && result.error() == httplib::Error::SSLServerVerification) {
    long code = static_cast<httplib::SSLClient*>(client)->get_openssl_verify_result();
    why += std::string(" (") + X509_verify_cert_error_string(code) + ")";
  }
  return why;
}

HttpResponse ToResponse(const httplib::Response& in) {
  HttpResponse out;
  out.status = in.status;
  out.body = in.body;
  out.headers.assign(in.headers.begin(), in.headers.end());
  return out;
}

class PooledHttpTransport final : public HttpTransport {
 public:
  Result<HttpResponse> Post(const HttpRequest& request) override {
    try {
      return PostUnguarded(request);
    } catch (const std::exception& e) {
      return Status::Internal(std::string("HTTP transport raised: ") + e.what());
    } catch (...) {
      return Status::Internal("HTTP transport raised an unknown exception");
    }
  }

 private:
  Result<HttpResponse> PostUnguarded(const HttpRequest& request) {
    if (request.timeout_ms <= 0) return Status::InvalidArgument("HTTP timeout_ms must be positive");
    ENGRAM_ASSIGN_OR_RETURN(ParsedUrl url, ParseUrl(request.url));
    ENGRAM_RETURN_IF_ERROR(CheckHeaders(request));

    // httplib adds the content type it is given as a header of its own; pass ours that way so
    // the request carries exactly one.
    httplib::Headers headers;
    std::string content_type;
    for (const auto& [name, value] : request.headers) {
      if (Lower(name) == "content-type") {
        content_type = value;
      } else {
        headers.emplace(name, value);
      }
    }

    std::unique_ptr<httplib::ClientImpl> client = Acquire(url);
    SetTimeouts(client.get(), request.timeout_ms);
    httplib::Result result = client->Post(url.path, headers, request.body, content_type);
    if (!result) {
      return Status::Unavailable("POST " + url.key + url.path + ": no response (" +
                                 DescribeFailure(result, client.get(), url.tls) + ")");
    }
    HttpResponse response = ToResponse(result.value());
    Release(url.key, std::move(client));
    return response;
  }

 public:
  Status PostStream(const HttpRequest& request, const HttpStreamHandler& handler) override {
    try {
      return PostStreamUnguarded(request, handler);
    } catch (const std::exception& e) {
      return Status::Internal(std::string("HTTP transport raised: ") + e.what());
    } catch (...) {
      return Status::Internal("HTTP transport raised an unknown exception");
    }
  }

 private:
  Status PostStreamUnguarded(const HttpRequest& request, const HttpStreamHandler& handler) {
    if (request.timeout_ms <= 0) return Status::InvalidArgument("HTTP timeout_ms must be positive");
    ENGRAM_ASSIGN_OR_RETURN(ParsedUrl url, ParseUrl(request.url));
    ENGRAM_RETURN_IF_ERROR(CheckHeaders(request));
    httplib::Request req;
    req.method = "POST";
    req.path = url.path;
    req.body = request.body;
    for (const auto& [name, value] : request.headers) req.headers.emplace(name, value);
    bool abandoned = false;
    req.response_handler = [&](const httplib::Response& response) {
      std::vector<std::pair<std::string, std::string>> headers(response.headers.begin(),
                                                               response.headers.end());
      abandoned = !handler.on_response(response.status, headers);
      return !abandoned;
    };
    req.content_receiver = [&](const char* data, size_t n, uint64_t, uint64_t) {
      abandoned = !handler.on_body(std::string_view(data, n));
      return !abandoned;
    };
    // A stream is not pooled: it may be abandoned mid-body, and its length is the upstream's.
    std::unique_ptr<httplib::ClientImpl> client = NewClient(url);
    SetTimeouts(client.get(), request.timeout_ms);
    httplib::Response response;
    httplib::Error error = httplib::Error::Success;
    if (client->send(req, response, error) || abandoned) return Status::Ok();
    return Status::Unavailable(
        "POST " + url.key + url.path + ": " +
        (error == httplib::Error::Success ? "the response broke off" : httplib::to_string(error)));
  }

  Status CheckStream(const HttpRequest& request) {
    if (request.timeout_ms <= 0) return Status::InvalidArgument("HTTP timeout_ms must be positive");
    ENGRAM_ASSIGN_OR_RETURN(ParsedUrl url, ParseUrl(request.url));
    return CheckHeaders(request);
  }

 public:
  void StartStream(HttpRequest request, HttpStreamHandler handler,
                   std::function<void(Status)> done) override {
    if (Status bad = CheckStream(request); !bad.ok()) {
      done(bad);
      return;
    }
    embed::StreamPump* pump = nullptr;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      // Made at the first stream: an embedder's transport never streams and needs no thread.
      if (!pump_) pump_ = std::make_unique<embed::StreamPump>();
      pump = pump_.get();
    }
    pump->Start(std::move(request), std::move(handler), std::move(done));
  }

 private:
  std::unique_ptr<httplib::ClientImpl> Acquire(const ParsedUrl& url) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto it = idle_.find(url.key);
      if (it != idle_.end() && !it->second.empty()) {
        std::unique_ptr<httplib::ClientImpl> client = std::move(it->second.back());
        it->second.pop_back();
        return client;
      }
    }
    return NewClient(url);  // outside the lock: creating a TLS context is not free
  }

  void Release(const std::string& key, std::unique_ptr<httplib::ClientImpl> client) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto& idle = idle_[key];
    if (idle.size() < kMaxIdleClientsPerHost) idle.push_back(std::move(client));
  }

  std::mutex mutex_;
  // Keep-alive clients not in use, by scheme://host:port. Guarded by mutex_.
  std::map<std::string, std::vector<std::unique_ptr<httplib::ClientImpl>>> idle_;
  std::unique_ptr<embed::StreamPump> pump_;  // guarded by mutex_ (its creation)
};

}  // namespace

Status HttpTransport::PostStream(const HttpRequest& request, const HttpStreamHandler& handler) {
  ENGRAM_ASSIGN_OR_RETURN(HttpResponse response, Post(request));
  if (handler.on_response(response.status, response.headers)) handler.on_body(response.body);
  return Status::Ok();
}

void HttpTransport::StartStream(HttpRequest request, HttpStreamHandler handler,
                                std::function<void(Status)> done) {
  std::thread([this, request = std::move(request), handler = std::move(handler),
               done = std::move(done)] {
    done(PostStream(request, handler));
  }).detach();
}

std::unique_ptr<HttpTransport> MakeHttpTransport() {
  return std::make_unique<PooledHttpTransport>();
}

}  // namespace engram
