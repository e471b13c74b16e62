// The Engram client: one typed method per operation of docs/openapi.json, named by its
// operationId. Arguments follow the route: the path's {id} first, then the query parameters,
// then the JSON body, each typed from the document (src/generated/openapi.ts).
import {
  OPERATIONS,
  type OperationId,
  type OperationTypes,
} from "./generated/openapi.js";
import { Transport, type ClientOptions, type RequestOptions } from "./http.js";

type Query<K extends OperationId> = OperationTypes[K]["query"];
type Body<K extends OperationId> = OperationTypes[K]["body"];
type Reply<K extends OperationId> = OperationTypes[K]["response"];

interface CallArgs {
  path?: Record<string, string>;
  query?: object;
  body?: unknown;
}

/**
 * POST routes that change nothing a second call would change again, so they are retried like
 * GETs: search, context and recall only read (they count accesses, which a retry of a failed
 * attempt does not skew), and closing a closed session answers the same close again.
 */
const SAFE_TO_REPEAT: ReadonlySet<OperationId> = new Set<OperationId>([
  "search",
  "context",
  "recallMemories",
  "closeSession",
]);

function isIdempotent(op: OperationId): boolean {
  const method = OPERATIONS[op].method;
  return method === "GET" || method === "DELETE" || SAFE_TO_REPEAT.has(op);
}

/**
 * The user a request acts for: its user_id (query string, else body), or the chat proxy's
 * OpenAI-shaped `user`. Sent as X-Engram-User, so that a proxy in front of several replicas
 * sends each user's requests to the same one (docs/deploy.md, "Routing").
 */
function actingUser(op: OperationId, args: CallArgs): string | undefined {
  for (const source of [args.query, args.body]) {
    const user = (source as { user_id?: unknown } | undefined)?.user_id;
    if (typeof user === "string") return user;
  }
  if (op !== "chatCompletions") return undefined;
  const user = (args.body as { user?: unknown } | undefined)?.user;
  return typeof user === "string" ? user : undefined;
}

function fillPath(template: string, params: Record<string, string> = {}): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (typeof value !== "string" || value === "") {
      throw new TypeError(`${template}: the {${name}} argument must be a non-empty string`);
    }
    return encodeURIComponent(value);
  });
}

export class EngramClient {
  private readonly transport: Transport;

  /**
   * @param options baseUrl and apiKey default to $ENGRAM_URL and $ENGRAM_API_KEY; see
   *   ClientOptions for the timeout and retry settings.
   */
  constructor(options: ClientOptions = {}) {
    this.transport = new Transport(options);
  }

  /** The server this client talks to. */
  get baseUrl(): string {
    return this.transport.settings.baseUrl;
  }

  /** Sends one operation of the API; the typed methods below are this with their arguments. */
  async request<K extends OperationId>(
    op: K,
    args: CallArgs = {},
    options?: RequestOptions,
  ): Promise<Reply<K>> {
    const spec = OPERATIONS[op];
    const reply = await this.transport.send(
      {
        method: spec.method,
        path: fillPath(spec.path, args.path),
        query: args.query,
        body: args.body,
        json: spec.format === "json",
        idempotent: isIdempotent(op),
        user: actingUser(op, args),
      },
      options,
    );
    return reply as Reply<K>;
  }

  // --- memories ---

  /** POST /v1/memories: the write path (or, with infer: false, store as given). */
  addMemory(body: Body<"addMemory">, options?: RequestOptions) {
    return this.request("addMemory", { body }, options);
  }

  /** GET /v1/memories: a page of the user's memories, newest first. */
  listMemories(query: Query<"listMemories">, options?: RequestOptions) {
    return this.request("listMemories", { query }, options);
  }

  /** DELETE /v1/memories: erase every memory of the user. */
  deleteUserMemories(query: Query<"deleteUserMemories">, options?: RequestOptions) {
    return this.request("deleteUserMemories", { query }, options);
  }

  /** POST /v1/memories/batch: many memories of one user, all or nothing. */
  addMemoriesBatch(body: Body<"addMemoriesBatch">, options?: RequestOptions) {
    return this.request("addMemoriesBatch", { body }, options);
  }

  /** GET /v1/memories/{id} */
  getMemory(id: string, query: Query<"getMemory">, options?: RequestOptions) {
    return this.request("getMemory", { path: { id }, query }, options);
  }

  /** PATCH /v1/memories/{id}: change fields; the previous version goes to the history. */
  updateMemory(
    id: string,
    query: Query<"updateMemory">,
    body: Body<"updateMemory">,
    options?: RequestOptions,
  ) {
    return this.request("updateMemory", { path: { id }, query, body }, options);
  }

  /** DELETE /v1/memories/{id}: soft, or erased with `hard: true`. */
  deleteMemory(id: string, query: Query<"deleteMemory">, options?: RequestOptions) {
    return this.request("deleteMemory", { path: { id }, query }, options);
  }

  /** GET /v1/memories/{id}/history: every change, oldest first. */
  memoryHistory(id: string, query: Query<"memoryHistory">, options?: RequestOptions) {
    return this.request("memoryHistory", { path: { id }, query }, options);
  }

  // --- the entity graph ---

  /** GET /v1/entities: the people, places, ... a user's memories name, with counts. */
  listEntities(query: Query<"listEntities">, options?: RequestOptions) {
    return this.request("listEntities", { query }, options);
  }

  /** GET /v1/entities/{id}: one entity with its relations, their validity and sources. */
  getEntity(id: string, query: Query<"getEntity">, options?: RequestOptions) {
    return this.request("getEntity", { path: { id }, query }, options);
  }

  /** GET /v1/entities/{id}/neighbours: the entities within a few relations of one. */
  entityNeighbours(id: string, query: Query<"entityNeighbours">, options?: RequestOptions) {
    return this.request("entityNeighbours", { path: { id }, query }, options);
  }

  // --- users and sessions ---

  /** GET /v1/users: the users of the key's tenant. */
  listUsers(query: Query<"listUsers"> = {}, options?: RequestOptions) {
    return this.request("listUsers", { query }, options);
  }

  /** GET /v1/sessions: the user's sessions, newest first. */
  listSessions(query: Query<"listSessions">, options?: RequestOptions) {
    return this.request("listSessions", { query }, options);
  }

  /** POST /v1/sessions/{id}/messages: turns into working memory, memories extracted. */
  appendSessionMessages(
    id: string,
    body: Body<"appendSessionMessages">,
    options?: RequestOptions,
  ) {
    return this.request("appendSessionMessages", { path: { id }, body }, options);
  }

  /** GET /v1/sessions/{id}: working memory and summary. */
  getSession(id: string, query: Query<"getSession">, options?: RequestOptions) {
    return this.request("getSession", { path: { id }, query }, options);
  }

  /** POST /v1/sessions/{id}/close: the final summary; later turns are refused (409). */
  closeSession(id: string, body: Body<"closeSession">, options?: RequestOptions) {
    return this.request("closeSession", { path: { id }, body }, options);
  }

  /** GET /v1/jobs/{id}: an asynchronous add's state. */
  getJob(id: string, query: Query<"getJob">, options?: RequestOptions) {
    return this.request("getJob", { path: { id }, query }, options);
  }

  // --- retrieval ---

  /** POST /v1/search: hybrid keyword + vector search, best first. */
  search(body: Body<"search">, options?: RequestOptions) {
    return this.request("search", { body }, options);
  }

  /** POST /v1/context: the relevant memories packed for a prompt under a token budget. */
  context(body: Body<"context">, options?: RequestOptions) {
    return this.request("context", { body }, options);
  }

  // --- knowledge documents (shared by the tenant, or by one agent) ---

  /** POST /v1/knowledge: a document (content, content_base64 for a PDF, or a server path)
   * chunked with citations; the same doc_id again replaces it. */
  ingestDocument(body: Body<"ingestDocument">, options?: RequestOptions) {
    return this.request("ingestDocument", { body }, options);
  }

  /** GET /v1/knowledge: the documents with their chunk counts. */
  listDocuments(query: Query<"listDocuments"> = {}, options?: RequestOptions) {
    return this.request("listDocuments", { query }, options);
  }

  /** GET /v1/knowledge/{id}: the document and its chunks. */
  getDocument(id: string, query: Query<"getDocument"> = {}, options?: RequestOptions) {
    return this.request("getDocument", { path: { id }, query }, options);
  }

  /** DELETE /v1/knowledge/{id}: every chunk and vector erased (`verify: true` scans files). */
  deleteDocument(id: string, query: Query<"deleteDocument"> = {}, options?: RequestOptions) {
    return this.request("deleteDocument", { path: { id }, query }, options);
  }

  /** GET /v1/profile: lasting facts and preferences by kind, and as text. */
  getProfile(query: Query<"getProfile">, options?: RequestOptions) {
    return this.request("getProfile", { query }, options);
  }

  /** POST /v1/recall: the memories worth raising unasked given the latest turns. */
  recallMemories(body: Body<"recallMemories">, options?: RequestOptions) {
    return this.request("recallMemories", { body }, options);
  }

  /**
   * POST /v1/chat/completions: the chat proxy (a server started with --upstream-url). The user's
   * memory goes into the system message and the exchange is written back; the upstream's
   * completion comes back as it is. Not streamed (this client is streaming-free): for
   * server-sent events point an OpenAI SDK at the server.
   */
  chatCompletions(body: Body<"chatCompletions">, options?: RequestOptions) {
    return this.request("chatCompletions", { body: { ...body, stream: false } }, options);
  }

  /** GET /v1/export: everything stored about the user, as JSON Lines text. */
  exportMemories(query: Query<"exportMemories">, options?: RequestOptions) {
    return this.request("exportMemories", { query }, options);
  }

  // --- lifecycle ---

  /** POST /v1/maintenance: one maintenance run over the tenant or one user. */
  maintain(body: Body<"maintain"> = {}, options?: RequestOptions) {
    return this.request("maintain", { body }, options);
  }

  /** GET /v1/maintenance/log: what maintenance did to the user's memories. */
  maintenanceLog(query: Query<"maintenanceLog">, options?: RequestOptions) {
    return this.request("maintenanceLog", { query }, options);
  }

  // --- administration (admin key) ---

  /** GET /v1/admin/keys */
  listKeys(query: Query<"listKeys"> = {}, options?: RequestOptions) {
    return this.request("listKeys", { query }, options);
  }

  /** POST /v1/admin/keys: the reply holds the secret, once. */
  createKey(body: Body<"createKey">, options?: RequestOptions) {
    return this.request("createKey", { body }, options);
  }

  /** DELETE /v1/admin/keys/{id}: revoked at once. */
  revokeKey(id: string, options?: RequestOptions) {
    return this.request("revokeKey", { path: { id } }, options);
  }

  /** GET /v1/admin/audit: who touched whose data, newest first. */
  listAudit(query: Query<"listAudit"> = {}, options?: RequestOptions) {
    return this.request("listAudit", { query }, options);
  }

  /** DELETE /v1/admin/tenants/{id}: erase a whole tenant. */
  purgeTenant(id: string, query: Query<"purgeTenant"> = {}, options?: RequestOptions) {
    return this.request("purgeTenant", { path: { id }, query }, options);
  }

  // --- operations (no key needed) ---

  /** GET /healthz: the process is alive. */
  healthz(options?: RequestOptions) {
    return this.request("healthz", {}, options);
  }

  /** GET /readyz: the database answers reads and takes writes (else UnavailableError). */
  readyz(options?: RequestOptions) {
    return this.request("readyz", {}, options);
  }

  /** GET /metrics: Prometheus text. */
  metrics(options?: RequestOptions) {
    return this.request("metrics", {}, options);
  }

  /** GET /openapi.json: the server's API document; info.version is the API's version. */
  openapi(options?: RequestOptions) {
    return this.request("openapi", {}, options);
  }
}
