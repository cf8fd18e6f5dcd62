// Drawing the table from the last applied state: the bar, the players, the rows, the revealed
// cards, the prompt and the hand; and the waiting room before the game starts.
// Every function takes the table's shared state `s` (see table.js) and draws from it only.
import { api, botBadge, h, joinKey, prefs, seatBot, seats, t, timeLeftText, tn, toast } from "../util.js";
import { bullIcon, cardNode, ghostNode, sumHeads } from "../cards.js";
import { countMode, scoring, setCountMode } from "../score.js";
import { pickHelpKey, previewPlacement } from "./plays.js";
import { hostSeatList, keepTyping } from "./seats.js";
import { askNotify, notifyOn, soundOn } from "./signals.js";
import { leftMarks } from "./results.js";
import { findingParts, findingUntil } from "./finding.js";

/** Animation speeds offered (a factor on every pause; the reveal can also be skipped). */
export const SPEEDS = { slow: 1.6, normal: 1, fast: 0.5 };

/** The nodes of the table screen, made once and redrawn in place. */
export function createNodes() {
  const handNode = h("div.hand", { id: "hand", role: "group", "aria-label": t("aria.hand") });
  const handHelp = h("p.hand-help", { id: "hand-help" });
  return {
    bar: h("div.tbar"),
    players: h("div.players", { role: "list", "aria-label": t("aria.players") }),
    board: h("div.board", { id: "board", role: "group", "aria-label": t("aria.rows") }),
    reveal: h("div.reveal", { id: "reveal", "aria-live": "polite" }),
    prompt: h("div.prompt", { id: "prompt", role: "status" }),
    notice: h("div.notice", { id: "notice", role: "alert", hidden: true }),
    preview: h("p.preview-line", { id: "preview", "aria-live": "polite", hidden: true }),
    hintLine: h("p.hint-why", { id: "hint-why", "aria-live": "polite", hidden: true }),
    hand: handNode,
    handHelp,
    handWrap: h("div.hand-wrap", {}, handNode, handHelp),
    tools: h("div.tools", { id: "tools" }),
    lateJoin: h("div.late-join", { id: "late-join", hidden: true }),
    waiting: h("div.waiting"),
    timer: h("span.timer", { id: "timer", hidden: true }),
  };
}

export function seatName(s, i) { return s.current.table.seats[i]?.name ?? `#${i + 1}`; }

/** Redraw everything of a game in progress (or over). */
export function drawTable(s) {
  const { view } = s.current;
  const n = s.nodes;
  if (!s.inner.contains(n.board)) {
    s.inner.replaceChildren(n.bar, n.players, h("div.middle", {}, n.board, h("div.side", {}, n.prompt, n.notice, n.preview, n.hintLine, n.reveal)),
      n.handWrap, n.lateJoin, n.tools, ...s.extraNodes);
  }
  const focusedCard = document.activeElement?.closest?.("#hand .card")?.dataset.card;
  const focusedRow = document.activeElement?.closest?.("#board .row.pickable")?.dataset.row;
  s.preview = computePreview(s);
  drawBar(s);
  drawPlayers(s);
  drawBoard(s);
  drawReveal(s);
  drawPrompt(s);
  drawHand(s);
  drawPreview(s);
  drawHintLine(s);
  drawNotice(s);
  drawLateJoin(s);
  drawTools(s);
  s.chat?.draw();
  drawTimer(s);
  if (view.decision?.kind === "row" && !s.sent) {
    // a row to choose comes first, wherever the focus was: focus the first row without the
    // browser's own scroll (which puts it under the sticky bars), then bring the prompt and all
    // four rows into view below them, once per choice
    // (and keep it on a row through the redraws that follow: a redrawn board is new nodes)
    const key = `${view.deal}.${view.turn}.${view.decision.card}`;
    const again = focusedRow == null ? null : n.board.querySelector(`.row.pickable[data-row="${focusedRow}"]`);
    const first = n.board.querySelector(".row.pickable");
    const lost = focusLost();
    if (again) again.focus({ preventScroll: true });
    else if (first && (s.rowFocusedFor !== key || lost)) { first.focus({ preventScroll: true }); s.rowFocusedFor = key; }
    showRowsOnce(s, key);
  }
  else if (focusedCard) n.hand.querySelector(`[data-card="${focusedCard}"]`)?.focus();
  else if (view.decision?.kind === "order" || view.decision?.kind === "keep") n.prompt.querySelector("#choices button")?.focus();
  // a card to play and the focus nowhere (the Start button gone, a new screen): on the hand
  else if (focusLost()) n.hand.querySelector("button.card:not([disabled])")?.focus({ preventScroll: true });
}

/** Whether the keyboard's focus is on nothing in particular: the page, or the screen itself
 * (where a new screen puts it), or an element a redraw removed. */
function focusLost() {
  const active = document.activeElement;
  return !active || active === document.body || active.id === "main" || !active.isConnected;
}

/** Scroll once per row choice so that the prompt and the rows lie below the sticky top bar and
 * (on a phone) the sticky players' strip, with the scores still in sight. */
function showRowsOnce(s, key) {
  if (s.rowsShownFor === key) return;
  s.rowsShownFor = key;
  const bar = document.querySelector(".topbar");
  const barH = bar ? bar.getBoundingClientRect().height : 0;
  const sticky = getComputedStyle(s.nodes.players).position === "sticky";
  const playersH = sticky ? s.nodes.players.getBoundingClientRect().height : 0;
  document.documentElement.style.setProperty("--topbar-h", `${barH}px`);
  document.documentElement.style.setProperty("--players-h", `${playersH}px`);
  const top = barH + playersH + 6; // the first pixel not under a sticky bar
  const middle = s.nodes.board.parentElement; // the prompt (first on a phone) and the rows
  const box = middle.getBoundingClientRect();
  const boardBox = s.nodes.board.getBoundingClientRect();
  if (box.top < top || boardBox.bottom > window.innerHeight) window.scrollBy(0, box.top - top);
}

export function drawBar(s) {
  const { table, view } = s.current;
  const shape = s.shape;
  const rules = table.rules;
  const perDeal = shape.turnsPerDeal;
  const deal = rules.deals && !shape.rounds ? t("table.dealOf", { d: view.deal + 1, n: rules.deals }) : t("table.deal", { d: view.deal + 1 });
  const turn = shape.rounds ? t("table.round", { t: view.turn + 1 })
    : t("table.turn", { t: Math.min(view.turn + 1, perDeal), n: perDeal });
  const where = view.phase === "draft" ? t("table.draft") : shape.rounds ? turn : `${deal} · ${turn}`;
  s.nodes.bar.replaceChildren(...[
    h("span", {}, t("table.code"), " ", h("span.code", {}, table.code)),
    h("span.where", {}, view.phase === "over" ? t("table.gameOver") : where),
    s.nodes.timer,
    table.you == null ? h("span.badge", {}, t("table.spectator")) : null,
    table.rated ? h("span.badge.live", { id: "rated" }, t("table.rated")) : null,
    table.spectators ? h("span.badge", { id: "spectators" }, tn("table.watching", table.spectators)) : null,
    h("span.spacer"),
    h("a.btn.small", { href: `#/rules/${rules.variant}`, target: "_blank" }, t(`variant.${rules.variant}`), " · ", t("nav.rules")),
  ].filter(Boolean));
}

export function drawPlayers(s) {
  const { table, view } = s.current;
  const shape = s.shape;
  const score = scoring(shape.target);
  const nodes = table.seats.map((seat, i) => {
    const classes = [];
    let status = "";
    if (view.phase === "play" && shape.sequential) {
      if (view.current === i) { classes.push("thinking"); status = t("table.turnNow"); }
    } else if (view.phase === "play") {
      if (!view.waiting_for.includes(i)) { classes.push("done"); status = t("table.chosen"); }
      else { classes.push("thinking"); status = t("table.thinking"); }
    } else if (view.phase === "order" && view.waiting_for[0] === i) {
      classes.push("thinking"); status = t("table.ordering");
    } else if (view.phase === "keep" && view.waiting_for[0] === i) {
      classes.push("thinking"); status = t("table.keeping");
    } else if (view.phase === "row-choice" && view.row_choice?.seat === i) {
      classes.push("thinking"); status = t("table.choosingRow");
    } else if (view.phase === "draft" && view.drafter === i) {
      classes.push("thinking"); status = t("table.drafting");
    }
    // a bot that has been thinking a while (the server's "thinking" messages): a spinner on its seat
    const searching = table.thinking?.includes(i) && view.phase !== "over";
    if (searching) { classes.push("searching"); status = t("table.botThinking"); }
    if (i === table.you) classes.push("me");
    if (view.winners.includes(i)) classes.push("winner");
    const away = seat.kind === "human" && !seat.connected && !seat.left; // (one who left is not coming back)
    if (away) classes.push("away");
    if (seat.left) classes.push("left");
    if (score.past(view.totals[i])) classes.push("past");
    return h("div.player" + classes.map((c) => "." + c).join(""),
      { role: "listitem", dataset: { seat: i }, ...(searching ? { title: t("table.botThinkingTitle"), "aria-busy": "true" } : {}) },
      h("span.pname", { title: seat.name }, seat.name),
      h("span.ptotal", { title: score.totalTitle() }, score.total(view.totals[i])),
      h("span.pstatus", {}, status,
        botBadge(seatBot(seat)),
        i === table.you ? h("span.badge", {}, t("table.you")) : null,
        away ? h("span.badge", {}, t("table.away")) : null,
        away ? h("span.paway", { dataset: { seat: i }, "aria-live": "off" }) : null,
        ...leftMarks(seat)),
      // the bullheads taken this deal (a take flies here: animation.js)
      h("span.pdeal", { title: tn("table.thisDeal", view.penalties[i]), "aria-label": tn("table.thisDeal", view.penalties[i]) },
        view.penalties[i] ? [bullIcon(), score.delta(view.penalties[i])] : ""),
      // Logic: every hand is public (the draft was open), so show the others' cards
      view.hands && i !== table.you ? h("span.phand", { title: t("table.publicHand") }, view.hands[i].join(" ")) : null);
  });
  s.nodes.players.replaceChildren(...nodes);
  drawAway(s);
}

/** The time left before the stand-in plays for each away player the game is waiting for, shown
 * to everyone (redrawn by the table's ticker). */
export function drawAway(s) {
  const view = s.current?.view;
  if (!view) return;
  const waited = new Set(view.phase === "row-choice" ? [view.row_choice?.seat] : view.phase === "play" && s.shape?.sequential ? [view.current] : view.waiting_for);
  for (const node of s.nodes.players.querySelectorAll(".paway")) {
    const seat = Number(node.dataset.seat);
    const until = s.awayUntil?.[seat];
    const left = until == null || view.phase === "over" || !waited.has(seat) ? null : Math.max(0, Math.ceil((until - Date.now()) / 1000));
    node.textContent = left == null ? "" : t("table.awayLeft", { n: left });
  }
}

export function drawBoard(s) {
  if (!s.current?.view) return;
  const view = s.current.view;
  const decision = view.decision;
  const picking = decision?.kind === "row" && !s.busy && !s.sent ? decision : null;
  const choose = (index) => s.answer({ type: "row", row: index, deal: view.deal, turn: view.turn });
  const preview = s.busy ? null : s.preview;
  const rowNodes = s.rows.map((row, index) => {
    // Double: twins lie on each other at a row end, a stack taking one place of the six
    const places = [];
    for (const c of row) {
      const last = places[places.length - 1];
      if (last && last[0] === c) last.push(c); else places.push([c]);
    }
    const cards = places.map((place) => {
      const face = cardNode(place[0], { extra: place[0] === s.freshRowCard ? ".new" : "" });
      if (place.length === 1) return face;
      face.setAttribute("aria-label", `${face.getAttribute("aria-label")} ×${place.length} (${t("table.stack")})`); // "×2": no words
      return h("div.stack", { title: t("table.stack"), dataset: { count: place.length } }, face);
    });
    for (let k = places.length; k < 6; k++) cards.push(ghostNode(k === 5));
    const sum = sumHeads(row);
    const attrs = { dataset: { row: index }, "aria-label": tn("aria.row", sum, { row: index + 1, cards: row.join(", ") }) };
    const pickable = picking && picking.options.includes(index);
    if (pickable) {
      Object.assign(attrs, { role: "button", tabindex: "0", onclick: () => choose(index),
        onkeydown: (ev) => { if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); choose(index); } } });
    }
    const sumNode = h("div.rowsum", { dataset: pickable && picking.reason === "too-low" ? { take: t("table.rowTake", { n: sum }) } : {} }, bullIcon(), String(sum));
    const going = preview?.filter((p) => p.rows.includes(index)) ?? [];
    const previewed = going.length ? (going.some((p) => p.sixth) ? ".preview.preview-take" : ".preview") : "";
    return h("div.row" + (pickable ? ".pickable" : "") + previewed, attrs, h("div.cards", {}, cards), sumNode);
  });
  s.nodes.board.replaceChildren(...rowNodes);
  s.freshRowCard = null;
}

export function drawReveal(s) {
  const view = s.current?.view;
  if (!view) return;
  const you = s.current.table.you;
  const node = s.nodes.reveal;
  if (view.phase === "draft" && !s.busy) {
    const mine = view.decision?.kind === "draft" && !s.sent;
    node.replaceChildren(...view.draft_pool.map((c) => mine
      ? cardNode(c, { tag: "button", attrs: { type: "button", onclick: () => s.answer({ type: "draft", card: c }) } })
      : cardNode(c)));
    return;
  }
  if (view.face_up?.some((c) => c != null) && !s.busy) {
    // Open: this turn's cards lie face up as they are played, in playing order
    const down = view.face_up.map((card, seat) => ({ seat, card })).filter((p) => p.card != null);
    node.replaceChildren(h("p.caption", {}, t("table.faceUp")), ...down.map((p) => h("div.played", { dataset: { seat: p.seat } },
      cardNode(p.card, { extra: p.seat === you ? ".mine" : "" }), h("span", {}, seatName(s, p.seat)))));
    return;
  }
  if (s.revealed) {
    const caption = s.revealed[0]?.past ? h("p.caption", {}, t("table.lastTurn")) : null;
    node.replaceChildren(...(caption ? [caption] : []), ...s.revealed.map((p) => h("div.played" + (p.past ? ".past" : p.placed ? ".gone" : ""), { dataset: { seat: p.seat } },
      cardNode(p.card, { extra: p.seat != null && p.seat === you ? ".mine" : "" }), h("span", {}, p.seat == null ? "" : seatName(s, p.seat)))));
    return;
  }
  // a player's help is the line under the hand (once: a phone shows both places at a time)
  node.replaceChildren(...(you == null ? [h("p.hintline", {}, t("table.spectator"))] : []));
}

/** The prompt while the cards of a turn are being revealed (the hand is locked meanwhile). */
export function drawRevealing(s) {
  s.nodes.prompt.className = "prompt wait";
  s.nodes.prompt.replaceChildren(h("span", {}, t("table.revealing")),
    h("button.btn.small.skip-anim", { type: "button", id: "skip", onclick: () => s.skipAnimations() }, t("table.skip")));
  s.nodes.preview.hidden = true;
  for (const row of s.nodes.board.querySelectorAll(".preview")) row.classList.remove("preview", "preview-take");
}

export function drawPrompt(s) {
  const { table, view } = s.current;
  const shape = s.shape;
  const d = view.decision;
  const name = (i) => seatName(s, i);
  let text = "";
  let wait = false;
  const choices = []; // buttons answering an order / keep / pass decision
  const answer = (message) => s.answer({ ...message, deal: view.deal, turn: view.turn });
  const confirming = s.confirming != null && d?.kind === "card" && view.hand.includes(s.confirming) ? s.confirming : null;
  if (view.phase === "over") { text = t("table.gameOver"); wait = true; }
  else if (d && s.sent) { text = t("table.sent"); wait = true; } // final on screen: the server has it
  else if (confirming != null) {
    text = t("table.confirmAsk", { card: confirming });
    choices.push(h("button.btn.small.primary", { type: "button", id: "confirm-card", onclick: () => { s.confirming = null; playNow(s, confirming, view.my_choices || (view.my_choice ? [view.my_choice] : [])); } }, t("table.confirmPlay", { card: confirming })),
      h("button.btn.small", { type: "button", id: "confirm-cancel", onclick: () => { s.confirming = null; drawTable(s); } }, t("table.confirmCancel")));
  }
  else if (d?.kind === "card" && d.reason === "second") {
    text = t("table.second", { card: view.my_choices[0] });
    choices.push(h("button.btn.small", { type: "button", id: "pass", onclick: () => answer({ type: "pass" }) }, t("table.pass")));
  }
  else if (d?.kind === "card" && shape.sequential) text = t(shape.faceUp ? "table.yourTurnOpen" : "table.yourTurn");
  else if (d?.kind === "card" && shape.perSeat === 2) {
    text = t("table.pickTwo", { n: view.my_choices.length });
    if (view.my_choices.length) choices.push(h("button.btn.small", { type: "button", id: "retract", onclick: () => answer({ type: "retract" }) }, t("table.retract")));
  }
  else if (d?.kind === "card") text = t("table.pick");
  else if (d?.kind === "order") {
    text = t("table.order");
    for (const c of d.options) choices.push(cardNode(c, { tag: "button", extra: ".choice", attrs: { type: "button", onclick: () => answer({ type: "order", card: c }) } }));
  }
  else if (d?.kind === "keep") {
    text = t("table.keep");
    for (const c of d.options.filter((c) => c !== 0)) choices.push(cardNode(c, { tag: "button", extra: ".choice", attrs: { type: "button", onclick: () => answer({ type: "keep", card: c }) } }));
    choices.push(h("button.btn.small.primary", { type: "button", id: "done", onclick: () => answer({ type: "pass" }) }, t("table.done")));
  }
  else if (d?.kind === "row") text = t(d.reason === "tie" ? "table.rowTie" : "table.rowTooLow", { card: d.card });
  else if (d?.kind === "draft") text = t("table.draftPick");
  else if (view.phase === "row-choice") { wait = true; text = t("table.someoneRow", { name: name(view.row_choice.seat), card: view.row_choice.card }); }
  else if (view.phase === "draft") { wait = true; text = t("table.someoneDraft", { name: name(view.drafter) }); }
  else if (view.phase === "order") { wait = true; text = t("table.someoneOrder", { name: name(view.waiting_for[0]) }); }
  else if (view.phase === "keep") { wait = true; text = t("table.someoneKeep", { name: name(view.waiting_for[0]) }); }
  else if (view.phase === "play" && shape.sequential) { wait = true; text = t("table.someoneTurn", { name: name(view.current) }); }
  else if (view.phase === "play" && shape.perSeat === 2 && view.my_choices.length) {
    wait = true;
    text = `${t("table.chosenTwo", { cards: view.my_choices.join(", ") })} ${t("table.waitOthers", { names: view.waiting_for.map(name).join(", ") })}`;
    choices.push(h("button.btn.small", { type: "button", id: "retract", onclick: () => answer({ type: "retract" }) }, t("table.retract")));
  }
  else if (view.phase === "play") {
    wait = true;
    const names = view.waiting_for.map(name).join(", ");
    text = view.my_choice ? `${t("table.changed", { card: view.my_choice })} ${t("table.waitOthers", { names })}` : t("table.waitOthers", { names });
    if (table.you == null) text = t("table.waitOthers", { names });
  }
  const node = s.nodes.prompt;
  node.className = "prompt" + (wait ? " wait" : "");
  node.replaceChildren(h("span", {}, text));
  if (choices.length && !s.busy && s.online()) node.append(h("div.choices", { id: "choices" }, ...choices));
  if (d && !s.busy && !s.sent) {
    node.append(h("button.btn.small.hint", { type: "button", id: "hint", onclick: () => s.send({ type: "hint" }) }, t("table.hint")));
  }
}

/** Mark what the hint bot would do, if the game is still where the hint was asked. */
export function showHint(s, hint) {
  const view = s.current?.view;
  if (!view || hint.deal !== view.deal || hint.turn !== view.turn) return; // too late: the game moved on
  const n = s.nodes;
  for (const node of document.querySelectorAll(".hinted")) node.classList.remove("hinted");
  const pass = hint.choice === 0; // PASS: no second card (Hand), or keep no more
  const target = hint.kind === "row" ? n.board.querySelector(`.row[data-row="${hint.choice}"]`)
    : hint.kind === "draft" ? n.reveal.querySelector(`[data-card="${hint.choice}"]`)
    : pass ? n.prompt.querySelector(hint.kind === "keep" ? "#done" : "#pass")
    : hint.kind === "order" || hint.kind === "keep" ? n.prompt.querySelector(`#choices [data-card="${hint.choice}"]`)
    : n.hand.querySelector(`[data-card="${hint.choice}"]`);
  target?.classList.add("hinted");
  const key = pass ? (hint.kind === "keep" ? "table.hintDone" : "table.hintPass")
    : { row: "table.hintRow", draft: "table.hintDraft", order: "table.hintOrder", keep: "table.hintKeep" }[hint.kind] || "table.hintCard";
  const what = t(key, { choice: hint.kind === "row" ? hint.choice + 1 : hint.choice });
  const why = pass ? "" : hintReason(s, hint);
  s.hintShown = { deal: hint.deal, turn: hint.turn, kind: hint.kind, text: why ? `${what}: ${why}` : what };
  drawHintLine(s);
}

/** The hint, with its reason in one line, while the decision it answers is open. */
function drawHintLine(s) {
  const view = s.current?.view;
  const hint = s.hintShown;
  const open = hint && view?.decision && hint.deal === view.deal && hint.turn === view.turn && hint.kind === view.decision.kind && !s.sent;
  s.nodes.hintLine.hidden = !open;
  s.nodes.hintLine.textContent = open ? hint.text : "";
}

/** Why the hint bot chose what it chose, in words: where the card goes, the room left in that row,
 * how many of the cards that could land before it are still out, and the expected bullheads. */
export function hintReason(s, hint) {
  const view = s.current.view;
  const expected = hint.scores?.[String(hint.choice)];
  const cost = expected == null ? "" : ` ${t("hint.expected", { n: Number(expected).toFixed(1) })}`;
  if (hint.kind === "row") {
    const heads = s.rows.map((row) => sumHeads(row));
    const cheapest = Math.min(...heads);
    return t(heads[hint.choice] === cheapest ? "hint.rowCheapest" : "hint.rowBetter", { n: heads[hint.choice] }) + cost;
  }
  if (hint.kind !== "card") return cost.trim();
  const card = hint.choice;
  const p = previewPlacement(s.shape, s.rows, card);
  if (p.tooLow) return t("hint.tooLow", { card, n: Math.min(...s.rows.map((row) => sumHeads(row))) }) + cost;
  if (p.rows.length !== 1) return cost.trim();
  const row = s.rows[p.rows[0]];
  if (p.sixth) return tn("hint.sixth", sumHeads(row), { card, row: p.rows[0] + 1 }) + cost;
  const end = row[row.length - 1];
  // cards between the row's end and this one: played ones (seen on the board, in a hand or in
  // this deal's turns) can no longer land before it
  const seen = new Set([...view.hand, ...s.rows.flat(), ...(view.played_by || []).flat().map((pair) => pair[1])]);
  let gap = 0;
  let out = 0;
  for (let c = end + 1; c < card; c++) { gap += 1; if (!seen.has(c)) out += 1; }
  const room = Math.max(0, 5 - row.length - 1);
  const roomText = tn("hint.room", room, { card, row: p.rows[0] + 1 });
  const before = gap === 0 ? t("hint.nothingBefore") : out * 2 <= gap ? t("hint.mostlyPlayed") : tn("hint.outBefore", out);
  return `${roomText}; ${before}.${cost}`;
}

export function drawHand(s, locked = false) {
  const { table, view } = s.current;
  const shape = s.shape;
  const n = s.nodes;
  if (table.you == null) { n.handWrap.hidden = true; return; }
  n.handWrap.hidden = false;
  // Open and Hand: only the player whose turn it is plays; elsewhere a card may be changed until
  // the last player has chosen, so the hand stays open through the whole play phase
  const myTurn = !shape.sequential || view.decision?.kind === "card";
  const canPlay = !locked && !s.busy && !s.sent && view.phase === "play" && myTurn && s.online();
  const shown = s.revealed && !s.revealed[0]?.past ? view.hand.filter((c) => !s.revealed.some((p) => p.card === c)) : view.hand;
  const mine = view.my_choices || (view.my_choice ? [view.my_choice] : []);
  const nodes = shown.map((c) => {
    const chosen = mine.includes(c);
    const held = c === s.confirming; // chosen here, not sent until confirmed
    return cardNode(c, { tag: "button", extra: chosen ? ".selected" : held ? ".held" : "", attrs: {
      type: "button", disabled: !canPlay || (shape.sequential && chosen), "aria-pressed": chosen ? "true" : "false",
      onclick: () => choose(s, c, mine),
    } });
  });
  n.hand.replaceChildren(...nodes);
  n.hand.classList.toggle("many", nodes.length > 10); // Nifty and Hand: two lines on a phone
  n.handHelp.textContent = canPlay ? t(pickHelpKey(shape)) : "";
  if (shape.doubleLeft && canPlay) n.handHelp.textContent += ` ${t("table.handDouble")}`;
}

/** Play card `c`. Where two cards are chosen, tapping a chosen card takes it back, and a third
 * card replaces the second (the server only knows "take back both", so the kept one is sent again). */
function choose(s, c, mine) {
  const { table, view } = s.current;
  // "Confirm my card": where this tap would end the turn (every other seat has chosen, or it is
  // this seat's turn alone), the card is held until confirmed, so a mis-tap can be taken back
  const last = s.shape.sequential || view.waiting_for.every((seat) => seat === table.you);
  if (confirmCards() && last && s.shape.perSeat === 1 && !mine.includes(c)) {
    s.confirming = s.confirming === c ? null : c;
    drawHand(s);
    drawPrompt(s);
    document.getElementById("confirm-card")?.focus();
    return;
  }
  playNow(s, c, mine);
}

function playNow(s, c, mine) {
  const { view } = s.current;
  s.confirming = null;
  const play = (card) => ({ type: "play", card, deal: view.deal, turn: view.turn });
  if (s.shape.perSeat === 1 || (!mine.includes(c) && mine.length < 2)) { s.answer(play(c)); return; }
  const keep = mine.includes(c) ? mine.filter((x) => x !== c) : mine.slice(0, 1);
  s.answer([{ type: "retract", deal: view.deal, turn: view.turn }, ...keep.map(play), ...(mine.includes(c) ? [] : [play(c)])]);
}

/** Whether a card that ends the turn waits for a confirmation: the reader's setting, on by default
 * on touch screens. */
export function confirmCards() {
  const saved = prefs.get("confirmCard");
  if (saved === "1" || saved === "0") return saved === "1";
  return window.matchMedia?.("(pointer: coarse)").matches ?? false;
}

/** Arrow keys move between the cards of the hand (Enter / Space play the focused one). */
export function bindHandKeys(handNode) {
  handNode.addEventListener("keydown", (ev) => {
    if (ev.key !== "ArrowLeft" && ev.key !== "ArrowRight") return;
    const buttons = [...handNode.querySelectorAll("button.card:not([disabled])")];
    const at = buttons.indexOf(document.activeElement);
    const next = buttons[(at + (ev.key === "ArrowRight" ? 1 : -1) + buttons.length) % buttons.length];
    if (next) { ev.preventDefault(); next.focus(); }
  });
}

export function drawTimer(s) {
  const node = s.nodes.timer;
  if (s.deadline == null || s.current?.view?.phase === "over") { node.hidden = true; return; }
  const left = Math.max(0, Math.ceil((s.deadline - Date.now()) / 1000));
  node.hidden = false;
  node.textContent = timeLeftText(left); // a turn-based table's hours, a turn timer's seconds
  node.classList.toggle("low", left <= 5);
}

/** Before the game: the code and link to share, the seats (the host invites friends to them),
 * and Start (host) or Join (a visitor). */
export function drawWaiting(s) {
  const { table } = s.current;
  const link = `${location.origin}${location.pathname}#/t/${table.code}`;
  const linkInput = h("input", { value: link, readonly: true, "aria-label": t("aria.link"), onfocus: (e) => e.target.select() });
  const host = table.you != null && table.you === (table.host ?? 0);
  const finding = findingUntil(s); // a table Play now found: "Finding players…", not "share this link"
  const seatsList = host && !finding ? h("div", { id: "waiting-seats" }, hostSeatList(s))
    : h("ul.seat-list", { id: "waiting-seats" }, table.seats.map((seat, i) => h("li", {},
      h("span", {}, t("lobby.seat", { n: i + 1 })),
      seat.kind === "open" ? h("em.muted", { style: "color:#cfe3d8" }, t("table.open")) : h("strong", {}, seat.name),
      botBadge(seatBot(seat)),
      seat.kind === "invited" ? h("span.badge", {}, t("seats.invitedBadge")) : null,
      i === table.you ? h("span.badge", {}, t("table.you")) : null)));
  const share = h("div.share", {}, h("span.code.bigcode", { id: "big-code" }, table.code), linkInput,
    h("button.btn.small", { type: "button", onclick: async () => { try { await navigator.clipboard.writeText(link); toast(t("table.copied")); } catch { linkInput.select(); } } }, t("table.copy")));
  const parts = finding ? findingParts(s, finding, seatsList, share) : [
    h("h1", {}, t("table.waitingTitle")),
    h("p", {}, t(table.public ? "table.sharePublic" : "table.sharePrivate")),
    share,
    seatsList,
  ];
  if (!finding) { // (the finding block has its own Start now)
    if (host) parts.push(h("p", {}, h("button.btn.primary", { type: "button", id: "start", onclick: () => s.send({ type: "start" }) }, t("table.start"))));
    else if (table.you != null) parts.push(h("p.muted", { style: "color:#cfe3d8" }, t("table.startHostOnly")));
    else if (table.open > 0 || s.invite) parts.push(joinForm(s, "lobby.joinBtn"));
  }
  // the waiting room is redrawn in place: the chat below it keeps what is being typed
  keepTyping(() => s.nodes.waiting.replaceChildren(...parts));
  if (!s.inner.contains(s.nodes.waiting)) s.inner.replaceChildren(s.nodes.waiting, ...s.extraNodes);
  s.chat?.draw();
}

/** Join this table: a free seat now, or (after the start) a seat taken over at the next deal;
 * with the friend's invitation when the page was opened from one. */
function joinForm(s, label) {
  const code = s.current.table.code;
  const name = h("input", { id: "join-name", maxlength: "24", value: (s.invite && s.inviteName) || prefs.get("name") || "", "aria-label": t("lobby.yourName"), placeholder: t("lobby.yourName") });
  const err = h("p.error", { role: "alert" });
  const key = joinKey(); // the same for every retry from this form
  return h("div", {}, h("form.share", { id: "join-form", onsubmit: async (ev) => {
    ev.preventDefault();
    try {
      const joined = await api(`/tables/${code}/join`, { method: "POST", body: { name: name.value, key, ...(s.invite ? { invite: s.invite } : {}) } });
      prefs.set("name", name.value.trim());
      seats.set(joined.code, joined.seat, joined.token);
      s.leave();
      if (s.invite) location.hash = `#/t/${joined.code}`; // the table again, now with the seat
      else location.reload();
    } catch (e) { err.textContent = e.message; }
  } }, name, h("button.btn.primary", { type: "submit", id: "join-btn" }, t(label))), err);
}

/** A spectator of a game under way may take a free seat (a bot's) over from the next deal. */
export function drawLateJoin(s) {
  const { table } = s.current;
  const node = s.nodes.lateJoin;
  const can = table.you == null && table.joining == null && table.status === "playing" && (table.open > 0 || !!s.invite);
  node.hidden = !can;
  if (can && !node.contains(document.activeElement)) node.replaceChildren(h("p", {}, t("table.lateJoinHelp")), joinForm(s, "table.lateJoin"));
}

/** Where this seat's chosen card (or cards) would go if placed on the board as it is now:
 * [{card, rows, sixth, tooLow}], or null when there is nothing to preview. */
function computePreview(s) {
  const { table, view } = s.current;
  if (s.busy || table.you == null || view.phase !== "play" || s.shape.sequential) return null;
  const mine = view.my_choices?.length ? view.my_choices : view.my_choice ? [view.my_choice] : [];
  if (!mine.length) return null;
  return mine.map((card) => ({ card, ...previewPlacement(s.shape, s.rows, card) }));
}

/** The preview in words, under the prompt: which row, and a warning for a sixth card or a card
 * lower than every row. */
export function drawPreview(s) {
  const node = s.nodes.preview;
  const lines = (s.preview ?? []).map((p) => {
    if (p.tooLow) return h("span.warn", {}, t("preview.tooLow", { card: p.card }));
    if (p.rows.length > 1) return h("span", {}, t("preview.tie", { card: p.card, a: p.rows[0] + 1, b: p.rows[1] + 1 }));
    const row = p.rows[0];
    if (p.sixth) return h("span.warn", {}, tn("preview.sixth", sumHeads(s.rows[row]), { card: p.card, row: row + 1 }));
    return h("span", {}, t("preview.joins", { card: p.card, row: row + 1 }));
  });
  node.hidden = !lines.length;
  node.classList.toggle("warn", lines.some((l) => l.classList.contains("warn")));
  node.replaceChildren(...lines.flatMap((l, i) => (i ? [" ", l] : [l])));
}

/** A notice that stays until it is closed (the timer played for you). */
export function drawNotice(s) {
  const node = s.nodes.notice;
  const joining = s.current.table.joining;
  const text = s.notice ?? (joining != null ? t("table.joiningNext", { n: joining + 1, name: seatName(s, joining) }) : null);
  node.hidden = !text;
  if (!text) { node.replaceChildren(); return; }
  if (!s.notice) { node.replaceChildren(h("span", {}, text)); return; }
  node.replaceChildren(h("span", {}, text),
    h("button.btn.small", { type: "button", id: "notice-close", "aria-label": t("dialog.close"), onclick: () => { s.notice = null; drawNotice(s); } }, "×"));
}

/** The table's own settings and sheets, under the hand: made once, kept in step by drawTools. */
export function createTools(s) {
  const sheet = h("button.btn.small", { type: "button", id: "sheet-btn", onclick: () => s.showSheet() }, t("sheet.open"));
  const results = h("button.btn.small.primary", { type: "button", id: "show-over", hidden: true, onclick: () => s.showOver() }, t("table.results"));
  const count = h("select", { id: "count-mode", onchange: () => { setCountMode(count.value); s.redraw(); } },
    ["up", "down"].map((v) => h("option", { value: v }, t(`lobby.count.${v}`))));
  const countField = h("label.tool", {}, h("span", {}, t("score.display")), count);
  const speed = h("select", { id: "anim-speed", onchange: () => { prefs.set("speed", speed.value); s.setSpeed(SPEEDS[speed.value]); } },
    Object.keys(SPEEDS).map((v) => h("option", { value: v }, t(`speed.${v}`))));
  speed.value = SPEEDS[prefs.get("speed")] ? prefs.get("speed") : "normal";
  const speedField = h("label.tool", {}, h("span", {}, t("table.speed")), speed);
  const seatsButton = h("button.btn.small", { type: "button", id: "seats-btn", hidden: true, onclick: () => s.showSeats() }, t("seats.title"));
  const sound = h("input", { type: "checkbox", id: "sound", checked: soundOn() ? true : null, onchange: () => prefs.set("sound", sound.checked ? "1" : "0") });
  const notify = h("input", { type: "checkbox", id: "notify", checked: notifyOn() ? true : null,
    onchange: async () => { notify.checked = await askNotify(notify.checked); } });
  const confirm = h("input", { type: "checkbox", id: "confirm-setting", checked: confirmCards() ? true : null,
    onchange: () => { prefs.set("confirmCard", confirm.checked ? "1" : "0"); s.confirming = null; s.redraw(); } });
  const leave = h("button.btn.small.danger", { type: "button", id: "leave", hidden: true, onclick: () => s.askLeave() }, t("leave.button"));
  const seatTools = h("span.tool-group", { hidden: true },
    h("label.tool", {}, sound, h("span", {}, t("signal.sound"))),
    h("label.tool", { title: t("signal.notifyHelp") }, notify, h("span", {}, t("signal.notify"))),
    h("label.tool", { title: t("table.confirmHelp") }, confirm, h("span", {}, t("table.confirmSetting"))));
  s.nodes.tools.replaceChildren(results, sheet, seatsButton, countField, speedField, seatTools, ...s.extraTools, leave);
  s.tools = { results, count, countField, seatsButton, leave, seatTools };
}

export function drawTools(s) {
  const { results, count, countField, seatsButton, leave, seatTools } = s.tools;
  const table = s.current.table;
  leave.hidden = table.you == null || s.current.view.phase === "over";
  seatTools.hidden = table.you == null;
  seatsButton.hidden = table.you == null || table.you !== (table.host ?? 0);
  results.hidden = !(s.current.view.phase === "over" && s.dialog?.dataset.kind !== "over");
  countField.hidden = s.shape.target == null; // nothing to count down from
  count.value = countMode();
}
