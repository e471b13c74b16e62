// The chat proxy: POST /v1/chat/completions, OpenAI-compatible. Any chat client that can talk to
// OpenAI gets memory by pointing its base URL at Engram:
//  1. the user (the body's `user`, or the X-Engram-User header) and the last user message give
//     a memory context (search + packing under a token budget; the profile and proactive recall
//     when asked), put into the system message;
//  2. the request goes to the configured upstream (any OpenAI-compatible base URL, with its own
//     key), and its reply comes back as it is: a JSON body, or server-sent events passed on
//     chunk by chunk as they arrive (StreamBody: no buffering of the stream);
//  3. once the upstream has answered in full, the exchange (the user's message, the assistant's
//     reply as context) is written back through the write path as an asynchronous job. A
//     failed or broken-off answer writes nothing.
// Errors are OpenAI-style ({"error": {"message", "type", "code"}}); in a stream that has begun,
// an error is an event of that shape and the stream ends without [DONE].
//
// Per-request options, in the body's `engram` object (removed before forwarding) or headers:
// session_id (X-Engram-Session), token_budget (X-Engram-Budget), profile (X-Engram-Profile:
// true/false), recall (X-Engram-Recall).
//
// Thread-safe. Streamed calls are read by the transport (the default one reads every stream on
// one thread: HttpTransport::StartStream), so nothing that can block runs there: a finished
// stream's write-back (a durable job, which syncs to disk) is handed to the proxy's own writer
// thread. The destructor waits for the streams to end (when the upstream ends, times out, or
// the client leaves), then for the writer to submit every exchange it holds.
#pragma once

#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "engram/embedder.h"
#include "engram/engine.h"
#include "engram/jobs.h"
#include "engram/status.h"
#include "server/reply.h"

namespace engram::server {

struct ChatProxyOptions {
  std::string upstream_url;  // an OpenAI-compatible base URL (".../v1"); empty: proxy off
  std::string api_key;       // sent upstream as a bearer token; may be empty (a local model)
  int timeout_ms = 120'000;  // the longest wait for the upstream's next bytes
  int token_budget = 800;    // the memory block's budget, unless a request says otherwise
  bool profile = false;      // include the profile, unless a request says otherwise
  bool recall = false;       // include proactive recall, unless a request says otherwise
  std::shared_ptr<HttpTransport> transport;  // default: MakeHttpTransport()
  // Told the proxy's own time by phase (Metrics::ObservePhase): "prepare", "chunk"; may be
  // empty.
  std::function<void(const std::string& phase, double seconds)> observe;
};

class ChatProxy {
 public:
  ChatProxy(ChatProxyOptions options, Engine* engine, JobQueue* jobs);
  ~ChatProxy();
  ChatProxy(const ChatProxy&) = delete;
  ChatProxy& operator=(const ChatProxy&) = delete;

  // One request: the caller's tenant, the raw body, and the X-Engram-* headers (lower case).
  // With `later`, the reply to a request that reaches the upstream comes through it, once, from
  // the thread that learns it (the stream pump for a streamed call, a thread of the call's own
  // for an unstreamed one), and Handle returns at once with a Reply marked `deferred`; a request
  // refused before that is returned as usual. Without, Handle waits for the reply.
  Reply Handle(const std::string& tenant, const std::string& body,
               const std::map<std::string, std::string>& headers,
               std::function<void(Reply)> later = {});

 private:
  struct Prepared;  // a decoded request with its memory block in place
  Result<Prepared> Prepare(const std::string& tenant, const std::string& body,
                           const std::map<std::string, std::string>& headers);
  Result<std::string> MemoryBlock(const Prepared& p, int budget, bool profile, bool recall);
  Reply Forward(const Prepared& p);
  // Starts the upstream stream; `answer` gets the reply once the upstream's status is in (or it
  // failed), on the transport's thread.
  void ForwardStreaming(const Prepared& p, std::function<void(Reply)> answer);
  void WriteBack(const Prepared& p, const std::string& reply);
  // WriteBack on the writer thread: for the transport's thread, which must not wait on a disk.
  void WriteBackLater(Prepared p, std::string reply);
  void RunWriter();

  ChatProxyOptions options_;
  Engine* engine_;
  JobQueue* jobs_;
  std::mutex mu_;
  std::condition_variable idle_;
  int streams_ = 0;  // guarded by mu_: upstream reads still running
  // Guarded by mu_: finished streams' exchanges waiting for the writer, and whether it should
  // end once they are submitted.
  std::vector<std::pair<std::shared_ptr<const Prepared>, std::string>> unwritten_;
  bool stopping_ = false;
  std::condition_variable wake_writer_;
  std::thread writer_;  // last: starts once the members above exist
};

// The OpenAI-style error reply: {"error": {"message", "type", "code"}} with `status`.
Reply OpenAiError(int status, std::string_view type, std::string_view code, std::string message);

}  // namespace engram::server
