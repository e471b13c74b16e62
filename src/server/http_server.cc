#include "server/http_server.h"

#include <arpa/inet.h>
#include <sys/socket.h>
#include <httplib.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <regex>
#include <unordered_map>

#include "core/status_macros.h"
#include "server/access_log.h"
#include "server/metrics.h"
#include "server/rate_limiter.h"
#include "server/routes.h"

namespace engram::server {
namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// "/v1/memories/{id}" → "/v1/memories/([^/]+)", with the parameter names in order.
std::string PatternToRegex(const std::string& path, std::vector<std::string>* names) {
  std::string out;
  for (size_t i = 0; i < path.size(); ++i) {
    if (path[i] == '{') {
      size_t close = path.find('}', i);
      names->push_back(path.substr(i + 1, close - i - 1));
      out += "([^/]+)";
      i = close;
    } else if (std::string(".+*?()[]^$|\\").find(path[i]) != std::string::npos) {
      out += '\\';
      out += path[i];
    } else {
      out += path[i];
    }
  }
  return out;
}

// The credential a request carries: "Authorization: Bearer <key>" or "X-API-Key: <key>".
std::string PresentedKey(const httplib::Request& req) {
  const std::string auth = req.get_header_value("Authorization");
  constexpr std::string_view kBearer = "Bearer ";
  if (auth.size() > kBearer.size() && auth.compare(0, kBearer.size(), kBearer) == 0) {
    return auth.substr(kBearer.size());
  }
  return req.get_header_value("X-API-Key");
}

struct Caller {
  std::string tenant;
  std::string key_id;  // "" in open (keyless, loopback) mode
  bool admin = false;
};

}  // namespace

bool IsLoopback(const std::string& host) {
  if (host == "localhost" || host == "::1") return true;
  in_addr addr{};
  if (inet_pton(AF_INET, host.c_str(), &addr) != 1) return false;
  return (ntohl(addr.s_addr) >> 24) == 127;
}

class HttpServer::Impl {
 public:
  Impl(Engine* engine, KeyStore* keys, WritePath write, ServerOptions options)
      : engine_(engine), keys_(keys), options_(std::move(options)),
        limiter_(options_.rate_limit, options_.rate_burst) {
    services_.engine = engine_;
    services_.keys = keys_;
    services_.writer = write.writer;
    services_.sessions = write.sessions;
    services_.jobs = write.jobs;
    services_.limits = options_.limits;
    services_.openapi_json = options_.openapi_json;
    services_.metrics = [this] { return RenderMetrics(); };
    routes_ = MakeRoutes(services_);
  }

  Status Configure() {
    auto log = AccessLog::Open(options_.access_log);
    if (!log.ok()) return log.status();
    log_ = std::move(log).value();
    const int threads = std::max(1, options_.threads);
    svr_.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
    svr_.set_tcp_nodelay(true);
    svr_.set_keep_alive_max_count(options_.keep_alive_max_requests);
    svr_.set_keep_alive_timeout(options_.keep_alive_timeout_s);
    svr_.set_read_timeout(options_.read_timeout_s, 0);
    svr_.set_write_timeout(options_.write_timeout_s, 0);
    svr_.set_payload_max_length(options_.max_body_bytes);
    for (size_t i = 0; i < routes_.size(); ++i) Register(i);
    svr_.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
      return RefuseUnreadBody(req, res);
    });
    svr_.set_error_handler(httplib::Server::HandlerWithResponse(
        [this](const httplib::Request& req, httplib::Response& res) { return OnError(req, res); }));
    svr_.set_exception_handler(
        [this](const httplib::Request& req, httplib::Response& res, std::exception_ptr) {
          Write(ProtocolError(500, "internal", "the server failed to complete the request"),
                res);
          (void)req;
        });
    return Status::Ok();
  }

  httplib::Server& svr() { return svr_; }
  const ServerOptions& options() const { return options_; }
  KeyStore* keys() const { return keys_; }

 private:
  struct Compiled {
    std::regex regex;
    std::vector<std::string> names;
    std::string label;  // "POST /v1/search"
  };

  void Register(size_t i) {
    const Route& route = routes_[i];
    Compiled c;
    const std::string pattern = PatternToRegex(route.path, &c.names);
    c.regex = std::regex(pattern);
    c.label = route.method + " " + route.path;
    compiled_.push_back(std::move(c));
    if (route.method == "GET") {
      svr_.Get(pattern, [this, i](const httplib::Request& req, httplib::Response& res) {
        Dispatch(i, req, res, "");
      });
      return;
    }
    // Routes that take a body read it themselves: httplib would otherwise parse a
    // form-encoded body (what `curl -d` sends) into the query parameters.
    auto handler = [this, i](const httplib::Request& req, httplib::Response& res,
                             const httplib::ContentReader& reader) {
      std::string body;
      if (auto refused = ReadBody(req, reader, &body)) {
        Poison(req);
        const auto start = Clock::now();
        AccessRecord rec = StartRecord(req);
        rec.route = compiled_[i].label;
        return Finish(std::move(*refused), res, &rec, start);
      }
      Dispatch(i, req, res, body);
    };
    if (route.method == "POST") svr_.Post(pattern, handler);
    else if (route.method == "PATCH") svr_.Patch(pattern, handler);
    else if (route.method == "DELETE") svr_.Delete(pattern, handler);
  }

  // Reads the body into `body`, or returns the reply refusing it (the connection is then
  // closed: an unread body must not be taken for the next request).
  std::optional<Reply> ReadBody(const httplib::Request& req, const httplib::ContentReader& reader,
                                std::string* body) {
    if (req.is_multipart_form_data()) {
      return ProtocolError(415, "unsupported_media_type", "bodies are JSON, not multipart forms");
    }
    bool too_large = false;
    const bool ok = reader([&](const char* data, size_t n) {
      if (body->size() + n > options_.max_body_bytes) {
        too_large = true;
        return false;
      }
      body->append(data, n);
      return true;
    });
    // httplib itself refuses (ok false, receiver never called) a Content-Length over the limit.
    const std::string length = req.get_header_value("Content-Length");
    const bool declared_too_large =
        !length.empty() && std::strtoull(length.c_str(), nullptr, 10) > options_.max_body_bytes;
    if (too_large || (!ok && declared_too_large)) {
      return ProtocolError(413, "payload_too_large",
                           "the body is larger than " + std::to_string(options_.max_body_bytes) +
                               " bytes");
    }
    if (!ok) return ProtocolError(400, "bad_request", "the body could not be read");
    return std::nullopt;
  }

  void Dispatch(size_t i, const httplib::Request& req, httplib::Response& res,
                const std::string& body) {
    const auto start = Clock::now();
    AccessRecord rec = StartRecord(req);
    rec.route = compiled_[i].label;
    rec.bytes_in = body.size();
    Reply reply = Handle(i, req, body, &rec);
    Finish(std::move(reply), res, &rec, start);
  }

  AccessRecord StartRecord(const httplib::Request& req) {
    AccessRecord rec;
    rec.request_id = std::to_string(++request_counter_);
    rec.method = req.method;
    rec.path = req.path;
    rec.bytes_in = req.body.size();
    rec.remote = req.remote_addr;
    return rec;
  }

  Reply Handle(size_t i, const httplib::Request& req, const std::string& body,
               AccessRecord* rec) {
    const Route& route = routes_[i];
    Call call;
    if (route.access != Access::kPublic) {
      Caller caller;
      if (auto denied = Authenticate(req, &caller)) return std::move(*denied);
      rec->key_id = caller.key_id;
      rec->tenant = caller.tenant;
      if (route.access == Access::kAdmin && !caller.admin) {
        return ProtocolError(403, "permission_denied", "this route needs an admin key");
      }
      if (auto limited = RateLimit(caller)) return std::move(*limited);
      call.tenant = caller.tenant;
    }
    const Compiled& c = compiled_[i];
    for (size_t k = 0; k < c.names.size() && k + 1 < req.matches.size(); ++k) {
      call.path_params[c.names[k]] = req.matches[k + 1].str();
    }
    call.params = req.params;
    call.body = body;
    try {
      return route.handler(call);
    } catch (const std::exception& e) {
      Reply r = ProtocolError(500, "internal", "the server failed to complete the request");
      r.log_detail = std::string("exception: ") + e.what();
      return r;
    }
  }

  // Fills `caller`, or returns the reply refusing the request.
  std::optional<Reply> Authenticate(const httplib::Request& req, Caller* caller) {
    const std::string presented = PresentedKey(req);
    if (presented.empty()) {
      if (OpenMode()) {
        *caller = Caller{"default", "", true};
        return std::nullopt;
      }
      Reply r = ProtocolError(401, "unauthenticated",
                              "an API key is required: send 'Authorization: Bearer <key>'");
      r.headers.emplace_back("WWW-Authenticate", "Bearer");
      return r;
    }
    auto key = keys_->Authenticate(presented);
    if (!key.ok()) {
      if (key.status().code() != StatusCode::kPermissionDenied) return ErrorReply(key.status());
      Reply r = ProtocolError(401, "unauthenticated", "the API key is not valid");
      r.headers.emplace_back("WWW-Authenticate", "Bearer error=\"invalid_token\"");
      return r;
    }
    *caller = Caller{key->tenant, key->id, key->role == KeyRole::kAdmin};
    return std::nullopt;
  }

  // Keyless access: only on a loopback address, and only while no key exists (checked at
  // most once a second, so creating the first key closes it promptly).
  bool OpenMode() {
    if (!IsLoopback(options_.host)) return false;
    const double now = SecondsSince(epoch_);
    std::lock_guard<std::mutex> lock(open_mu_);
    if (now - open_checked_s_ > 1.0 || open_checked_s_ < 0) {
      auto n = keys_->CountActive();
      open_ = n.ok() && *n == 0;
      open_checked_s_ = now;
    }
    return open_;
  }

  std::optional<Reply> RateLimit(const Caller& caller) {
    const double wait = limiter_.Acquire(caller.key_id, SecondsSince(epoch_));
    if (wait <= 0) return std::nullopt;
    metrics_.NoteRateLimited();
    Reply r = ProtocolError(429, "rate_limited", "too many requests for this key; retry later");
    r.headers.emplace_back("Retry-After", std::to_string(static_cast<int>(std::ceil(wait))));
    return r;
  }

  void Finish(Reply reply, httplib::Response& res, AccessRecord* rec, Clock::time_point start) {
    if (!reply.log_detail.empty()) {
      std::cerr << "engram serve: request " << rec->request_id << " " << rec->route << ": "
                << reply.log_detail << std::endl;
    }
    rec->status = reply.status;
    rec->bytes_out = reply.body.size();
    res.set_header("X-Request-Id", rec->request_id);
    Write(std::move(reply), res);
    const double seconds = SecondsSince(start);
    rec->duration_ms = seconds * 1000;
    metrics_.Observe(rec->route, rec->status, seconds);
    log_->Write(*rec);
  }

  // Replies to a request no route handler took (refused early, or unrouted).
  void FinishUnmatched(Reply reply, const httplib::Request& req, httplib::Response& res) {
    AccessRecord rec = StartRecord(req);
    rec.route = "unmatched";
    Finish(std::move(reply), res, &rec, Clock::now());
  }

  static void Write(Reply reply, httplib::Response& res) {
    res.status = reply.status;
    for (auto& [name, value] : reply.headers) res.set_header(name, value);
    res.set_content(std::move(reply.body), reply.content_type.c_str());
  }

  // httplib reads a body only for POST, PUT, PATCH and DELETE. Any other request announcing
  // one is refused and its connection closed, or the unread body would run as the next
  // request on the connection (request smuggling behind a proxy).
  httplib::Server::HandlerResponse RefuseUnreadBody(const httplib::Request& req,
                                                    httplib::Response& res) {
    if (IsPoisoned(req)) {
      FinishUnmatched(ProtocolError(400, "bad_request",
                                    "this connection sent a body the server did not read; "
                                    "reconnect"),
                      req, res);
      return httplib::Server::HandlerResponse::Handled;
    }
    const bool reads_body = req.method == "POST" || req.method == "PUT" ||
                            req.method == "PATCH" || req.method == "DELETE";
    const std::string length = req.get_header_value("Content-Length");
    const bool has_body = (!length.empty() && length != "0") || req.has_header("Transfer-Encoding");
    if (reads_body || !has_body) return httplib::Server::HandlerResponse::Unhandled;
    Poison(req);
    FinishUnmatched(
        ProtocolError(400, "bad_request", req.method + " requests may not carry a body"), req,
        res);
    return httplib::Server::HandlerResponse::Handled;
  }

  // A connection whose last request left an unread body behind. cpp-httplib 0.11 offers no way
  // to close a connection from a handler (a "Connection: close" reply is sent but the
  // connection stays open), so every later request on it is refused instead: the unread
  // bytes can never run as a request. Connections are told apart by the client's address and
  // port; an entry lapses once the connection would have idled out.
  static std::string ConnectionKey(const httplib::Request& req) {
    return req.remote_addr + ":" + std::to_string(req.remote_port);
  }

  void Poison(const httplib::Request& req) {
    const_cast<httplib::Request&>(req).set_header("Connection", "close");  // says so, at least
    const double now = SecondsSince(epoch_);
    std::lock_guard<std::mutex> lock(poison_mu_);
    if (poisoned_.size() > 10000) {
      std::erase_if(poisoned_, [&](const auto& e) { return Lapsed(e.second, now); });
    }
    poisoned_[ConnectionKey(req)] = now;
  }

  bool IsPoisoned(const httplib::Request& req) {
    const double now = SecondsSince(epoch_);
    std::lock_guard<std::mutex> lock(poison_mu_);
    if (poisoned_.empty()) return false;
    auto it = poisoned_.find(ConnectionKey(req));
    if (it == poisoned_.end()) return false;
    if (Lapsed(it->second, now)) {
      poisoned_.erase(it);
      return false;
    }
    it->second = now;  // the connection is still in use
    return true;
  }

  bool Lapsed(double seen_s, double now_s) const {
    return now_s - seen_s > options_.keep_alive_timeout_s + 1;
  }

  // Requests no route handled (404/405), and errors raised by httplib itself (413, 400).
  httplib::Server::HandlerResponse OnError(const httplib::Request& req,
                                           httplib::Response& res) {
    if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
    FinishUnmatched(ErrorFor(req, res.status), req, res);
    return httplib::Server::HandlerResponse::Handled;
  }

  Reply ErrorFor(const httplib::Request& req, int status) {
    if (status == 413) {
      return ProtocolError(413, "payload_too_large",
                           "the body is larger than " + std::to_string(options_.max_body_bytes) +
                               " bytes");
    }
    // httplib answers 400 to methods it has no handler table for (PUT, HEAD, OPTIONS, ...).
    const bool unknown_method = status == 400 && req.method != "GET" && req.method != "POST" &&
                                req.method != "PATCH" && req.method != "DELETE";
    if (status != 404 && !unknown_method) {
      return ProtocolError(status, "bad_request", "the request is malformed");
    }
    std::string allow;
    for (size_t i = 0; i < routes_.size(); ++i) {
      if (std::regex_match(req.path, compiled_[i].regex)) {
        allow += (allow.empty() ? "" : ", ") + routes_[i].method;
      }
    }
    if (allow.empty()) return ProtocolError(404, "not_found", "no route " + req.path);
    Reply r = ProtocolError(405, "method_not_allowed",
                            req.method + " is not allowed on " + req.path + " (allowed: " +
                                allow + ")");
    r.headers.emplace_back("Allow", allow);
    return r;
  }

  std::string RenderMetrics() {
    std::lock_guard<std::mutex> lock(stats_mu_);
    const double now = SecondsSince(epoch_);
    if (!stats_ || now - stats_at_s_ > 5.0) {  // the counts scan the items table
      auto stats = engine_->GetStats();
      if (stats.ok()) stats_ = *stats;
      stats_at_s_ = now;
    }
    return metrics_.Render(stats_ ? &*stats_ : nullptr);
  }

  Engine* engine_;
  KeyStore* keys_;
  ServerOptions options_;
  Services services_;
  std::vector<Route> routes_;
  std::vector<Compiled> compiled_;
  httplib::Server svr_;
  RateLimiter limiter_;
  Metrics metrics_;
  std::unique_ptr<AccessLog> log_;
  std::atomic<uint64_t> request_counter_{0};
  const Clock::time_point epoch_ = Clock::now();

  std::mutex poison_mu_;
  std::unordered_map<std::string, double> poisoned_;  // guarded by poison_mu_

  std::mutex open_mu_;
  bool open_ = false;             // guarded by open_mu_
  double open_checked_s_ = -1;    // guarded by open_mu_

  std::mutex stats_mu_;
  std::optional<Engine::Stats> stats_;  // guarded by stats_mu_
  double stats_at_s_ = 0;               // guarded by stats_mu_
};

HttpServer::HttpServer(Engine* engine, KeyStore* keys, WritePath write, ServerOptions options)
    : impl_(std::make_unique<Impl>(engine, keys, write, std::move(options))) {}

HttpServer::~HttpServer() {
  Stop();
  Wait();
}

Status HttpServer::Start() {
  const ServerOptions& o = impl_->options();
  if (!IsLoopback(o.host)) {
    auto n = impl_->keys()->CountActive();
    if (!n.ok()) return n.status();
    if (*n == 0) {
      return Status::InvalidArgument(
          "refusing to listen on " + o.host +
          ": no API key exists, so anyone who can reach the address could read every memory. "
          "Create one with 'engram keys create --tenant <name>' or listen on 127.0.0.1");
    }
  }
  ENGRAM_RETURN_IF_ERROR(impl_->Configure());
  httplib::Server& svr = impl_->svr();
  // SO_REUSEADDR only: cpp-httplib's default adds SO_REUSEPORT, with which a second server
  // binds the same port and silently takes part of the connections.
  // The socket last offered for binding: the listening one if binding succeeds. Shared, not a
  // reference to a local: the server keeps the callback after Start returns.
  auto bound = std::make_shared<int>(-1);
  svr.set_socket_options([bound](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
    *bound = sock;
  });
  if (o.port == 0) {
    port_ = svr.bind_to_any_port(o.host);
  } else {
    port_ = svr.bind_to_port(o.host, o.port) ? o.port : -1;
  }
  if (port_ <= 0) {
    return Status::Unavailable("cannot listen on " + o.host + ":" + std::to_string(o.port) +
                               " (address in use or not available)");
  }
  // cpp-httplib (as packaged) listens with a backlog of 5. When 32 clients connected at once
  // and the accepting thread was not scheduled in time, the kernel dropped their SYNs and the
  // clients waited 1 s to retry: the load benchmark's 0.8–1.7 s maxima. Linux lets listen()
  // be called again on a listening socket to change the backlog (capped at somaxconn).
  if (*bound >= 0 && ::listen(*bound, SOMAXCONN) != 0) {
    std::cerr << "engram serve: could not raise the listen backlog: " << std::strerror(errno)
              << std::endl;
  }
  listener_ = std::thread([this, &svr] {
    svr.listen_after_bind();
    listening_done_ = true;
  });
  return Status::Ok();
}

void HttpServer::Wait() {
  if (listener_.joinable()) listener_.join();
}

void HttpServer::Stop() {
  if (!listener_.joinable()) return;
  // stop() is a no-op until the listen loop runs; wait for it briefly after a quick Start().
  httplib::Server& svr = impl_->svr();
  for (int i = 0; i < 5000 && !svr.is_running() && !listening_done_; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  svr.stop();
}

}  // namespace engram::server
