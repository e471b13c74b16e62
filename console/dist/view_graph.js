import * as api from "./api.js";
import { errorBox } from "./dialogs.js";
import { field, fill, h, select } from "./dom.js";
import * as fmt from "./format.js";
import { t } from "./i18n.js";
import { scopeToken, state } from "./state.js";
import { needUser, openMemory } from "./widgets.js";
const view = {
    token: "",
    name: "",
    page: null,
    selected: "",
    hops: 2,
    ended: false,
    around: null,
    detail: null,
};
const SVG = "http://www.w3.org/2000/svg";
const WIDTH = 560;
const HEIGHT = 440;
const RING = [0, 120, 190, 215];
function svg(tag, attrs, text) {
    const el = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs))
        el.setAttribute(k, String(v));
    if (text !== undefined)
        el.textContent = text;
    return el;
}
export function layout(n) {
    const at = new Map();
    const cx = WIDTH / 2;
    const cy = HEIGHT / 2;
    at.set(n.entity.id, { x: cx, y: cy, distance: 0 });
    const rings = new Map();
    for (const nb of n.neighbours) {
        const d = Math.min(3, nb.distance);
        rings.set(d, [...(rings.get(d) ?? []), nb.entity.id]);
    }
    for (const [d, ids] of rings) {
        ids.forEach((id, i) => {
            const angle = (2 * Math.PI * i) / ids.length - Math.PI / 2 + (d % 2 ? 0 : Math.PI / ids.length);
            at.set(id, { x: cx + RING[d] * Math.cos(angle), y: cy + RING[d] * Math.sin(angle), distance: d });
        });
    }
    return at;
}
function drawing(n) {
    const at = layout(n);
    const names = new Map([[n.entity.id, n.entity]]);
    for (const nb of n.neighbours)
        names.set(nb.entity.id, nb.entity);
    const root = svg("svg", {
        viewBox: `0 0 ${WIDTH} ${HEIGHT}`, class: "graph-drawing", role: "img",
        "aria-label": t("graph_drawing", { name: n.entity.name }), "data-test": "graph-drawing",
    });
    for (const e of n.edges) {
        const a = at.get(e.subject.id);
        const b = at.get(e.object.id);
        if (!a || !b)
            continue;
        root.append(svg("line", {
            x1: a.x, y1: a.y, x2: b.x, y2: b.y,
            class: e.active ? "graph-edge" : "graph-edge ended", "data-test": "graph-edge",
        }));
        root.append(svg("text", { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 - 4, class: "graph-predicate" }, e.predicate));
    }
    for (const [id, p] of at) {
        const entity = names.get(id);
        if (!entity)
            continue;
        const g = svg("g", { class: `graph-node kind-${entity.kind} d${p.distance}`, "data-test": "graph-node", tabindex: 0 });
        g.append(svg("circle", { cx: p.x, cy: p.y, r: p.distance === 0 ? 26 : 18 }));
        g.append(svg("text", { x: p.x, y: p.y + (p.distance === 0 ? 42 : 32), class: "graph-name" }, entity.name));
        g.append(svg("title", {}, `${entity.name} (${t(("kind_" + entity.kind))})`));
        if (id !== n.entity.id) {
            const go = () => void choose(id);
            g.addEventListener("click", go);
            g.addEventListener("keydown", (ev) => { if (ev.key === "Enter")
                go(); });
        }
        root.append(g);
    }
    return root;
}
function edgeRow(e) {
    const when = e.active
        ? t("graph_since", { from: fmt.day(e.valid_from) })
        : t("graph_between", { from: fmt.day(e.valid_from), to: fmt.day(e.valid_to ?? e.expired_at) });
    return h("li", { class: e.active ? "graph-relation" : "graph-relation ended", "data-test": "graph-relation" }, h("span", { class: "rel" }, e.subject.name, " —", e.predicate, "→ ", e.object.name), h("span", { class: "hint" }, " ", when, " · "), e.sources.map((id, i) => h("a", { href: "#", class: "source", onClick: (ev) => { ev.preventDefault(); openMemory(id); } }, i === 0 ? `${t("graph_source")} 1` : `${i + 1}`, " ")));
}
function neighbourhood() {
    if (!view.around || !view.detail)
        return h("p", { class: "hint" }, t("graph_pick"));
    const e = view.detail.entity;
    return h("div", { class: "graph-around", "data-test": "graph-around" }, h("h3", null, e.name, " ", h("span", { class: "badge" }, t(("kind_" + e.kind)))), e.aliases.length ? h("p", { class: "hint" }, t("graph_aliases"), " ", e.aliases.join(", ")) : null, drawing(view.around), view.around.truncated ? h("p", { class: "hint" }, t("graph_truncated")) : null, h("h4", null, t("graph_relations")), view.detail.edges.length
        ? h("ul", { class: "graph-relations" }, view.detail.edges.map(edgeRow))
        : h("p", { class: "empty" }, t("graph_no_relations")));
}
function entityList() {
    const entities = view.page?.entities ?? [];
    if (!view.page)
        return h("div");
    if (entities.length === 0)
        return h("p", { class: "empty", "data-test": "graph-empty" }, t("graph_none"));
    return h("ul", { class: "entity-list", "data-test": "entity-list" }, entities.map((e) => h("li", null, h("button", {
        type: "button", class: e.id === view.selected ? "link active" : "link", "data-test": "entity",
        onClick: () => void choose(e.id),
    }, e.name), h("span", { class: "hint" }, " ", t(("kind_" + e.kind)), " · ", t("graph_counts", { mentions: String(e.mentions), edges: String(e.active_edges) })))));
}
let redraw = () => { };
async function choose(id) {
    view.selected = id;
    try {
        const [around, detail] = await Promise.all([
            api.entityNeighbours(state.user, id, view.hops, view.ended),
            api.getEntity(state.user, id),
        ]);
        if (view.selected !== id)
            return;
        view.around = around;
        view.detail = detail;
    }
    catch (err) {
        if (view.selected !== id)
            return;
        view.around = null;
        view.detail = null;
        redraw();
        const right = document.querySelector("[data-test=graph-right]");
        if (right)
            fill(right, errorBox(err));
        return;
    }
    redraw();
}
async function load() {
    view.page = await api.listEntities({ user_id: state.user, name: view.name || undefined, limit: 200 });
}
export function mountGraph(root) {
    if (!state.user)
        return fill(root, needUser());
    const left = h("div", { class: "graph-left" });
    const right = h("div", { class: "graph-right", "data-test": "graph-right" });
    redraw = () => {
        fill(left, entityList());
        fill(right, neighbourhood());
    };
    const name = h("input", { type: "search", value: view.name, placeholder: t("graph_filter"), "data-test": "graph-filter" });
    const hops = select([["1", "1"], ["2", "2"], ["3", "3"]], String(view.hops));
    const ended = h("input", { type: "checkbox", checked: view.ended });
    const form = h("form", { class: "search-form" }, h("div", { class: "filters" }, field(t("graph_filter"), name), field(t("graph_hops"), hops), field(t("graph_ended"), ended), h("button", { type: "submit", class: "primary" }, t("graph_go"))));
    form.addEventListener("submit", async (e) => {
        e.preventDefault();
        view.name = name.value.trim();
        view.hops = Number(hops.value) || 2;
        view.ended = ended.checked;
        try {
            await load();
            if (view.selected)
                await choose(view.selected);
            redraw();
        }
        catch (err) {
            fill(left, errorBox(err));
        }
    });
    fill(root, h("section", { class: "page graph-page" }, h("p", { class: "hint" }, t("graph_intro")), form, h("div", { class: "graph-split" }, left, right)));
    if (view.token !== scopeToken()) {
        view.token = scopeToken();
        view.page = null;
        view.selected = "";
        view.around = null;
        view.detail = null;
    }
    redraw();
    if (!view.page) {
        load().then(redraw, (err) => fill(left, errorBox(err)));
    }
}
