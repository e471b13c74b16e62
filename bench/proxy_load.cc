// engram_proxy_load: the fake upstream and the client of scripts/proxy_bench.py, which measures
// what the chat proxy (`engram serve --upstream-url`) adds to streamed completions.
//
// The script's own harness is Python asyncio. On the 2-core machine the benchmark runs on, its
// upstream and client took most of a core between them, and their event loops' scheduling
// noise (a chunk stamped, then written a millisecond later; a read returned, then timed after
// other coroutines ran) was larger than the server's share of the tail figures. This tool does
// the same exchange with one epoll loop per process and stamps times right next to the system
// calls: the upstream right before the write() of a chunk, the client right after the read()
// that completed it.
//
//   engram_proxy_load upstream --chunks N --gap-ms G
// Listens on 127.0.0.1, an ephemeral port printed as the first line of stdout, and serves until
// killed. Each request on a keep-alive connection is answered with a chunked SSE stream of N
// events, one every G ms (the first at once), then `data: [DONE]` one gap after the last. Each
// event carries "sent_ns", the CLOCK_REALTIME ns of its write; the first one also echoes the
// request's "bench_sent_ns" and gives "arrived_ns", when the request head had arrived.
//
//   engram_proxy_load client --port P [--streams 200] [--requests 5] [--users 200]
//                            [--stagger-ms 0] [--key bench] [--seed 11] [--raw FILE]
// Opens --streams connections (each at a random moment within --stagger-ms), each sending
// --requests streamed chat completions one after the other, and prints one JSON line: before
// the first upstream byte (arrived_ns - bench_sent_ns, per request) and per chunk (read time -
// sent_ns), in the shape of proxy_bench.py's summary(), plus the share of chunks over 1, 5 and
// 10 ms. Times are CLOCK_REALTIME: comparable across the processes of one machine. A stream
// stops at its first failed response (not 200, not a stream, or cut off), as the Python
// harness's did, so "errors" counts those streams plus every error event. --raw FILE writes
// every chunk as "the time it was written upstream, its latency" (ns), one a line.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <optional>
#include <queue>
#include <random>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace {

[[noreturn]] void Die(const std::string& message) {
  std::fprintf(stderr, "engram_proxy_load: %s\n", message.c_str());
  std::exit(2);
}

int64_t NowNs(clockid_t clock) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

int64_t RealtimeNs() { return NowNs(CLOCK_REALTIME); }
int64_t MonotonicNs() { return NowNs(CLOCK_MONOTONIC); }

// Waits for events until the monotonic time `due_ns` (forever when negative), to the
// microsecond: a millisecond timeout would round every chunk gap up.
int WaitEvents(int epoll, std::vector<epoll_event>& events, int64_t due_ns) {
  timespec wait{0, 0};
  timespec* timeout = nullptr;
  if (due_ns >= 0) {
    const int64_t ns = std::max<int64_t>(0, due_ns - MonotonicNs());
    wait.tv_sec = static_cast<time_t>(ns / 1'000'000'000);
    wait.tv_nsec = static_cast<long>(ns % 1'000'000'000);
    timeout = &wait;
  }
  const int n =
      epoll_pwait2(epoll, events.data(), static_cast<int>(events.size()), timeout, nullptr);
  if (n < 0 && errno != EINTR) Die(std::string("epoll_pwait2: ") + std::strerror(errno));
  return std::max(n, 0);
}

void Watch(int epoll, int op, int fd, uint64_t id, bool writable) {
  epoll_event ev{};
  ev.events = EPOLLIN;
  if (writable) ev.events |= EPOLLOUT;
  ev.data.u64 = id;
  epoll_ctl(epoll, op, fd, &ev);
}

void SetNoDelay(int fd) {  // as asyncio does for its TCP transports
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

std::string Lower(std::string s) {
  for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

size_t ContentLength(const std::string& lower_head) {
  const size_t at = lower_head.find("content-length:");
  return at == std::string::npos ? 0 : std::strtoull(lower_head.c_str() + at + 15, nullptr, 10);
}

// The integer after `"key":` in a flat JSON text; hand parsing of the three fields this tool
// reads keeps it free of a JSON library on the timed path.
std::optional<int64_t> JsonInteger(const std::string& text, const std::string& key) {
  const std::string quoted = "\"" + key + "\"";
  size_t at = text.find(quoted);
  if (at == std::string::npos) return std::nullopt;
  at += quoted.size();
  while (at < text.size() && (text[at] == ' ' || text[at] == ':')) ++at;
  char* end = nullptr;
  const long long value = std::strtoll(text.c_str() + at, &end, 10);
  if (end == text.c_str() + at) return std::nullopt;
  return value;
}

std::string ChunkOf(const std::string& data) {
  char size[24];
  std::snprintf(size, sizeof size, "%zx\r\n", data.size());
  return size + data + "\r\n";
}

// Parses `--flag value` pairs after the mode into a map, failing on flags not in `known`.
std::unordered_map<std::string, std::string> Flags(int argc, char** argv,
                                                   const std::vector<std::string>& known) {
  std::unordered_map<std::string, std::string> flags;
  for (int i = 2; i < argc; i += 2) {
    const std::string flag = argv[i];
    if (std::find(known.begin(), known.end(), flag) == known.end()) Die("unknown flag " + flag);
    if (i + 1 >= argc) Die("missing value for " + flag);
    flags[flag] = argv[i + 1];
  }
  return flags;
}

// ---- the fake upstream --------------------------------------------------------------------

struct UpstreamOptions {
  int chunks = 20;
  double gap_ms = 50;
};

struct UpstreamConnection {
  int fd = -1;
  std::string in;           // request bytes not yet answered
  std::string out;          // response bytes the socket has not taken yet
  bool want_write = false;  // EPOLLOUT is on: `out` waits for room
  bool streaming = false;   // a response is under way; further requests wait for its end
  int next_event = 0;       // 0..chunks-1: that chunk next; chunks: [DONE]
  int64_t arrived_ns = 0;   // when the head of the request in `in` was complete; 0 not yet
  int64_t bench_sent_ns = 0;
};

class Upstream {
 public:
  explicit Upstream(const UpstreamOptions& o)
      : o_(o), gap_ns_(static_cast<int64_t>(o.gap_ms * 1e6)) {}

  [[noreturn]] void Run() {
    epoll_ = epoll_create1(0);
    Listen();
    std::vector<epoll_event> events(1024);
    for (;;) {
      const int n = WaitEvents(epoll_, events, timers_.empty() ? -1 : timers_.top().first);
      for (int i = 0; i < n; ++i) {
        const uint64_t id = events[i].data.u64;
        if (id == kListener) {
          Accept();
          continue;
        }
        if ((events[i].events & EPOLLOUT) != 0) Flush(id);
        if ((events[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR)) != 0) Readable(id);
      }
      const int64_t now = MonotonicNs();
      while (!timers_.empty() && timers_.top().first <= now) {
        const uint64_t id = timers_.top().second;
        timers_.pop();
        if (conns_.count(id) != 0) WriteEvent(id);  // else closed in the meantime
      }
    }
  }

 private:
  static constexpr uint64_t kListener = 0;

  void Listen() {
    listener_ = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    if (bind(listener_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
        listen(listener_, SOMAXCONN) != 0 ||
        getsockname(listener_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
      Die(std::string("listen: ") + std::strerror(errno));
    }
    Watch(epoll_, EPOLL_CTL_ADD, listener_, kListener, false);
    std::printf("%d\n", ntohs(addr.sin_port));
    std::fflush(stdout);
  }

  void Accept() {
    for (;;) {
      const int fd = accept4(listener_, nullptr, nullptr, SOCK_NONBLOCK);
      if (fd < 0) return;  // EAGAIN: all taken (or a connection reset before its accept)
      SetNoDelay(fd);
      const uint64_t id = next_id_++;
      conns_[id].fd = fd;
      Watch(epoll_, EPOLL_CTL_ADD, fd, id, false);
    }
  }

  void Close(uint64_t id) {
    const auto it = conns_.find(id);
    if (it == conns_.end()) return;
    epoll_ctl(epoll_, EPOLL_CTL_DEL, it->second.fd, nullptr);
    close(it->second.fd);
    conns_.erase(it);  // its pending timer, if any, finds no connection
  }

  void Readable(uint64_t id) {
    const auto it = conns_.find(id);
    if (it == conns_.end()) return;
    UpstreamConnection& c = it->second;
    char buf[16384];
    for (;;) {
      const ssize_t n = recv(c.fd, buf, sizeof buf, 0);
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
      if (n <= 0) {
        Close(id);
        return;
      }
      const int64_t now = RealtimeNs();
      c.in.append(buf, static_cast<size_t>(n));
      if (!c.streaming) StartResponse(id, now);
      if (conns_.count(id) == 0) return;
    }
  }

  // Starts answering the request at the front of `in` once it is whole. `now` is the time the
  // bytes in `in` had arrived: the arrival of the head if it is complete by then.
  void StartResponse(uint64_t id, int64_t now) {
    UpstreamConnection& c = conns_[id];
    const size_t head_end = c.in.find("\r\n\r\n");
    if (head_end == std::string::npos) return;
    if (c.arrived_ns == 0) c.arrived_ns = now;
    const size_t length = ContentLength(Lower(c.in.substr(0, head_end)));
    if (c.in.size() < head_end + 4 + length) return;
    c.bench_sent_ns = JsonInteger(c.in.substr(head_end + 4, length), "bench_sent_ns").value_or(0);
    c.in.erase(0, head_end + 4 + length);
    c.streaming = true;
    c.next_event = 0;
    c.out +=
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
        "Transfer-Encoding: chunked\r\n\r\n";
    WriteEvent(id);
  }

  // Writes the connection's next event, then sleeps one gap, as the Python upstream did (so
  // the gaps are measured from each write, and [DONE] comes one gap after the last chunk).
  void WriteEvent(uint64_t id) {
    UpstreamConnection& c = conns_[id];
    if (c.next_event == o_.chunks) {
      c.out += ChunkOf("data: [DONE]\n\n") + "0\r\n\r\n";
      c.streaming = false;
      c.arrived_ns = 0;
      Flush(id);
      // A request that came during the stream is answered now, and arrived (for the figures)
      // now: the Python upstream only read it at this point too.
      if (conns_.count(id) != 0) StartResponse(id, RealtimeNs());
      return;
    }
    char event[256];
    const char* kDelta = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"word \"}}]";
    const int64_t sent_ns = RealtimeNs();  // right before the write, as the figures need
    if (c.next_event == 0) {
      std::snprintf(event, sizeof event,
                    "%s,\"sent_ns\":%lld,\"bench_sent_ns\":%lld,\"arrived_ns\":%lld}\n\n", kDelta,
                    static_cast<long long>(sent_ns), static_cast<long long>(c.bench_sent_ns),
                    static_cast<long long>(c.arrived_ns));
    } else {
      std::snprintf(event, sizeof event, "%s,\"sent_ns\":%lld}\n\n", kDelta,
                    static_cast<long long>(sent_ns));
    }
    c.out += ChunkOf(event);
    ++c.next_event;
    Flush(id);
    if (conns_.count(id) != 0) timers_.emplace(MonotonicNs() + gap_ns_, id);
  }

  // Sends what the socket takes of `out`; the rest waits for EPOLLOUT.
  void Flush(uint64_t id) {
    const auto it = conns_.find(id);
    if (it == conns_.end()) return;
    UpstreamConnection& c = it->second;
    size_t sent = 0;
    while (sent < c.out.size()) {
      const ssize_t n = send(c.fd, c.out.data() + sent, c.out.size() - sent, MSG_NOSIGNAL);
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
      if (n <= 0) {
        Close(id);
        return;
      }
      sent += static_cast<size_t>(n);
    }
    c.out.erase(0, sent);
    if (c.want_write != !c.out.empty()) {
      c.want_write = !c.out.empty();
      Watch(epoll_, EPOLL_CTL_MOD, c.fd, id, c.want_write);
    }
  }

  using Timer = std::pair<int64_t, uint64_t>;  // (monotonic due ns, connection id)

  UpstreamOptions o_;
  int64_t gap_ns_;
  int epoll_ = -1;
  int listener_ = -1;
  uint64_t next_id_ = kListener + 1;
  std::unordered_map<uint64_t, UpstreamConnection> conns_;
  std::priority_queue<Timer, std::vector<Timer>, std::greater<Timer>> timers_;
};

UpstreamOptions ParseUpstream(int argc, char** argv) {
  auto flags = Flags(argc, argv, {"--chunks", "--gap-ms"});
  UpstreamOptions o;
  if (flags.count("--chunks")) o.chunks = std::atoi(flags["--chunks"].c_str());
  if (flags.count("--gap-ms")) o.gap_ms = std::atof(flags["--gap-ms"].c_str());
  if (o.chunks < 0 || o.gap_ms < 0) Die("--chunks and --gap-ms must not be negative");
  return o;
}

// ---- the client ---------------------------------------------------------------------------

struct ClientOptions {
  int port = 0;
  int streams = 200;
  int requests = 5;
  int users = 200;
  double stagger_ms = 0;
  std::string key = "bench";
  uint64_t seed = 11;
  std::string raw_file;
};

// Where a stream is in its exchange. Every state from kHead on is inside a response.
enum class StreamState {
  kWaiting,     // not started (staggered)
  kConnecting,  // connect() under way
  kHead,        // reading the response head
  kChunkSize,   // reading a chunk-size line
  kChunkData,   // reading `remaining` bytes of chunk data
  kChunkEnd,    // reading the CRLF after chunk data
  kTrailer,     // reading the lines after the 0-size chunk, up to an empty one
  kBody,        // reading `remaining` bytes of a Content-Length body
  kDone,        // finished or failed; the socket is closed
};

struct Stream {
  size_t index = 0;  // in Client::streams_, and the epoll data of its socket
  int fd = -1;
  StreamState state = StreamState::kWaiting;
  int requests_done = 0;
  std::string in;           // bytes read, not yet parsed
  std::string out;          // request bytes the socket has not taken yet
  bool want_write = false;  // EPOLLOUT is on
  bool streamed = false;    // this response is a 200 with a chunked body
  std::string failure;      // set when the response is not a stream: status line, then body
  std::string events;       // decoded body not yet split into SSE events
  size_t remaining = 0;     // of chunk data (kChunkData) or of the body (kBody)
};

class Client {
 public:
  explicit Client(const ClientOptions& o) : o_(o), streams_(static_cast<size_t>(o.streams)) {}

  int Run() {
    epoll_ = epoll_create1(0);
    ScheduleStarts();
    std::vector<epoll_event> events(1024);
    size_t next_start = 0;
    while (active_ > 0) {
      const int64_t now = MonotonicNs();
      while (next_start < starts_.size() && starts_[next_start].first <= now) {
        Connect(starts_[next_start++].second);
      }
      const int64_t due = next_start < starts_.size() ? starts_[next_start].first : -1;
      const int n = WaitEvents(epoll_, events, due);
      for (int i = 0; i < n; ++i) {
        Stream& s = streams_[events[i].data.u64];
        if (s.state == StreamState::kConnecting) {
          Connected(s);
        } else if (s.state != StreamState::kDone) {
          if ((events[i].events & EPOLLOUT) != 0) Flush(s);
          const bool readable = (events[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR)) != 0;
          if (readable && s.state != StreamState::kDone) Readable(s);  // a failed send closed it
        }
      }
    }
    Report();
    return 0;
  }

 private:
  // Stream i starts at a uniformly random moment within --stagger-ms (seeded: the same starts
  // on every run and phase).
  void ScheduleStarts() {
    std::mt19937_64 random(o_.seed);
    std::uniform_real_distribution<double> delay_ms(0, o_.stagger_ms);
    const int64_t start = MonotonicNs();
    for (size_t i = 0; i < streams_.size(); ++i) {
      const double ms = o_.stagger_ms > 0 ? delay_ms(random) : 0;
      starts_.emplace_back(start + static_cast<int64_t>(ms * 1e6), i);
    }
    std::sort(starts_.begin(), starts_.end());
    active_ = streams_.size();
  }

  void Connect(size_t i) {
    Stream& s = streams_[i];
    s.fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    SetNoDelay(s.fd);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(static_cast<uint16_t>(o_.port));
    s.index = i;
    s.state = StreamState::kConnecting;
    s.want_write = true;  // EPOLLOUT tells when the connect is done
    Watch(epoll_, EPOLL_CTL_ADD, s.fd, i, true);
    if (connect(s.fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 &&
        errno != EINPROGRESS) {
      Fail(s, std::string("connect: ") + std::strerror(errno));
    }
  }

  void Connected(Stream& s) {
    int error = 0;
    socklen_t len = sizeof error;
    getsockopt(s.fd, SOL_SOCKET, SO_ERROR, &error, &len);
    if (error != 0) {
      Fail(s, std::string("connect: ") + std::strerror(error));
      return;
    }
    SendRequest(s);
  }

  void SendRequest(Stream& s) {
    const int64_t sent_ns = RealtimeNs();
    const std::string body =
        "{\"model\":\"bench\",\"user\":\"u" +
        std::to_string(s.index % static_cast<size_t>(o_.users)) +
        "\",\"stream\":true,\"bench_sent_ns\":" + std::to_string(sent_ns) +
        ",\"messages\":[{\"role\":\"user\",\"content\":\"what did I say about my trip?\"}]}";
    s.out +=
        "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + o_.key +
        "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
        "\r\n\r\n" + body;
    s.state = StreamState::kHead;
    s.streamed = false;
    s.failure.clear();
    s.events.clear();
    Flush(s);
  }

  void Flush(Stream& s) {
    size_t sent = 0;
    while (sent < s.out.size()) {
      const ssize_t n = send(s.fd, s.out.data() + sent, s.out.size() - sent, MSG_NOSIGNAL);
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
      if (n <= 0) {
        Fail(s, std::string("send: ") + std::strerror(errno));
        return;
      }
      sent += static_cast<size_t>(n);
    }
    s.out.erase(0, sent);
    if (s.want_write != !s.out.empty()) {
      s.want_write = !s.out.empty();
      Watch(epoll_, EPOLL_CTL_MOD, s.fd, s.index, s.want_write);
    }
  }

  // Reads what the socket has, parsing after each read() with the time it returned: an event
  // is timed by the read that completed it, not by the last read of the batch.
  void Readable(Stream& s) {
    char buf[65536];
    for (;;) {
      const ssize_t n = recv(s.fd, buf, sizeof buf, 0);
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
      const int64_t received_ns = RealtimeNs();
      if (n <= 0) {
        Fail(s, n == 0 ? "connection closed mid-response"
                       : std::string("recv: ") + std::strerror(errno));
        return;
      }
      s.in.append(buf, static_cast<size_t>(n));
      if (!Parse(s, received_ns)) return;
    }
  }

  // Consumes what `in` holds of the response; false when the stream ended (done or failed).
  bool Parse(Stream& s, int64_t received_ns) {
    for (;;) {
      if (s.state == StreamState::kHead) {
        if (!ParseHead(s)) return true;
      } else if (s.state == StreamState::kChunkSize || s.state == StreamState::kTrailer) {
        const size_t eol = s.in.find("\r\n");
        if (eol == std::string::npos) return true;
        const std::string line = s.in.substr(0, eol);
        s.in.erase(0, eol + 2);
        if (s.state == StreamState::kTrailer) {
          if (line.empty()) return EndResponse(s);
        } else {
          s.remaining = std::strtoull(line.c_str(), nullptr, 16);
          s.state = s.remaining == 0 ? StreamState::kTrailer : StreamState::kChunkData;
        }
      } else if (s.state == StreamState::kChunkEnd) {
        if (s.in.size() < 2) return true;
        s.in.erase(0, 2);
        s.state = StreamState::kChunkSize;
      } else {  // kChunkData, kBody (which may be empty)
        if (s.remaining > 0 && s.in.empty()) return true;
        const size_t take = std::min(s.remaining, s.in.size());
        (s.streamed ? s.events : s.failure).append(s.in, 0, take);
        s.in.erase(0, take);
        s.remaining -= take;
        if (s.streamed) SplitEvents(s, received_ns);
        if (s.remaining > 0) return true;
        if (s.state == StreamState::kBody) return EndResponse(s);
        s.state = StreamState::kChunkEnd;
      }
    }
  }

  // Reads the head if it is whole (false if not yet): a 200 with a chunked body is a stream;
  // anything else (an error reply, chunked or with a Content-Length) is kept whole as the
  // stream's failure.
  bool ParseHead(Stream& s) {
    const size_t head_end = s.in.find("\r\n\r\n");
    if (head_end == std::string::npos) return false;
    const std::string status = s.in.substr(0, s.in.find("\r\n"));
    const std::string head = Lower(s.in.substr(0, head_end));
    s.in.erase(0, head_end + 4);
    const bool chunked = head.find("transfer-encoding: chunked") != std::string::npos;
    s.streamed = chunked && status.find(" 200 ") != std::string::npos;
    if (!s.streamed) s.failure = status + ": ";
    s.remaining = chunked ? 0 : ContentLength(head);
    s.state = chunked ? StreamState::kChunkSize : StreamState::kBody;
    return true;
  }

  void SplitEvents(Stream& s, int64_t received_ns) {
    size_t start = 0;
    for (size_t end; (end = s.events.find("\n\n", start)) != std::string::npos; start = end + 2) {
      const std::string event = s.events.substr(start, end - start);
      if (event.rfind("data: ", 0) == 0) Event(event.substr(6), received_ns);
    }
    s.events.erase(0, start);
  }

  void Event(const std::string& data, int64_t received_ns) {
    if (data == "[DONE]") return;
    const std::optional<int64_t> sent_ns = JsonInteger(data, "sent_ns");
    if (data.find("\"error\"") != std::string::npos || !sent_ns) {
      Error(data);
      return;
    }
    per_chunk_ns_.push_back(received_ns - *sent_ns);
    chunk_sent_ns_.push_back(*sent_ns);
    if (const std::optional<int64_t> arrived_ns = JsonInteger(data, "arrived_ns")) {
      pre_ns_.push_back(*arrived_ns - JsonInteger(data, "bench_sent_ns").value_or(0));
    }
  }

  // After a whole response: the next request, or the end of the stream.
  bool EndResponse(Stream& s) {
    if (!s.streamed) {
      Fail(s, s.failure);
      return false;
    }
    if (++s.requests_done < o_.requests) {
      SendRequest(s);
      return s.state != StreamState::kDone;
    }
    Finish(s);
    return false;
  }

  void Error(const std::string& text) {
    if (errors_ == 0) first_error_ = text;
    ++errors_;
  }

  void Fail(Stream& s, const std::string& why) {
    Error(why);
    Finish(s);
  }

  void Finish(Stream& s) {
    epoll_ctl(epoll_, EPOLL_CTL_DEL, s.fd, nullptr);
    close(s.fd);
    s.fd = -1;
    s.state = StreamState::kDone;
    --active_;
  }

  void Report();

  ClientOptions o_;
  std::vector<Stream> streams_;
  std::vector<std::pair<int64_t, size_t>> starts_;  // (monotonic ns, stream), in time order
  size_t active_ = 0;                               // streams not done
  int epoll_ = -1;
  std::vector<int64_t> pre_ns_;
  std::vector<int64_t> per_chunk_ns_;
  std::vector<int64_t> chunk_sent_ns_;  // when each chunk was written upstream, for --raw
  uint64_t errors_ = 0;
  std::string first_error_;
};

std::string JsonString(const std::string& text) {
  std::string out = "\"";
  for (const char ch : text.substr(0, 500)) {
    const auto byte = static_cast<unsigned char>(ch);
    if (ch == '"' || ch == '\\') {
      out += '\\';
      out += ch;
    } else if (byte < 0x20 || byte >= 0x7f) {  // bytes as Latin-1: the line stays valid JSON
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", byte);
      out += escaped;
    } else {
      out += ch;
    }
  }
  return out + "\"";
}

// p50/p99/max in ms by proxy_bench.py's pct() rule: the sorted value at index
// min(n - 1, int(p * n)); null for no values (where Python has NaN, which is not JSON).
std::string Percentiles(std::vector<int64_t> ns) {
  std::sort(ns.begin(), ns.end());
  std::string out = "{";
  static const std::pair<const char*, double> kShares[] = {
      {"p50", 0.5}, {"p99", 0.99}, {"max", 1.0}};
  for (const auto& [name, p] : kShares) {
    char value[64] = "null";
    if (!ns.empty()) {
      const size_t n = ns.size();
      const size_t at = std::min(n - 1, static_cast<size_t>(p * static_cast<double>(n)));
      std::snprintf(value, sizeof value, "%.6f", static_cast<double>(ns[at]) / 1e6);
    }
    out += std::string(out.size() > 1 ? "," : "") + "\"" + name + "\":" + value;
  }
  return out + "}";
}

// The share of chunks over 1, 5 and 10 ms: how much of the tail is past each bound.
std::string SharesOver(const std::vector<int64_t>& ns) {
  std::string out = "{";
  for (const int ms : {1, 5, 10}) {
    char value[64] = "null";
    if (!ns.empty()) {
      const auto over = std::count_if(ns.begin(), ns.end(),
                                      [&](int64_t v) { return v > int64_t{ms} * 1'000'000; });
      std::snprintf(value, sizeof value, "%.6f",
                    static_cast<double>(over) / static_cast<double>(ns.size()));
    }
    out += std::string(out.size() > 1 ? "," : "") + "\"" + std::to_string(ms) + "\":" + value;
  }
  return out + "}";
}

void Client::Report() {
  if (!o_.raw_file.empty()) {
    FILE* f = std::fopen(o_.raw_file.c_str(), "w");
    if (f == nullptr) Die("cannot write " + o_.raw_file);
    // "sent_ns latency_ns": when a delay happened tells a stall of everything from one stream's
    for (size_t i = 0; i < per_chunk_ns_.size(); ++i) {
      std::fprintf(f, "%lld %lld\n", static_cast<long long>(chunk_sent_ns_[i]),
                   static_cast<long long>(per_chunk_ns_[i]));
    }
    std::fclose(f);
  }
  std::printf(
      "{\"requests\":%zu,\"chunks\":%zu,\"errors\":%llu,\"first_error\":%s,\"pre_ms\":%s,"
      "\"chunk_ms\":%s,\"chunk_ms_over\":%s}\n",
      pre_ns_.size(), per_chunk_ns_.size(), static_cast<unsigned long long>(errors_),
      errors_ == 0 ? "null" : JsonString(first_error_).c_str(), Percentiles(pre_ns_).c_str(),
      Percentiles(per_chunk_ns_).c_str(), SharesOver(per_chunk_ns_).c_str());
  std::fflush(stdout);
}

ClientOptions ParseClient(int argc, char** argv) {
  auto flags = Flags(
      argc, argv,
      {"--port", "--streams", "--requests", "--users", "--stagger-ms", "--key", "--seed", "--raw"});
  const auto integer = [&](const char* flag, long long fallback) {
    return flags.count(flag) != 0 ? std::atoll(flags[flag].c_str()) : fallback;
  };
  ClientOptions o;
  o.port = static_cast<int>(integer("--port", 0));
  o.streams = static_cast<int>(integer("--streams", o.streams));
  o.requests = static_cast<int>(integer("--requests", o.requests));
  o.users = static_cast<int>(integer("--users", o.users));
  o.seed = static_cast<uint64_t>(integer("--seed", static_cast<long long>(o.seed)));
  if (flags.count("--stagger-ms") != 0) o.stagger_ms = std::atof(flags["--stagger-ms"].c_str());
  if (flags.count("--key") != 0) o.key = flags["--key"];
  if (flags.count("--raw") != 0) o.raw_file = flags["--raw"];
  if (o.port <= 0 || o.port > 65535) Die("--port is required (1-65535)");
  if (o.streams <= 0 || o.requests <= 0 || o.users <= 0 || o.stagger_ms < 0) {
    Die("--streams, --requests and --users must be positive, --stagger-ms not negative");
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  signal(SIGPIPE, SIG_IGN);  // a peer gone mid-write is an error to count, not a crash
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "upstream") {
    Upstream upstream(ParseUpstream(argc, argv));
    upstream.Run();
  }
  if (mode == "client") {
    Client client(ParseClient(argc, argv));
    return client.Run();
  }
  Die("usage: engram_proxy_load upstream --chunks N --gap-ms G | client --port P ...");
}
