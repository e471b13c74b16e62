export class ApiError extends Error {
    status;
    code;
    constructor(status, code, message) {
        super(message);
        this.status = status;
        this.code = code;
    }
}
let auth = { key: () => "", unauthorized: () => { } };
export function setAuth(a) {
    auth = a;
}
export function url(path, query) {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(query ?? {})) {
        if (value !== undefined && value !== "")
            params.set(name, String(value));
    }
    const qs = params.toString();
    return qs ? `${path}?${qs}` : path;
}
export function headers(json) {
    const out = {};
    const key = auth.key();
    if (key)
        out["Authorization"] = `Bearer ${key}`;
    if (json)
        out["Content-Type"] = "application/json";
    return out;
}
export async function failure(res) {
    let code = `http_${res.status}`;
    let message = res.statusText || `HTTP ${res.status}`;
    try {
        const body = (await res.json());
        if (body.error?.code)
            code = body.error.code;
        if (body.error?.message)
            message = body.error.message;
    }
    catch {
    }
    const error = new ApiError(res.status, code, message);
    if (res.status === 401)
        auth.unauthorized(error);
    return error;
}
export async function send(call, signal) {
    let res;
    try {
        res = await fetch(url(call.path, call.query), {
            method: call.method,
            headers: headers(call.body !== undefined),
            body: call.body === undefined ? undefined : JSON.stringify(call.body),
            signal,
            cache: "no-store",
        });
    }
    catch (e) {
        if (e.name === "AbortError")
            throw e;
        throw new ApiError(0, "network", e.message || "network error");
    }
    if (!res.ok)
        throw await failure(res);
    return res;
}
async function json(call) {
    return (await (await send(call)).json());
}
const enc = encodeURIComponent;
export const listUsers = (cursor) => json({ method: "GET", path: "/v1/users", query: { limit: 1000, cursor } });
export const listMemories = (q) => json({ method: "GET", path: "/v1/memories", query: { ...q } });
export const getMemory = (user, id) => json({ method: "GET", path: `/v1/memories/${enc(id)}`, query: { user_id: user } });
export const updateMemory = (user, id, body) => json({ method: "PATCH", path: `/v1/memories/${enc(id)}`, query: { user_id: user }, body });
export const deleteMemory = (user, id, hard) => json({
    method: "DELETE",
    path: `/v1/memories/${enc(id)}`,
    query: { user_id: user, hard: hard ? "true" : undefined },
});
export const memoryHistory = (user, id) => json({
    method: "GET",
    path: `/v1/memories/${enc(id)}/history`,
    query: { user_id: user },
});
export const eraseUser = (user) => json({ method: "DELETE", path: "/v1/memories", query: { user_id: user } });
export async function exportUser(user) {
    return (await send({ method: "GET", path: "/v1/export", query: { user_id: user } })).blob();
}
export const search = (body) => json({ method: "POST", path: "/v1/search", body });
export const context = (body) => json({ method: "POST", path: "/v1/context", body });
export const recall = (body) => json({ method: "POST", path: "/v1/recall", body });
export const profile = (user) => json({ method: "GET", path: "/v1/profile", query: { user_id: user } });
export const listEntities = (q) => json({ method: "GET", path: "/v1/entities", query: { ...q } });
export const getEntity = (user, id) => json({ method: "GET", path: `/v1/entities/${enc(id)}`, query: { user_id: user } });
export const entityNeighbours = (user, id, hops, includeEnded) => json({
    method: "GET",
    path: `/v1/entities/${enc(id)}/neighbours`,
    query: { user_id: user, hops, max_nodes: 60, include_ended: includeEnded ? "true" : undefined },
});
export const maintain = (body) => json({ method: "POST", path: "/v1/maintenance", body });
export const maintenanceLog = (user) => json({
    method: "GET",
    path: "/v1/maintenance/log",
    query: { user_id: user, limit: 500 },
});
export const listKeys = () => json({ method: "GET", path: "/v1/admin/keys" });
export const createKey = (body) => json({ method: "POST", path: "/v1/admin/keys", body });
export const revokeKey = (id) => json({ method: "DELETE", path: `/v1/admin/keys/${enc(id)}` });
export const listAudit = (q) => json({ method: "GET", path: "/v1/admin/audit", query: { ...q } });
export const purgeTenant = (tenant) => json({ method: "DELETE", path: `/v1/admin/tenants/${enc(tenant)}` });
