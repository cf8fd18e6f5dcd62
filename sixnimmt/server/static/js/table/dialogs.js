// Dialogs over the table: the summary after each deal, the score sheet, and the final ranking
// (which may be put aside to study the last board, and brought back).
import { api, botBadge, h, seatBot, seats, t } from "../util.js";
import { scoring } from "../score.js";
import { myGames } from "../history.js";
import { seatName } from "./drawing.js";
import { scoreSheet } from "./log.js";
import { hostSeatList, keepTyping } from "./seats.js";
import { leftMarks, showRatingChanges } from "./results.js";

export function closeDialog(s) {
  if (!s.dialog) return;
  s.dialog.remove();
  s.dialog = null;
  s.onDialogChange?.();
}

/** Open dialog `kind` (one at a time). A click beside it or Escape closes it; closing the final
 * ranking only puts it aside (the table's Results button brings it back). */
export function openDialog(s, kind, ...content) {
  closeDialog(s);
  const overlay = h("div.overlay", { dataset: { kind }, onclick: (e) => { if (e.target === overlay) dismiss(s); } },
    h("div.dialog", { role: "dialog", "aria-modal": "true", "aria-labelledby": `dialog-${kind}-title`, id: `dialog-${kind}` }, ...content));
  overlay.addEventListener("keydown", (e) => { if (e.key === "Escape") { e.preventDefault(); dismiss(s); } });
  s.dialog = overlay;
  document.body.append(overlay);
  overlay.querySelector("button, a")?.focus();
  s.onDialogChange?.();
}

/** Close the open dialog by the reader's wish. */
function dismiss(s) {
  if (dialogKind(s) === "over") s.overPutAside = true;
  closeDialog(s);
}

export function dialogKind(s) { return s.dialog?.dataset.kind ?? null; }

const title = (kind, text) => h("h2", { id: `dialog-${kind}-title` }, text);

/** Seat `i`'s name with the table's bot badge, for the ranking and the score sheet. */
function markedName(s, i) {
  const seat = s.current.table.seats[i];
  return [seatName(s, i), seat && seatBot(seat) ? " " : "", seat ? botBadge(seatBot(seat)) : null, ...leftMarks(seat)];
}

function rankingTable(s, totals, penalties, winners, id) {
  const score = scoring(s.shape.target);
  const order = totals.map((total, seat) => ({ seat, total })).sort((a, b) => a.total - b.total);
  const head = h("tr", {}, h("th", {}, "#"), h("th", {}, t("table.player")),
    penalties ? h("th.num", {}, t("table.thisDealCol")) : null, h("th.num", {}, score.totalHeading()));
  const body = order.map((o, rank) => h("tr" + (winners.includes(o.seat) ? ".win" : ""), { dataset: { seat: o.seat } },
    h("td", {}, String(rank + 1)), h("td", {}, markedName(s, o.seat)),
    penalties ? h("td.num.delta", {}, score.delta(penalties[o.seat])) : null,
    h("td.num.total" + (score.past(o.total) ? ".past" : ""), {}, score.total(o.total))));
  return h("table.ranking", { id }, h("thead", {}, head), h("tbody", {}, body));
}

/** The summary of a finished deal (event `deal-scored`), shown once the board shows the next
 * deal; it closes by itself after a while. */
export function dealSummary(s, e) {
  const low = Math.min(...e.totals);
  const leaders = e.totals.map((v, i) => (v === low ? i : -1)).filter((i) => i >= 0);
  openDialog(s, "deal", title("deal", t("table.dealOver", { d: e.deal + 1 })), rankingTable(s, e.totals, e.penalties, leaders, "deal-ranking"),
    h("div.actions", {}, h("button.btn", { type: "button", onclick: () => closeDialog(s) }, t("table.continue"))));
  const mine = s.dialog;
  setTimeout(() => { if (s.dialog === mine) closeDialog(s); }, 5000 * Math.max(s.speed, 0.4));
}

/** The score sheet, at any time during the game. */
export function showSheet(s) {
  const names = s.current.table.seats.map((_, i) => markedName(s, i));
  openDialog(s, "sheet", title("sheet", t("sheet.title")), scoreSheet(names, s.log.deals, s.shape.target),
    h("div.actions", {}, h("button.btn", { type: "button", onclick: () => closeDialog(s) }, t("dialog.close"))));
}

/** The host's seats: invitation links, and releasing a seat at the next deal. */
export function showSeats(s) {
  const table = s.current.table;
  const allow = h("input", { type: "checkbox", id: "spectator-chat", checked: table.spectator_chat ? true : null,
    onchange: () => s.send({ type: "spectator-chat", allow: allow.checked }) });
  keepTyping(() => openDialog(s, "seats", title("seats", t("seats.title")), h("p.muted", {}, t("seats.help")), hostSeatList(s),
    h("label.check", {}, allow, " ", t("seats.spectatorChat")),
    h("div.actions", {}, h("button.btn", { type: "button", onclick: () => closeDialog(s) }, t("dialog.close")))));
}

/** The final ranking and score sheet, with Play again, the replay and the way back to the lobby. */
export function gameOver(s) {
  if (dialogKind(s) === "over") return;
  const { table, view } = s.current;
  const names = view.winners.map((i) => seatName(s, i)).join(" & ");
  const actions = [h("button.btn.ghost", { type: "button", id: "close-over", onclick: () => dismiss(s) }, t("table.seeBoard"))];
  if (table.you != null) actions.push(h("button.btn.primary", { type: "button", id: "again", onclick: () => { closeDialog(s); s.send({ type: "again" }); } }, t("table.again")));
  // (a private table's games are shown to whoever has the table's code)
  if (table.last_game_id) actions.push(h("a.btn.ghost", { href: `#/history/${table.last_game_id}?table=${s.code}` }, t("table.replay")));
  if (table.last_game_id && table.you != null) {
    myGames.add(table.last_game_id, s.code, table.you); // "My games" in the history
    actions.push(h("a.btn.ghost", { id: "review-btn", href: `#/review/${table.last_game_id}?table=${s.code}&seat=${table.you}` }, t("review.open")));
  }
  actions.push(h("a.btn.ghost", { href: "#/" }, t("table.lobby")));
  const seatNames = table.seats.map((_, i) => markedName(s, i));
  const sheet = h("div", { id: "final-sheet" }, scoreSheet(seatNames, s.log.deals, s.shape.target));
  openDialog(s, "over", title("over", t("table.gameOver")),
    h("p", { id: "winners" }, t(view.winners.length > 1 ? "table.winners" : "table.winner", { names })),
    rankingTable(s, view.totals, null, view.winners, "final-ranking"),
    h("h3", {}, t("sheet.title")), sheet,
    h("div.actions", {}, actions));
  completeSheet(s, table.last_game_id, seatNames, sheet);
  if (table.rated && table.last_game_id) showRatingChanges(s, table.last_game_id, s.dialog);
}

/** The finished game's record has every deal, also those this browser did not see. */
async function completeSheet(s, gameId, names, node) {
  if (!gameId) return;
  let data;
  try { data = await api(`/games/${gameId}/events?table=${encodeURIComponent(s.code)}`); } catch { return; }
  const deals = data.events.filter((e) => e.type === "deal-scored").map((e) => ({ deal: e.deal, penalties: e.penalties, totals: e.totals }));
  if (!deals.length) return;
  s.log.replaceDeals(deals);
  if (node.isConnected) node.replaceChildren(scoreSheet(names, deals, s.shape.target));
}

/** Leave the table, after a confirmation: the seat is given up (a bot plays it from now on) and
 * this browser forgets its token. */
export function askLeave(s) {
  const { table } = s.current;
  const playing = table.status !== "waiting";
  openDialog(s, "leave", title("leave", t("leave.title")), h("p", {}, t(playing ? "leave.playing" : "leave.waiting")),
    h("div.actions", {},
      h("button.btn.ghost", { type: "button", id: "leave-cancel", onclick: () => closeDialog(s) }, t("leave.stay")),
      h("button.btn.primary.danger", { type: "button", id: "leave-confirm", onclick: () => {
        if (!(table.status === "waiting" && table.you === 0)) s.send({ type: "leave" }); // the host's waiting table just waits
        seats.remove(s.code);
        closeDialog(s);
        location.hash = "#/";
      } }, t("leave.confirm"))));
}
