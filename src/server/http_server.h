// HttpServer: the v1 API over HTTP/1.1 (GNU libmicrohttpd), with keep-alive, API-key
// authentication, per-key rate limits, metrics and an access log.
//
// Threads: an acceptor hands each connection to the least busy of a few event loops (epoll,
// one per core by default), which read requests and write replies. Quick routes run right on
// the loop; routes that may block (writes, remote providers, exports; Route::blocking) run on
// a worker pool while their connection is suspended. So a busy server has about as many
// runnable threads as cores, instead of one per connection time-slicing against the others.
//
// Lifecycle: Start() binds and begins serving; Stop() stops accepting, lets in-flight requests
// finish and returns once they have. Thread-safe to Stop() from any thread (a signal-watching
// thread, say). The engine and key store are not owned.
#pragma once

#include <memory>
#include <string>

#include "api/requests.h"
#include "engram/engine.h"
#include "engram/jobs.h"
#include "engram/keys.h"
#include "engram/sessions.h"
#include "engram/status.h"
#include "engram/write_path.h"
#include "server/chat_proxy.h"

namespace engram::shared {
class Redis;
}

namespace engram::server {

struct ServerOptions {
  std::string host = "127.0.0.1";
  int port = 8420;                  // 0: an ephemeral port (see HttpServer::port())
  int event_threads = 0;            // event loops; 0: one per core
  int threads = 32;                 // workers for blocking routes (writes, remote providers)
  size_t max_body_bytes = 4 << 20;  // larger bodies are refused with 413
  api::Limits limits;
  double rate_limit = 0;         // requests per second per key; 0: off
  double rate_burst = 0;         // bucket size; 0: max(1, rate_limit)
  std::string access_log = "-";  // file path, "-" standard output, "" off
  int keep_alive_max_requests = 10000;
  int keep_alive_timeout_s = 5;
  int read_timeout_s = 10;  // silence allowed mid-request (and while replying)
  // A request's head and body must arrive within this many seconds of its first byte (of the
  // connection's opening, for its first request), however steadily they trickle: a 408, or a
  // close (an idle keep-alive connection is closed by the keep-alive timeout).
  int request_timeout_s = 30;
  // A relay reads and checks every request head before the library does, and terminates TLS
  // (edge_relay.h). False ("direct"): the library reads the client's socket itself (and does
  // TLS), which saves the relay's hop when a reverse proxy in front already checks framing.
  bool relay_heads = true;
  // Open connections, in total and from one client address; the excess is answered with a
  // JSON 503 and closed.
  int max_connections = 4096;
  int max_connections_per_ip = 256;
  std::string openapi_json;  // the document served at /openapi.json
  // POST /v1/knowledge may name files under this directory by `path` (Services::knowledge_dir);
  // empty: off.
  std::string knowledge_dir;
  // The chat proxy at POST /v1/chat/completions (server/chat_proxy.h); off without an
  // upstream_url.
  ChatProxyOptions chat;
  // The web console at `/` (server/console_assets.h): compiled-in files, or those of
  // console_dir when set; false serves none.
  bool console = true;
  std::string console_dir;
  bool reads_block = false;  // search and context call a remote provider
  // TLS (libmicrohttpd over GnuTLS): PEM files of the certificate (chain) and its private key;
  // both or neither. Without them a non-loopback address is refused unless allow_plain_http
  // (a TLS-terminating proxy in front): memories would cross the network in the clear.
  std::string tls_cert_file;
  std::string tls_key_file;
  bool allow_plain_http = false;
  // Where each /v1 request's audit entry goes (not owned; outlives the server); null: none.
  class AuditTrail* audit = nullptr;
  // State shared with the other replicas (not owned; outlives the server): the rate limits'
  // buckets. Null: this process's own. Its health shows in /readyz and /metrics.
  shared::Redis* redis = nullptr;
};

// True for addresses that only this machine can reach: 127.0.0.0/8, ::1, "localhost".
bool IsLoopback(const std::string& host);

// The write path's parts the routes use (not owned; they outlive the server).
struct WritePath {
  MemoryWriter* writer = nullptr;
  SessionManager* sessions = nullptr;
  JobQueue* jobs = nullptr;
};

class HttpServer {
 public:
  HttpServer(Engine* engine, KeyStore* keys, WritePath write, ServerOptions options);
  ~HttpServer();

  // Binds and starts serving. FailedPrecondition-style InvalidArgument when the host is not
  // loopback and no API key exists; Unavailable when the address cannot be bound.
  Status Start();
  int port() const { return port_; }
  // Blocks until Stop() has been called and the server has drained (at once if never started).
  void Wait();
  void Stop();

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
  int port_ = 0;
};

}  // namespace engram::server
