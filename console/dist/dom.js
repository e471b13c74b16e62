export function h(tag, attrs = null, ...children) {
    const el = document.createElement(tag);
    if (attrs) {
        for (const [name, value] of Object.entries(attrs)) {
            if (value === undefined || value === null || value === false)
                continue;
            if (typeof value === "function") {
                if (!/^on[A-Z]/.test(name))
                    throw new Error(`h: ${name} is not an event`);
                el.addEventListener(name.slice(2).toLowerCase(), value);
            }
            else if (name === "style" || /^on/i.test(name)) {
                throw new Error(`h: ${name} is not allowed (CSP and escaping)`);
            }
            else if (name === "value") {
                el.value = String(value);
            }
            else if (name === "checked") {
                el.checked = Boolean(value);
            }
            else {
                el.setAttribute(name, value === true ? "" : String(value));
            }
        }
    }
    append(el, ...children);
    return el;
}
export function append(parent, ...children) {
    for (const child of children.flat()) {
        if (child === null || child === undefined || child === false)
            continue;
        parent.appendChild(typeof child === "object" ? child : document.createTextNode(String(child)));
    }
}
export function fill(parent, ...children) {
    parent.replaceChildren();
    append(parent, ...children);
}
export function bar(value, kind = "") {
    const clamped = Number.isFinite(value) ? Math.max(0, Math.min(1, value)) : 0;
    const fillEl = h("span", { class: "bar-fill" });
    fillEl.style.width = `${(clamped * 100).toFixed(1)}%`;
    return h("span", { class: `bar ${kind}`.trim(), role: "presentation" }, fillEl);
}
export function select(options, selected, attrs = {}) {
    const el = h("select", attrs);
    for (const [value, label] of options) {
        const opt = h("option", { value }, label);
        if (value === selected)
            opt.selected = true;
        el.appendChild(opt);
    }
    return el;
}
export function field(label, control, extraClass = "") {
    return h("label", { class: `field ${extraClass}`.trim() }, h("span", { class: "field-label" }, label), control);
}
