// Animating the public events of a turn (cards revealed, rows taken, cards placed) before the
// server's new state is applied. Each handler changes the drawn state `s` and waits a moment.
import { t, tn, toast } from "../util.js";
import { drawBoard, drawHand, drawPlayers, drawReveal, drawRevealing, seatName } from "./drawing.js";
import { playsOf } from "./plays.js";

/** Wait `ms` (times the speed setting), or less if the reader skips the animation. */
function pause(s, ms) {
  if (s.skipping) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => { clearTimeout(timer); s.wakers.delete(done); resolve(); };
    const timer = setTimeout(done, ms * s.speed);
    s.wakers.add(done);
  });
}

/** Skip the rest of the animations now running: the new state is drawn at once. */
export function skipAnimations(s) {
  s.skipping = true;
  for (const wake of [...s.wakers]) wake();
}

const ANIMATIONS = {
  "deal-started": async (s, e) => {
    s.rows = e.rows.map((r) => [...r]); s.revealed = null; drawBoard(s);
    if (s.shape.handsPass && e.deal > 0) { toast(t("table.handsPass")); await pause(s, 600); }
  },
  "rows-laid": async (s, e) => { s.rows = e.rows.map((r) => [...r]); drawBoard(s); await pause(s, 400); },
  "cards-revealed": async (s, e) => {
    s.revealed = playsOf(e.seat_cards, e.plays);
    drawReveal(s);
    drawHand(s, true);
    drawRevealing(s);
    await pause(s, 1100);
  },
  "row-taken": async (s, e) => {
    const row = s.nodes.board.children[e.row];
    row?.classList.add("taking");
    toast(tn(e.reason === "twin" ? "log.twin" : "log.took", e.bullheads, { name: seatName(s, e.seat), row: e.row + 1 }));
    await pause(s, 450);
    const flight = flyToSeat(s, row, e.seat);
    s.rows[e.row] = [];
    drawBoard(s);
    await pause(s, 650);
    flight();
    // the taker's seat counts the bullheads taken this deal at once (the server's view confirms it)
    const view = s.current?.view;
    if (view?.penalties && e.reason !== "twin") { view.penalties[e.seat] += e.bullheads; drawPlayers(s); }
    s.nodes.players.querySelector(`.player[data-seat="${e.seat}"]`)?.classList.add("took");
  },
  "card-placed": async (s, e) => {
    if (e.side === "left") s.rows[e.row].unshift(e.card); else s.rows[e.row].push(e.card);
    const shown = s.revealed?.find((p) => p.card === e.card && !p.placed); // a twin is placed once each
    if (shown) shown.placed = true;
    s.freshRowCard = e.card;
    drawBoard(s);
    drawReveal(s);
    await pause(s, 550);
  },
  "deal-scored": async (s) => { await pause(s, 300); }, // its summary follows the new board (table.js)
  "card-shown": async (s, e) => { // Open: a card goes down face up, for all to see
    if (s.current?.view?.face_up) { s.current.view.face_up[e.seat] = e.card; drawReveal(s); }
    await pause(s, 350);
  },
  "order-chosen": async (s, e) => {
    toast(t("table.ordered", { name: seatName(s, e.seat), first: e.cards[0], second: e.cards[1] }));
    await pause(s, 300);
  },
  "cards-kept": async (s, e) => {
    toast(e.cards.length ? t("table.kept", { name: seatName(s, e.seat), cards: e.cards.join(", ") }) : t("table.keptNone", { name: seatName(s, e.seat) }));
    await pause(s, 300);
  },
};

/** Animate `events` one after another (stops early when the table is left). */
export async function playEvents(s, events) {
  for (const event of events) {
    if (s.closed) return;
    const handler = ANIMATIONS[event.type];
    if (handler) await handler(s, event);
  }
}

/** The taken row's cards move to the taker's seat: copies of them, laid over the page, glide to the
 * seat's box and fade. Returns a function that removes them. */
function flyToSeat(s, row, seat) {
  const target = s.nodes.players.querySelector(`.player[data-seat="${seat}"]`);
  if (!row || !target) return () => {};
  const to = target.getBoundingClientRect();
  const copies = [...row.querySelectorAll(".card:not(.ghost)")].map((card, i) => {
    const from = card.getBoundingClientRect();
    const copy = card.cloneNode(true);
    copy.classList.add("flying");
    copy.removeAttribute("id");
    copy.setAttribute("aria-hidden", "true");
    copy.dataset.toSeat = String(seat);
    Object.assign(copy.style, { position: "fixed", left: `${from.left}px`, top: `${from.top}px`, width: `${from.width}px`, height: `${from.height}px`, margin: "0", zIndex: "40" });
    document.body.append(copy);
    const dx = to.left + to.width / 2 - (from.left + from.width / 2);
    const dy = to.top + to.height / 2 - (from.top + from.height / 2);
    const duration = Math.max(60, 600 * s.speed);
    copy.animate?.([{ transform: "none", opacity: 1 }, { transform: `translate(${dx}px, ${dy}px) scale(.45)`, opacity: 0.2 }],
      { duration, delay: i * 40 * s.speed, easing: "ease-in", fill: "forwards" });
    return copy;
  });
  return () => { for (const copy of copies) copy.remove(); };
}
