// Memories for the console's tests, written through the API like an app would: conversation
// turns through the write path (so extraction, supersede chains and history are real) and
// memories stored as given, all dated in 2026.

export async function api(baseUrl, method, path, body, key) {
  const headers = { "Content-Type": "application/json" };
  if (key) headers.Authorization = `Bearer ${key}`;
  const res = await fetch(baseUrl + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

export const XSS_SCRIPT = "<script>alert(1)</script>";
export const XSS_IMG = "<img src=x onerror=\"window.__xss=1;alert('xss')\">";

/** User wang (Chinese): home in Beijing, then Shanghai (a supersede chain), an allergy, … */
export async function seedWang(baseUrl, key) {
  const add = (content, created_at) => api(baseUrl, "POST", "/v1/memories", { user_id: "wang", content, created_at }, key);
  await add("我住在北京，对花生过敏。", "2026-03-02T09:00:00Z");
  await add("我上个月搬到上海了", "2026-07-10T09:00:00Z");
  await api(baseUrl, "POST", "/v1/memories/batch", {
    user_id: "wang",
    infer: false,
    memories: [
      { content: "我喜欢喝绿茶", type: "preference", importance: 0.7, created_at: "2026-04-18T08:30:00Z", tags: ["drinks"] },
      { content: "计划年底前跑完一次半程马拉松", type: "goal", importance: 0.6, created_at: "2026-05-06T20:15:00Z" },
      { content: "Q3 planning notes: launch the Hangzhou office in October", type: "event", tier: "episodic", importance: 0.5, created_at: "2026-08-21T14:00:00Z" },
      { content: "Prefers window seats on long flights", type: "preference", importance: 0.5, created_at: "2026-09-03T11:20:00Z" },
      { content: XSS_SCRIPT, type: "fact", importance: 0.4, created_at: "2026-10-01T10:00:00Z" },
      { content: XSS_IMG, type: "fact", importance: 0.4, created_at: "2026-10-01T10:05:00Z" },
      { content: "Temporary note to delete: parking spot B12", type: "fact", importance: 0.2, created_at: "2026-11-12T18:45:00Z" },
      { content: "Dentist appointment moved to Friday", type: "event", tier: "episodic", importance: 0.3, created_at: "2026-11-20T09:10:00Z" },
    ],
  }, key);
}

/** User alice (English): a smaller set, so the picker has two users. */
export async function seedAlice(baseUrl, key) {
  await api(baseUrl, "POST", "/v1/memories", { user_id: "alice", content: "I work at Initech as a data engineer.", created_at: "2026-02-11T10:00:00Z" }, key);
  await api(baseUrl, "POST", "/v1/memories/batch", {
    user_id: "alice",
    infer: false,
    memories: [
      { content: "Allergic to shellfish", type: "fact", importance: 0.95, created_at: "2026-01-20T12:00:00Z", tags: ["critical"] },
      { content: "Likes jazz records", type: "preference", importance: 0.5, created_at: "2026-06-02T19:00:00Z" },
    ],
  }, key);
}
