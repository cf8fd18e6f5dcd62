// The single-page app: a hash router over the lobby, a table, the history and the rules.
import { disclosure, loadLanguage, preferredLanguage } from "./util.js";
import { watchChallenges } from "./challenges.js";
import { initCards } from "./cards.js";
import { showLobby } from "./lobby.js";
import { showTable } from "./table.js";
import { showHistory, showMyGames, showReplay } from "./history.js";
import { showReview } from "./review.js";
import { showMailPage } from "./notify.js";
import { showTutorial } from "./tutorial.js";
import { showBotApiDocs, showRules } from "./rules.js";
import { showTournament, showTournaments } from "./tournaments.js";
import { account, drawAccountLink, resumeSeat, showAccount, showLeaderboard, showProfile } from "./account.js";
import { showAdmin } from "./moderation.js";

const main = document.getElementById("main");
let leave = null; // cleanup of the current screen (closes a table's socket)

const routes = [
  // a friend's invitation: #/t/CODE?invite=TOKEN&name=NAME (the name the host typed for them)
  [/^#\/t\/([A-Za-z0-9]{1,12})(?:\?invite=([\w-]{1,128})(?:&name=([^&]{1,200}))?)?$/,
    async (view, m) => {
      await resumeSeat(m[1].toUpperCase());
      return showTable(view, m[1].toUpperCase(), m[2] || null, m[3] ? safeDecode(m[3]) : "");
    }],
  // a finished game; a private table's with its table's code: #/history/ID?table=CODE
  [/^#\/history\/(\d+)(?:\?table=([A-Za-z0-9]{1,12}))?$/, (view, m) => showReplay(view, Number(m[1]), m[2] || null)],
  [/^#\/history(?:\?page=(\d{1,6}))?$/, (view, m) => showHistory(view, Number(m[1]) || 1)],
  // the games this browser played; the review of one seat's decisions; the guided first game
  [/^#\/history\/mine(?:\?page=(\d{1,6}))?$/, (view, m) => showMyGames(view, Number(m[1]) || 1)],
  [/^#\/review\/(\d+)(?:\?(?:table=([A-Za-z0-9]{0,12}))?&?(?:seat=(\d))?)?$/, (view, m) => showReview(view, Number(m[1]), m[2] || null, m[3] == null ? null : Number(m[3]))],
  [/^#\/tutorial$/, (view) => showTutorial(view)],
  // the pages the mailed links open, and "Forgot your password?"
  [/^#\/mail\/(confirm|reset|forgot)(?:\?token=([\w-]{1,100}))?$/, (view, m) => showMailPage(view, m[1], m[2] || "")],
  [/^#\/rules(?:\/(\w+))?$/, (view, m) => showRules(view, m[1] || "standard")],
  [/^#\/docs\/bot-api$/, (view) => showBotApiDocs(view)],
  [/^#\/account(?:\/(bots))?$/, (view, m) => showAccount(view, m[1] || null)],
  [/^#\/leaderboard(?:\/(\w+))?(\/provisional)?(?:\?page=(\d+))?$/,
    (view, m) => showLeaderboard(view, m[1] || null, !!m[2], Math.max(0, Number(m[3] || 1) - 1))],
  [/^#\/admin$/, (view) => showAdmin(view)], // the moderators' page (docs/web.md, "Moderation")
  [/^#\/tournaments$/, (view) => showTournaments(view)],
  [/^#\/tournaments\/(\d{1,9})$/, (view, m) => showTournament(view, Number(m[1]))],
  [/^#\/u\/([A-Za-z0-9_.%-]{1,64})$/, (view, m) => showProfile(view, decodeURIComponent(m[1]))],
  [/^.*$/, (view) => showLobby(view)],
];

let routed = 0;

function safeDecode(text) { try { return decodeURIComponent(text).slice(0, 24); } catch { return ""; } }

async function route() {
  if (leave) { leave(); leave = null; }
  const turn = ++routed;
  document.getElementById("toasts").replaceChildren(); // news from the last screen is stale here
  // Each visit draws into its own container, so a slow earlier visit can never draw over this one.
  const view = document.createElement("div");
  main.replaceChildren(view);
  main.className = /^#\/(t\/|tutorial)/.test(location.hash) ? "wide" : "";
  const hash = location.hash || "#/";
  for (const a of document.querySelectorAll(".nav a")) {
    const target = a.getAttribute("href");
    const current = target === "#/" ? hash === "#/" || hash.startsWith("#/t/") : hash.startsWith(target);
    if (current) a.setAttribute("aria-current", "page"); else a.removeAttribute("aria-current");
  }
  // A new screen starts the keyboard at its content, past the top bar (the skip link's target).
  main.focus({ preventScroll: true });
  for (const [pattern, show] of routes) {
    const match = hash.match(pattern);
    if (match) {
      const cleanup = (await show(view, match)) || null;
      if (turn === routed) leave = cleanup; else if (cleanup) cleanup(); // a newer visit began meanwhile
      break;
    }
  }
}

async function start() {
  const select = document.getElementById("lang");
  await loadLanguage(preferredLanguage());
  select.value = document.documentElement.lang;
  select.addEventListener("change", async () => { await loadLanguage(select.value); drawAccountLink(); route(); });
  disclosure(document.getElementById("menu-btn"), document.getElementById("nav")); // the phone's menu
  // What sticks under the top bar (the table's players on a phone, a tutorial's lesson) sits at
  // its real height, whatever the language and the width make of it.
  const bar = document.querySelector(".topbar");
  new ResizeObserver(() => document.documentElement.style.setProperty("--topbar-h", `${bar.getBoundingClientRect().height}px`)).observe(bar);
  account();
  watchChallenges(); // a bot's challenge reaches the signed-in person on any screen
  await initCards();
  window.addEventListener("hashchange", route);
  route();
  // The installable app's worker (sw.js): it keeps the shell for opening without a network.
  if ("serviceWorker" in navigator) navigator.serviceWorker.register("/sw.js").catch(() => {});
}

start();
