// engram_http_load: an open-loop HTTP/1.1 load generator for the server benchmark (issue 4).
//
// wrk keeps every connection busy: it measures latency at saturation, where the mean is fixed
// by the connection count (mean = connections / throughput) and says nothing about latency at
// a given request rate. This tool sends requests on a fixed schedule instead (request i at
// start + i / rate, round-robin over keep-alive connections) and measures each latency from the
// time its request was due, not from when it could be sent: a request that waited for its
// connection counts the wait ("coordinated omission" corrected, as wrk2 does). Debian has no
// wrk2; httperf paces connections, not requests, and reports no percentiles.
//
//   engram_http_load --url http://127.0.0.1:8080 --rate 5000 --duration 30 --connections 64
//                    --kind search|add --lines FILE [--users 100] [--key KEY] [--warmup S]
//                    [--trace FILE]
// --warmup S sends at the same rate for S seconds first and records none of those requests (as
// wrk2 leaves out its calibration period): after an idle spell the server's first requests
// of a burst are slower than its steady state, which is what the figures are about.
// Lines of FILE are queries (search) or memory texts (add), JSON-safe; each request takes a
// random line and user. --trace FILE writes one line per recorded request: the time it was due
// (ms from the end of the warm-up) and its latency (ms), to see when stalls happen. Prints a
// summary and one line "RESULT {json}" in the shape of the wrk scripts'
// (bench/server/common.lua), plus "rate" (offered) and p99.9.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <random>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  std::string host = "127.0.0.1";
  int port = 8080;
  double rate = 1000;
  double duration_s = 10;
  double warmup_s = 0;
  int connections = 64;
  std::string kind = "search";
  std::string lines_file;
  int users = 100;
  std::string key;
  std::string trace_file;
};

[[noreturn]] void Die(const std::string& message) {
  std::fprintf(stderr, "engram_http_load: %s\n", message.c_str());
  std::exit(2);
}

Options Parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    if (i + 1 >= argc) Die("missing value for " + flag);
    std::string value = argv[++i];
    if (flag == "--url") {
      const std::string prefix = "http://";
      if (value.rfind(prefix, 0) != 0) Die("--url must start with http://");
      std::string rest = value.substr(prefix.size());
      rest = rest.substr(0, rest.find('/'));
      const size_t colon = rest.rfind(':');
      if (colon == std::string::npos) Die("--url needs a port");
      o.host = rest.substr(0, colon);
      o.port = std::atoi(rest.c_str() + colon + 1);
      if (o.host == "localhost") o.host = "127.0.0.1";
    } else if (flag == "--rate") {
      o.rate = std::atof(value.c_str());
    } else if (flag == "--duration") {
      o.duration_s = std::atof(value.c_str());
    } else if (flag == "--warmup") {
      o.warmup_s = std::atof(value.c_str());
    } else if (flag == "--connections") {
      o.connections = std::atoi(value.c_str());
    } else if (flag == "--kind") {
      o.kind = value;
    } else if (flag == "--lines") {
      o.lines_file = value;
    } else if (flag == "--users") {
      o.users = std::atoi(value.c_str());
    } else if (flag == "--key") {
      o.key = value;
    } else if (flag == "--trace") {
      o.trace_file = value;
    } else {
      Die("unknown flag " + flag);
    }
  }
  if (o.rate <= 0 || o.duration_s <= 0 || o.connections <= 0 || o.users <= 0) {
    Die("--rate, --duration, --connections and --users must be positive");
  }
  if (o.warmup_s < 0) {
    Die("--warmup must not be negative");
  }
  if (o.kind != "search" && o.kind != "add") Die("--kind must be search or add");
  if (o.lines_file.empty()) Die("--lines is required");
  return o;
}

struct Connection {
  size_t index = 0;
  int fd = -1;
  bool busy = false;                      // a request is on the wire
  Clock::time_point due;                  // when the request on the wire was due
  std::deque<Clock::time_point> waiting;  // due times of requests not yet sent
  std::string in;                         // bytes of the response being read
};

class Load {
 public:
  explicit Load(const Options& o) : o_(o), random_(12345) {
    std::ifstream in(o.lines_file);
    for (std::string line; std::getline(in, line);) {
      if (!line.empty()) lines_.push_back(line);
    }
    if (lines_.empty()) Die("no lines in " + o.lines_file);
  }

  int Run() {
    epoll_ = epoll_create1(0);
    conns_.resize(static_cast<size_t>(o_.connections));
    for (size_t i = 0; i < conns_.size(); ++i) Connect(i);
    const auto start = Clock::now();
    measured_from_ = start + std::chrono::duration_cast<Clock::duration>(
                                 std::chrono::duration<double>(o_.warmup_s));
    const auto end = measured_from_ + std::chrono::duration_cast<Clock::duration>(
                                          std::chrono::duration<double>(o_.duration_s));
    const auto interval = std::chrono::duration<double>(1.0 / o_.rate);
    uint64_t scheduled = 0;
    std::vector<epoll_event> events(256);
    for (;;) {
      const auto now = Clock::now();
      // Every request due by now joins its connection's queue; idle connections send.
      while (true) {
        const auto due = start + std::chrono::duration_cast<Clock::duration>(interval * scheduled);
        if (due > now || due >= end) break;
        Connection& c = conns_[scheduled % conns_.size()];
        c.waiting.push_back(due);
        ++scheduled;
        if (due < measured_from_) ++warmup_requests_;
        if (!c.busy) Send(c);
      }
      const auto next = start + std::chrono::duration_cast<Clock::duration>(interval * scheduled);
      if (now >= end && InFlight() == 0) break;
      if (now >= end + std::chrono::seconds(10)) break;  // stragglers: counted as timeouts
      // Sleep until the next request is due (to the microsecond: a millisecond timeout would
      // spin at high rates and take a core from the server).
      timespec wait{0, 0};
      if (next > now && next < end) {
        const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(next - now).count();
        wait.tv_sec = static_cast<time_t>(ns / 1'000'000'000);
        wait.tv_nsec = static_cast<long>(ns % 1'000'000'000);
      } else if (now >= end) {
        wait.tv_nsec = 10'000'000;
      }
      const int n =
          epoll_pwait2(epoll_, events.data(), static_cast<int>(events.size()), &wait, nullptr);
      for (int i = 0; i < n; ++i) Readable(conns_[events[i].data.u64]);
    }
    const double seconds = std::chrono::duration<double>(Clock::now() - measured_from_).count();
    timeouts_ += InFlight();
    Report(scheduled - warmup_requests_, seconds);
    return 0;
  }

 private:
  void Connect(size_t i) {
    Connection& c = conns_[i];
    c.index = i;
    c.in.clear();
    c.fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(o_.port));
    if (inet_pton(AF_INET, o_.host.c_str(), &addr.sin_addr) != 1) Die("bad host " + o_.host);
    if (connect(c.fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
      Die(std::string("connect: ") + std::strerror(errno));
    }
    int one = 1;
    setsockopt(c.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    fcntl(c.fd, F_SETFL, fcntl(c.fd, F_GETFL) | O_NONBLOCK);
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = i;
    epoll_ctl(epoll_, EPOLL_CTL_ADD, c.fd, &ev);
  }

  void Reconnect(Connection& c) {
    epoll_ctl(epoll_, EPOLL_CTL_DEL, c.fd, nullptr);
    close(c.fd);
    Connect(c.index);
  }

  size_t InFlight() const {
    size_t n = 0;
    for (const Connection& c : conns_) n += (c.busy ? 1 : 0) + c.waiting.size();
    return n;
  }

  std::string Body() {
    const std::string& line = lines_[random_() % lines_.size()];
    const std::string user = "user" + std::to_string(random_() % static_cast<unsigned>(o_.users));
    if (o_.kind == "search") {
      return "{\"user_id\":\"" + user + "\",\"query\":\"" + line + "\",\"k\":10}";
    }
    return "{\"user_id\":\"" + user + "\",\"text\":\"" + line + "\",\"infer\":false}";
  }

  void Send(Connection& c) {
    c.due = c.waiting.front();
    c.waiting.pop_front();
    c.busy = true;
    const std::string body = Body();
    std::string req = std::string("POST ") + (o_.kind == "search" ? "/v1/search" : "/v1/memories") +
                      " HTTP/1.1\r\nHost: " + o_.host + "\r\nContent-Type: application/json\r\n";
    if (!o_.key.empty()) req += "Authorization: Bearer " + o_.key + "\r\n";
    req += "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
    size_t sent = 0;
    while (sent < req.size()) {  // small requests: the socket buffer takes them whole
      const ssize_t n = send(c.fd, req.data() + sent, req.size() - sent, MSG_NOSIGNAL);
      if (n < 0 && errno == EAGAIN) continue;
      if (n <= 0) Die(std::string("send: ") + std::strerror(errno));
      sent += static_cast<size_t>(n);
    }
  }

  void Readable(Connection& c) {
    char buf[65536];
    for (;;) {
      const ssize_t n = recv(c.fd, buf, sizeof buf, 0);
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
      if (n == 0 && !c.busy) {  // closed while idle (keep-alive timeout): open another
        Reconnect(c);
        return;
      }
      if (n <= 0) Die("the server closed a connection with a request on it");
      c.in.append(buf, static_cast<size_t>(n));
    }
    for (;;) {  // one response at a time (no pipelining)
      const size_t head_end = c.in.find("\r\n\r\n");
      if (head_end == std::string::npos) return;
      size_t length = 0;
      std::string head = c.in.substr(0, head_end);
      for (char& ch : head) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      const size_t cl = head.find("content-length:");
      if (cl != std::string::npos) length = std::strtoul(head.c_str() + cl + 15, nullptr, 10);
      if (c.in.size() < head_end + 4 + length) return;
      const int status = std::atoi(c.in.c_str() + 9);  // "HTTP/1.1 200"
      if (c.due >= measured_from_) {                   // warm-up requests are not recorded
        if (status < 200 || status >= 300) ++non2xx_;
        latencies_us_.push_back(static_cast<float>(
            std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - c.due).count()));
        if (!o_.trace_file.empty()) {
          due_us_.push_back(static_cast<float>(
              std::chrono::duration_cast<std::chrono::microseconds>(c.due - measured_from_)
                  .count()));
        }
      }
      c.in.erase(0, head_end + 4 + length);
      c.busy = false;
      if (head.find("connection: close") != std::string::npos) Reconnect(c);  // keep-alive max
      if (!c.waiting.empty()) Send(c);
      if (c.in.empty()) return;
    }
  }

  void Report(uint64_t scheduled, double seconds) {
    if (!o_.trace_file.empty()) {
      FILE* f = std::fopen(o_.trace_file.c_str(), "w");
      if (f == nullptr) Die("cannot write " + o_.trace_file);
      for (size_t i = 0; i < due_us_.size(); ++i) {
        std::fprintf(f, "%.3f %.3f\n", due_us_[i] / 1000.0, latencies_us_[i] / 1000.0);
      }
      std::fclose(f);
    }
    std::vector<float>& l = latencies_us_;
    std::sort(l.begin(), l.end());
    auto pct = [&](double p) -> double {
      if (l.empty()) return 0;
      return l[std::min(l.size() - 1,
                        static_cast<size_t>(p / 100.0 * static_cast<double>(l.size())))];
    };
    double mean = 0;
    for (float x : l) mean += x;
    if (!l.empty()) mean /= static_cast<double>(l.size());
    std::printf(
        "%s at %.0f req/s offered over %d connections: %zu done in %.1f s (%.0f req/s), "
        "%llu not 2xx, %llu unanswered\n",
        o_.kind.c_str(), o_.rate, o_.connections, l.size(), seconds,
        static_cast<double>(l.size()) / seconds, static_cast<unsigned long long>(non2xx_),
        static_cast<unsigned long long>(timeouts_));
    std::printf("latency from due time, ms: p50 %.2f p90 %.2f p99 %.2f p99.9 %.2f max %.2f\n",
                pct(50) / 1000, pct(90) / 1000, pct(99) / 1000, pct(99.9) / 1000,
                l.empty() ? 0.0 : l.back() / 1000.0);
    std::printf(
        "RESULT {\"requests\":%zu,\"duration_us\":%.0f,\"non2xx\":%llu,\"connect\":0,"
        "\"read\":0,\"write\":0,\"timeout\":%llu,\"p50_us\":%.0f,\"p90_us\":%.0f,"
        "\"p99_us\":%.0f,\"p999_us\":%.0f,\"max_us\":%.0f,\"mean_us\":%.1f,"
        "\"rate\":%.0f,\"scheduled\":%llu}\n",
        l.size(), seconds * 1e6, static_cast<unsigned long long>(non2xx_),
        static_cast<unsigned long long>(timeouts_), pct(50), pct(90), pct(99), pct(99.9),
        l.empty() ? 0.0 : static_cast<double>(l.back()), mean, o_.rate,
        static_cast<unsigned long long>(scheduled));
  }

  Options o_;
  std::mt19937_64 random_;
  std::vector<std::string> lines_;
  std::vector<Connection> conns_;
  int epoll_ = -1;
  std::vector<float> latencies_us_;
  std::vector<float> due_us_;  // --trace: when each recorded request was due, in order of answer
  Clock::time_point measured_from_;  // requests due before this are the warm-up's
  uint64_t warmup_requests_ = 0;
  uint64_t non2xx_ = 0;
  uint64_t timeouts_ = 0;
};

}  // namespace

int main(int argc, char** argv) {
  const Options options = Parse(argc, argv);
  Load load(options);
  return load.Run();
}
