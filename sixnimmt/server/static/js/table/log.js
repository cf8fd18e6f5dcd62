// The game log (each turn's reveal, placements, who took which row for how many bullheads, the
// timer playing for someone, chat) and the deal-by-deal score sheet. Both are kept as data, not
// text, so they follow the language and the scoring display; and kept in this browser per table,
// so a refresh does not empty them.
import { h, prefs, t, tn } from "../util.js";
import { scoring } from "../score.js";
import { chatMuted } from "./chat.js";

const KEPT = 400; // log lines kept per table

/** The log of table `code`: {entries, deals, game, add(entry), deal(scored), reset(game)}. */
export function createLog(code) {
  const key = `log.${code}`;
  let saved = null;
  try { saved = JSON.parse(prefs.get(key) || "null"); } catch { saved = null; }
  const log = {
    game: saved?.game ?? null, // the table's game number these lines belong to
    entries: Array.isArray(saved?.entries) ? saved.entries : [],
    deals: Array.isArray(saved?.deals) ? saved.deals : [], // [{deal, penalties, totals}] from deal-scored
    chatSeen: Number(saved?.chatSeen) || 0, // the last chat line's id in the log (kept over games)
    onChange: () => {},
    save() { prefs.set(key, JSON.stringify({ game: log.game, entries: log.entries, deals: log.deals, chatSeen: log.chatSeen })); },
    /** Start afresh when the table's game changes (Play again). */
    follow(game) {
      if (log.game === game) return;
      log.game = game; log.entries = []; log.deals = [];
      log.save(); log.onChange();
    },
    add(entry) {
      log.entries.push(entry);
      if (log.entries.length > KEPT) log.entries.splice(0, log.entries.length - KEPT);
      log.save(); log.onChange();
    },
    /** Placements of one turn are gathered on one line. */
    placed(card, row) {
      const last = log.entries[log.entries.length - 1];
      if (last?.k === "place") last.cards.push([card, row]); else log.entries.push({ k: "place", cards: [[card, row]] });
      log.save(); log.onChange();
    },
    scored(e) {
      log.deals = log.deals.filter((d) => d.deal !== e.deal).concat([{ deal: e.deal, penalties: e.penalties, totals: e.totals }]);
      log.add({ k: "scored", deal: e.deal, penalties: e.penalties });
    },
    /** The finished game's sheet from its record, replacing what this browser saw. */
    replaceDeals(deals) { log.deals = deals; log.save(); log.onChange(); },
  };
  return log;
}

/** Write the public events of one update into the log. */
export function logEvents(s, events) {
  const log = s.log;
  for (const e of events) {
    switch (e.type) {
      case "deal-started": log.add({ k: "deal", deal: e.deal }); break;
      case "cards-revealed": log.add({ k: "reveal", turn: e.turn, pairs: e.seat_cards }); break;
      case "card-shown": log.add({ k: "shown", seat: e.seat, card: e.card }); break;
      case "card-placed": log.placed(e.card, e.row); break;
      case "row-taken": log.add({ k: "take", seat: e.seat, row: e.row, n: e.bullheads, twin: e.reason === "twin" }); break;
      case "order-chosen": log.add({ k: "order", seat: e.seat, cards: e.cards }); break;
      case "cards-kept": log.add({ k: "kept", seat: e.seat, cards: e.cards }); break;
      case "deal-scored": log.scored(e); break;
      case "game-over": log.add({ k: "over", winners: e.winners ?? [] }); break;
      default: break;
    }
  }
}

/** One log line as text, in the current language and scoring display. */
export function describe(entry, name, target) {
  const score = scoring(target);
  switch (entry.k) {
    case "deal": return t("log.deal", { d: entry.deal + 1 });
    case "reveal": return t("log.reveal", { t: entry.turn + 1, cards: [...entry.pairs].sort((a, b) => a[1] - b[1]).map(([seat, card]) => `${name(seat)} ${card}`).join(" · ") });
    case "shown": return t("log.shown", { name: name(entry.seat), card: entry.card });
    case "place": return t("log.placed", { cards: entry.cards.map(([card, row]) => t("log.toRow", { card, row: row + 1 })).join(" · ") });
    case "take": return tn(entry.twin ? "log.twin" : "log.took", entry.n, { name: name(entry.seat), row: entry.row + 1 });
    case "order": return t("table.ordered", { name: name(entry.seat), first: entry.cards[0], second: entry.cards[1] });
    case "kept": return entry.cards.length ? t("table.kept", { name: name(entry.seat), cards: entry.cards.join(", ") }) : t("table.keptNone", { name: name(entry.seat) });
    case "scored": return t("log.scored", { d: entry.deal + 1, scores: entry.penalties.map((n, seat) => `${name(seat)} ${score.delta(n)}`).join(" · ") });
    case "over": return t("log.over");
    case "timer": return t(entry.left ? "place.playedLeft" : entry.reason === "away" ? "log.playedAway" : "log.playedTimer", { name: entry.name ?? name(entry.seat) });
    case "chat": return entry.emoji ? `${entry.name ?? t("chat.spectator")} ${entry.emoji}` : `${entry.name ?? t("chat.spectator")}: ${entry.text}`;
    default: return "";
  }
}

/** The collapsible log panel: returns {node, draw()}. */
export function createLogPanel(s) {
  const list = h("ol.log-lines", { id: "log-lines" });
  const summary = h("summary", {});
  const node = h("details.log", { id: "log" }, summary, list);
  if (prefs.get("logOpen") === "1") node.open = true;
  node.addEventListener("toggle", () => { prefs.set("logOpen", node.open ? "1" : "0"); if (node.open) list.scrollTop = list.scrollHeight; });
  const last = h("span.log-last", { id: "log-last", "aria-live": "polite" });
  function draw() {
    summary.replaceChildren(h("span.log-title", {}, t("log.title")), last);
    if (!s.current) return;
    const name = (seat) => (seat == null ? "" : s.current.table.seats[seat]?.name ?? `#${seat + 1}`);
    const target = s.shape?.target ?? null;
    const muted = chatMuted();
    const shown = s.log.entries.filter((e) => !(muted && e.k === "chat"));
    list.replaceChildren(...shown.map((e) => h(`li.log-${e.k}`, {}, describe(e, name, target))));
    // the last action stays readable with the log closed
    const latest = shown[shown.length - 1];
    last.textContent = latest ? describe(latest, name, target) : "";
    last.className = "log-last" + (latest ? ` log-${latest.k}` : "");
    list.scrollTop = list.scrollHeight;
  }
  draw();
  return { node, draw };
}

/** The deal-by-deal score sheet: one row per deal, each player's change and running total. */
export function scoreSheet(names, deals, target) {
  const score = scoring(target);
  const ordered = [...deals].sort((a, b) => a.deal - b.deal);
  const head = h("tr", {}, h("th", {}, t("sheet.deal")), names.map((n) => h("th.num", {}, n)));
  const body = ordered.map((d) => h("tr", { dataset: { deal: d.deal } }, h("td", {}, String(d.deal + 1)),
    d.totals.map((total, seat) => h("td.num" + (score.past(total) ? ".past" : ""), {},
      h("span.delta", {}, score.delta(d.penalties[seat])), " ", h("span.running", {}, score.total(total))))));
  if (!ordered.length) body.push(h("tr", {}, h("td.muted", { colspan: String(names.length + 1) }, t("sheet.empty"))));
  const wrap = h("div.sheet-wrap", {}, h("table.ranking.sheet", { id: "score-sheet" }, h("thead", {}, head), h("tbody", {}, body)));
  // wider than the screen (a phone, many players): say so, rather than hide columns silently
  const note = h("p.scroll-note", { id: "sheet-scroll-note", hidden: true }, t("sheet.scrolls"));
  const check = () => { if (wrap.isConnected) note.hidden = wrap.scrollWidth <= wrap.clientWidth + 1; };
  requestAnimationFrame(check);
  if (window.ResizeObserver) new ResizeObserver(check).observe(wrap);
  return h("div.sheet-box", {}, wrap, note);
}
