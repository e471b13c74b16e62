// The HTTP edge: every request head is read and checked by Engram before libmicrohttpd sees
// it, on the first request of a connection and on every later one.
//
// Why a relay: libmicrohttpd 0.9.75 (Debian 12's) answers the errors a client can cause in a
// head itself, with HTML, and with a Content-Length that is not a number it sends its status
// line twice; it offers no hook to replace those answers. Peeking at a socket (MSG_PEEK) works
// only for a connection's first request: once the library owns the socket it reads the next
// request itself. So the client's socket stays here and the library serves the other end of a
// socket pair: the relay forwards a request to it only once its head is complete and sound,
// then the body exactly as framed (Content-Length or chunked), and copies the library's replies
// back. A head that is malformed, ambiguous, too long or too slow gets Engram's JSON error once
// the replies to the requests before it have gone out, and the connection is closed.
// With TLS the relay terminates it (GnuTLS, non-blocking) and the library serves plain HTTP on
// the socket pair, so HTTPS gets the same checks and answers.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

#include "engram/status.h"
#include "server/request_head.h"

struct gnutls_certificate_credentials_st;

namespace engram::server {

class EdgeRelay {
 public:
  struct Hooks {
    // Gives the library the relay's end of a connection (an AF_UNIX socket, on which its
    // attempts at TCP options fail harmlessly); false when the library refused it (it has then
    // closed `fd`).
    std::function<bool(int fd)> attach;
    // The relay answered a request itself (status: 400, 408, 414, 431, 505); `head` is what
    // had arrived of it. Not called for a connection merely closed.
    std::function<void(int status, const std::string& remote, std::string_view head)> refused;
    // The client's connection is closed: its slot is free.
    std::function<void(const std::string& remote)> closed;
  };

  // Replies the library finished on one connection, counted by its completion callback; the
  // relay compares them with the requests it forwarded before it writes an answer of its own.
  using ReplyCount = std::shared_ptr<std::atomic<int64_t>>;

  // What the library's side of a relayed connection learns from the relay.
  struct Claimed {
    ReplyCount replies;  // null: not a socket the relay attached
    std::string remote;  // the client's address
  };

  // idle_timeout_s: how long a client may take none of the reply bytes waiting for it (in the
  // relay or the kernel), also after the last reply, before its connection is closed.
  EdgeRelay(HeadLimits limits, int request_timeout_s, int idle_timeout_s, int threads, Hooks hooks);
  ~EdgeRelay();  // closes every connection still open (after the library has stopped)

  // Takes over `client`, a non-blocking accepted socket: from now on the relay closes it.
  void Adopt(int client, std::string remote);

  // Serves TLS on every connection adopted from now on, with this certificate (chain) and
  // private key (PEM). An error when GnuTLS refuses them.
  Status UseTls(const std::string& cert_pem, const std::string& key_pem);

  // The reply counter and client address of the connection the library knows by `fd`, once:
  // the library's connection-start callback claims them.
  Claimed Claim(int fd);

  struct Link;  // one client connection and its socket pair (edge_relay.cc)

 private:
  struct Worker;
  void Run(Worker* w);
  void Pump(Worker& w, Link& l, char* scratch, size_t scratch_size);
  void Step(Worker& w, Link& l, char* scratch, size_t scratch_size);
  void Take(Link& l, std::string_view data);
  void Refuse(Link& l, int status, std::string_view code, std::string_view message);
  bool Attach(Worker& w, Link& l);
  void Finish(Worker& w, Link& l, std::string answer);
  void Close(Worker& w, Link& l);
  void Sweep(Worker& w, char* scratch, size_t scratch_size);

  const HeadLimits limits_;
  const int64_t timeout_ms_;
  const int64_t idle_ms_;
  const Hooks hooks_;
  std::vector<std::unique_ptr<Worker>> workers_;
  std::atomic<size_t> next_{0};
  std::atomic<bool> stopping_{false};
  gnutls_certificate_credentials_st* tls_ = nullptr;  // null: plain HTTP
  std::mutex claims_mu_;
  std::unordered_map<int, Claimed> claims_;  // attached, not yet claimed
};

}  // namespace engram::server
