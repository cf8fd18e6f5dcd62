// Shared helpers: translation, DOM building (text only, never HTML from data), the API, toasts.

let strings = {};
let fallback = {};
export let lang = "en";
export const LANGS = ["en", "de", "es", "fr", "sv"]; // as index.html's menu and sixnimmt.i18n.LANGUAGES

export async function loadLanguage(code) {
  lang = LANGS.includes(code) ? code : "en";
  const load = async (c) => (await fetch(`/static/i18n/${c}.json`)).json();
  if (!Object.keys(fallback).length) fallback = await load("en");
  strings = lang === "en" ? fallback : await load(lang);
  document.documentElement.lang = lang;
  localStorage.setItem("sixnimmt.lang", lang);
  for (const node of document.querySelectorAll("[data-i18n]")) node.textContent = t(node.dataset.i18n);
  for (const node of document.querySelectorAll("[data-i18n-label]")) node.setAttribute("aria-label", t(node.dataset.i18nLabel));
}

export function preferredLanguage() {
  const saved = localStorage.getItem("sixnimmt.lang");
  if (saved && LANGS.includes(saved)) return saved;
  for (const wanted of navigator.languages || [navigator.language || "en"]) {
    const code = wanted.slice(0, 2).toLowerCase();
    if (LANGS.includes(code)) return code;
  }
  return "en";
}

/** The translation of `key`, with `{name}` placeholders filled from `vars`. */
export function t(key, vars = {}) {
  const text = strings[key] ?? fallback[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (_, name) => (name in vars ? String(vars[name]) : `{${name}}`));
}

/** The translation of `key` for the count `n`: the key `key.one`, `key.other` (and whatever else
 * the language's plural rules name) that fits `n`, with `{n}` and `vars` filled in. */
export function tn(key, n, vars = {}) {
  let form = "other";
  try { form = new Intl.PluralRules(lang).select(n); } catch { /* an engine without plural rules */ }
  const wanted = `${key}.${form}`;
  return t(wanted in strings || wanted in fallback ? wanted : `${key}.other`, { n, ...vars });
}

/** Preferences kept in this browser (localStorage "sixnimmt.NAME"). */
export const prefs = {
  get(name) { try { return localStorage.getItem(`sixnimmt.${name}`); } catch { return null; } },
  set(name, value) { try { localStorage.setItem(`sixnimmt.${name}`, String(value)); } catch { /* private mode: not kept */ } },
};

/** The badge on a bot's name, the same at the table and in the history: `bot` is a server bot's
 * level, "program" a bot program's (docs/bot-api.md); null or undefined: a person, no badge. */
export function botBadge(bot) {
  if (!bot) return null;
  if (bot === "program" || bot === "bot") return h("span.badge.bot", { title: t("bots.program") }, t("table.bot"));
  return h("span.badge.bot", { title: t("table.bot") }, t(`level.${bot}`));
}

/** What a table's seat is for :func:`botBadge`: its level, "program", or null (a person). A named
 * open seat is one a player gave up during the game: the bot of its level plays it. */
export const seatBot = (seat) => (seat.program ? "program"
  : seat.kind === "bot" || (seat.kind === "open" && seat.name && seat.bot) ? seat.bot : null);

/** Build an element: h("div.a.b", {attrs}, children...). Strings become text nodes (so names are
 * always shown as text, never parsed as HTML). */
export function h(spec, attrs = {}, ...children) {
  const [tag, ...classes] = spec.split(".");
  const node = document.createElement(tag || "div");
  if (classes.length) node.className = classes.join(" ");
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key === "dataset") Object.assign(node.dataset, value);
    else if (key === "text") node.textContent = value;
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

export async function api(path, options = {}) {
  const init = { headers: { "Content-Type": "application/json" }, ...options };
  if (init.body && typeof init.body !== "string") init.body = JSON.stringify(init.body);
  const response = await fetch(`/api${path}`, init);
  const data = await response.json().catch(() => ({}));
  if (!response.ok) {
    throw new Error(errorText({ code: data.code, params: data.params, message: typeof data.detail === "string" ? data.detail : response.statusText }));
  }
  return data;
}

/** A random key for one join, sent again with each retry of it: a retry of a join whose answer
 * was lost (the server timed out) gets the seat the first try took, never a second one. */
export function joinKey() {
  const bytes = crypto.getRandomValues(new Uint8Array(18));
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_");
}

/** A server error in the reader's language: by its `code` (with `params`, 1-based numbers), or the
 * server's English `message` for a code this page does not know yet. */
export function errorText({ code, params, message }) {
  const key = `error.${code}`;
  if (code && (key in strings || key in fallback)) return t(key, params || {});
  return message || t("error.generic", { msg: "" });
}

export function toast(text, bad = false) {
  const box = document.getElementById("toasts");
  const node = h("div.toast" + (bad ? ".bad" : ""), { role: bad ? "alert" : "status" }, text);
  box.append(node);
  while (box.children.length > 3) box.firstChild.remove(); // a fast table must not bury the screen
  setTimeout(() => node.remove(), 3200);
}

let config = null;
export async function getConfig() {
  if (!config) config = await api("/config");
  return config;
}

/** Seat tokens live in this browser only: {CODE: {token, seat}}. */
export const seats = {
  all() { try { return JSON.parse(localStorage.getItem("sixnimmt.seats") || "{}"); } catch { return {}; } },
  get(code) { return this.all()[code] || null; },
  set(code, seat, token) { const all = this.all(); all[code] = { seat, token }; localStorage.setItem("sixnimmt.seats", JSON.stringify(all)); },
  remove(code) { const all = this.all(); delete all[code]; localStorage.setItem("sixnimmt.seats", JSON.stringify(all)); },
};

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Time left in words a glance reads: "11 h 59 min", "12 min", "45 s". */
export function timeLeftText(seconds) {
  const left = Math.max(0, Math.ceil(seconds));
  if (left >= 3600) return `${Math.floor(left / 3600)} h ${Math.floor((left % 3600) / 60)} min`;
  return left >= 120 ? `${Math.ceil(left / 60)} min` : `${left} s`;
}

/** A button that shows and hides `panel` (a disclosure: the top bar's menus). The panel closes on
 * Escape (focus back on the button), on a click elsewhere, and when the page moves to another
 * screen; `data-open` on the panel says it is shown (the CSS hides it otherwise). */
export function disclosure(button, panel) {
  const set = (open) => {
    button.setAttribute("aria-expanded", String(open));
    if (open) panel.dataset.open = "1"; else delete panel.dataset.open;
  };
  set(false);
  button.addEventListener("click", () => {
    const open = button.getAttribute("aria-expanded") !== "true";
    set(open);
    if (open) panel.querySelector("a, button")?.focus();
  });
  panel.addEventListener("keydown", (event) => {
    if (event.key === "Escape") { set(false); button.focus(); }
  });
  panel.addEventListener("click", (event) => { if (event.target.closest("a")) set(false); });
  // The page-wide listeners end with the button (a redrawn top bar makes a new one).
  const page = new AbortController();
  const alive = () => button.isConnected || (page.abort(), false);
  document.addEventListener("click", (event) => {
    if (alive() && !button.contains(event.target) && !panel.contains(event.target)) set(false);
  }, { signal: page.signal });
  window.addEventListener("hashchange", () => { if (alive()) set(false); }, { signal: page.signal });
  return set;
}
