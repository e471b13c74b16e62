// The console's calls to the v1 API: a small fetch wrapper (no client library at run time, so
// the page stays a handful of small files) typed with the types engram-client generates from
// docs/openapi.json (type-only imports, erased by tsc), so an API change breaks the build.
import type {
  ApiKey,
  ContextRequest,
  ContextResponse,
  CreateKeyBody,
  DeleteMemoryResponse,
  DeleteUserMemoriesResponse,
  EntityDetail,
  EntityPage,
  ListEntitiesQuery,
  Neighbourhood,
  ListAuditQuery,
  ListAuditResponse,
  ListKeysResponse,
  ListMemoriesQuery,
  MaintenanceLogResponse,
  MaintenanceReport,
  MaintenanceRequest,
  Memory,
  MemoryHistoryResponse,
  MemoryPage,
  PatchRequest,
  Profile,
  PurgeTenantResponse,
  RecallRequest,
  RecallResponse,
  RevokeKeyResponse,
  SearchRequest,
  SearchResponse,
  UserPage,
} from "engram-client";

export type { Memory };

/** A refused or failed call: the server's {"error": {code, message}}, or a network failure. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

type Query = Record<string, string | number | boolean | undefined>;

interface Call {
  method: string;
  path: string;
  query?: Query;
  body?: unknown;
}

/** Where the key comes from and what to do on a 401 (set by the app: state and the prompt). */
export interface Auth {
  key(): string;
  unauthorized(error: ApiError): void;
}

let auth: Auth = { key: () => "", unauthorized: () => {} };

export function setAuth(a: Auth): void {
  auth = a;
}

export function url(path: string, query?: Query): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value !== undefined && value !== "") params.set(name, String(value));
  }
  const qs = params.toString();
  return qs ? `${path}?${qs}` : path;
}

/** The headers every call carries: the user's key, and JSON. */
export function headers(json: boolean): Record<string, string> {
  const out: Record<string, string> = {};
  const key = auth.key();
  if (key) out["Authorization"] = `Bearer ${key}`;
  if (json) out["Content-Type"] = "application/json";
  return out;
}

/** Turns a non-2xx reply into an ApiError; a 401 also tells the app to ask for a key. */
export async function failure(res: Response): Promise<ApiError> {
  let code = `http_${res.status}`;
  let message = res.statusText || `HTTP ${res.status}`;
  try {
    const body = (await res.json()) as { error?: { code?: string; message?: string } };
    if (body.error?.code) code = body.error.code;
    if (body.error?.message) message = body.error.message;
  } catch {
    // not JSON (a proxy's page): the status says enough
  }
  const error = new ApiError(res.status, code, message);
  if (res.status === 401) auth.unauthorized(error);
  return error;
}

/** Sends a request; the raw Response when it succeeded. */
export async function send(call: Call, signal?: AbortSignal): Promise<Response> {
  let res: Response;
  try {
    res = await fetch(url(call.path, call.query), {
      method: call.method,
      headers: headers(call.body !== undefined),
      body: call.body === undefined ? undefined : JSON.stringify(call.body),
      signal,
      cache: "no-store",
    });
  } catch (e) {
    if ((e as Error).name === "AbortError") throw e;
    throw new ApiError(0, "network", (e as Error).message || "network error");
  }
  if (!res.ok) throw await failure(res);
  return res;
}

async function json<T>(call: Call): Promise<T> {
  return (await (await send(call)).json()) as T;
}

const enc = encodeURIComponent;

// --- users and memories -------------------------------------------------------------------

export const listUsers = (cursor?: string) =>
  json<UserPage>({ method: "GET", path: "/v1/users", query: { limit: 1000, cursor } });

export const listMemories = (q: ListMemoriesQuery) =>
  json<MemoryPage>({ method: "GET", path: "/v1/memories", query: { ...q } });

export const getMemory = (user: string, id: string) =>
  json<Memory>({ method: "GET", path: `/v1/memories/${enc(id)}`, query: { user_id: user } });

export const updateMemory = (user: string, id: string, body: PatchRequest) =>
  json<Memory>({ method: "PATCH", path: `/v1/memories/${enc(id)}`, query: { user_id: user }, body });

/** Soft delete (kept in history), or hard=true: erased with the turns it came from. */
export const deleteMemory = (user: string, id: string, hard: boolean) =>
  json<DeleteMemoryResponse>({
    method: "DELETE",
    path: `/v1/memories/${enc(id)}`,
    query: { user_id: user, hard: hard ? "true" : undefined },
  });

export const memoryHistory = (user: string, id: string) =>
  json<MemoryHistoryResponse>({
    method: "GET",
    path: `/v1/memories/${enc(id)}/history`,
    query: { user_id: user },
  });

export const eraseUser = (user: string) =>
  json<DeleteUserMemoriesResponse>({ method: "DELETE", path: "/v1/memories", query: { user_id: user } });

/** The user's JSON Lines export, as a Blob to save. */
export async function exportUser(user: string): Promise<Blob> {
  return (await send({ method: "GET", path: "/v1/export", query: { user_id: user } })).blob();
}

// --- retrieval ----------------------------------------------------------------------------

export const search = (body: SearchRequest) =>
  json<SearchResponse>({ method: "POST", path: "/v1/search", body });

export const context = (body: ContextRequest) =>
  json<ContextResponse>({ method: "POST", path: "/v1/context", body });

export const recall = (body: RecallRequest) =>
  json<RecallResponse>({ method: "POST", path: "/v1/recall", body });

export const profile = (user: string) =>
  json<Profile>({ method: "GET", path: "/v1/profile", query: { user_id: user } });

// --- the entity graph ---------------------------------------------------------------------

export const listEntities = (q: ListEntitiesQuery) =>
  json<EntityPage>({ method: "GET", path: "/v1/entities", query: { ...q } });

export const getEntity = (user: string, id: string) =>
  json<EntityDetail>({ method: "GET", path: `/v1/entities/${enc(id)}`, query: { user_id: user } });

export const entityNeighbours = (user: string, id: string, hops: number, includeEnded: boolean) =>
  json<Neighbourhood>({
    method: "GET",
    path: `/v1/entities/${enc(id)}/neighbours`,
    query: { user_id: user, hops, max_nodes: 60, include_ended: includeEnded ? "true" : undefined },
  });

// --- lifecycle ----------------------------------------------------------------------------

export const maintain = (body: MaintenanceRequest) =>
  json<MaintenanceReport>({ method: "POST", path: "/v1/maintenance", body });

export const maintenanceLog = (user: string) =>
  json<MaintenanceLogResponse>({
    method: "GET",
    path: "/v1/maintenance/log",
    query: { user_id: user, limit: 500 },
  });

// --- admin --------------------------------------------------------------------------------

export const listKeys = () => json<ListKeysResponse>({ method: "GET", path: "/v1/admin/keys" });

export const createKey = (body: CreateKeyBody) =>
  json<ApiKey>({ method: "POST", path: "/v1/admin/keys", body });

export const revokeKey = (id: string) =>
  json<RevokeKeyResponse>({ method: "DELETE", path: `/v1/admin/keys/${enc(id)}` });

export const listAudit = (q: ListAuditQuery) =>
  json<ListAuditResponse>({ method: "GET", path: "/v1/admin/audit", query: { ...q } });

export const purgeTenant = (tenant: string) =>
  json<PurgeTenantResponse>({ method: "DELETE", path: `/v1/admin/tenants/${enc(tenant)}` });
