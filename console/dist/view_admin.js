import * as api from "./api.js";
import { confirmAction, describe, errorBox, toast } from "./dialogs.js";
import { field, fill, h, select } from "./dom.js";
import * as fmt from "./format.js";
import { label, t } from "./i18n.js";
import { setAdmin, setUser, state } from "./state.js";
const audit = { tenant: "", user: "", since: "", limit: 100 };
function table(headers, rows, test) {
    return h("div", { class: "table-wrap" }, h("table", { "data-test": test }, h("thead", null, h("tr", null, headers.map((c) => h("th", null, c)))), h("tbody", null, rows)));
}
function keysTable(keys, reload) {
    if (keys.length === 0)
        return h("p", { class: "empty" }, t("keys_none"));
    const revoke = async (k) => {
        const ok = await confirmAction({
            title: t("revoke_title"),
            body: t("revoke_body", { name: k.name || k.id || "", tenant: k.tenant ?? "" }),
            confirmLabel: t("revoke"),
        });
        if (!ok)
            return;
        try {
            await api.revokeKey(k.id ?? "");
            toast(t("revoked"));
            reload();
        }
        catch (e) {
            toast(describe(e), "error");
        }
    };
    return table([t("key_id"), t("tenant"), t("name"), t("role"), t("prefix"), t("created"), ""], keys.map((k) => h("tr", { class: k.revoked_at ? "revoked" : "" }, h("td", { class: "mono" }, k.id ?? ""), h("td", null, k.tenant ?? ""), h("td", null, k.name ?? ""), h("td", null, label("role", k.role)), h("td", { class: "mono" }, k.prefix ? `${k.prefix}…` : ""), h("td", { class: "nowrap" }, fmt.day(k.created_at)), h("td", null, k.revoked_at
        ? t("revoked_on", { date: fmt.day(k.revoked_at) })
        : h("button", { type: "button", class: "danger subtle", "data-test": "revoke", onClick: () => revoke(k) }, t("revoke"))))), "keys");
}
function createKeyForm(reload) {
    const tenant = h("input", { type: "text", required: true, "data-test": "new-key-tenant" });
    const name = h("input", { type: "text", "data-test": "new-key-name" });
    const role = select([["tenant", label("role", "tenant")], ["admin", label("role", "admin")]], "tenant");
    const secretBox = h("div");
    const form = h("form", { class: "filters" }, field(t("tenant"), tenant), field(t("name"), name), field(t("role"), role), h("button", { type: "submit", class: "primary", "data-test": "new-key-go" }, t("key_create")));
    form.addEventListener("submit", async (e) => {
        e.preventDefault();
        try {
            const k = await api.createKey({ tenant: tenant.value.trim(), name: name.value.trim() || undefined, role: role.value });
            const secret = h("input", { type: "text", readonly: true, class: "mono secret", value: k.secret ?? "", "data-test": "new-key-secret" });
            fill(secretBox, h("div", { class: "notice" }, h("p", null, t("key_created_once")), secret));
            secret.select();
            reload();
        }
        catch (err) {
            toast(describe(err), "error");
        }
    });
    return h("div", null, form, secretBox);
}
function tenantsView(keys) {
    const counts = new Map();
    for (const k of keys)
        if (k.tenant)
            counts.set(k.tenant, (counts.get(k.tenant) ?? 0) + (k.revoked_at ? 0 : 1));
    if (counts.size === 0)
        return h("p", { class: "hint" }, t("tenants_keyless"));
    const erase = async (tenant) => {
        const ok = await confirmAction({
            title: t("erase_tenant_title"),
            body: t("erase_tenant_body", { tenant }),
            confirmLabel: t("erase_tenant"),
            typeToConfirm: tenant,
        });
        if (!ok)
            return;
        try {
            const r = await api.purgeTenant(tenant);
            toast(t("erase_tenant_done", { users: r.users ?? 0, n: r.purged ?? 0 }));
        }
        catch (e) {
            toast(describe(e), "error");
        }
    };
    return table([t("tenant"), t("active_keys"), ""], [...counts].sort().map(([tenant, n]) => h("tr", null, h("td", null, tenant), h("td", null, String(n)), h("td", null, h("button", { type: "button", class: "danger subtle", onClick: () => erase(tenant) }, t("erase_tenant"))))), "tenants");
}
function usersView() {
    if (state.users.length === 0)
        return h("p", { class: "empty" }, t("no_users"));
    return table([t("user"), t("items"), t("sessions")], state.users.map((u) => h("tr", null, h("td", null, h("button", { type: "button", class: "link", onClick: () => { setUser(u.user_id ?? ""); location.hash = "#/memories"; } }, u.user_id ?? "")), h("td", null, String(u.items ?? 0)), h("td", null, String(u.sessions ?? 0)))), "users");
}
function auditView() {
    const err = h("div");
    const tenant = h("input", { type: "text", value: audit.tenant, "data-test": "audit-tenant" });
    const user = h("input", { type: "text", value: audit.user, "data-test": "audit-user" });
    const since = h("input", { type: "date", value: audit.since });
    const limit = h("input", { type: "number", min: 1, max: 1000, value: audit.limit });
    const rowsBody = h("tbody");
    const more = h("button", { type: "button", hidden: true }, t("load_more"));
    let cursor = null;
    const row = (e) => h("tr", { class: e.status && e.status >= 400 ? "refused" : "" }, h("td", { class: "nowrap" }, fmt.dateTime(e.at)), h("td", null, e.tenant ?? ""), h("td", { class: "mono" }, e.key_id || "–"), h("td", null, label("audit", e.action)), h("td", { class: "mono" }, `${e.method ?? ""} ${e.route ?? ""}`), h("td", null, e.user_id ?? ""), h("td", { class: "mono" }, e.target ? fmt.shortId(e.target) : ""), h("td", null, String(e.status ?? "")), h("td", { class: "mono" }, e.remote ?? ""));
    const load = async (next) => {
        try {
            const r = await api.listAudit({
                tenant: audit.tenant || undefined,
                user_id: audit.user || undefined,
                since: fmt.fromDateInput(audit.since),
                limit: audit.limit,
                cursor: next ? cursor ?? undefined : undefined,
            });
            if (!next)
                rowsBody.replaceChildren();
            for (const e of r.results ?? [])
                rowsBody.appendChild(row(e));
            cursor = r.next_cursor ?? null;
            more.hidden = !cursor;
            fill(err);
        }
        catch (e) {
            fill(err, errorBox(e));
        }
    };
    more.addEventListener("click", () => load(true));
    const form = h("form", { class: "filters" }, field(t("tenant"), tenant), field(t("user"), user), field(t("since"), since), field(t("limit"), limit), h("button", { type: "submit", class: "primary", "data-test": "audit-go" }, t("filter")));
    form.addEventListener("submit", (e) => {
        e.preventDefault();
        Object.assign(audit, { tenant: tenant.value.trim(), user: user.value.trim(), since: since.value, limit: Math.max(1, Number(limit.value) || 100) });
        load(false);
    });
    load(false);
    return h("div", null, form, err, h("div", { class: "table-wrap" }, h("table", { "data-test": "audit" }, h("thead", null, h("tr", null, [t("when"), t("tenant"), t("key_id"), t("action"), t("route"), t("user"), t("target"), t("status_code"), t("remote")].map((c) => h("th", null, c)))), rowsBody)), more);
}
export async function mountAdmin(root) {
    const box = h("div", null, h("p", { class: "loading" }, t("loading")));
    fill(root, box);
    let keys;
    try {
        keys = (await api.listKeys()).results ?? [];
    }
    catch (e) {
        if (e instanceof api.ApiError && e.status === 403)
            setAdmin(false);
        return fill(box, h("section", { class: "page admin-page" }, h("h2", null, t("nav_admin")), e instanceof api.ApiError && e.status === 403
            ? h("p", { class: "notice", "data-test": "admin-refused" }, t("admin_needed"))
            : errorBox(e)));
    }
    if (state.admin !== true)
        setAdmin(true);
    drawAdmin(box, keys);
}
function drawAdmin(root, keys) {
    const keysBox = h("div");
    const tenantsBox = h("div");
    const auditBox = h("div");
    const reload = async () => {
        try {
            const keys = (await api.listKeys()).results ?? [];
            fill(keysBox, keysTable(keys, reload));
            fill(tenantsBox, tenantsView(keys));
        }
        catch (e) {
            fill(keysBox, errorBox(e));
        }
    };
    fill(root, h("section", { class: "page admin-page" }, h("h2", null, t("nav_admin")), h("h3", null, t("keys")), createKeyForm(reload), keysBox, h("h3", null, t("tenants")), tenantsBox, h("h3", null, t("users_of_tenant")), usersView(), h("h3", null, t("audit_log")), auditBox));
    fill(auditBox, auditView());
    fill(keysBox, keysTable(keys, reload));
    fill(tenantsBox, tenantsView(keys));
}
