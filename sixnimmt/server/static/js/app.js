// The single-page app: a hash router over the lobby, a table, the history and the rules.
import { loadLanguage, preferredLanguage } from "./util.js";
import { initCards } from "./cards.js";
import { showLobby } from "./lobby.js";
import { showTable } from "./table.js";
import { showHistory, showReplay } from "./history.js";
import { showRules } from "./rules.js";

const main = document.getElementById("main");
let leave = null; // cleanup of the current screen (closes a table's socket)

const routes = [
  [/^#\/t\/([A-Za-z0-9]{1,12})$/, (m) => showTable(main, m[1].toUpperCase())],
  [/^#\/history\/(\d+)$/, (m) => showReplay(main, Number(m[1]))],
  [/^#\/history$/, () => showHistory(main)],
  [/^#\/rules(?:\/(\w+))?$/, (m) => showRules(main, m[1] || "standard")],
  [/^.*$/, () => showLobby(main)],
];

async function route() {
  if (leave) { leave(); leave = null; }
  main.replaceChildren();
  main.className = "";
  const hash = location.hash || "#/";
  for (const a of document.querySelectorAll(".nav a")) {
    const target = a.getAttribute("href");
    const current = target === "#/" ? hash === "#/" || hash.startsWith("#/t/") : hash.startsWith(target);
    if (current) a.setAttribute("aria-current", "page"); else a.removeAttribute("aria-current");
  }
  for (const [pattern, show] of routes) {
    const match = hash.match(pattern);
    if (match) { leave = (await show(match)) || null; break; }
  }
}

async function start() {
  const select = document.getElementById("lang");
  await loadLanguage(preferredLanguage());
  select.value = document.documentElement.lang;
  select.addEventListener("change", async () => { await loadLanguage(select.value); route(); });
  await initCards();
  window.addEventListener("hashchange", route);
  route();
}

start();
