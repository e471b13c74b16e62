// A fake OpenAI-compatible /v1/chat/completions server for unit tests: a real cpp-httplib
// server on 127.0.0.1 that replays scripted replies (recorded provider responses, malformed
// ones, delays, 429s) and records every request, so the bytes on the wire are real and only
// the provider is fake.
#pragma once

#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "engram/llm.h"

namespace engram::testing {

struct ScriptedChatReply {
  int status = 200;
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
  int delay_ms = 0;  // wait this long before answering (a slow provider)
};

struct ReceivedChatRequest {
  std::string path;
  std::string body;
  httplib::Headers headers;

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

class FakeChatServer {
 public:
  FakeChatServer() {
    server_.set_keep_alive_timeout(1);
    server_.set_tcp_nodelay(true);
    server_.Post(".*",
                 [this](const httplib::Request& req, httplib::Response& res) { Handle(req, res); });
  }
  ~FakeChatServer() { Stop(); }

  void Start() {
    port_ = server_.bind_to_any_port("127.0.0.1");
    ASSERT_GT(port_, 0);
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }

  void Stop() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) {
      server_.stop();
      thread_.join();
    }
  }

  std::string base_url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/v1"; }

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

  void Push(ScriptedChatReply reply) {
    std::lock_guard<std::mutex> lock(mutex_);
    script_.push_back(std::move(reply));
  }
  void Push(int status, std::string body) { Push(ScriptedChatReply{status, std::move(body)}); }
  // A 200 chat completion whose message content is `content`.
  void PushContent(const std::string& content, const std::string& finish_reason = "stop") {
    Push(200, ChatCompletionBody(content, finish_reason));
  }

  std::vector<ReceivedChatRequest> requests() {
    std::lock_guard<std::mutex> lock(mutex_);
    return received_;
  }
  size_t unused_replies() {
    std::lock_guard<std::mutex> lock(mutex_);
    return script_.size();
  }

 private:
  void Handle(const httplib::Request& req, httplib::Response& res) {
    ScriptedChatReply reply;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      received_.push_back({req.path, req.body, req.headers});
      if (script_.empty()) {
        // A test that asks more than it scripted fails loudly (a 4xx is never retried).
        reply = {418, OpenAIErrorBody("fake chat server: script exhausted")};
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
  bool stopping_ = false;                      // guarded by mutex_
  std::deque<ScriptedChatReply> script_;       // guarded by mutex_
  std::vector<ReceivedChatRequest> received_;  // guarded by mutex_
};

}  // namespace engram::testing
