// Dialogs over the table: the summary after each deal and the final ranking.
import { h, t } from "../util.js";
import { seatName } from "./drawing.js";

export function closeDialog(s) { s.dialog?.remove(); s.dialog = null; }

/** Open dialog `kind` (one at a time); a click beside it closes it, except the game-over one. */
export function openDialog(s, kind, ...content) {
  closeDialog(s);
  const overlay = h("div.overlay", { dataset: { kind }, onclick: (e) => { if (e.target === overlay && kind !== "over") closeDialog(s); } },
    h("div.dialog", { role: "dialog", "aria-modal": "true", id: `dialog-${kind}` }, ...content));
  s.dialog = overlay;
  document.body.append(overlay);
  overlay.querySelector("button, a")?.focus();
}

export function dialogKind(s) { return s.dialog?.dataset.kind ?? null; }

function rankingTable(s, totals, penalties, winners) {
  const order = totals.map((total, seat) => ({ seat, total })).sort((a, b) => a.total - b.total);
  const head = h("tr", {}, h("th", {}, "#"), h("th", {}, t("table.player")),
    penalties ? h("th.num", {}, t("table.thisDealCol")) : null, h("th.num", {}, t("table.total")));
  const body = order.map((o, rank) => h("tr" + (winners.includes(o.seat) ? ".win" : ""), {},
    h("td", {}, String(rank + 1)), h("td", {}, seatName(s, o.seat)),
    penalties ? h("td.num", {}, `+${penalties[o.seat]}`) : null, h("td.num", {}, String(o.total))));
  return h("table.ranking", {}, h("thead", {}, head), h("tbody", {}, body));
}

/** The summary of a finished deal (event `deal-scored`); it closes by itself after a while. */
export function dealSummary(s, e) {
  const low = Math.min(...e.totals);
  const leaders = e.totals.map((v, i) => (v === low ? i : -1)).filter((i) => i >= 0);
  openDialog(s, "deal", h("h2", {}, t("table.dealOver", { d: e.deal + 1 })), rankingTable(s, e.totals, e.penalties, leaders),
    h("div.actions", {}, h("button.btn", { type: "button", onclick: () => closeDialog(s) }, t("table.continue"))));
  const mine = s.dialog;
  setTimeout(() => { if (s.dialog === mine) closeDialog(s); }, 5000 * Math.max(s.speed, 0.4));
}

/** The final ranking, with Play again, the replay and the way back to the lobby. */
export function gameOver(s) {
  if (dialogKind(s) === "over") return;
  const { table, view } = s.current;
  const names = view.winners.map((i) => seatName(s, i)).join(" & ");
  const actions = [];
  if (table.you != null) actions.push(h("button.btn.primary", { type: "button", id: "again", onclick: () => { closeDialog(s); s.send({ type: "again" }); } }, t("table.again")));
  if (table.last_game_id) actions.push(h("a.btn.ghost", { href: `#/history/${table.last_game_id}` }, t("table.replay")));
  actions.push(h("a.btn.ghost", { href: "#/" }, t("table.lobby")));
  openDialog(s, "over", h("h2", {}, t("table.gameOver")),
    h("p", { id: "winners" }, t(view.winners.length > 1 ? "table.winners" : "table.winner", { names })),
    rankingTable(s, view.totals, null, view.winners), h("div.actions", {}, actions));
}
