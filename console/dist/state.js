const KEY = "engram.console.key";
const USER = "engram.console.user";
const listeners = new Map();
export function on(topic, fn) {
    if (!listeners.has(topic))
        listeners.set(topic, new Set());
    listeners.get(topic).add(fn);
}
function emit(topic) {
    for (const fn of listeners.get(topic) ?? [])
        fn();
}
function stored(name) {
    try {
        return sessionStorage.getItem(name) ?? "";
    }
    catch {
        return "";
    }
}
function store(name, value) {
    try {
        if (value)
            sessionStorage.setItem(name, value);
        else
            sessionStorage.removeItem(name);
    }
    catch {
    }
}
export const state = {
    key: stored(KEY),
    user: stored(USER),
    users: [],
    admin: null,
};
export function setKey(key) {
    state.key = key.trim();
    store(KEY, state.key);
    state.users = [];
    state.admin = null;
    setUser("");
    emit("key");
}
export function setUser(user) {
    if (user === state.user)
        return;
    state.user = user;
    store(USER, user);
    emit("user");
}
export function setUsers(users) {
    state.users = users;
    emit("users");
}
export function setAdmin(admin) {
    state.admin = admin;
    emit("admin");
}
export function scopeToken() {
    return `${state.key}\n${state.user}`;
}
export function dataChanged() {
    emit("data");
}
