// The v1 route table: every route the server answers, with who may call it and its handler.
// The OpenAPI document (docs/openapi.json) lists exactly these routes; routes_test checks it.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "api/requests.h"
#include "engram/engine.h"
#include "engram/jobs.h"
#include "engram/keys.h"
#include "engram/sessions.h"
#include "engram/write_path.h"
#include "server/reply.h"

namespace engram::shared {
class Redis;
}

namespace engram::server {

enum class Access {
  kPublic,  // no key needed (health, metrics, the OpenAPI document)
  kTenant,  // any valid key; works on the key's tenant
  kAdmin,   // an admin key
};

// One request as a handler sees it: decoded transport, authenticated caller.
struct Call {
  std::string tenant;                              // the caller's tenant
  std::map<std::string, std::string> path_params;  // {id} of "/v1/memories/{id}"
  api::Params params;                              // the query string
  std::string body;
  std::map<std::string, std::string> headers;  // the X-Engram-* headers, names in lower case
  // Blocking::kDeferred routes: answers the request later, from any thread, once (the handler
  // then returns a Reply with `deferred` set). Empty on other routes.
  std::function<void(Reply)> reply_later;
};

// What handlers work with. Pointers are not owned and outlive the server.
struct Services {
  Engine* engine = nullptr;
  MemoryWriter* writer = nullptr;      // infer=true adds; required
  SessionManager* sessions = nullptr;  // /v1/sessions; required
  JobQueue* jobs = nullptr;            // async adds, /v1/jobs; required
  KeyStore* keys = nullptr;
  api::Limits limits;
  std::string openapi_json;              // served at /openapi.json
  std::function<std::string()> metrics;  // renders /metrics
  bool reads_block = false;  // search and context call a remote provider (the openai embedder)
  class AuditTrail* audit = nullptr;  // GET /v1/admin/audit; null: the route says it is off
  class ChatProxy* chat = nullptr;    // POST /v1/chat/completions; null: no upstream configured
  shared::Redis* redis = nullptr;     // shared state; its outage is a /readyz detail
  // POST /v1/knowledge's `path`: files under this directory (resolved, links followed) may be
  // ingested by any key of any tenant; empty (the default): `path` is refused.
  std::string knowledge_dir;
};

// Where the server runs a route's handler.
enum class Blocking {
  kNo,   // CPU and page-cache reads only: on the event loop that read the request
  kYes,  // may wait on a disk sync, a remote provider or a long scan: on the worker pool
  // Waits on another server for as long as it takes: on a thread of its own, so many such
  // calls never queue for the pool's workers.
  kOwnThread,
  // Runs on the worker pool and may answer later through Call::reply_later, from whichever
  // thread learns the answer (the chat proxy: the stream pump, once the upstream's status is
  // in). The worker is free meanwhile, and no thread is created per request: at a few hundred
  // new requests a second, creating a thread each was most of the proxy's CPU and its bursts
  // held up the chunks of the streams already running.
  kDeferred,
};

struct Route {
  std::string method;  // GET, POST, PATCH, DELETE
  std::string path;    // OpenAPI form: "/v1/memories/{id}"
  Access access;
  std::function<Reply(const Call&)> handler;
  Blocking blocking = Blocking::kNo;
  // OpenAI's SDKs always send a key: on a keyless server (no key exists, loopback) an unknown
  // one is taken as none rather than refused.
  bool any_key_when_keyless = false;
};

// The job kind of asynchronous adds; its handler (RememberJobHandler) runs
// MemoryWriter::RememberEach.
inline constexpr char kRememberJob[] = "remember";
// The handler to register for kRememberJob: decodes the payload, runs it, returns the JSON
// the synchronous call would have answered.
JobHandler RememberJobHandler(MemoryWriter* writer);

// Handlers never throw: bad input is a 4xx Reply, engine failures go through ErrorReply.
std::vector<Route> MakeRoutes(const Services& services);

}  // namespace engram::server
