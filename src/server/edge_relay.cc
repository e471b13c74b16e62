// The HTTP edge relay (edge_relay.h).
#include "server/edge_relay.h"

#include <gnutls/gnutls.h>
#include <linux/sockios.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <unordered_set>

namespace engram::server {
namespace {

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

constexpr size_t kScratchBytes = 64 * 1024;
// Edge-triggered reads; a socket is watched for room to write only while bytes wait for it
// (watching always would wake the relay each time the other side reads).
constexpr uint32_t kReadEvents = EPOLLIN | EPOLLRDHUP | EPOLLET;
// How long an answered client may take to read the answer and close before the socket closes
// under it (closing with its bytes unread would reset the connection and lose the answer).
constexpr int64_t kLingerMs = 2000;

// Writes as much of `pending` as `send` (like ::send: bytes, or -1 with errno) takes and drops
// what went out. False when the socket failed (the peer is gone).
template <typename Send>
bool FlushWith(std::string& pending, Send send) {
  size_t sent = 0;
  while (sent < pending.size()) {
    const ssize_t n = send(pending.data() + sent, pending.size() - sent);
    if (n > 0) {
      sent += static_cast<size_t>(n);
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      break;
    } else {
      return false;
    }
  }
  pending.erase(0, sent);
  return true;
}

bool Flush(int fd, std::string& pending) {
  return FlushWith(pending, [fd](const char* data, size_t size) {
    return ::send(fd, data, size, MSG_NOSIGNAL | MSG_DONTWAIT);
  });
}

}  // namespace

struct EdgeRelay::Link {
  struct End {
    Link* link;
  };
  End client_end{this}, outer_end{this};
  int client = -1;
  int outer = -1;  // the relay's end of the socket pair; -1 until attached and after closing
  std::string remote;
  ReplyCount replies;  // null until attached
  // kRelaying: requests pass; kRefusing: an answer waits for the replies before it; kDone:
  // the library's end is closed and the client's is being shut.
  enum class Phase { kRelaying, kRefusing, kDone } phase = Phase::kRelaying;
  RequestFramer framer;
  // When the request arriving began (its first byte, or the connection's opening for the
  // first); 0 while none is arriving. Its head and body must be in within the timeout.
  int64_t request_since_ms = 0;

  std::string up;    // for the library, not yet taken
  std::string down;  // for the client, not yet taken
  bool client_eof = false;
  bool outer_eof = false;
  // Bytes (or an end) may wait to be read: set by a read event, cleared by a read that took
  // all there was. Reading only then spares a failing recv per direction per request.
  bool client_readable = true;
  bool outer_readable = true;
  // The peer's end was reported with data perhaps still before it: read on to the end, since
  // no later event will say so again.
  bool client_hup = false;
  bool outer_hup = false;
  bool client_watched_out = false;  // EPOLLOUT on, while `down` waits
  bool outer_watched_out = false;   // EPOLLOUT on, while `up` waits
  bool outer_shut = false;          // the client's end of input passed on to the library

  std::string refusal;          // kRefusing: the answer to write once the replies before it are out
  int64_t wait_for = 0;         // the library's reply count that means they are
  int64_t linger_until_ms = 0;  // kDone: answered and shut; reading the client until it closes
  uint64_t client_sent = 0;     // bytes written to the client's socket
  int64_t delivered_seen = -1;  // of those, the ones its peer had acknowledged at the last look
  // Since when bytes have waited for the client without it taking any; 0: none wait.
  int64_t down_stalled_since_ms = 0;
  bool dead = false;

  gnutls_session_t tls = nullptr;  // null: plain HTTP
  bool handshaken = false;
  bool tls_wants_write = false;  // the last TLS call that could not go on was writing
  bool bye_sent = false;

  explicit Link(HeadLimits limits) : framer(limits) {}
  bool Reading() const { return phase == Phase::kRelaying; }
};

namespace {

// The client's socket as the relay sees it: plain bytes, or TLS records after the handshake.
// Like recv and send: > 0 bytes, 0 the end, -1 with errno (EAGAIN: when the socket is ready).
ssize_t RawSend(EdgeRelay::Link& l, const void* data, size_t size) {
  const ssize_t n = ::send(l.client, data, size, MSG_NOSIGNAL | MSG_DONTWAIT);
  if (n > 0) l.client_sent += static_cast<uint64_t>(n);  // the kernel's bytes, as SIOCOUTQ
  return n;
}

ssize_t TlsPush(gnutls_transport_ptr_t link, const void* data, size_t size) {
  return RawSend(*static_cast<EdgeRelay::Link*>(link), data, size);
}

ssize_t TlsPull(gnutls_transport_ptr_t link, void* buf, size_t size) {
  return ::recv(static_cast<EdgeRelay::Link*>(link)->client, buf, size, MSG_DONTWAIT);
}

int TlsPullTimeout(gnutls_transport_ptr_t link, unsigned int) {
  pollfd p{static_cast<EdgeRelay::Link*>(link)->client, POLLIN, 0};
  return ::poll(&p, 1, 0);  // never waits: the relay's sockets are non-blocking
}

// A GnuTLS result as recv/send would give it.
ssize_t FromTls(EdgeRelay::Link& l, ssize_t r) {
  if (r >= 0) return r;
  if (r == GNUTLS_E_AGAIN || r == GNUTLS_E_INTERRUPTED) {
    l.tls_wants_write = gnutls_record_get_direction(l.tls) == 1;
    errno = EAGAIN;
    return -1;
  }
  if (r == GNUTLS_E_PREMATURE_TERMINATION) return 0;  // closed without close_notify: an end
  errno = ECONNRESET;
  return -1;
}

bool Handshaken(EdgeRelay::Link& l) {
  if (l.handshaken) return true;
  const int r = gnutls_handshake(l.tls);
  if (r == GNUTLS_E_SUCCESS) {
    l.handshaken = true;
    l.tls_wants_write = false;
    return true;
  }
  if (r != GNUTLS_E_AGAIN && r != GNUTLS_E_INTERRUPTED && gnutls_error_is_fatal(r) == 0) {
    errno = EAGAIN;  // a warning alert: the handshake goes on
    return false;
  }
  FromTls(l, r);
  return false;
}

ssize_t ClientRecv(EdgeRelay::Link& l, char* buf, size_t size) {
  if (l.tls == nullptr) return ::recv(l.client, buf, size, MSG_DONTWAIT);
  if (!Handshaken(l)) return -1;
  return FromTls(l, gnutls_record_recv(l.tls, buf, size));
}

ssize_t ClientSend(EdgeRelay::Link& l, const char* data, size_t size) {
  if (l.tls == nullptr) return RawSend(l, data, size);
  if (!Handshaken(l)) return -1;
  // After EAGAIN GnuTLS wants the same call again: `down` keeps those bytes at its front.
  return FromTls(l, gnutls_record_send(l.tls, data, size));
}

// Writes what waits for the client, and times how long it has taken nothing: the library's
// own timeout is off while it replies through the relay (a slow reader leaves it blocked on a
// full socket pair for as long as the kernel takes to report room again), so the relay
// judges the client's progress itself.
bool FlushDown(EdgeRelay::Link& l) {
  const size_t before = l.down.size();
  if (!FlushWith(l.down,
                 [&l](const char* data, size_t size) { return ClientSend(l, data, size); })) {
    return false;
  }
  if (l.down.empty()) {
    l.down_stalled_since_ms = 0;
  } else if (l.down.size() < before || l.down_stalled_since_ms == 0) {
    l.down_stalled_since_ms = NowMs();
  }
  return true;
}

// Whether bytes still wait for the client and it took some since the last look: the relay
// hears of room to write only once a third of the socket's buffer is free, which a slow reader
// of a large reply may take longer than the idle timeout to make.
bool ClientTaking(EdgeRelay::Link& l) {
  int unsent = 0;  // written, not yet acknowledged by the client
  if (::ioctl(l.client, SIOCOUTQ, &unsent) != 0) return false;
  if (unsent == 0) {  // all taken; what `down` holds can go now, unless TLS never began
    return !l.down.empty() && (l.tls == nullptr || l.handshaken);
  }
  const int64_t delivered = static_cast<int64_t>(l.client_sent) - unsent;
  const bool took = delivered > l.delivered_seen;
  l.delivered_seen = delivered;
  return took;
}

}  // namespace

struct EdgeRelay::Worker {
  int ep = -1;
  std::thread thread;
  std::mutex mu;                    // guards links (Adopt runs on the acceptor)
  std::unordered_set<Link*> links;  // owned
  std::vector<Link*> dead;          // closed this round, freed after it
};

EdgeRelay::EdgeRelay(HeadLimits limits, int request_timeout_s, int idle_timeout_s, int threads,
                     Hooks hooks)
    : limits_(limits),
      timeout_ms_(int64_t{std::max(1, request_timeout_s)} * 1000),
      idle_ms_(int64_t{std::max(1, idle_timeout_s)} * 1000),
      hooks_(std::move(hooks)) {
  for (int i = 0; i < std::max(1, threads); ++i) {
    auto w = std::make_unique<Worker>();
    w->ep = ::epoll_create1(EPOLL_CLOEXEC);
    workers_.push_back(std::move(w));
  }
  for (auto& w : workers_) {
    Worker* raw = w.get();
    raw->thread = std::thread([this, raw] { Run(raw); });
  }
}

EdgeRelay::~EdgeRelay() {
  stopping_.store(true);
  for (auto& w : workers_) w->thread.join();
  for (auto& w : workers_) ::close(w->ep);
  if (tls_ != nullptr) gnutls_certificate_free_credentials(tls_);
}

Status EdgeRelay::UseTls(const std::string& cert_pem, const std::string& key_pem) {
  gnutls_certificate_credentials_t creds = nullptr;
  int r = gnutls_certificate_allocate_credentials(&creds);
  if (r == GNUTLS_E_SUCCESS) {
    const gnutls_datum_t cert{reinterpret_cast<unsigned char*>(const_cast<char*>(cert_pem.data())),
                              static_cast<unsigned int>(cert_pem.size())};
    const gnutls_datum_t key{reinterpret_cast<unsigned char*>(const_cast<char*>(key_pem.data())),
                             static_cast<unsigned int>(key_pem.size())};
    r = gnutls_certificate_set_x509_key_mem(creds, &cert, &key, GNUTLS_X509_FMT_PEM);
  }
  if (r < 0) {
    if (creds != nullptr) gnutls_certificate_free_credentials(creds);
    return Status::InvalidArgument(std::string("--tls-cert/--tls-key: ") + gnutls_strerror(r));
  }
  tls_ = creds;
  return Status::Ok();
}

void EdgeRelay::Adopt(int client, std::string remote) {
  Worker& w = *workers_[next_.fetch_add(1) % workers_.size()];
  auto* l = new Link(limits_);
  l->client = client;
  l->remote = std::move(remote);
  l->request_since_ms = NowMs();  // the first request's time runs from the connection's opening
  if (tls_ != nullptr) {
    if (gnutls_init(&l->tls, GNUTLS_SERVER | GNUTLS_NONBLOCK) != GNUTLS_E_SUCCESS) {
      l->tls = nullptr;
      ::close(client);
      hooks_.closed(l->remote);
      delete l;
      return;
    }
    gnutls_set_default_priority(l->tls);
    gnutls_credentials_set(l->tls, GNUTLS_CRD_CERTIFICATE, tls_);
    gnutls_handshake_set_timeout(l->tls, 0);  // the request timeout covers the handshake
    gnutls_transport_set_ptr(l->tls, l);
    gnutls_transport_set_push_function(l->tls, TlsPush);
    gnutls_transport_set_pull_function(l->tls, TlsPull);
    gnutls_transport_set_pull_timeout_function(l->tls, TlsPullTimeout);
  }
  {
    std::lock_guard<std::mutex> lock(w.mu);
    w.links.insert(l);
  }
  epoll_event ev{};
  ev.events = kReadEvents;
  ev.data.ptr = &l->client_end;
  // Edge-triggered: a request already waiting is reported at once.
  ::epoll_ctl(w.ep, EPOLL_CTL_ADD, client, &ev);
}

EdgeRelay::Claimed EdgeRelay::Claim(int fd) {
  std::lock_guard<std::mutex> lock(claims_mu_);
  auto it = claims_.find(fd);
  if (it == claims_.end()) return {};
  Claimed claimed = std::move(it->second);
  claims_.erase(it);
  return claimed;
}

void EdgeRelay::Run(Worker* w) {
  std::vector<char> scratch(kScratchBytes);
  int64_t last_sweep = NowMs();
  while (!stopping_.load()) {
    epoll_event events[64];
    const int n = ::epoll_wait(w->ep, events, 64, 250);
    for (int i = 0; i < n; ++i) {
      auto* end = static_cast<Link::End*>(events[i].data.ptr);
      Link* l = end->link;
      if (l->dead) continue;
      const bool client = end == &l->client_end;
      // A TLS handshake waiting to write goes on when the socket has room: any event will do.
      if ((events[i].events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) ||
          (client && l->tls != nullptr)) {
        (client ? l->client_readable : l->outer_readable) = true;
      }
      if (events[i].events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR)) {
        (client ? l->client_hup : l->outer_hup) = true;
      }
      Pump(*w, *l, scratch.data(), scratch.size());
    }
    const int64_t now = NowMs();
    if (now - last_sweep >= 250) {
      last_sweep = now;
      Sweep(*w, scratch.data(), scratch.size());
    }
    for (Link* l : w->dead) delete l;
    w->dead.clear();
  }
  std::vector<Link*> left;
  {
    std::lock_guard<std::mutex> lock(w->mu);
    left.assign(w->links.begin(), w->links.end());
  }
  for (Link* l : left) {
    // Replies the library finished are in the socket pair: they go out before the close.
    if (!l->dead) Pump(*w, *l, scratch.data(), scratch.size());
    Close(*w, *l);
  }
  for (Link* l : w->dead) delete l;
  w->dead.clear();
}

// Answers heads that took too long, and lets go of answered clients that never closed.
void EdgeRelay::Sweep(Worker& w, char* scratch, size_t scratch_size) {
  std::vector<Link*> links;
  {
    std::lock_guard<std::mutex> lock(w.mu);
    links.assign(w.links.begin(), w.links.end());
  }
  const int64_t now = NowMs();
  for (Link* l : links) {
    if (l->dead) continue;
    if (l->phase == Link::Phase::kDone && l->linger_until_ms != 0 && now > l->linger_until_ms) {
      // Closed with bytes still queued, the socket would be an orphan the kernel aborts while
      // a slow reader's window stays shut: the tail of a large export would be lost. So it
      // stays open while the client keeps taking them.
      if (ClientTaking(*l)) {
        l->linger_until_ms = now + idle_ms_;
      } else {
        Close(w, *l);
      }
      continue;
    }
    if (l->down_stalled_since_ms != 0 && now - l->down_stalled_since_ms > idle_ms_) {
      if (!ClientTaking(*l)) {
        Close(w, *l);  // the client stopped reading its reply
        continue;
      }
      l->down_stalled_since_ms = now;
    }
    if (l->Reading() && l->request_since_ms != 0 && now - l->request_since_ms > timeout_ms_) {
      Refuse(*l, 408, "request_timeout",
             "the request did not arrive within " + std::to_string(timeout_ms_ / 1000) + " s");
    }
    // A refusal waits for the library's replies: its completion count is not an event here.
    if (l->phase == Link::Phase::kRefusing) Pump(w, *l, scratch, scratch_size);
  }
}

void EdgeRelay::Refuse(Link& l, int status, std::string_view code, std::string_view message) {
  hooks_.refused(status, l.remote, l.framer.pending_head());
  // A refused head never reached the library; a refused body's head did, and the library will
  // not finish that request: the answer waits for the replies to the requests before it.
  l.wait_for = l.framer.requests() - (l.framer.in_body() ? 1 : 0);
  l.phase = Link::Phase::kRefusing;
  l.refusal = JsonErrorResponse(status, code, message);
  l.request_since_ms = 0;
}

// Passes on what the framing allows of the client's bytes; anything else becomes a refusal.
void EdgeRelay::Take(Link& l, std::string_view data) {
  if (!l.framer.Feed(data, &l.up)) {
    const HeadVerdict& e = l.framer.error();
    Refuse(l, e.status, e.code, e.message);
    return;
  }
  if (!l.framer.in_request()) {
    l.request_since_ms = 0;
  } else if (l.request_since_ms == 0) {
    l.request_since_ms = NowMs();
  }
}

bool EdgeRelay::Attach(Worker& w, Link& l) {
  int pair[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, pair) != 0) {
    return false;
  }
  l.outer = pair[0];
  l.replies = std::make_shared<std::atomic<int64_t>>(0);
  {
    std::lock_guard<std::mutex> lock(claims_mu_);
    claims_[pair[1]] = Claimed{l.replies, l.remote};
  }
  epoll_event ev{};
  ev.events = kReadEvents;
  ev.data.ptr = &l.outer_end;
  ::epoll_ctl(w.ep, EPOLL_CTL_ADD, l.outer, &ev);
  if (!hooks_.attach(pair[1])) {
    std::lock_guard<std::mutex> lock(claims_mu_);
    claims_.erase(pair[1]);
    return false;
  }
  return true;
}

// Stops relaying: the library's end closes, `answer` (if any) follows what the client has not
// yet been sent, then the client's socket is shut for writing and lingers until it closes.
void EdgeRelay::Finish(Worker& w, Link& l, std::string answer) {
  if (l.outer >= 0) {
    ::epoll_ctl(w.ep, EPOLL_CTL_DEL, l.outer, nullptr);
    ::close(l.outer);
    l.outer = -1;
  }
  l.phase = Link::Phase::kDone;
  l.up.clear();
  l.down.append(answer);
}

void EdgeRelay::Close(Worker& w, Link& l) {
  if (l.dead) return;
  l.dead = true;
  if (l.outer >= 0) {
    ::epoll_ctl(w.ep, EPOLL_CTL_DEL, l.outer, nullptr);
    ::close(l.outer);
  }
  ::epoll_ctl(w.ep, EPOLL_CTL_DEL, l.client, nullptr);
  ::close(l.client);
  if (l.tls != nullptr) gnutls_deinit(l.tls);
  {
    std::lock_guard<std::mutex> lock(w.mu);
    w.links.erase(&l);
  }
  w.dead.push_back(&l);
  hooks_.closed(l.remote);
}

void EdgeRelay::Pump(Worker& w, Link& l, char* scratch, size_t scratch_size) {
  Step(w, l, scratch, scratch_size);
  if (l.dead) return;
  auto watch = [&](int fd, Link::End* end, bool want, bool& watched) {
    if (fd < 0 || want == watched) return;
    epoll_event ev{};
    ev.events = kReadEvents | (want ? static_cast<uint32_t>(EPOLLOUT) : 0u);
    ev.data.ptr = end;
    ::epoll_ctl(w.ep, EPOLL_CTL_MOD, fd, &ev);
    watched = want;
  };
  watch(l.client, &l.client_end, !l.down.empty() || (l.tls != nullptr && l.tls_wants_write),
        l.client_watched_out);
  watch(l.outer, &l.outer_end, !l.up.empty(), l.outer_watched_out);
}

// Moves what can move without waiting, in both directions, and decides what comes next. A
// read shorter than the buffer took all there was: with edge-triggered events, more bytes
// arriving later report themselves.
void EdgeRelay::Step(Worker& w, Link& l, char* scratch, size_t scratch_size) {
  if (l.phase == Link::Phase::kDone) {
    if (!FlushDown(l)) return Close(w, l);
    if (!l.down.empty()) return;
    if (l.linger_until_ms == 0) {
      if (l.tls != nullptr && l.handshaken && !l.bye_sent) {
        gnutls_bye(l.tls, GNUTLS_SHUT_WR);  // close_notify, best effort: the socket may be full
        l.bye_sent = true;
      }
      ::shutdown(l.client, SHUT_WR);
      l.linger_until_ms = NowMs() + kLingerMs;
    }
    for (;;) {  // what the client still sends is read and dropped until it closes
      const ssize_t n = ClientRecv(l, scratch, scratch_size);
      if (n > 0) continue;
      if (n < 0 && errno == EINTR) continue;
      if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) Close(w, l);
      return;
    }
  }

  // Client to library.
  if (l.outer >= 0 && !Flush(l.outer, l.up)) l.up.clear();  // the library closed: see below
  while (l.Reading() && l.up.empty() && !l.client_eof && l.client_readable) {
    const ssize_t n = ClientRecv(l, scratch, scratch_size);
    if (n > 0) {
      Take(l, std::string_view(scratch, static_cast<size_t>(n)));
      if (l.outer < 0 && l.framer.requests() > 0 && !Attach(w, l)) return Close(w, l);
      if (l.outer >= 0 && !Flush(l.outer, l.up)) l.up.clear();
      // (TLS hands over a record at a time: read on to EAGAIN.)
      if (l.tls == nullptr && static_cast<size_t>(n) < scratch_size && !l.client_hup) {
        l.client_readable = false;
      }
    } else if (n == 0) {
      l.client_eof = true;
    } else if (errno == EINTR) {
      continue;
    } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
      l.client_readable = false;
    } else {
      return Close(w, l);
    }
  }
  if (l.client_eof && l.outer < 0 && l.Reading()) {
    return Close(w, l);  // gone before a request was complete
  }
  if (l.client_eof && !l.outer_shut && l.up.empty() && l.phase != Link::Phase::kRefusing) {
    ::shutdown(l.outer, SHUT_WR);  // the library sees the end of input, as it would have
    l.outer_shut = true;
  }

  // Library to client. The count is read first: every byte of a counted reply is already in
  // the socket pair, so draining it below takes them all.
  const bool replies_out = l.replies == nullptr || l.replies->load() >= l.wait_for;
  if (!FlushDown(l)) return Close(w, l);
  // Before a refusal the socket pair is read to EAGAIN whatever the events said: a reply
  // counted may have arrived after the last event was taken, and must go out before it.
  bool drained =
      l.outer < 0 || l.outer_eof || (!l.outer_readable && l.phase != Link::Phase::kRefusing);
  while (l.down.empty() && !drained) {
    const ssize_t n = ::recv(l.outer, scratch, scratch_size, MSG_DONTWAIT);
    if (n > 0) {
      l.down.assign(scratch, static_cast<size_t>(n));
      if (!FlushDown(l)) return Close(w, l);
      drained = static_cast<size_t>(n) < scratch_size && !l.outer_hup;
      l.outer_readable = !drained;
    } else if (n == 0) {
      l.outer_eof = true;
      drained = true;
    } else if (errno == EINTR) {
      continue;
    } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
      l.outer_readable = false;
      drained = true;
    } else {
      l.outer_eof = true;  // a reset from the library: treated as its close
      drained = true;
    }
  }

  if (l.phase == Link::Phase::kRefusing) {
    if (drained && l.down.empty() && (replies_out || l.outer_eof)) {
      Finish(w, l, l.outer_eof && !replies_out ? std::string() : std::move(l.refusal));
      Step(w, l, scratch, scratch_size);
    }
    return;
  }
  if (l.outer_eof && l.down.empty()) {
    // The library closed (Connection: close, its timeout, a refused body): so does the client.
    Finish(w, l, "");
    Step(w, l, scratch, scratch_size);
  }
}

}  // namespace engram::server
