#include "embed/stream_pump.h"

#include <curl/curl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <exception>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

namespace engram::embed {
namespace {

using Clock = std::chrono::steady_clock;

// The longest the pump sleeps with nothing to do; a Start, a socket, libcurl's timer or a
// stream's deadline wakes it sooner.
constexpr int kIdlePollMs = 1000;

void InitCurlOnce() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() &&
         (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' || s.back() == '\n')) {
    s.remove_suffix(1);
  }
  return s;
}

struct Transfer {
  CURL* easy = nullptr;
  curl_slist* headers = nullptr;
  HttpRequest request;  // owns the body libcurl sends (CURLOPT_POSTFIELDS does not copy)
  HttpStreamHandler handler;
  std::function<void(Status)> done;
  std::vector<std::pair<std::string, std::string>> response_headers;
  Clock::time_point last_bytes = Clock::now();  // the start, then each header line or body piece
  bool responded = false;
  bool silent = false;     // no byte for request.timeout_ms: ended by the pump
  bool abandoned = false;  // a handler said stop (or threw): the end is the caller's, not an error
  Status raised;           // what a handler threw, if it did
  char error[CURL_ERROR_SIZE] = {};

  ~Transfer() {
    if (easy != nullptr) curl_easy_cleanup(easy);
    if (headers != nullptr) curl_slist_free_all(headers);
  }

  // Runs a handler; an exception must not cross libcurl's C frames, so it abandons the stream.
  template <typename F>
  bool Call(F&& f) {
    try {
      return f();
    } catch (const std::exception& e) {
      raised = Status::Internal(std::string("a stream handler raised: ") + e.what());
    } catch (...) {
      raised = Status::Internal("a stream handler raised an unknown exception");
    }
    return false;
  }
};

size_t OnHeader(char* data, size_t size, size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const size_t n = size * count;
  const std::string_view line(data, n);
  t->last_bytes = Clock::now();
  if (t->responded) return n;         // trailers of a chunked body
  if (line.rfind("HTTP/", 0) == 0) {  // a status line: an interim reply's headers are dropped
    t->response_headers.clear();
    return n;
  }
  if (Trim(line).empty()) {  // the end of one reply's headers
    long status = 0;
    curl_easy_getinfo(t->easy, CURLINFO_RESPONSE_CODE, &status);
    if (status >= 100 && status < 200) return n;  // 100 Continue and the like: more follows
    t->responded = true;
    const bool go_on = t->Call(
        [&] { return t->handler.on_response(static_cast<int>(status), t->response_headers); });
    if (go_on) return n;
    t->abandoned = true;
    return 0;  // libcurl ends the transfer (CURLE_WRITE_ERROR)
  }
  if (size_t colon = line.find(':'); colon != std::string_view::npos) {
    t->response_headers.emplace_back(std::string(Trim(line.substr(0, colon))),
                                     std::string(Trim(line.substr(colon + 1))));
  }
  return n;
}

size_t OnBody(char* data, size_t size, size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const size_t n = size * count;
  t->last_bytes = Clock::now();
  if (t->Call([&] { return t->handler.on_body(std::string_view(data, n)); })) return n;
  t->abandoned = true;
  return 0;
}

// Sets up the easy handle of *t; false (with t->error) when libcurl refuses an option.
bool Configure(Transfer* t) {
  t->easy = curl_easy_init();
  if (t->easy == nullptr) return false;
  for (const auto& [name, value] : t->request.headers) {
    // "Name:" alone would remove a header libcurl adds; "Name;" sends it empty.
    const std::string h = value.empty() ? name + ";" : name + ": " + value;
    t->headers = curl_slist_append(t->headers, h.c_str());
  }
  // No "Expect: 100-continue" round trip before a large body: the upstream answers at once.
  t->headers = curl_slist_append(t->headers, "Expect:");
  CURL* e = t->easy;
  return curl_easy_setopt(e, CURLOPT_URL, t->request.url.c_str()) == CURLE_OK &&
         curl_easy_setopt(e, CURLOPT_ERRORBUFFER, t->error) == CURLE_OK &&
         curl_easy_setopt(e, CURLOPT_PRIVATE, t) == CURLE_OK &&
         curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L) == CURLE_OK &&
         curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https") == CURLE_OK &&
         // As the blocking transport: the configured URL is the upstream, whatever the
         // environment's http_proxy says.
         curl_easy_setopt(e, CURLOPT_PROXY, "") == CURLE_OK &&
         curl_easy_setopt(e, CURLOPT_TCP_NODELAY, 1L) == CURLE_OK &&
         curl_easy_setopt(e, CURLOPT_POST, 1L) == CURLE_OK &&
         curl_easy_setopt(e, CURLOPT_POSTFIELDS, t->request.body.data()) == CURLE_OK &&
         curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE,
                          static_cast<curl_off_t>(t->request.body.size())) == CURLE_OK &&
         curl_easy_setopt(e, CURLOPT_HTTPHEADER, t->headers) == CURLE_OK &&
         curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(t->request.timeout_ms)) ==
             CURLE_OK &&
         curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, &OnHeader) == CURLE_OK &&
         curl_easy_setopt(e, CURLOPT_HEADERDATA, t) == CURLE_OK &&
         curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, &OnBody) == CURLE_OK &&
         curl_easy_setopt(e, CURLOPT_WRITEDATA, t) == CURLE_OK;
}

// The status a finished transfer ends with, as HttpTransport::PostStream words it.
Status Outcome(const Transfer& t, CURLcode result) {
  if (!t.raised.ok()) return t.raised;
  if (t.abandoned) return Status::Ok();
  const std::string where = "POST " + t.request.url + ": ";
  if (t.silent) {
    const std::string why = "no bytes for " + std::to_string(t.request.timeout_ms) + " ms";
    return Status::Unavailable(where + (t.responded ? "the response broke off (" + why + ")"
                                                    : "no response (" + why + ")"));
  }
  const std::string why = t.error[0] != '\0' ? t.error : curl_easy_strerror(result);
  if (result != CURLE_OK) {
    return Status::Unavailable(where + (t.responded ? "the response broke off (" + why + ")"
                                                    : "no response (" + why + ")"));
  }
  if (!t.responded) return Status::Unavailable(where + "no response");
  return Status::Ok();
}

}  // namespace

struct StreamPump::Impl {
  CURLM* multi = nullptr;
  int epoll_fd = -1;
  int wake_fd = -1;  // an eventfd: Start and the destructor wake the pump through it
  std::mutex mu;
  std::vector<std::unique_ptr<Transfer>> incoming;     // guarded by mu
  bool stopping = false;                               // guarded by mu
  std::map<CURL*, std::unique_ptr<Transfer>> running;  // the pump thread's alone
  // When libcurl wants CURL_SOCKET_TIMEOUT (its timer callback); none when max().
  Clock::time_point curl_due = Clock::time_point::max();
  // No stream can fall silent before this: the earliest deadline at the last look. Streams
  // only move their deadlines later, so the pump looks again only then (or when one starts),
  // not at every wakeup: a wakeup costs the sockets that have bytes, not every open stream.
  Clock::time_point silence_due = Clock::time_point::max();
  std::thread thread;

  // CURLMOPT_SOCKETFUNCTION: libcurl says which events of a socket it waits for.
  static int OnSocket(CURL*, curl_socket_t fd, int what, void* user, void*) {
    auto* self = static_cast<Impl*>(user);
    if (what == CURL_POLL_REMOVE) {
      epoll_ctl(self->epoll_fd, EPOLL_CTL_DEL, fd, nullptr);
      return 0;
    }
    epoll_event ev{};
    ev.data.fd = fd;
    if (what == CURL_POLL_IN || what == CURL_POLL_INOUT) ev.events |= EPOLLIN;
    if (what == CURL_POLL_OUT || what == CURL_POLL_INOUT) ev.events |= EPOLLOUT;
    if (epoll_ctl(self->epoll_fd, EPOLL_CTL_MOD, fd, &ev) != 0 && errno == ENOENT)
      epoll_ctl(self->epoll_fd, EPOLL_CTL_ADD, fd, &ev);
    return 0;
  }

  // CURLMOPT_TIMERFUNCTION: when libcurl next wants to be called with no socket event.
  static int OnTimer(CURLM*, long timeout_ms, void* user) {
    auto* self = static_cast<Impl*>(user);
    self->curl_due = timeout_ms < 0 ? Clock::time_point::max()
                                    : Clock::now() + std::chrono::milliseconds(timeout_ms);
    return 0;
  }

  void Run() {
    std::vector<epoll_event> events(64);
    while (true) {
      std::vector<std::unique_ptr<Transfer>> added;
      {
        std::lock_guard<std::mutex> lock(mu);
        if (stopping) break;
        added.swap(incoming);
      }
      for (auto& t : added) {
        if (curl_multi_add_handle(multi, t->easy) != CURLM_OK) {
          const Status refused =
              Status::Unavailable("POST " + t->request.url + ": the stream could not be started");
          Finish(std::move(t), refused);
          continue;
        }
        silence_due =
            std::min(silence_due, t->last_bytes + std::chrono::milliseconds(t->request.timeout_ms));
        CURL* easy = t->easy;
        running.emplace(easy, std::move(t));
      }
      const int n = epoll_wait(epoll_fd, events.data(), static_cast<int>(events.size()), WaitMs());
      int active = 0;
      for (int i = 0; i < n; ++i) {
        const int fd = events[i].data.fd;
        if (fd == wake_fd) {
          uint64_t count = 0;
          (void)!read(wake_fd, &count, sizeof count);
          continue;
        }
        int mask = 0;
        if (events[i].events & EPOLLIN) mask |= CURL_CSELECT_IN;
        if (events[i].events & EPOLLOUT) mask |= CURL_CSELECT_OUT;
        if (events[i].events & (EPOLLERR | EPOLLHUP)) mask |= CURL_CSELECT_ERR;
        curl_multi_socket_action(multi, fd, mask, &active);
      }
      if (Clock::now() >= curl_due) {
        curl_due = Clock::time_point::max();
        curl_multi_socket_action(multi, CURL_SOCKET_TIMEOUT, 0, &active);
      }
      int queued = 0;
      while (CURLMsg* m = curl_multi_info_read(multi, &queued)) {
        if (m->msg != CURLMSG_DONE) continue;
        End(m->easy_handle, m->data.result);
      }
      if (Clock::now() >= silence_due) EndSilent();
    }
    // Shutting down: what is still open ends as no answer.
    std::vector<std::unique_ptr<Transfer>> left;
    {
      std::lock_guard<std::mutex> lock(mu);
      left.swap(incoming);
    }
    for (auto& [easy, t] : running) {
      curl_multi_remove_handle(multi, easy);
      left.push_back(std::move(t));
    }
    running.clear();
    for (auto& t : left) {
      const Status ended =
          Status::Unavailable("POST " + t->request.url + ": the HTTP transport shut down");
      Finish(std::move(t), ended);
    }
  }

  // How long epoll may wait: until libcurl's timer or the next possible silence, at most
  // kIdlePollMs.
  int WaitMs() const {
    const Clock::time_point now = Clock::now();
    const Clock::time_point due =
        std::min({curl_due, silence_due, now + std::chrono::milliseconds(kIdlePollMs)});
    if (due <= now) return 0;
    return static_cast<int>(std::chrono::ceil<std::chrono::milliseconds>(due - now).count());
  }

  void End(CURL* easy, CURLcode result) {
    auto it = running.find(easy);
    if (it == running.end()) return;
    std::unique_ptr<Transfer> t = std::move(it->second);
    running.erase(it);
    curl_multi_remove_handle(multi, t->easy);
    const Status outcome = Outcome(*t, result);
    Finish(std::move(t), outcome);
  }

  // timeout_ms bounds each wait for bytes, not the whole stream (libcurl's own low-speed check
  // averages over seconds and counts the request's upload): a stream silent that long ends.
  // Sets silence_due to the next stream's deadline.
  void EndSilent() {
    const Clock::time_point now = Clock::now();
    silence_due = Clock::time_point::max();
    std::vector<CURL*> silent;
    for (auto& [easy, t] : running) {
      const Clock::time_point deadline =
          t->last_bytes + std::chrono::milliseconds(t->request.timeout_ms);
      if (deadline <= now) {
        t->silent = true;
        silent.push_back(easy);
      } else {
        silence_due = std::min(silence_due, deadline);
      }
    }
    for (CURL* easy : silent) End(easy, CURLE_OPERATION_TIMEDOUT);
  }

  // Frees the transfer (its connection goes back to libcurl's cache or is closed) before
  // telling the caller, so a caller that starts the next stream from `done` may reuse it.
  static void Finish(std::unique_ptr<Transfer> t, const Status& outcome) {
    std::function<void(Status)> done = std::move(t->done);
    t.reset();
    if (done) done(outcome);
  }

  void Wake() const {
    const uint64_t one = 1;
    (void)!write(wake_fd, &one, sizeof one);
  }
};

StreamPump::StreamPump() : impl_(std::make_unique<Impl>()) {
  InitCurlOnce();
  Impl* impl = impl_.get();
  impl->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
  impl->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (impl->epoll_fd >= 0 && impl->wake_fd >= 0) {
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.fd = impl->wake_fd;
    if (epoll_ctl(impl->epoll_fd, EPOLL_CTL_ADD, impl->wake_fd, &ev) == 0)
      impl->multi = curl_multi_init();
  }
  if (impl->multi == nullptr) return;  // Start refuses every request
  curl_multi_setopt(impl->multi, CURLMOPT_SOCKETFUNCTION, &Impl::OnSocket);
  curl_multi_setopt(impl->multi, CURLMOPT_SOCKETDATA, impl);
  curl_multi_setopt(impl->multi, CURLMOPT_TIMERFUNCTION, &Impl::OnTimer);
  curl_multi_setopt(impl->multi, CURLMOPT_TIMERDATA, impl);
  impl->thread = std::thread([impl] {
    // A library thread never takes a process signal: they stay with the threads the
    // application chose (engram serve waits for SIGTERM and SIGINT with sigwait).
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, nullptr);
    pthread_setname_np(pthread_self(), "engram-streams");  // as top -H and perf show it
    impl->Run();
  });
}

StreamPump::~StreamPump() {
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    impl_->stopping = true;
  }
  if (impl_->thread.joinable()) {
    impl_->Wake();
    impl_->thread.join();
  }
  if (impl_->multi != nullptr) curl_multi_cleanup(impl_->multi);
  if (impl_->wake_fd >= 0) close(impl_->wake_fd);
  if (impl_->epoll_fd >= 0) close(impl_->epoll_fd);
}

void StreamPump::Start(HttpRequest request, HttpStreamHandler handler,
                       std::function<void(Status)> done) {
  auto t = std::make_unique<Transfer>();
  t->request = std::move(request);
  t->handler = std::move(handler);
  t->done = std::move(done);
  if (impl_->multi == nullptr || !Configure(t.get())) {
    const std::string why = t->error[0] != '\0' ? t->error : "libcurl refused the request";
    Impl::Finish(std::move(t), Status::Unavailable("POST: " + why));
    return;
  }
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    if (!impl_->stopping) {
      impl_->incoming.push_back(std::move(t));
    }
  }
  if (t != nullptr) {
    Impl::Finish(std::move(t), Status::Unavailable("the HTTP transport shut down"));
    return;
  }
  impl_->Wake();
}

}  // namespace engram::embed
