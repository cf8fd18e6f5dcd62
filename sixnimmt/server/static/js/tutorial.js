// A first game that teaches: three scripted turns against two bots, on a deal fixed in advance,
// showing where a card goes, the sixth card, a card lower than every row, and choosing a row.
// It runs in the page alone (no table on the server): the rules it applies are those of the
// placement preview (table/plays.js), the same the engine applies.
import { h, sleep, t, tn } from "./util.js";
import { bullIcon, cardNode, ghostNode, sumHeads } from "./cards.js";
import { previewPlacement } from "./table/plays.js";

const SHAPE = { placement: "after", perSeat: 1 };
const BOTS = ["Ada", "Bo"];

/** The scripted deal: the rows, your hand, and each turn's lesson, your card and the bots' cards. */
const SCRIPT = {
  rows: [[5], [21, 25, 28, 30, 34], [47], [70]],
  hand: [2, 36, 50, 64, 91],
  turns: [
    { lesson: "placement", card: 50, bots: [72, 8] },
    { lesson: "sixth", card: 36, bots: [52, 75] },
    { lesson: "tooLow", card: 2, bots: [40, 80] },
  ],
};

export async function showTutorial(main) {
  const you = t("tutorial.you");
  const names = [you, ...BOTS];
  const state = { rows: SCRIPT.rows.map((r) => [...r]), hand: [...SCRIPT.hand], taken: [0, 0, 0], step: 0, picking: null, busy: false };
  let left = false;
  const lesson = h("div.tutorial-lesson", { id: "tutorial-lesson", role: "status", "aria-live": "polite" });
  const players = h("div.players", { role: "list", "aria-label": t("aria.players") });
  const board = h("div.board", { id: "board", role: "group", "aria-label": t("aria.rows") });
  const reveal = h("div.reveal", { id: "reveal", "aria-live": "polite" });
  const handNode = h("div.hand", { id: "hand", role: "group", "aria-label": t("aria.hand") });
  const screen = h("section.table-screen.tutorial", { id: "tutorial", dataset: { step: "0" } },
    h("div.table-inner", {}, h("h1.tutorial-title", {}, t("tutorial.title")), lesson, players,
      h("div.middle", {}, board, h("div.side", {}, reveal)), h("div.hand-wrap", {}, handNode)));
  main.append(screen);

  function drawPlayers() {
    players.replaceChildren(...names.map((name, i) => h("div.player" + (i === 0 ? ".me" : ""), { role: "listitem", dataset: { seat: i } },
      h("span.pname", {}, name), h("span.ptotal", {}, String(state.taken[i])), h("span.pstatus", {}, i === 0 ? h("span.badge", {}, t("table.you")) : h("span.badge.bot", {}, t("table.bot"))))));
  }
  function drawBoard(pick = null, highlight = null) {
    board.replaceChildren(...state.rows.map((row, index) => {
      const cards = row.map((c) => cardNode(c));
      for (let k = row.length; k < 6; k++) cards.push(ghostNode(k === 5));
      const attrs = { dataset: { row: index }, "aria-label": tn("aria.row", sumHeads(row), { row: index + 1, cards: row.join(", ") }) };
      if (pick) Object.assign(attrs, { role: "button", tabindex: "0", onclick: () => pick(index), onkeydown: (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); pick(index); } } });
      const marks = (pick ? ".pickable" : "") + (highlight === index ? ".preview" : "");
      return h("div.row" + marks, attrs, h("div.cards", {}, cards), h("div.rowsum", {}, bullIcon(), String(sumHeads(row))));
    }));
  }
  function drawHand(wanted) {
    handNode.replaceChildren(...state.hand.map((c) => cardNode(c, { tag: "button", extra: c === wanted ? ".hinted" : "", attrs: {
      type: "button", disabled: state.busy || c !== wanted ? true : null, onclick: () => play(c) } })));
  }
  function say(key, vars = {}, extra = []) { lesson.replaceChildren(h("p", {}, t(key, vars)), ...extra); }
  /** Bring the card to play into view below the lesson, which sticks under the top bar. */
  function showLessonAndCard() {
    const card = handNode.querySelector(".hinted");
    if (!card) return;
    const box = card.getBoundingClientRect();
    const covered = lesson.getBoundingClientRect().bottom + 8;
    if (box.bottom > window.innerHeight) window.scrollBy(0, box.bottom - window.innerHeight + 12);
    else if (box.top < covered) window.scrollBy(0, box.top - covered);
  }

  function teach() {
    const turn = SCRIPT.turns[state.step];
    screen.dataset.step = String(state.step);
    drawPlayers();
    if (!turn) { finish(); return; }
    const p = previewPlacement(SHAPE, state.rows, turn.card);
    const row = p.rows[0];
    say(`tutorial.${turn.lesson}`, { card: turn.card, row: row + 1, end: row != null ? state.rows[row].at(-1) : "", n: row != null ? sumHeads(state.rows[row]) : 0 });
    drawBoard(null, row ?? null);
    reveal.replaceChildren();
    drawHand(turn.card);
    // focus the card without scrolling to it: the lesson (sticky under the top bar) stays in sight
    handNode.querySelector(".hinted")?.focus({ preventScroll: true });
    showLessonAndCard();
  }

  async function play(card) {
    const turn = SCRIPT.turns[state.step];
    if (state.busy || !turn || card !== turn.card) return;
    state.busy = true;
    state.hand = state.hand.filter((c) => c !== card);
    drawHand(null);
    const plays = [[0, card], [1, turn.bots[0]], [2, turn.bots[1]]].sort((a, b) => a[1] - b[1]);
    reveal.replaceChildren(...plays.map(([seat, c]) => h("div.played", { dataset: { seat } }, cardNode(c, { extra: seat === 0 ? ".mine" : "" }), h("span", {}, names[seat]))));
    say("tutorial.reveal");
    await sleep(900);
    for (const [seat, c] of plays) {
      if (left) return;
      const p = previewPlacement(SHAPE, state.rows, c);
      if (p.tooLow) {
        // the lowest card goes first: its player chooses a row to take (the tutorial's player only)
        const cheapest = state.rows.reduce((best, row, i) => (sumHeads(row) < sumHeads(state.rows[best]) ? i : best), 0);
        say("tutorial.chooseRow", { card: c, row: cheapest + 1, n: sumHeads(state.rows[cheapest]) });
        screen.dataset.picking = "1";
        const chosen = await new Promise((resolve) => { drawBoard(resolve); board.querySelector(".row.pickable")?.focus(); });
        screen.dataset.picking = "";
        state.taken[seat] += sumHeads(state.rows[chosen]);
        state.rows[chosen] = [c];
        say("tutorial.tookRow", { row: chosen + 1, n: state.taken[seat] });
      } else if (p.sixth) {
        state.taken[seat] += sumHeads(state.rows[p.rows[0]]);
        state.rows[p.rows[0]] = [c];
        // your own card says "your", never "You's" (a name would not fit every language's grammar)
        if (seat === 0) say("tutorial.youTookSixth", { card: c, row: p.rows[0] + 1 });
        else say("tutorial.tookSixth", { name: names[seat], card: c, row: p.rows[0] + 1 });
      } else state.rows[p.rows[0]].push(c);
      reveal.querySelector(`[data-card="${c}"]`)?.closest(".played")?.classList.add("gone");
      drawBoard();
      drawPlayers();
      await sleep(700);
    }
    state.busy = false;
    state.step += 1;
    teach();
  }

  function finish() {
    screen.dataset.step = "done";
    drawBoard();
    handNode.replaceChildren();
    say("tutorial.done", { n: state.taken[0] }, [h("p.tutorial-tip", { id: "tutorial-tip" }, t("tutorial.tip")), h("p.actions", {}, h("a.btn.primary", { href: "#/", id: "tutorial-play" }, t("tutorial.playReal")),
      " ", h("a.btn.ghost", { href: "#/rules" }, t("nav.rules")))]);
  }

  teach();
  return () => { left = true; };
}
