// Play now's wait, as matchmaking sites show it: "Finding players…", the seconds before bots take
// the seats still empty, and Start now; not a private table's "share this link". The Play now
// answer says when the bots come (`bots_in`); this browser keeps that moment per table, so a
// reload counts on from where it was.
import { h, prefs, t } from "../util.js";

const key = (code) => `finding.${code}`;

/** Play now seated this browser at table `code`, whose empty seats get bots in `seconds`. */
export function rememberFinding(code, seconds) {
  if (seconds != null) prefs.set(key(code), String(Date.now() + seconds * 1000));
}

/** When bots join the table (a Date.now() time), or null: not a table Play now found. */
export function findingUntil(s) {
  const until = Number(prefs.get(key(s.code)));
  return until > 0 && s.current?.table.status === "waiting" ? until : null;
}

/** The words of the countdown: "Bots join in N s", then "Bots are joining…". */
function botsIn(until) {
  const left = Math.ceil((until - Date.now()) / 1000);
  return left > 0 ? t("place.botsIn", { n: left }) : t("place.botsJoining");
}

/** The waiting room of a table Play now found: who is here, the countdown, Start now (the host),
 * and, below, the link for a friend. */
export function findingParts(s, until, seatsList, share) {
  const { table } = s.current;
  const host = table.you != null && table.you === (table.host ?? 0);
  return [h("section.finding", { id: "finding" },
    h("h1", { id: "finding-title" }, h("span.spinner", { "aria-hidden": "true" }), t("place.findingTitle")),
    h("p.bots-in", { id: "bots-in", role: "timer", "aria-live": "off" }, botsIn(until)),
    host ? h("p", {}, h("button.btn.primary", { type: "button", id: "start", onclick: () => s.send({ type: "start" }) }, t("place.startNow"))) : null),
  seatsList,
  h("p.muted", { style: "color:#cfe3d8" }, t("place.findingHelp")), share];
}

/** The countdown, redrawn by the table's ticker. */
export function drawFinding(s) {
  const node = document.getElementById("bots-in");
  const until = findingUntil(s);
  if (node && until) node.textContent = botsIn(until);
}

/** The game started (or the table is not waiting any more): its wait is forgotten. */
export function forgetFinding(code) {
  try { localStorage.removeItem(`sixnimmt.${key(code)}`); } catch { /* private mode */ }
}
