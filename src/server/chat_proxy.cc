#include "server/chat_proxy.h"

#include <pthread.h>
#include <signal.h>

#include <chrono>
#include <future>
#include <nlohmann/json.hpp>

#include "api/requests.h"
#include "codec/item_validation.h"
#include "core/status_macros.h"
#include "core/thread_priority.h"
#include "engram/profile.h"
#include "engram/recall.h"
#include "server/routes.h"

namespace engram::server {
namespace {

using json = nlohmann::json;

// The memory block's lead: the model is told what the block is and how to use it.
constexpr char kBlockLead[] =
    "What you remember about this user from earlier conversations (use it where it helps; do "
    "not recite it):\n";
constexpr double kProfileShare = 0.3;  // of the budget, when the profile is asked for
constexpr int kRecentUserTurns = 3;    // earlier user messages that join the search

// The text of a message's content: a string, or the text parts of an array of parts.
std::string ContentText(const json& content) {
  if (content.is_string()) return content.get<std::string>();
  std::string out;
  if (!content.is_array()) return out;
  for (const json& part : content) {
    if (part.is_object() && part.value("type", "") == "text" && part.contains("text") &&
        part["text"].is_string()) {
      out += (out.empty() ? "" : "\n") + part["text"].get<std::string>();
    }
  }
  return out;
}

bool Truthy(std::string_view v) { return v == "1" || v == "true" || v == "yes" || v == "on"; }

// What a request asks of the proxy: the `engram` object of the body over the headers.
struct ProxyOptions {
  std::string session_id;
  int budget = 0;
  bool profile = false;
  bool recall = false;
};

Result<ProxyOptions> ReadOptions(const json& body, const std::map<std::string, std::string>& h,
                                 const ChatProxyOptions& defaults) {
  ProxyOptions o{"", defaults.token_budget, defaults.profile, defaults.recall};
  auto header = [&](const char* name) -> const std::string* {
    auto it = h.find(name);
    return it == h.end() ? nullptr : &it->second;
  };
  if (auto* v = header("x-engram-session")) o.session_id = *v;
  if (auto* v = header("x-engram-profile")) o.profile = Truthy(*v);
  if (auto* v = header("x-engram-recall")) o.recall = Truthy(*v);
  if (auto* v = header("x-engram-budget")) {
    char* end = nullptr;
    const long n = std::strtol(v->c_str(), &end, 10);
    if (v->empty() || *end != '\0') {
      return Status::InvalidArgument("X-Engram-Budget must be a number of tokens");
    }
    o.budget = static_cast<int>(std::min<long>(n, 1 << 20));
  }
  if (auto e = body.find("engram"); e != body.end()) {
    if (!e->is_object()) return Status::InvalidArgument("engram must be an object");
    o.session_id = e->value("session_id", o.session_id);
    o.profile = e->value("profile", o.profile);
    o.recall = e->value("recall", o.recall);
    if (auto b = e->find("token_budget"); b != e->end()) {
      if (!b->is_number_integer()) return Status::InvalidArgument("engram.token_budget: a number");
      o.budget = b->get<int>();
    }
  }
  if (o.budget < 16 || o.budget > 32768) {
    return Status::InvalidArgument("the memory token budget must be 16..32768, got " +
                                   std::to_string(o.budget));
  }
  return o;
}

// Puts the memory block into the system message: after an existing one's text, or as a new
// first message.
void InjectSystem(json& messages, const std::string& block) {
  if (!messages.empty() && messages[0].value("role", "") == "system" &&
      messages[0].contains("content") && messages[0]["content"].is_string()) {
    messages[0]["content"] = messages[0]["content"].get<std::string>() + "\n\n" + block;
    return;
  }
  messages.insert(messages.begin(), json{{"role", "system"}, {"content", block}});
}

// Follows a server-sent event stream as it passes: the assistant's text from each chunk's
// choices[0].delta.content, and whether [DONE] arrived.
class EventReader {
 public:
  void Feed(std::string_view bytes) {
    line_.append(bytes);
    size_t start = 0, nl;
    while ((nl = line_.find('\n', start)) != std::string::npos) {
      Line(std::string_view(line_).substr(start, nl - start));
      start = nl + 1;
    }
    line_.erase(0, start);
  }
  bool done() const { return done_; }
  const std::string& text() const { return text_; }

 private:
  void Line(std::string_view line) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (!line.starts_with("data:")) return;
    line.remove_prefix(5);
    while (!line.empty() && line.front() == ' ') line.remove_prefix(1);
    if (line == "[DONE]") {
      done_ = true;
      return;
    }
    const json chunk = json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!chunk.is_object() || !chunk.contains("choices") || !chunk["choices"].is_array() ||
        chunk["choices"].empty()) {
      return;
    }
    const json& delta = chunk["choices"][0].value("delta", json::object());
    if (delta.is_object() && delta.contains("content") && delta["content"].is_string()) {
      text_ += delta["content"].get<std::string>();
    }
  }

  std::string line_;
  std::string text_;
  bool done_ = false;
};

std::string ErrorJson(std::string_view type, std::string_view code, const std::string& message) {
  return json{{"error", {{"message", message}, {"type", type}, {"code", code}, {"param", nullptr}}}}
      .dump();
}

// An upstream's error reply: passed on when it is OpenAI-style JSON, else described.
Reply UpstreamError(int status, const std::string& body) {
  const json parsed = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_object() && parsed.contains("error")) {
    Reply r;
    r.status = status;
    r.body = body;
    return r;
  }
  return OpenAiError(
      status >= 500 ? 502 : status, "upstream_error", "upstream_error",
      "the upstream answered HTTP " + std::to_string(status) + ": " + body.substr(0, 300));
}

Reply Unreachable(const Status& status) {
  return OpenAiError(502, "upstream_error", "upstream_unavailable",
                     "the upstream did not answer: " + status.message());
}

}  // namespace

Reply OpenAiError(int status, std::string_view type, std::string_view code, std::string message) {
  Reply r;
  r.status = status;
  r.body = ErrorJson(type, code, message);
  return r;
}

struct ChatProxy::Prepared {
  Scope scope;
  json request;              // as forwarded: the memory block in, `engram` out
  std::string user_message;  // the last user message's text: the query, and what is written back
  std::vector<std::string> earlier;  // earlier user messages, newest first
  bool stream = false;
};

ChatProxy::ChatProxy(ChatProxyOptions options, Engine* engine, JobQueue* jobs)
    : options_(std::move(options)), engine_(engine), jobs_(jobs) {
  if (!options_.transport) options_.transport = MakeHttpTransport();
  writer_ = std::thread([this] { RunWriter(); });
}

ChatProxy::~ChatProxy() {
  {
    std::unique_lock<std::mutex> lock(mu_);
    idle_.wait(lock, [this] { return streams_ == 0; });
    stopping_ = true;
  }
  wake_writer_.notify_all();
  writer_.join();
}

void ChatProxy::RunWriter() {
  // A library thread never takes a process signal: they stay with the threads the application
  // chose (engram serve waits for SIGTERM and SIGINT with sigwait).
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, nullptr);
  // (a background thread: the exchanges wait on it for nothing)
  NameAndDeprioritizeThisThread("engram-proxywb", kBackgroundNice);
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    wake_writer_.wait(lock, [this] { return stopping_ || !unwritten_.empty(); });
    if (unwritten_.empty()) return;  // stopping, and everything was submitted
    auto batch = std::move(unwritten_);
    unwritten_.clear();
    lock.unlock();
    for (const auto& [prepared, reply] : batch) WriteBack(*prepared, reply);
    lock.lock();
  }
}

void ChatProxy::WriteBackLater(Prepared p, std::string reply) {
  if (reply.empty()) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    unwritten_.emplace_back(std::make_shared<const Prepared>(std::move(p)), std::move(reply));
  }
  wake_writer_.notify_one();
}

Reply ChatProxy::Handle(const std::string& tenant, const std::string& body,
                        const std::map<std::string, std::string>& headers,
                        std::function<void(Reply)> later) {
  const auto start = std::chrono::steady_clock::now();
  auto prepared = Prepare(tenant, body, headers);
  if (prepared.ok() && options_.observe) {
    options_.observe(
        "prepare", std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  if (!prepared.ok()) {
    const StatusCode code = prepared.status().code();
    if (code == StatusCode::kInvalidArgument) {
      return OpenAiError(400, "invalid_request_error", "invalid_request",
                         prepared.status().message());
    }
    Reply r = ErrorReply(prepared.status());
    r.body = ErrorJson("server_error", "memory_unavailable", prepared.status().message());
    return r;
  }
  Reply deferred;
  deferred.deferred = true;
  if (!prepared->stream) {
    if (!later) return Forward(*prepared);
    // An unstreamed call waits for the whole answer, seconds of a model's time: on a thread of
    // its own, not a worker's. (The request is in flight until `later` has queued the reply, so
    // the server's Stop waits for it.)
    std::thread([this, p = std::move(*prepared), later = std::move(later)] {
      later(Forward(p));
    }).detach();
    return deferred;
  }
  if (later) {
    ForwardStreaming(*prepared, std::move(later));
    return deferred;
  }
  auto answered = std::make_shared<std::promise<Reply>>();
  std::future<Reply> reply = answered->get_future();
  ForwardStreaming(*prepared, [answered](Reply r) { answered->set_value(std::move(r)); });
  return reply.get();
}

Result<ChatProxy::Prepared> ChatProxy::Prepare(const std::string& tenant, const std::string& body,
                                               const std::map<std::string, std::string>& headers) {
  json request = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (!request.is_object()) return Status::InvalidArgument("the body must be a JSON object");
  auto messages = request.find("messages");
  if (messages == request.end() || !messages->is_array() || messages->empty()) {
    return Status::InvalidArgument("messages must be a non-empty array");
  }
  if (!request.contains("model") || !request["model"].is_string()) {
    return Status::InvalidArgument("model must be a string");
  }
  Prepared p;
  p.stream = request.value("stream", false);
  for (const json& m : *messages) {
    if (!m.is_object() || !m.contains("role") || !m["role"].is_string()) {
      return Status::InvalidArgument("each message needs a role");
    }
    if (m["role"] != "user") continue;
    if (!p.user_message.empty()) p.earlier.insert(p.earlier.begin(), p.user_message);
    p.user_message = ContentText(m.value("content", json()));
  }
  if (p.user_message.empty()) return Status::InvalidArgument("no user message with text");
  if (p.earlier.size() > kRecentUserTurns) p.earlier.resize(kRecentUserTurns);
  std::string user = request.value("user", "");
  if (user.empty()) {
    if (auto h = headers.find("x-engram-user"); h != headers.end()) user = h->second;
  }
  if (user.empty()) {
    return Status::InvalidArgument(
        "whose memory to use: set the body's `user` or the X-Engram-User header");
  }
  ENGRAM_ASSIGN_OR_RETURN(ProxyOptions o, ReadOptions(request, headers, options_));
  p.scope = Scope{tenant, user, "", o.session_id};
  ENGRAM_RETURN_IF_ERROR(ValidateScope(p.scope));
  request.erase("engram");
  p.request = std::move(request);
  ENGRAM_ASSIGN_OR_RETURN(std::string block, MemoryBlock(p, o.budget, o.profile, o.recall));
  if (!block.empty()) InjectSystem(p.request["messages"], kBlockLead + block);
  return p;
}

Result<std::string> ChatProxy::MemoryBlock(const Prepared& p, int budget, bool profile,
                                           bool recall) {
  Scope user = p.scope;
  user.session_id.clear();  // memories from every session of the user
  ContextRequest req;
  req.search.text = p.user_message;
  req.search.recent_turns.assign(p.earlier.rbegin(), p.earlier.rend());  // oldest first
  req.token_budget = budget;
  if (profile) {
    ENGRAM_ASSIGN_OR_RETURN(Profile got, engine_->GetProfile(user));
    req.profile = ProfileText(got, static_cast<int>(budget * kProfileShare));
  }
  ENGRAM_ASSIGN_OR_RETURN(ContextResult context, engine_->BuildContext(user, req));
  std::string block = context.text;
  if (recall) {
    RecallRequest r;
    r.turns.assign(p.earlier.rbegin(), p.earlier.rend());
    r.turns.push_back(p.user_message);
    ENGRAM_ASSIGN_OR_RETURN(std::vector<RecallHit> hits, Recall(*engine_, user, r));
    if (!hits.empty()) block += (block.empty() ? "" : "\n") + std::string("Worth raising now:\n");
    for (const RecallHit& h : hits) block += "- " + h.item.content + " (" + h.reason + ")\n";
  }
  return block;
}

void ChatProxy::WriteBack(const Prepared& p, const std::string& reply) {
  if (reply.empty()) return;
  api::AddRequest add;
  add.scope = p.scope;
  add.async = true;
  const TimestampMs now = engine_->Now();
  add.infer_items.push_back(
      RememberItem{{Turn{"user", p.user_message, now, ""}, Turn{"assistant", reply, now, ""}}, {}});
  // The job retries on its own; a queue that cannot take it loses only this exchange's memory,
  // not the user's answer, so the reply is not failed for it.
  (void)jobs_->Submit(p.scope, kRememberJob, api::EncodeRememberJob(add));
}

Reply ChatProxy::Forward(const Prepared& p) {
  HttpRequest req;
  req.url = options_.upstream_url + "/chat/completions";
  req.body = p.request.dump();
  req.timeout_ms = options_.timeout_ms;
  req.headers = {{"Content-Type", "application/json"}};
  if (!options_.api_key.empty())
    req.headers.emplace_back("Authorization", "Bearer " + options_.api_key);
  auto answered = options_.transport->Post(req);
  if (!answered.ok()) return Unreachable(answered.status());
  if (answered->status < 200 || answered->status > 299) {
    return UpstreamError(answered->status, answered->body);
  }
  const json reply = json::parse(answered->body, nullptr, /*allow_exceptions=*/false);
  if (reply.is_object() && reply.contains("choices") && reply["choices"].is_array() &&
      !reply["choices"].empty()) {
    WriteBack(
        p,
        ContentText(reply["choices"][0].value("message", json::object()).value("content", json())));
  }
  Reply r;
  r.status = answered->status;
  r.body = std::move(answered->body);
  return r;
}

void ChatProxy::ForwardStreaming(const Prepared& p, std::function<void(Reply)> answer) {
  // How the upstream's answer began: a 2xx stream, or an error reply to pass on.
  struct Start {
    int status = 0;
    std::string error_body;
  };
  // One stream's state, shared by the transport's callbacks (on its thread, one at a time).
  struct Stream {
    Prepared prepared;
    std::shared_ptr<StreamBody> body = std::make_shared<StreamBody>();
    std::function<void(Reply)> answer;  // told once how the upstream's answer began
    Start start;
    bool told = false;  // answer has been called with the 2xx stream
    EventReader events;
  };
  auto s = std::make_shared<Stream>();
  s->prepared = p;
  if (options_.observe) {
    s->body->SetDelayObserver([observe = options_.observe](std::chrono::nanoseconds waited) {
      observe("chunk", std::chrono::duration<double>(waited).count());
    });
  }
  s->answer = std::move(answer);
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++streams_;
  }
  HttpRequest req;
  req.url = options_.upstream_url + "/chat/completions";
  req.body = p.request.dump();
  req.timeout_ms = options_.timeout_ms;
  req.headers = {{"Content-Type", "application/json"}, {"Accept", "text/event-stream"}};
  if (!options_.api_key.empty())
    req.headers.emplace_back("Authorization", "Bearer " + options_.api_key);
  HttpStreamHandler handler;
  handler.on_response = [s](int status, const auto&) {
    s->start.status = status;
    if (status >= 200 && status <= 299) {
      Reply r;
      r.status = status;
      r.content_type = "text/event-stream";
      r.headers = {{"Cache-Control", "no-cache"}, {"X-Accel-Buffering", "no"}};
      r.stream = s->body;
      s->told = true;
      s->answer(std::move(r));
    }
    return true;
  };
  handler.on_body = [s](std::string_view piece) {
    if (!s->told) {  // an error reply: kept whole, to pass on
      s->start.error_body.append(piece);
      return s->start.error_body.size() < (1 << 20);
    }
    s->events.Feed(piece);
    s->body->Write(piece);
    return !s->body->Cancelled();
  };
  options_.transport->StartStream(std::move(req), std::move(handler), [this, s](Status ended) {
    if (!s->told) {
      // No 2xx stream began: the error is the reply
      const Status failure =
          ended.ok() && s->start.status == 0 ? Status::Unavailable("no response") : ended;
      s->answer(!failure.ok() ? Unreachable(failure)
                              : UpstreamError(s->start.status, s->start.error_body));
    } else if (s->events.done()) {
      // Whether the client was still there is read before Finish: once [DONE] is out the client
      // may close at once, which marks the body cancelled and would lose a complete exchange.
      const bool delivered = !s->body->Cancelled();
      s->body->Finish();
      if (delivered) WriteBackLater(std::move(s->prepared), s->events.text());
    } else {
      // Broke off (or the client left): an error event, no [DONE], nothing written back.
      s->body->Write("data: " +
                     ErrorJson("upstream_error", "stream_interrupted",
                               "the upstream's stream ended before it was complete" +
                                   (ended.ok() ? std::string() : ": " + ended.message())) +
                     "\n\n");
      s->body->Finish();
    }
    std::lock_guard<std::mutex> lock(mu_);
    if (--streams_ == 0) idle_.notify_all();
  });
}

}  // namespace engram::server
