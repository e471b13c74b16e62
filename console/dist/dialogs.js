import { ApiError } from "./api.js";
import { field, h } from "./dom.js";
import { t } from "./i18n.js";
export function confirmAction(o) {
    return new Promise((resolve) => {
        const typed = o.typeToConfirm
            ? h("input", { type: "text", autocomplete: "off", "data-test": "confirm-type" })
            : null;
        const ok = h("button", { class: "danger", type: "button", "data-test": "confirm-ok" }, o.confirmLabel);
        const cancel = h("button", { type: "button", "data-test": "confirm-cancel" }, t("cancel"));
        const dialog = h("dialog", { class: "confirm", "aria-labelledby": "confirm-title" }, h("h2", { id: "confirm-title" }, o.title), h("div", { class: "confirm-body" }, o.body), typed && field(t("confirm_type", { value: o.typeToConfirm ?? "" }), typed), h("div", { class: "actions" }, cancel, ok));
        let answered = false;
        const answer = (yes) => {
            if (answered)
                return;
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
export function askKey(message, current) {
    const existing = document.querySelector("dialog.key-prompt");
    if (existing) {
        existing.querySelector(".key-message").textContent = message;
        return Promise.resolve(null);
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
        const form = h("form", { method: "dialog" }, h("h2", null, t("key_title")), h("p", { class: "key-message" }, message), field(t("key_label"), input), h("p", { class: "hint" }, t("key_hint")), h("div", { class: "actions" }, h("button", { type: "button", "data-test": "key-cancel", onClick: () => finish(null) }, t("cancel")), h("button", { type: "submit", class: "primary", "data-test": "key-submit" }, t("key_use"))));
        const dialog = h("dialog", { class: "key-prompt" }, form);
        let done = false;
        const finish = (value) => {
            if (done)
                return;
            done = true;
            dialog.close();
            dialog.remove();
            resolve(value);
        };
        form.addEventListener("submit", (e) => {
            e.preventDefault();
            finish(input.value.trim());
        });
        dialog.addEventListener("close", () => finish(null));
        document.body.appendChild(dialog);
        dialog.showModal();
        input.focus();
    });
}
let toastTimer;
export function toast(message, kind = "ok") {
    let el = document.getElementById("toast");
    if (!el) {
        el = h("div", { id: "toast", role: "status", "aria-live": "polite" });
        document.body.appendChild(el);
    }
    el.className = `toast ${kind} shown`;
    el.textContent = message;
    window.clearTimeout(toastTimer);
    toastTimer = window.setTimeout(() => el.classList.remove("shown"), 4000);
}
export function errorBox(e) {
    return h("div", { class: "error", role: "alert" }, describe(e));
}
export function describe(e) {
    if (e instanceof ApiError) {
        if (e.status === 0)
            return t("err_network", { message: e.message });
        if (e.status === 401)
            return t("err_unauthenticated");
        if (e.status === 403)
            return t("err_forbidden");
        return `${e.status} ${e.code}: ${e.message}`;
    }
    return e instanceof Error ? e.message : String(e);
}
