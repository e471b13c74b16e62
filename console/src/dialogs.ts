// Modal questions and passing notices. Every destructive action (delete, purge, erase, run
// maintenance, revoke a key) goes through confirmAction: nothing is destroyed by one click.
// The dialogs are <dialog> elements opened with showModal, so they sit above an open memory
// panel, trap focus and close on Escape (which answers "no").
import { ApiError } from "./api.js";
import { field, h } from "./dom.js";
import { t } from "./i18n.js";

export interface ConfirmOptions {
  title: string;
  body: string | Node;
  confirmLabel: string;
  /** Also require typing this (a user id, a tenant) before the button works. */
  typeToConfirm?: string;
}

/** Asks; resolves true only when the user confirmed. */
export function confirmAction(o: ConfirmOptions): Promise<boolean> {
  return new Promise((resolve) => {
    const typed = o.typeToConfirm
      ? h("input", { type: "text", autocomplete: "off", "data-test": "confirm-type" })
      : null;
    const ok = h("button", { class: "danger", type: "button", "data-test": "confirm-ok" }, o.confirmLabel);
    const cancel = h("button", { type: "button", "data-test": "confirm-cancel" }, t("cancel"));
    const dialog = h(
      "dialog",
      { class: "confirm", "aria-labelledby": "confirm-title" },
      h("h2", { id: "confirm-title" }, o.title),
      h("div", { class: "confirm-body" }, o.body),
      typed && field(t("confirm_type", { value: o.typeToConfirm ?? "" }), typed),
      h("div", { class: "actions" }, cancel, ok),
    );
    let answered = false;
    const answer = (yes: boolean) => {
      if (answered) return;
      answered = true;
      dialog.close();
      dialog.remove();
      resolve(yes);
    };
    if (typed) {
      ok.disabled = true;
      typed.addEventListener("input", () => (ok.disabled = typed.value !== o.typeToConfirm));
    }
    ok.addEventListener("click", () => answer(true));
    cancel.addEventListener("click", () => answer(false));
    dialog.addEventListener("close", () => answer(false));
    document.body.appendChild(dialog);
    dialog.showModal();
    (typed ?? cancel).focus();
  });
}

/** The key prompt: resolves the key typed, or null when dismissed. */
export function askKey(message: string, current: string): Promise<string | null> {
  const existing = document.querySelector<HTMLDialogElement>("dialog.key-prompt");
  if (existing) {
    existing.querySelector(".key-message")!.textContent = message;
    return Promise.resolve(null); // the prompt already open answers for both
  }
  return new Promise((resolve) => {
    const input = h("input", {
      type: "password",
      autocomplete: "off",
      spellcheck: "false",
      placeholder: "egk_…",
      "data-test": "key-input",
      value: current,
    });
    const form = h(
      "form",
      { method: "dialog" },
      h("h2", null, t("key_title")),
      h("p", { class: "key-message" }, message),
      field(t("key_label"), input),
      h("p", { class: "hint" }, t("key_hint")),
      h(
        "div",
        { class: "actions" },
        h("button", { type: "button", "data-test": "key-cancel", onClick: () => finish(null) }, t("cancel")),
        h("button", { type: "submit", class: "primary", "data-test": "key-submit" }, t("key_use")),
      ),
    );
    const dialog = h("dialog", { class: "key-prompt" }, form);
    let done = false;
    const finish = (value: string | null) => {
      if (done) return;
      done = true;
      dialog.close();
      dialog.remove();
      resolve(value);
    };
    form.addEventListener("submit", (e) => {
      e.preventDefault(); // form-action 'none' in the CSP: handle it here, never navigate
      finish(input.value.trim());
    });
    dialog.addEventListener("close", () => finish(null));
    document.body.appendChild(dialog);
    dialog.showModal();
    input.focus();
  });
}

let toastTimer: number | undefined;

/** A passing notice at the foot of the page (a screen reader reads it too). */
export function toast(message: string, kind: "ok" | "error" = "ok"): void {
  let el = document.getElementById("toast");
  if (!el) {
    el = h("div", { id: "toast", role: "status", "aria-live": "polite" });
    document.body.appendChild(el);
  }
  el.className = `toast ${kind} shown`;
  el.textContent = message;
  window.clearTimeout(toastTimer);
  toastTimer = window.setTimeout(() => el!.classList.remove("shown"), 4000);
}

/** What went wrong, as an inline box. */
export function errorBox(e: unknown): HTMLElement {
  return h("div", { class: "error", role: "alert" }, describe(e));
}

export function describe(e: unknown): string {
  if (e instanceof ApiError) {
    if (e.status === 0) return t("err_network", { message: e.message });
    if (e.status === 401) return t("err_unauthenticated");
    if (e.status === 403) return t("err_forbidden");
    return `${e.status} ${e.code}: ${e.message}`;
  }
  return e instanceof Error ? e.message : String(e);
}
