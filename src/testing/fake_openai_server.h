// A fake OpenAI-compatible provider for unit tests (chat completions for the LLM clients,
// embeddings for the remote embedder): a real cpp-httplib server on 127.0.0.1 that replays
// scripted replies (recorded provider responses, malformed ones, delays, 429s) and records
// every request, so the bytes on the wire are real and only the provider is fake. When the
// script runs out it answers with the fallback: by default a 418, so a test that asks more than
// it scripted fails loudly (a 4xx is never retried).
#pragma once

#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "engram/llm.h"

namespace engram::testing {

struct ScriptedReply {
  int status = 200;
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
  int delay_ms = 0;  // wait this long before answering (a slow provider)
};

struct ReceivedRequest {
  std::string path;
  std::string body;
  httplib::Headers headers;
  int remote_port = 0;  // the client's port: equal on two requests of one keep-alive socket

  nlohmann::json Json() const { return nlohmann::json::parse(body, nullptr, false); }
  // The messages' contents joined, to look for what the model was shown.
  std::string Text() const {
    std::string text;
    const nlohmann::json doc = Json();
    if (doc.is_object() && doc.contains("messages") && doc["messages"].is_array()) {
      for (const auto& m : doc["messages"]) text += m.value("content", "") + "\n";
    }
    return text;
  }
  std::string Header(const std::string& name) const {
    auto it = headers.find(name);
    return it == headers.end() ? "" : it->second;
  }
};

// {"choices":[{"index":0,"message":{"role":"assistant","content":...},"finish_reason":...}]}
// as OpenAI, DeepSeek, vLLM and Ollama send it.
inline std::string ChatCompletionBody(const std::string& content,
                                      const std::string& finish_reason = "stop") {
  nlohmann::json message = {{"role", "assistant"}, {"content", content}};
  nlohmann::json choice = {{"index", 0}, {"message", message}, {"finish_reason", finish_reason}};
  return nlohmann::json{
      {"id", "chatcmpl-test"}, {"object", "chat.completion"},
      {"created", 1764460800}, {"model", "fake-model"},
      {"choices", {choice}},   {"usage", {{"prompt_tokens", 10}, {"completion_tokens", 5}}}}
      .dump();
}

inline std::string OpenAIErrorBody(const std::string& message) {
  return nlohmann::json{
      {"error", {{"message", message}, {"type", "invalid_request_error"}, {"code", nullptr}}}}
      .dump();
}

class FakeOpenAIServer {
 public:
  FakeOpenAIServer() {
    server_.set_keep_alive_timeout(1);
    server_.set_tcp_nodelay(true);  // else each reply on a reused connection waits ~40 ms
    server_.Post(".*",
                 [this](const httplib::Request& req, httplib::Response& res) { Handle(req, res); });
  }
  ~FakeOpenAIServer() { Stop(); }

  void Start() {
    port_ = server_.bind_to_any_port("127.0.0.1");
    ASSERT_GT(port_, 0);
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    // stop() is a no-op until the accept loop runs; wait so Stop() cannot hang in join().
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }

  void Stop() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;  // wakes handlers that are still "slow"
    }
    wake_.notify_all();
    if (thread_.joinable()) {
      server_.stop();
      thread_.join();
    }
  }

  std::string base_url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/v1"; }
  int port() const { return port_; }

  // What to answer once the script is empty, from the request body (before Start).
  void SetFallback(std::function<ScriptedReply(const std::string& body)> fallback) {
    fallback_ = std::move(fallback);
  }

  // Options of a chat client talking to this server: no key, a 2 s timeout, `retries` retries
  // 1 ms apart.
  OpenAIChatOptions ClientOptions(std::string model, int retries = 1) const {
    OpenAIChatOptions o;
    o.base_url = base_url();
    o.model = std::move(model);
    o.api_key_env = "";
    o.timeout_ms = 2000;
    o.max_retries = retries;
    o.initial_backoff_ms = 1;
    return o;
  }

  void Push(ScriptedReply reply) {
    std::lock_guard<std::mutex> lock(mutex_);
    script_.push_back(std::move(reply));
  }
  void Push(int status, std::string body) { Push(ScriptedReply{status, std::move(body)}); }
  // A 200 chat completion whose message content is `content`.
  void PushContent(const std::string& content, const std::string& finish_reason = "stop") {
    Push(200, ChatCompletionBody(content, finish_reason));
  }

  std::vector<ReceivedRequest> requests() {
    std::lock_guard<std::mutex> lock(mutex_);
    return received_;
  }
  size_t unused_replies() {
    std::lock_guard<std::mutex> lock(mutex_);
    return script_.size();
  }

 private:
  void Handle(const httplib::Request& req, httplib::Response& res) {
    ScriptedReply reply;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      received_.push_back({req.path, req.body, req.headers, req.remote_port});
      if (script_.empty()) {
        reply = fallback_ ? fallback_(req.body)
                          : ScriptedReply{418, OpenAIErrorBody("fake provider: script exhausted")};
      } else {
        reply = std::move(script_.front());
        script_.pop_front();
      }
      wake_.wait_for(lock, std::chrono::milliseconds(reply.delay_ms), [this] { return stopping_; });
    }
    res.status = reply.status;
    for (const auto& [name, value] : reply.headers) res.set_header(name, value);
    res.set_content(reply.body, "application/json");
  }

  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::function<ScriptedReply(const std::string&)> fallback_;  // set before Start
  bool stopping_ = false;                                      // guarded by mutex_
  std::deque<ScriptedReply> script_;                           // guarded by mutex_
  std::vector<ReceivedRequest> received_;                      // guarded by mutex_
};

}  // namespace engram::testing
