// Streamed POSTs on one thread: libcurl's multi socket interface over epoll reads every open
// stream, instead of a blocked thread per stream. A wakeup costs the sockets that have bytes,
// not every open stream (as curl_multi_poll, which polls them all each time, would).
//
// Why: the chat proxy holds one upstream stream per client stream, and at a few hundred streams
// a thread each means a few hundred threads woken per burst of chunks, all runnable at once with
// the server's event loop, which then waits its turn for a scheduling period before it passes a
// chunk on. One pump thread wakes once for every stream that has bytes, hands them over, and
// sleeps. libcurl also keeps the upstream connections alive between streams (its connection
// cache), so a stream that follows another to the same host needs no new connect.
#pragma once

#include <functional>
#include <memory>

#include "engram/embedder.h"
#include "engram/status.h"

namespace engram::embed {

class StreamPump {
 public:
  StreamPump();
  // Ends every stream still open (their `done` says so) and joins the thread.
  ~StreamPump();
  StreamPump(const StreamPump&) = delete;
  StreamPump& operator=(const StreamPump&) = delete;

  // Starts the POST and returns at once. On the pump's thread: handler.on_response once the
  // status and headers are in, handler.on_body for each piece of the body, then done() with
  // HttpTransport::PostStream's status (OK once the body ended or a handler abandoned it;
  // Unavailable when no response came or the body broke off). A request that cannot be sent
  // (a bad URL, a header with a line break) gets done() on the caller's thread, before return.
  // A handler must not block: every other stream waits for it.
  void Start(HttpRequest request, HttpStreamHandler handler, std::function<void(Status)> done);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace engram::embed
