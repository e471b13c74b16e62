// The one way the console builds its page. Text only ever enters the DOM as text nodes, so a
// memory holding markup ("<script>…", "<img onerror=…>") is drawn as the characters it is.
// No HTML string is ever parsed (the build fails if innerHTML or the like appears in dist/),
// and no style attribute is written (the server's CSP allows no inline style): widths drawn
// from data go through the CSSOM (el.style.width), which the CSP does not govern.

export type Child = Node | string | number | null | undefined | false;
export type Children = Child | Child[];

type Listener = (event: Event) => void;
export type Attrs = Record<string, string | number | boolean | Listener | undefined | null>;

/**
 * Creates an element. Attribute names starting "on" + capital (onClick) add listeners;
 * `value` and `checked` are set as properties (what a form control shows); false/null/undefined
 * attributes are left out; true is an empty attribute.
 */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs | null = null,
  ...children: Children[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  if (attrs) {
    for (const [name, value] of Object.entries(attrs)) {
      if (value === undefined || value === null || value === false) continue;
      if (typeof value === "function") {
        if (!/^on[A-Z]/.test(name)) throw new Error(`h: ${name} is not an event`);
        el.addEventListener(name.slice(2).toLowerCase(), value);
      } else if (name === "style" || /^on/i.test(name)) {
        throw new Error(`h: ${name} is not allowed (CSP and escaping)`);
      } else if (name === "value") {
        (el as unknown as HTMLInputElement).value = String(value);
      } else if (name === "checked") {
        (el as unknown as HTMLInputElement).checked = Boolean(value);
      } else {
        el.setAttribute(name, value === true ? "" : String(value));
      }
    }
  }
  append(el, ...children);
  return el;
}

/** Appends children: strings and numbers become text nodes, falsy ones are skipped. */
export function append(parent: Node, ...children: Children[]): void {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === "object" ? child : document.createTextNode(String(child)));
  }
}

/** Replaces every child of `parent`. */
export function fill(parent: Element, ...children: Children[]): void {
  parent.replaceChildren();
  append(parent, ...children);
}

/** A horizontal bar for a value in 0..1 (explain scores, retention, token use). */
export function bar(value: number, kind = ""): HTMLElement {
  const clamped = Number.isFinite(value) ? Math.max(0, Math.min(1, value)) : 0;
  const fillEl = h("span", { class: "bar-fill" });
  fillEl.style.width = `${(clamped * 100).toFixed(1)}%`;
  return h("span", { class: `bar ${kind}`.trim(), role: "presentation" }, fillEl);
}

/** A <select> of values with their labels. */
export function select(
  options: Array<[string, string]>,
  selected: string,
  attrs: Attrs = {},
): HTMLSelectElement {
  const el = h("select", attrs);
  for (const [value, label] of options) {
    const opt = h("option", { value }, label);
    if (value === selected) opt.selected = true;
    el.appendChild(opt);
  }
  return el;
}

/** A labelled form control. */
export function field(label: string, control: HTMLElement, extraClass = ""): HTMLElement {
  return h("label", { class: `field ${extraClass}`.trim() }, h("span", { class: "field-label" }, label), control);
}
