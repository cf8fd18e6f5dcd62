// Finished games: a list, and a turn-by-turn replay built from the engine's events.
import { api, botBadge, h, lang, t, tn } from "./util.js";
import { bullIcon, cardNode, ghostNode, sumHeads } from "./cards.js";
import { scoring } from "./score.js";
import { account } from "./account.js";

function when(iso) {
  try { return new Date(iso).toLocaleString(lang, { dateStyle: "medium", timeStyle: "short" }); } catch { return iso; }
}

/** Games shown per page of the history. */
export const PAGE = 25;

/** The games this browser played (kept when a game ends at a table where it held a seat):
 * [{id, table, seat}], newest first. */
export const myGames = {
  all() { try { return JSON.parse(localStorage.getItem("sixnimmt.myGames") || "[]"); } catch { return []; } },
  add(id, table, seat) {
    const all = this.all().filter((g) => g.id !== id);
    all.unshift({ id, table, seat });
    try { localStorage.setItem("sixnimmt.myGames", JSON.stringify(all.slice(0, 1000))); } catch { /* private mode */ }
  },
};

/** The tabs over the history: My games, Public games. */
function tabs(current) {
  return h("nav.tabs", { "aria-label": t("history.title") },
    h("a", { href: "#/history/mine", id: "tab-mine", ...(current === "mine" ? { "aria-current": "page" } : {}) }, t("history.mine")),
    h("a", { href: "#/history", id: "tab-public", ...(current === "public" ? { "aria-current": "page" } : {}) }, t("history.public")));
}

function gameRows(games, mine) {
  return games.map((g) => {
    const key = g.key ? `?table=${encodeURIComponent(g.key)}` : "";
    const params = [g.key ? `table=${encodeURIComponent(g.key)}` : "", mine && g.seat != null ? `seat=${g.seat}` : ""].filter(Boolean).join("&");
    const review = h("a.btn.small.ghost", { href: `#/review/${g.id}${params ? `?${params}` : ""}`, dataset: { review: g.id } }, t("review.open"));
    return h("tr", { dataset: { game: g.id } },
      h("td", {}, when(g.finished_at)),
      h("td", {}, t(`variant.${g.variant}`)),
      // a bot's name carries the table's badge (g.bots: a server bot's level, "program", or null)
      h("td", {}, g.seats.map((name, i) => [i ? " · " : "", h("span.seat-name", { dataset: { seat: i } }, name,
        g.bots?.[i] ? " " : "", botBadge(g.bots?.[i])), ` ${scoring(g.target ?? null).total(g.totals[i])}`]).flat()),
      h("td", {}, g.winners.map((i, k) => [k ? " & " : "", g.seats[i], g.bots?.[i] ? " " : "", botBadge(g.bots?.[i])]).flat()),
      h("td.actions-cell", {}, h("a.btn.small", { href: `#/history/${g.id}${key}` }, t("history.open")), review));
  });
}

function gamesTable(rows) {
  return h("div.table-scroll", {}, h("table.games", {},
    h("thead", {}, h("tr", {}, ["history.when", "history.variant", "history.players", "history.winner"].map((k) => h("th", {}, t(k))), h("th"))),
    h("tbody", {}, rows)));
}

function pager(page, more, base) {
  const nav = h("nav.pager", { "aria-label": t("history.pages") });
  if (page > 1) nav.append(h("a.btn.small", { href: `${base}?page=${page - 1}`, id: "newer", rel: "prev" }, t("history.newer")));
  nav.append(h("span.muted", { id: "page-no" }, t("history.page", { n: page })));
  if (more) nav.append(h("a.btn.small", { href: `${base}?page=${page + 1}`, id: "older", rel: "next" }, t("history.older")));
  return nav;
}

/** The public tables' games, a page at a time (one more is asked for, to know whether a next page exists). */
export async function showHistory(main, page = 1) {
  main.append(h("h1", {}, t("history.title")), tabs("public"));
  let games = [];
  const offset = (page - 1) * PAGE;
  try { games = await api(`/games?limit=${PAGE + 1}&offset=${offset}`); } catch (e) { main.append(h("p.error", {}, e.message)); return; }
  if (!games.length) { main.append(h("p.muted", {}, t("history.none")), page > 1 ? pager(page, false, "#/history") : ""); return; }
  main.append(gamesTable(gameRows(games.slice(0, PAGE), false)), pager(page, games.length > PAGE, "#/history"));
}

/** The games this browser played and, signed in, the games of the account (on any device):
 * private tables' too, each fetched with its table's code. Game ids grow with time, so the two
 * lists merge newest first; the account's is asked for as far as this page reaches. */
export async function showMyGames(main, page = 1) {
  main.append(h("h1", {}, t("history.title")), tabs("mine"));
  let theAccount = [];
  if (await account()) {
    try { theAccount = await api(`/account/games?limit=${Math.min(1000, page * PAGE + 1)}`); } catch { /* this browser's only */ }
  }
  const byId = new Map(theAccount.map((g) => [g.id, { ...g, key: g.table }]));
  for (const g of myGames.all()) if (!byId.has(g.id)) byId.set(g.id, g);
  const all = [...byId.values()].sort((a, b) => b.id - a.id);
  const chosen = all.slice((page - 1) * PAGE, page * PAGE);
  if (!chosen.length) { main.append(h("p.muted", { id: "no-games" }, t("history.noneMine"))); return; }
  const found = await Promise.all(chosen.map(async (g) => {
    if (g.seats) return g; // the account's list says it all
    try {
      const game = await api(`/games/${g.id}${g.table ? `?table=${encodeURIComponent(g.table)}` : ""}`);
      return { ...game, id: g.id, key: g.table, seat: g.seat };
    } catch { return null; }
  }));
  main.append(gamesTable(gameRows(found.filter(Boolean), true)), pager(page, all.length > page * PAGE, "#/history/mine"));
}

/** Frames of the replay: the state after each deal start and each turn, from the engine's events. */
export function buildFrames(data) {
  const players = data.seats.length;
  const frames = [];
  let rows = [[], [], [], []];
  let hands = [];
  let totals = Array(players).fill(0);
  let penalties = Array(players).fill(0);
  let deal = 0, turn = 0, plays = null, taken = [];
  const snap = (label) => frames.push({ label, rows: rows.map((r) => [...r]), hands: hands.map((x) => [...x].sort((a, b) => a - b)),
    totals: [...totals], penalties: [...penalties], plays, taken: [...taken], deal, turn });
  const flush = () => { if (plays) { snap(t("history.step", { d: deal + 1, t: turn + 1 })); plays = null; taken = []; } };
  for (const e of data.events) {
    switch (e.type) {
      case "deal-started":
        flush();
        deal = e.deal; rows = e.rows.map((r) => [...r]); penalties = Array(players).fill(0);
        // a drafted deal (Logic, Tournament's first) starts with empty hands that the draft fills
        hands = data.hands[deal].map((x) => (data.events.some((ev) => ev.type === "draft-picked" && ev.deal === deal) ? [] : [...x]));
        if (e.rows.some((r) => r.length)) { snap(t("history.dealStart", { d: deal + 1 })); frames[frames.length - 1].start = true; }
        break;
      case "draft-picked": hands[e.seat].push(e.card); break;
      case "rows-laid": rows = e.rows.map((r) => [...r]); snap(t("history.dealStart", { d: deal + 1 })); frames[frames.length - 1].start = true; break;
      case "cards-revealed":
        flush();
        turn = e.turn;
        plays = e.seat_cards.map(([seat, card]) => ({ card, seat }));
        for (const p of plays) { // one copy each (Double has twins)
          const at = hands[p.seat].indexOf(p.card);
          if (at >= 0) hands[p.seat].splice(at, 1);
        }
        break;
      case "cards-kept": // Hand: taken cards back into the hand, off the pile
        hands[e.seat].push(...e.cards);
        penalties[e.seat] -= sumHeads(e.cards);
        break;
      case "row-taken": rows[e.row] = []; penalties[e.seat] += e.bullheads; taken.push(e); break;
      case "card-placed": if (e.side === "left") rows[e.row].unshift(e.card); else rows[e.row].push(e.card); break;
      case "deal-scored": totals = [...e.totals]; break;
      default: break;
    }
  }
  flush();
  frames.push({ ...frames[frames.length - 1], label: t("history.final"), plays: null, taken: [], final: true, totals });
  return frames;
}

export async function showReplay(main, id, table = null) {
  const key = table ? `?table=${encodeURIComponent(table)}` : "";
  let data;
  try { data = await api(`/games/${id}/events${key}`); } catch (e) { main.append(h("p.error", {}, e.message)); return; }
  const frames = buildFrames(data);
  let at = 0;
  let timer = null;
  const label = h("strong", { id: "replay-step", "aria-live": "polite" });
  const board = h("div.board");
  const info = h("div");
  const handsNode = h("div.replay-hands");
  const screen = h("section.table-screen", { style: "border-radius:14px;min-height:auto" }, label, board, info, handsNode);
  const go = (i) => { at = Math.max(0, Math.min(frames.length - 1, i)); draw(); };
  const playBtn = h("button.btn.small", { type: "button", onclick: () => {
    if (timer) { clearInterval(timer); timer = null; playBtn.textContent = t("history.play"); return; }
    playBtn.textContent = t("history.pause");
    timer = setInterval(() => { if (at >= frames.length - 1) { clearInterval(timer); timer = null; playBtn.textContent = t("history.play"); } else go(at + 1); }, 1200);
  } }, t("history.play"));
  const controls = h("div.replay-controls", {},
    h("button.btn.small", { type: "button", onclick: () => go(0), "aria-label": t("history.start") }, "«"),
    h("button.btn.small", { type: "button", id: "prev", onclick: () => go(at - 1), "aria-label": t("history.prev") }, "◀"),
    playBtn,
    h("button.btn.small", { type: "button", id: "next", onclick: () => go(at + 1), "aria-label": t("history.next") }, "▶"),
    h("button.btn.small", { type: "button", onclick: () => go(frames.length - 1), "aria-label": t("history.end") }, "»"),
    h("span", { style: "flex:1" }),
    h("a.btn.small.primary", { href: `/api/games/${id}/record.json${key}`, download: `sixnimmt-game-${id}.json`, id: "download" }, t("history.download")));
  // who sat in each seat in each deal (a friend may have taken a bot's seat over mid-game)
  const who = (deal, seat) => data.deal_players?.[deal]?.[seat]?.name ?? data.seats[seat];
  const whoBot = (deal, seat) => {
    const player = data.deal_players?.[deal]?.[seat];
    if (!player) return data.bots?.[seat] ?? null;
    return player.program ? "program" : player.kind === "bot" ? player.bot || "bot" : null;
  };
  function draw() {
    const f = frames[at];
    const name = (seat) => who(f.deal, seat);
    label.textContent = `${f.label}  (${at + 1}/${frames.length})`;
    board.replaceChildren(...f.rows.map((row, i) => {
      const cards = row.map((c) => cardNode(c));
      for (let k = row.length; k < 6; k++) cards.push(ghostNode(k === 5));
      return h("div.row", { dataset: { row: i } }, h("div.cards", {}, cards), h("div.rowsum", {}, bullIcon(), String(sumHeads(row))));
    }));
    const parts = [];
    if (f.plays) parts.push(h("div.reveal", {}, [...f.plays].sort((a, b) => a.card - b.card)
      .map((p) => h("div.played", {}, cardNode(p.card), h("span", {}, name(p.seat))))));
    for (const take of f.taken) parts.push(h("p", { style: "margin:.3rem 0" }, tn("log.took", take.bullheads, { name: name(take.seat), row: take.row + 1 })));
    const score = scoring(data.target ?? null); // the reader's display: penalties, or points left
    parts.push(h("p", { id: "replay-totals" }, data.seats.map((_, i) => `${name(i)}: ${score.total(f.totals[i])}${f.penalties[i] && !f.final ? ` (${score.delta(f.penalties[i])})` : ""}`).join(" · ")));
    info.replaceChildren(...parts);
    handsNode.replaceChildren(h("strong", {}, t("history.hands")), ...f.hands.map((hand, i) =>
      h("div.hrow", { dataset: { seat: i } }, h("span.seat-name", {}, name(i), whoBot(f.deal, i) ? " " : "", botBadge(whoBot(f.deal, i))),
        hand.map((c) => cardNode(c)))));
  }
  const onKey = (e) => { if (e.key === "ArrowRight") go(at + 1); if (e.key === "ArrowLeft") go(at - 1); };
  document.addEventListener("keydown", onKey);
  main.append(h("h1", {}, `${t(`variant.${data.variant}`)} · ${when(data.finished_at)}`), controls, h("div", { style: "height:.6rem" }), screen);
  draw();
  return () => { document.removeEventListener("keydown", onKey); if (timer) clearInterval(timer); };
}
