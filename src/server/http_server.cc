#include "server/http_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/status_macros.h"
#include "server/access_log.h"
#include "server/audit_trail.h"
#include "server/chat_proxy.h"
#include "server/console_assets.h"
#include "server/edge_relay.h"
#include "server/metrics.h"
#include "server/rate_limiter.h"
#include "server/request_head.h"
#include "server/routes.h"
#include "server/worker_pool.h"
#include "shared/redis.h"
#include "storage/sqlite.h"

namespace engram::server {
namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// A route's path split at '/': literal segments, and "{name}" segments that capture one
// non-empty segment of the request path.
class PathPattern {
 public:
  explicit PathPattern(std::string_view path) {
    for (std::string_view seg : Split(path)) {
      const bool capture = seg.size() > 2 && seg.front() == '{' && seg.back() == '}';
      segments_.push_back({std::string(capture ? seg.substr(1, seg.size() - 2) : seg), capture});
    }
  }

  // On a match, fills `params` (when given) with the captured segments; else leaves it alone.
  bool Match(std::string_view path, std::map<std::string, std::string>* params) const {
    if (path.empty() || path.front() != '/') return false;
    const std::vector<std::string_view> segs = Split(path);
    if (segs.size() != segments_.size()) return false;
    for (size_t i = 0; i < segs.size(); ++i) {
      const Segment& want = segments_[i];
      if (want.capture ? segs[i].empty() : segs[i] != want.text) return false;
    }
    for (size_t i = 0; params && i < segs.size(); ++i) {
      if (segments_[i].capture) (*params)[segments_[i].text] = std::string(segs[i]);
    }
    return true;
  }

 private:
  struct Segment {
    std::string text;  // the literal, or the parameter's name
    bool capture;
  };

  // "/a/b/" → {"a", "b", ""}.
  static std::vector<std::string_view> Split(std::string_view path) {
    std::vector<std::string_view> out;
    size_t start = 1;
    for (;;) {
      const size_t slash = path.find('/', start);
      out.push_back(path.substr(start, slash == std::string_view::npos ? slash : slash - start));
      if (slash == std::string_view::npos) return out;
      start = slash + 1;
    }
  }

  std::vector<Segment> segments_;
};

struct Caller {
  std::string tenant;
  std::string key_id;  // "" in open (keyless, loopback) mode
  bool admin = false;
};

// One connection: where it comes from and how many requests it has carried.
struct ConnectionState {
  std::string remote;
  int requests = 0;
  int fd = -1;
  // Since when the connection has been receiving a request (opened, or its previous reply
  // sent), in ms of the server's steady clock; 0 while a request is being handled.
  std::atomic<int64_t> receiving_since_ms{0};
  bool bad_target = false;  // the current request's raw path holds a control character
  // Relayed (HTTP or HTTPS): the relay's count of this connection's finished replies (its slot
  // is the relay's to release, its request times the relay's to judge). Null with the direct
  // edge.
  EdgeRelay::ReplyCount replies;
};

int64_t SteadyMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// One request, from its headers to the completion of its reply (MHD's per-request context).
// The access log's and the metrics' route label of the console's files.
constexpr char kConsoleRoute[] = "GET /console";

// How much lower the request workers' CPU priority is than the event loops' (worker_pool.h): at
// nice +5 a runnable worker gets about a third of an event loop's share of a contended core.
constexpr int kWorkerNice = 5;

struct Exchange {
  Clock::time_point start = Clock::now();
  int route = -1;  // index into the route table; -1: none matched
  Call call;       // path_params filled when matched; params, body and tenant at dispatch
  std::string presented_key;
  AccessRecord rec;
  std::optional<Reply> refused;  // answered without running a handler (413, 415, ...)
  std::optional<Reply> reply;    // a worker's result, queued once the connection resumes
  bool queued = false;
};

std::string AddressText(const sockaddr* addr) {
  char buf[INET6_ADDRSTRLEN] = "";
  if (addr == nullptr) return "";
  if (addr->sa_family == AF_INET) {
    inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(addr)->sin_addr, buf, sizeof(buf));
  } else if (addr->sa_family == AF_INET6) {
    inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(addr)->sin6_addr, buf, sizeof(buf));
  }
  return buf;
}

// A listening TCP socket on host:port (port 0: any free port), with the largest backlog the
// kernel allows, so clients connecting in a burst queue instead of losing their SYNs.
// SO_REUSEADDR only: with SO_REUSEPORT a second server would bind the same port and silently
// take part of the connections.
Result<int> OpenListener(const std::string& host, int port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const std::string service = std::to_string(port);
  if (getaddrinfo(host.c_str(), service.c_str(), &hints, &found) != 0 || found == nullptr) {
    return Status::Unavailable("cannot resolve the address " + host);
  }
  std::unique_ptr<addrinfo, decltype(&freeaddrinfo)> list(found, &freeaddrinfo);
  std::vector<addrinfo*> candidates;  // IPv4 first: "localhost" may resolve to ::1 first
  for (addrinfo* ai = found; ai != nullptr; ai = ai->ai_next) {
    if (ai->ai_family == AF_INET) candidates.push_back(ai);
  }
  for (addrinfo* ai = found; ai != nullptr; ai = ai->ai_next) {
    if (ai->ai_family != AF_INET) candidates.push_back(ai);
  }
  for (addrinfo* ai : candidates) {
    const int fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) continue;
    int yes = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
    if (::bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && ::listen(fd, SOMAXCONN) == 0) return fd;
    ::close(fd);
  }
  return Status::Unavailable("cannot listen on " + host + ":" + std::to_string(port) +
                             " (address in use or not available)");
}

int BoundPort(int fd) {
  sockaddr_storage addr{};
  socklen_t len = sizeof(addr);
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) return -1;
  if (addr.ss_family == AF_INET) return ntohs(reinterpret_cast<sockaddr_in*>(&addr)->sin_port);
  return ntohs(reinterpret_cast<sockaddr_in6*>(&addr)->sin6_port);
}

void LogLibraryMessage(void*, const char* format, va_list args) {
  char buf[512];
  std::vsnprintf(buf, sizeof(buf), format, args);
  std::string text(buf);
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  // The relay hands the library AF_UNIX sockets, on which it tries TCP options once per
  // connection and reports the failure: nothing is wrong, and nothing is delayed.
  if (text.starts_with("Setting TCP_") || text.starts_with("Failed to push the data")) return;
  std::cerr << "engram serve: http: " << text << "\n";
}

}  // namespace

bool IsLoopback(const std::string& host) {
  if (host == "localhost" || host == "::1") return true;
  in_addr addr{};
  if (inet_pton(AF_INET, host.c_str(), &addr) != 1) return false;
  return (ntohl(addr.s_addr) >> 24) == 127;
}

// A PEM file's text, checked for its block ("CERTIFICATE", "PRIVATE KEY" of any kind), so a
// swapped or empty file is a clear error at start rather than a failed handshake later.
Result<std::string> ReadPem(const std::string& path, const std::string& flag,
                            const std::string& block) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::InvalidArgument(flag + ": cannot read " + path);
  std::ostringstream text;
  text << in.rdbuf();
  std::string pem = text.str();
  const bool has_block = block == "CERTIFICATE"
                             ? pem.find("-----BEGIN CERTIFICATE-----") != std::string::npos
                             : pem.find("PRIVATE KEY-----") != std::string::npos;
  if (!has_block) {
    return Status::InvalidArgument(flag + ": " + path + " holds no PEM " + block);
  }
  return pem;
}

class HttpServer::Impl {
 public:
  Impl(Engine* engine, KeyStore* keys, WritePath write, ServerOptions options)
      : engine_(engine),
        keys_(keys),
        options_(std::move(options)),
        limiter_(options_.rate_limit, options_.rate_burst) {
    services_.engine = engine_;
    services_.keys = keys_;
    services_.writer = write.writer;
    services_.sessions = write.sessions;
    services_.jobs = write.jobs;
    services_.limits = options_.limits;
    services_.openapi_json = options_.openapi_json;
    services_.knowledge_dir = options_.knowledge_dir;
    services_.reads_block = options_.reads_block;
    services_.audit = options_.audit;
    services_.redis = options_.redis;
    if (options_.redis != nullptr) limiter_.Share(options_.redis);
    if (!options_.chat.upstream_url.empty()) {
      ChatProxyOptions chat = options_.chat;
      chat.observe = [this](const std::string& phase, double s) {
        metrics_.ObservePhase(phase, s);
      };
      chat_ = std::make_unique<ChatProxy>(std::move(chat), engine_, write.jobs);
      services_.chat = chat_.get();
    }
    services_.metrics = [this] { return RenderMetrics(); };
    if (options_.console) console_ = std::make_unique<ConsoleAssets>(options_.console_dir);
    routes_ = MakeRoutes(services_);
    for (const Route& route : routes_) {
      patterns_.emplace_back(route.path);
      labels_.push_back(route.method + " " + route.path);
    }
  }

  ~Impl() { Stop(); }

  // Binds, and starts the event loops and the workers. Returns the bound port.
  Result<int> Start() {
    if (!options_.tls_cert_file.empty()) {
      if (MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES) {
        return Status::Unavailable("this libmicrohttpd was built without TLS");
      }
      auto cert = ReadPem(options_.tls_cert_file, "--tls-cert", "CERTIFICATE");
      if (!cert.ok()) return cert.status();
      auto key = ReadPem(options_.tls_key_file, "--tls-key", "PRIVATE KEY");
      if (!key.ok()) return key.status();
      tls_cert_pem_ = std::move(cert).value();
      tls_key_pem_ = std::move(key).value();
    }
    auto log = AccessLog::Open(options_.access_log);
    if (!log.ok()) return log.status();
    log_ = std::move(log).value();
    auto fd = OpenListener(options_.host, options_.port);
    if (!fd.ok()) return fd.status();
    listen_fd_ = *fd;
    const int port = BoundPort(listen_fd_);
    const unsigned loops =
        std::max(1u, options_.event_threads > 0 ? static_cast<unsigned>(options_.event_threads)
                                                : std::thread::hardware_concurrency());
    pool_ = std::make_unique<WorkerPool>(options_.threads, kWorkerNice);
    unsigned flags = MHD_USE_EPOLL_INTERNAL_THREAD | MHD_USE_NO_LISTEN_SOCKET |
                     MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG;
    // The TLS options go last; with no certificate they are MHD_OPTION_END (ignored after it).
    // With the relay, the relay terminates TLS and the library speaks plain HTTP to it.
    MHD_OPTION tls_key = MHD_OPTION_END, tls_cert = MHD_OPTION_END;
    if (!tls_cert_pem_.empty() && !options_.relay_heads) {
      flags |= MHD_USE_TLS;
      tls_key = MHD_OPTION_HTTPS_MEM_KEY;
      tls_cert = MHD_OPTION_HTTPS_MEM_CERT;
    }
    for (unsigned i = 0; i < loops; ++i) {
      auto loop = std::make_unique<Loop>();
      loop->impl = this;
      loop->daemon = MHD_start_daemon(
          flags, 0, nullptr, nullptr, &Impl::OnRequest, this, MHD_OPTION_EXTERNAL_LOGGER,
          &LogLibraryMessage, nullptr,  // first: covers the rest
          MHD_OPTION_CONNECTION_TIMEOUT, static_cast<unsigned>(options_.keep_alive_timeout_s),
          MHD_OPTION_CONNECTION_LIMIT, static_cast<unsigned>(options_.max_connections),
          MHD_OPTION_URI_LOG_CALLBACK, &Impl::OnUri, nullptr, MHD_OPTION_NOTIFY_COMPLETED,
          &Impl::OnCompleted, this, MHD_OPTION_NOTIFY_CONNECTION, &Impl::OnConnection, loop.get(),
          tls_key, tls_key_pem_.c_str(), tls_cert, tls_cert_pem_.c_str(), MHD_OPTION_END);
      if (loop->daemon == nullptr) {
        StopLoops();
        ::close(listen_fd_);
        listen_fd_ = -1;
        pool_.reset();
        return Status::Unavailable("cannot start the HTTP event loops");
      }
      loops_.push_back(std::move(loop));
    }
    if (options_.relay_heads) {
      EdgeRelay::Hooks hooks;
      hooks.attach = [this](int fd) {
        sockaddr_un local{};
        local.sun_family = AF_UNIX;
        return Attach(fd, reinterpret_cast<const sockaddr*>(&local), sizeof(local));
      };
      hooks.refused = [this](int status, const std::string& remote, std::string_view head) {
        (status == 408 ? timed_out_ : refused_heads_).fetch_add(1);
        LogRefusal(status, remote, head);
      };
      hooks.closed = [this](const std::string& remote) { ReleaseSlot(remote); };
      relay_ = std::make_unique<EdgeRelay>(head_limits_, options_.request_timeout_s,
                                           options_.read_timeout_s, static_cast<int>(loops),
                                           std::move(hooks));
      if (!tls_cert_pem_.empty()) {
        if (Status tls = relay_->UseTls(tls_cert_pem_, tls_key_pem_); !tls.ok()) {
          relay_.reset();
          StopLoops();
          ::close(listen_fd_);
          listen_fd_ = -1;
          pool_.reset();
          return tls;
        }
      }
    }
    acceptor_ = std::thread([this] { AcceptLoop(); });
    std::lock_guard<std::mutex> lock(state_mu_);
    running_ = true;
    return port;
  }

  // Stops accepting, waits for the requests in flight, then closes every connection.
  void Stop() {
    std::unique_lock<std::mutex> lock(state_mu_);
    if (!running_ || stopping_) {
      stopped_cv_.wait(lock, [this] { return !running_; });
      return;
    }
    stopping_ = true;
    ::shutdown(listen_fd_, SHUT_RDWR);  // wakes the acceptor: accept() fails from now on
    lock.unlock();
    acceptor_.join();
    ::close(listen_fd_);
    lock.lock();
    drained_cv_.wait(lock, [this] { return in_flight_ == 0; });
    lock.unlock();
    StopLoops();
    relay_.reset();  // after the loops: their last replies are relayed, then it closes
    pool_->Shutdown();
    lock.lock();
    running_ = false;
    stopped_cv_.notify_all();
  }

  void Wait() {
    std::unique_lock<std::mutex> lock(state_mu_);
    stopped_cv_.wait(lock, [this] { return !running_; });
  }

  const ServerOptions& options() const { return options_; }
  KeyStore* keys() const { return keys_; }

 private:
  // One event loop: a libmicrohttpd daemon with its own epoll thread and no listening socket.
  struct Loop {
    Impl* impl = nullptr;
    MHD_Daemon* daemon = nullptr;
    std::atomic<int> open{0};  // connections handed to it and not yet closed
  };

  // The gate: accepts connections, refuses those over the limits (total, per address) with a
  // JSON 503, and passes the others on: to the relay (edge_relay.h), which reads and checks
  // every request head before the library does, or with the direct edge straight to an event
  // loop. For those direct connections it also closes the ones whose request takes longer than
  // request_timeout_s to arrive: the library's timeout counts only silence, so a client
  // trickling a byte every few seconds would keep its slot forever.
  void AcceptLoop() {
    const int ep = ::epoll_create1(EPOLL_CLOEXEC);
    ::fcntl(listen_fd_, F_SETFL, ::fcntl(listen_fd_, F_GETFL) | O_NONBLOCK);
    epoll_event lev{};
    lev.events = EPOLLIN;
    lev.data.fd = listen_fd_;
    ::epoll_ctl(ep, EPOLL_CTL_ADD, listen_fd_, &lev);
    // Refused connections whose 503 is written: what the client still sends is read until it
    // closes or the deadline passes (closing with its bytes unread would reset the connection
    // and lose the answer).
    std::unordered_map<int, int64_t> refused;
    const int64_t timeout_ms = int64_t{std::max(1, options_.request_timeout_s)} * 1000;
    int64_t last_sweep = SteadyMs();
    auto drop = [&](int fd) {
      ::epoll_ctl(ep, EPOLL_CTL_DEL, fd, nullptr);
      refused.erase(fd);
      ::close(fd);
    };
    auto drain = [&](int fd) {
      char sink[4096];
      for (;;) {
        const ssize_t got = ::recv(fd, sink, sizeof(sink), MSG_DONTWAIT);
        if (got > 0 || (got < 0 && errno == EINTR)) continue;
        if (got == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) drop(fd);
        return;
      }
    };
    for (;;) {
      epoll_event events[64];
      const int n = ::epoll_wait(ep, events, 64, 250);
      if (stopping_.load()) break;
      for (int i = 0; i < n; ++i) {
        const int fd = events[i].data.fd;
        if (fd != listen_fd_) {
          if (refused.count(fd)) drain(fd);
          continue;
        }
        for (;;) {
          sockaddr_storage addr{};
          socklen_t len = sizeof(addr);
          const int conn = ::accept4(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len,
                                     SOCK_CLOEXEC | SOCK_NONBLOCK);
          if (conn < 0) {
            if (errno == EINTR || errno == ECONNABORTED) continue;
            if (errno != EAGAIN && errno != EWOULDBLOCK && !stopping_.load()) {
              std::cerr << "engram serve: accept: " << std::strerror(errno) << std::endl;
              std::this_thread::sleep_for(std::chrono::milliseconds(10));  // EMFILE and the like
            }
            break;
          }
          int yes = 1;
          setsockopt(conn, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof(yes));
          const std::string remote = AddressText(reinterpret_cast<sockaddr*>(&addr));
          const std::string over = TakeSlot(remote);
          if (over.empty()) {
            if (relay_) {
              relay_->Adopt(conn, remote);
            } else if (!Attach(conn, reinterpret_cast<sockaddr*>(&addr), len)) {
              ReleaseSlot(remote);
            }
            continue;
          }
          refused_connections_.fetch_add(1);
          LogRefusal(503, remote, "");
          const std::string reply = JsonErrorResponse(503, "unavailable", over);
          (void)::send(conn, reply.data(), reply.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
          ::shutdown(conn, SHUT_WR);
          refused[conn] = SteadyMs() + 2000;
          epoll_event ev{};
          ev.events = EPOLLIN | EPOLLET | EPOLLRDHUP;
          ev.data.fd = conn;
          ::epoll_ctl(ep, EPOLL_CTL_ADD, conn, &ev);
          drain(conn);
        }
      }
      const int64_t now = SteadyMs();
      if (now - last_sweep >= 250) {
        last_sweep = now;
        std::vector<int> late;
        for (const auto& [fd, deadline] : refused) {
          if (now > deadline) late.push_back(fd);
        }
        for (int fd : late) drop(fd);
        ReapSlowConnections(now, timeout_ms);
      }
    }
    std::vector<int> left;
    for (const auto& [fd, deadline] : refused) left.push_back(fd);
    for (int fd : left) drop(fd);
    ::close(ep);
  }

  // Gives a connection (a client's socket, or the relay's socket pair) to the event loop
  // serving the fewest: the library's own thread pool lets whichever loop wakes first accept,
  // so a burst of connections could all land on one loop. False when the library refused it
  // (it has then closed the socket and never reports it opened).
  bool Attach(int fd, const sockaddr* addr, socklen_t len) {
    Loop* least = loops_.front().get();
    for (const auto& loop : loops_) {
      if (loop->open.load() < least->open.load()) least = loop.get();
    }
    least->open.fetch_add(1);
    if (MHD_add_connection(least->daemon, fd, addr, len) != MHD_YES) {
      least->open.fetch_sub(1);
      return false;
    }
    return true;
  }

  // An access-log line for a request or connection the edge answered itself (route
  // "refused"): the method and path when the head shows them, never more of it.
  void LogRefusal(int status, const std::string& remote, std::string_view head) {
    if (status == 0) return;
    AccessRecord rec;
    rec.request_id = std::to_string(++request_counter_);
    rec.route = "refused";
    rec.status = status;
    rec.remote = remote;
    const std::string_view line = head.substr(0, head.find_first_of("\r\n"));
    const size_t sp = line.find(' ');
    if (sp != std::string_view::npos) {
      rec.method = std::string(line.substr(0, std::min<size_t>(sp, 16)));
      std::string_view target = line.substr(sp + 1);
      target = target.substr(0, target.find_first_of(" ?"));
      rec.path = std::string(target.substr(0, 256));
    }
    log_->Write(rec);
  }

  // Counts a connection from `remote`; a non-empty message when it is over a limit (and then
  // nothing is counted).
  std::string TakeSlot(const std::string& remote) {
    std::lock_guard<std::mutex> lock(conns_mu_);
    if (open_total_ >= options_.max_connections) {
      return "the server has " + std::to_string(open_total_) +
             " open connections, its limit (--max-connections); retry later";
    }
    int& mine = open_per_ip_[remote];
    if (mine >= options_.max_connections_per_ip) {
      return "too many open connections from " + remote + " (--max-connections-per-ip " +
             std::to_string(options_.max_connections_per_ip) + "); retry later";
    }
    ++mine;
    ++open_total_;
    return "";
  }

  void ReleaseSlot(const std::string& remote) {
    if (remote.empty()) return;
    std::lock_guard<std::mutex> lock(conns_mu_);
    auto it = open_per_ip_.find(remote);
    if (it == open_per_ip_.end()) return;
    if (--it->second <= 0) open_per_ip_.erase(it);
    --open_total_;
  }

  // Shuts down (the library then closes) every connection that has been receiving one request
  // for longer than the timeout. Under conns_mu_, which the close notification takes before
  // the library closes the socket, so the descriptor is still this connection's.
  void ReapSlowConnections(int64_t now, int64_t timeout_ms) {
    std::lock_guard<std::mutex> lock(conns_mu_);
    for (ConnectionState* c : conns_) {
      if (c->replies) continue;  // relayed: the relay times its requests
      const int64_t since = c->receiving_since_ms.load();
      if (since != 0 && now - since > timeout_ms && c->fd >= 0) {
        c->receiving_since_ms.store(0);
        timed_out_.fetch_add(1);
        ::shutdown(c->fd, SHUT_RDWR);
      }
    }
  }

  void StopLoops() {
    for (auto& loop : loops_) MHD_stop_daemon(loop->daemon);
    loops_.clear();
  }

  // MHD calls this once when a request's headers have arrived, once per piece of its body,
  // and once more when the body is complete (and again after a resume).
  static MHD_Result OnRequest(void* self, MHD_Connection* c, const char* url, const char* method,
                              const char*, const char* data, size_t* size, void** context) {
    Impl* impl = static_cast<Impl*>(self);
    if (*context == nullptr) {
      *context = impl->Begin(c, url, method);
      return MHD_YES;
    }
    Exchange* ex = static_cast<Exchange*>(*context);
    if (*size != 0) {
      impl->Receive(ex, data, *size);
      *size = 0;
      return MHD_YES;
    }
    return impl->Respond(c, ex);
  }

  Exchange* Begin(MHD_Connection* c, const char* url, const char* method) {
    {
      std::lock_guard<std::mutex> lock(state_mu_);
      ++in_flight_;
    }
    auto ex = std::make_unique<Exchange>();
    ex->rec.request_id = std::to_string(++request_counter_);
    ex->rec.method = method;
    ex->rec.path = url;
    ex->rec.route = "unmatched";
    if (const ConnectionState* conn = StateOf(c)) ex->rec.remote = conn->remote;
    for (size_t i = 0; i < routes_.size(); ++i) {
      if (routes_[i].method == method && patterns_[i].Match(url, &ex->call.path_params)) {
        ex->route = static_cast<int>(i);
        ex->rec.route = labels_[i];
        break;
      }
    }
    if (ex->route < 0 && console_ && (ex->rec.method == "GET" || ex->rec.method == "HEAD") &&
        ConsoleAssets::IsConsolePath(url)) {
      ex->rec.route = kConsoleRoute;
    }
    // Relayed, the request has arrived whole or is timed by the relay, and the reply's pace is
    // the relay's to judge (edge_relay.h); otherwise the library times silence.
    const ConnectionState* relayed = StateOf(c);
    MHD_set_connection_option(
        c, MHD_CONNECTION_OPTION_TIMEOUT,
        relayed && relayed->replies ? 0u : static_cast<unsigned>(options_.read_timeout_s));
    const char* type = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Type");
    const char* length = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Length");
    const ConnectionState* conn = StateOf(c);
    int content_lengths = 0;
    MHD_get_connection_values(
        c, MHD_HEADER_KIND,
        [](void* count, MHD_ValueKind, const char* key, const char*) {
          if (key && strcasecmp(key, "Content-Length") == 0) ++*static_cast<int*>(count);
          return MHD_YES;
        },
        &content_lengths);
    // Relayed, these were checked already; with the direct edge the library reads the heads,
    // and these are the checks that need no raw bytes.
    if (conn && conn->bad_target) {
      ex->refused =
          ProtocolError(400, "bad_request",
                        "the path holds an encoded control character (such as %00): ids never do");
    } else if (content_lengths > 1) {
      ex->refused = ProtocolError(400, "bad_request", "more than one Content-Length header");
    } else if (content_lengths == 1 &&
               MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Transfer-Encoding") != nullptr) {
      ex->refused = ProtocolError(
          400, "bad_request",
          "Content-Length and Transfer-Encoding together: the body's length is ambiguous");
    } else if (type && std::string_view(type).starts_with("multipart/form-data")) {
      ex->refused =
          ProtocolError(415, "unsupported_media_type", "bodies are JSON, not multipart forms");
    } else if (length && std::strtoull(length, nullptr, 10) > options_.max_body_bytes) {
      ex->refused = TooLarge();
    }
    // Refused before the body: answered at once, and MHD closes the connection rather than
    // read the body (which must not be taken for the next request).
    if (ex->refused) Queue(c, ex.get(), std::move(*ex->refused));
    return ex.release();
  }

  void Receive(Exchange* ex, const char* data, size_t n) {
    if (ex->queued || ex->refused) return;  // the rest of a refused body is discarded
    if (ex->call.body.size() + n > options_.max_body_bytes) {
      ex->refused = TooLarge();
      ex->call.body.clear();
      return;
    }
    ex->call.body.append(data, n);
  }

  MHD_Result Respond(MHD_Connection* c, Exchange* ex) {
    if (ConnectionState* conn = StateOf(c)) conn->receiving_since_ms.store(0);  // all arrived
    if (ex->queued) return MHD_YES;
    if (ex->reply) return Queue(c, ex, std::move(*ex->reply));
    if (ex->refused) return Queue(c, ex, std::move(*ex->refused));
    if (ex->route < 0) {
      // The console's files: static, in memory (or a small file of --console-dir), so served
      // from the event loop; a name it does not have is a 404 like any other path.
      if (ex->rec.route == kConsoleRoute) {
        if (auto file = console_->Serve(ex->rec.path)) return Queue(c, ex, std::move(*file));
      }
      return Queue(c, ex, Unrouted(ex->rec.method, ex->rec.path));
    }
    ex->rec.bytes_in = ex->call.body.size();
    ReadRequest(c, ex);
    if (routes_[ex->route].blocking == Blocking::kNo) return Queue(c, ex, Handle(ex));
    // The handler may wait (a disk sync, a remote provider): run it on a worker and let this
    // event loop serve other connections until it resumes this one.
    MHD_suspend_connection(c);
    if (routes_[ex->route].blocking == Blocking::kDeferred) {
      // The answer may come from another thread, even before Handle returns: once it is in,
      // `ex` is the event loop's again, and the worker no longer touches it.
      ex->call.reply_later = [c, ex](Reply r) {
        ex->reply = std::move(r);
        MHD_resume_connection(c);
      };
      pool_->Submit([this, c, ex] {
        Reply r = Handle(ex);
        if (r.deferred) return;
        ex->reply = std::move(r);
        MHD_resume_connection(c);
      });
      return MHD_YES;
    }
    auto run = [this, c, ex] {
      ex->reply = Handle(ex);
      MHD_resume_connection(c);
    };
    if (routes_[ex->route].blocking == Blocking::kOwnThread) {
      // The request stays in flight until its reply is queued, so Stop waits for the thread.
      std::thread(std::move(run)).detach();
    } else {
      pool_->Submit(std::move(run));
    }
    return MHD_YES;
  }

  // Copies what the handler needs out of MHD's buffers: the query and the presented key.
  void ReadRequest(MHD_Connection* c, Exchange* ex) {
    MHD_get_connection_values_n(
        c, MHD_GET_ARGUMENT_KIND,
        [](void* params, MHD_ValueKind, const char* key, size_t key_size, const char* value,
           size_t value_size) {
          static_cast<api::Params*>(params)->emplace(std::string(key, key_size),
                                                     value ? std::string(value, value_size) : "");
          return MHD_YES;
        },
        &ex->call.params);
    for (const char* name : {"X-Engram-User", "X-Engram-Session", "X-Engram-Budget",
                             "X-Engram-Profile", "X-Engram-Recall"}) {
      if (const char* value = MHD_lookup_connection_value(c, MHD_HEADER_KIND, name)) {
        std::string lower(name);
        for (char& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        ex->call.headers.emplace(std::move(lower), value);
      }
    }
    const char* auth = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization");
    constexpr std::string_view kBearer = "Bearer ";
    if (auth && std::string_view(auth).size() > kBearer.size() &&
        std::string_view(auth).starts_with(kBearer)) {
      ex->presented_key = auth + kBearer.size();
    } else if (const char* key = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "X-API-Key")) {
      ex->presented_key = key;
    }
  }

  Reply Handle(Exchange* ex) {
    const Route& route = routes_[ex->route];
    if (route.access != Access::kPublic) {
      Caller caller;
      const bool keyless = route.any_key_when_keyless && OpenMode();
      if (auto denied = Authenticate(keyless ? "" : ex->presented_key, &caller)) {
        return std::move(*denied);
      }
      ex->rec.key_id = caller.key_id;
      ex->rec.tenant = caller.tenant;
      if (route.access == Access::kAdmin && !caller.admin) {
        return ProtocolError(403, "permission_denied", "this route needs an admin key");
      }
      if (auto limited = RateLimit(caller)) return std::move(*limited);
      ex->call.tenant = caller.tenant;
    }
    try {
      return route.handler(ex->call);
    } catch (const std::exception& e) {
      Reply r = ProtocolError(500, "internal", "the server failed to complete the request");
      r.log_detail = std::string("exception: ") + e.what();
      return r;
    }
  }

  // Fills `caller`, or returns the reply refusing the request.
  std::optional<Reply> Authenticate(const std::string& presented, Caller* caller) {
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
      // A database that cannot answer (a PostgreSQL server restarting) changes nothing about
      // which keys exist: the last answer stands until it can be asked again.
      auto n = keys_->CountActive();
      if (n.ok()) {
        open_ = *n == 0;
        open_checked_s_ = now;
      }
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

  Reply TooLarge() const {
    return ProtocolError(
        413, "payload_too_large",
        "the body is larger than " + std::to_string(options_.max_body_bytes) + " bytes");
  }

  // 404 for a path no route has, 405 (with Allow) for a method the path does not take.
  Reply Unrouted(const std::string& method, const std::string& path) const {
    std::string allow;
    for (size_t i = 0; i < routes_.size(); ++i) {
      if (patterns_[i].Match(path, nullptr)) {
        allow += (allow.empty() ? "" : ", ") + routes_[i].method;
      }
    }
    if (allow.empty()) return ProtocolError(404, "not_found", "no route " + path);
    Reply r = ProtocolError(405, "method_not_allowed",
                            method + " is not allowed on " + path + " (allowed: " + allow + ")");
    r.headers.emplace_back("Allow", allow);
    return r;
  }

  // Logs the request and hands its reply to MHD, which sends it once this callback returns.
  MHD_Result Queue(MHD_Connection* c, Exchange* ex, Reply reply) {
    AccessRecord& rec = ex->rec;
    if (!reply.log_detail.empty()) {
      std::cerr << "engram serve: request " << rec.request_id << " " << rec.route << ": "
                << reply.log_detail << std::endl;
    }
    rec.status = reply.status;
    rec.bytes_out = reply.body.size();
    MHD_Response* res = reply.stream
                            ? StreamResponse(c, reply.stream)
                            : MHD_create_response_from_buffer(reply.body.size(), reply.body.data(),
                                                              MHD_RESPMEM_MUST_COPY);
    MHD_add_response_header(res, "Content-Type", reply.content_type.c_str());
    MHD_add_response_header(res, "X-Request-Id", rec.request_id.c_str());
    for (const auto& [name, value] : reply.headers) {
      MHD_add_response_header(res, name.c_str(), value.c_str());
    }
    ConnectionState* conn = StateOf(c);
    const bool last = (conn && ++conn->requests >= options_.keep_alive_max_requests) ||
                      stopping_.load(std::memory_order_relaxed);
    if (last) MHD_add_response_header(res, "Connection", "close");
    const MHD_Result queued = MHD_queue_response(c, static_cast<unsigned>(reply.status), res);
    MHD_destroy_response(res);
    ex->queued = true;
    const double seconds = SecondsSince(ex->start);
    rec.duration_ms = seconds * 1000;
    metrics_.Observe(rec.route, rec.status, seconds);
    log_->Write(rec);
    if (options_.audit && ex->route >= 0 && routes_[ex->route].access != Access::kPublic) {
      Audit(*ex);
    }
    return queued;
  }

  // A chunked response whose body is read from `body` as it is written (StreamBody): with
  // nothing to send, the reader suspends the connection and the next write resumes it, so
  // the event loop never waits on the producer.
  static MHD_Response* StreamResponse(MHD_Connection* c, std::shared_ptr<StreamBody> body) {
    struct Source {
      std::shared_ptr<StreamBody> body;
      MHD_Connection* connection;
    };
    body->SetResume([c] { MHD_resume_connection(c); });
    auto* source = new Source{std::move(body), c};
    return MHD_create_response_from_callback(
        MHD_SIZE_UNKNOWN, 16 * 1024,
        [](void* cls, uint64_t, char* buf, size_t max) -> ssize_t {
          auto* src = static_cast<Source*>(cls);
          const long n =
              src->body->Read(buf, max, [src] { MHD_suspend_connection(src->connection); });
          return n == StreamBody::kEnd ? MHD_CONTENT_READER_END_OF_STREAM : n;
        },
        source,
        [](void* cls) {
          auto* src = static_cast<Source*>(cls);
          src->body->Close();  // the connection is done with it: the producer stops
          delete src;
        });
  }

  // The request's audit entry: who, which user's data, which route, the outcome; never content.
  void Audit(const Exchange& ex) {
    const AccessRecord& rec = ex.rec;
    AuditEntry e;
    e.at = SystemClock::Default()->NowMs();
    e.request_id = rec.request_id;
    e.tenant = rec.tenant;
    e.key_id = rec.key_id;
    e.method = rec.method;
    e.route = routes_[ex.route].path;  // the template: "/v1/memories/{id}"
    e.status = rec.status;
    e.remote = rec.remote;
    if (auto id = ex.call.path_params.find("id"); id != ex.call.path_params.end()) {
      e.target = id->second;
    }
    if (auto user = ex.call.params.find("user_id"); user != ex.call.params.end()) {
      e.user_id = user->second;
    } else if (!ex.call.body.empty() && ex.call.body.front() == '{') {
      // The body names the user of a write or a search; read only that field.
      const nlohmann::json body = nlohmann::json::parse(ex.call.body, nullptr, false);
      if (body.is_object()) {
        auto user_id = body.find("user_id");
        if (user_id != body.end() && user_id->is_string()) e.user_id = user_id->get<std::string>();
      }
    }
    if (e.user_id.size() > 256) e.user_id.resize(256);  // a refused oversized id, cut
    auto hard = ex.call.params.find("hard");
    e.action = AuditAction(
        e.method, e.route,
        hard != ex.call.params.end() && (hard->second == "true" || hard->second == "1"));
    options_.audit->Record(std::move(e));
  }

  static void OnCompleted(void* self, MHD_Connection* c, void** context,
                          MHD_RequestTerminationCode) {
    Impl* impl = static_cast<Impl*>(self);
    // Counted first: every request the relay forwarded ends here, also one the library refused.
    if (ConnectionState* conn = StateOf(c); conn && conn->replies) conn->replies->fetch_add(1);
    // With a URI callback the library reports the end of every request whose line arrived,
    // also one cut off before its headers were complete: no Exchange, nothing was counted.
    if (*context == nullptr) return;
    delete static_cast<Exchange*>(*context);
    *context = nullptr;
    MHD_set_connection_option(c, MHD_CONNECTION_OPTION_TIMEOUT,
                              static_cast<unsigned>(impl->options_.keep_alive_timeout_s));
    if (ConnectionState* conn = StateOf(c)) conn->receiving_since_ms.store(SteadyMs());  // next
    std::lock_guard<std::mutex> lock(impl->state_mu_);
    if (--impl->in_flight_ == 0) impl->drained_cv_.notify_all();
  }

  static void OnConnection(void* loop_cls, MHD_Connection* c, void** socket_context,
                           MHD_ConnectionNotificationCode code) {
    Loop* loop = static_cast<Loop*>(loop_cls);
    Impl* impl = loop->impl;
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
      auto state = std::make_unique<ConnectionState>();
      const MHD_ConnectionInfo* info =
          MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
      if (info) state->remote = AddressText(info->client_addr);
      if (const MHD_ConnectionInfo* fd =
              MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD)) {
        state->fd = fd->connect_fd;
        if (impl->relay_) {
          EdgeRelay::Claimed claimed = impl->relay_->Claim(state->fd);
          if (claimed.replies) {
            state->replies = std::move(claimed.replies);
            state->remote = std::move(claimed.remote);
          }
        }
      }
      state->receiving_since_ms.store(SteadyMs());
      std::lock_guard<std::mutex> lock(impl->conns_mu_);
      impl->conns_.insert(state.get());
      *socket_context = state.release();
    } else if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
      auto* state = static_cast<ConnectionState*>(*socket_context);
      if (state) {
        {
          std::lock_guard<std::mutex> lock(impl->conns_mu_);
          impl->conns_.erase(state);
        }
        if (!state->replies) impl->ReleaseSlot(state->remote);  // else the relay's
        delete state;
      }
      *socket_context = nullptr;
      loop->open.fetch_sub(1);
    }
  }

  // Sees the raw request target before the library decodes it (a %00 would cut the path).
  static void* OnUri(void*, const char* uri, MHD_Connection* c) {
    if (ConnectionState* state = StateOf(c)) {
      state->bad_target = PathHasControlCharacter(uri ? std::string_view(uri) : "");
    }
    return nullptr;
  }

  static ConnectionState* StateOf(MHD_Connection* c) {
    const MHD_ConnectionInfo* info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info ? static_cast<ConnectionState*>(info->socket_context) : nullptr;
  }

  std::string RenderMetrics() {
    std::lock_guard<std::mutex> lock(stats_mu_);
    const double now = SecondsSince(epoch_);
    if (!stats_ || now - stats_at_s_ > 5.0) {  // the counts scan the items table
      auto stats = engine_->GetStats();
      if (stats.ok()) stats_ = *stats;
      stats_at_s_ = now;
    }
    std::string out = metrics_.Render(stats_ ? &*stats_ : nullptr);
    std::vector<std::pair<std::string, int64_t>> errors;
    for (const SqliteErrorCount& e : SqliteErrorCounts()) errors.emplace_back(e.code, e.count);
    out += RenderStorageMetrics(engine_->CheckWrites(), errors);
    if (options_.redis != nullptr) {
      const shared::Redis::Health h = options_.redis->health();
      out += RenderRedisMetrics(h.up, h.errors);
    }
    int open = 0;
    {
      std::lock_guard<std::mutex> lock(conns_mu_);
      open = open_total_;
    }
    out +=
        "# HELP engram_http_open_connections Connections open now (the relay's and the event "
        "loops').\n"
        "# TYPE engram_http_open_connections gauge\n"
        "engram_http_open_connections " +
        std::to_string(open) +
        "\n"
        "# HELP engram_http_refused_total Connections and requests the server refused "
        "itself: over the connection limits (503), a malformed or ambiguous head (4xx), or "
        "too slow to arrive (408 or closed).\n"
        "# TYPE engram_http_refused_total counter\n"
        "engram_http_refused_total{reason=\"limit\"} " +
        std::to_string(refused_connections_.load()) + "\n" +
        "engram_http_refused_total{reason=\"head\"} " + std::to_string(refused_heads_.load()) +
        "\n" + "engram_http_refused_total{reason=\"timeout\"} " +
        std::to_string(timed_out_.load()) + "\n";
    return out;
  }

  Engine* engine_;
  KeyStore* keys_;
  ServerOptions options_;
  Services services_;
  std::unique_ptr<ConsoleAssets> console_;  // null: --no-console
  std::vector<Route> routes_;
  std::vector<PathPattern> patterns_;  // routes_[i]'s path
  HeadLimits head_limits_;
  std::mutex conns_mu_;                         // guards the three below
  std::unordered_set<ConnectionState*> conns_;  // connections the event loops hold
  std::unordered_map<std::string, int> open_per_ip_;
  int open_total_ = 0;  // every accepted connection not yet closed
  std::atomic<int64_t> refused_connections_{0};
  std::atomic<int64_t> refused_heads_{0};
  std::atomic<int64_t> timed_out_{0};
  std::vector<std::string> labels_;  // "POST /v1/search": metrics and the access log
  RateLimiter limiter_;
  Metrics metrics_;
  // Destroyed before metrics_: its destructor waits for the streams, which report to metrics_.
  std::unique_ptr<ChatProxy> chat_;  // null: no upstream configured
  std::unique_ptr<AccessLog> log_;
  std::unique_ptr<WorkerPool> pool_;
  std::vector<std::unique_ptr<Loop>> loops_;
  std::unique_ptr<EdgeRelay> relay_;  // null with the direct edge
  std::thread acceptor_;
  int listen_fd_ = -1;
  std::string tls_cert_pem_, tls_key_pem_;  // PEM texts; empty: plain HTTP
  std::atomic<uint64_t> request_counter_{0};
  const Clock::time_point epoch_ = Clock::now();

  std::mutex state_mu_;
  std::condition_variable drained_cv_;  // in_flight_ reached 0
  std::condition_variable stopped_cv_;  // running_ became false
  bool running_ = false;                // guarded by state_mu_
  std::atomic<bool> stopping_{false};   // written under state_mu_
  int64_t in_flight_ = 0;               // guarded by state_mu_: begun, not completed

  std::mutex open_mu_;
  bool open_ = false;           // guarded by open_mu_
  double open_checked_s_ = -1;  // guarded by open_mu_

  std::mutex stats_mu_;
  std::optional<Engine::Stats> stats_;  // guarded by stats_mu_
  double stats_at_s_ = 0;               // guarded by stats_mu_
};

HttpServer::HttpServer(Engine* engine, KeyStore* keys, WritePath write, ServerOptions options)
    : impl_(std::make_unique<Impl>(engine, keys, write, std::move(options))) {}

HttpServer::~HttpServer() { Stop(); }

Status HttpServer::Start() {
  const ServerOptions& o = impl_->options();
  if (o.tls_cert_file.empty() != o.tls_key_file.empty()) {
    return Status::InvalidArgument("TLS needs both --tls-cert and --tls-key");
  }
  if (!IsLoopback(o.host) && o.tls_cert_file.empty() && !o.allow_plain_http) {
    return Status::InvalidArgument(
        "refusing to serve plain HTTP on " + o.host +
        ": memories and API keys would cross the network in the clear. Give --tls-cert and "
        "--tls-key, or --allow-plain-http when a TLS-terminating proxy is in front");
  }
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
  auto port = impl_->Start();
  if (!port.ok()) return port.status();
  port_ = *port;
  return Status::Ok();
}

void HttpServer::Wait() { impl_->Wait(); }

void HttpServer::Stop() { impl_->Stop(); }

}  // namespace engram::server
