// The table: one WebSocket, the server's view of this seat, and animations of the public events.
// The server is the authority: after each batch of events the screen is redrawn from its view.
import { api, h, seats, sleep, t, toast } from "./util.js";
import { bullIcon, cardNode, ghostNode, heads, sumHeads } from "./cards.js";

const SPEED = Number(new URLSearchParams(location.search).get("speed") || 1);
const pause = (ms) => sleep(ms * SPEED);

export function showTable(main, code) {
  const screen = h("section.table-screen", { id: "table", dataset: { code, status: "connecting" } });
  screen.style.setProperty("--speed", String(SPEED));
  const inner = h("div.table-inner");
  screen.append(inner);
  main.append(screen);
  inner.append(h("p.prompt.wait", {}, t("table.connecting")));

  const own = seats.get(code);
  let socket = null;
  let closed = false;
  let retry = 0;
  let current = null; // the last applied {table, view}
  let rows = [[], [], [], []]; // rows as drawn (may lag the view while animating)
  let revealed = null; // [{seat, card, placed}] during a reveal
  let queue = [];
  let busy = false;
  let deadline = null;
  let dialog = null;
  let freshRowCard = null;

  // ------------------------------------------------------------------ connection

  // ------------------------------------------------------------------ variants

  const variant = () => current?.table.rules.variant;
  const isNifty = () => variant() === "nifty";
  const isSequential = () => variant() === "open" || variant() === "hand";
  /** The seat of the i-th card of a turn's plays: Nifty lists two cards per seat; in Hand all the
   * cards are one player's (``handSeat``); otherwise one card per seat. */
  function playSeat(i, handSeat) {
    if (isNifty()) return Math.floor(i / 2);
    if (variant() === "hand") return handSeat ?? null;
    return i;
  }
  function playsOf(cards, handSeat, unplaced = null) {
    const left = unplaced ? [...unplaced] : null; // twins (Double): mark each copy once
    return cards.map((card, i) => {
      let placed = true;
      if (left) { const at = left.indexOf(card); if (at >= 0) { left.splice(at, 1); placed = false; } }
      return { seat: playSeat(i, handSeat), card, placed };
    }).sort((a, b) => a.card - b.card);
  }

  function connect() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    // the seat token travels as a subprotocol, never in the URL (so it is in no access log)
    const protocols = own ? ["sixnimmt", `token.${own.token}`] : ["sixnimmt"];
    socket = new WebSocket(`${scheme}://${location.host}/ws/${encodeURIComponent(code)}`, protocols);
    socket.onopen = () => { retry = 0; };
    socket.onmessage = (event) => receive(JSON.parse(event.data));
    socket.onclose = () => {
      if (closed) return;
      screen.dataset.status = "reconnecting";
      if (current?.view && current.table.status !== "waiting") drawHand(); // nothing to send on: lock the hand
      toast(t("table.reconnecting"), true);
      setTimeout(connect, Math.min(5000, 500 * 2 ** retry++));
    };
  }
  const online = () => socket && socket.readyState === WebSocket.OPEN;
  function send(message) {
    if (online()) socket.send(JSON.stringify(message));
    else toast(t("table.reconnecting"), true);
  }

  function receive(message) {
    if (message.type === "error") {
      if (message.fatal) { inner.replaceChildren(h("p.prompt.wait", {}, t("table.notFound")), h("a.btn", { href: "#/" }, t("table.lobby"))); closed = true; return; }
      if (message.code !== "rate") toast(message.message, true);
      return;
    }
    if (message.type === "hint") { showHint(message); return; }
    if (message.type === "state" || message.type === "update" || message.type === "chosen") {
      queue.push(message);
      if (!busy) drain();
    }
  }

  async function drain() {
    busy = true;
    screen.dataset.busy = "1";
    while (queue.length) {
      const update = queue.shift();
      if (update.type === "chosen") { // someone chose a card: only who-has-chosen changed
        if (current?.view) {
          current.view.chosen = update.chosen;
          current.view.waiting_for = update.waiting_for;
          drawPlayers();
          drawPrompt();
        }
        continue;
      }
      const animate = update.type === "update" && current && queue.length < 3;
      if (animate) await play(update.events || []);
      apply(update);
    }
    busy = false;
    screen.dataset.busy = "";
    if (current?.view && current.table.status !== "waiting") drawTable(); // unlock the hand and rows
  }

  // ------------------------------------------------------------------ event animations

  async function play(events) {
    for (const event of events) {
      if (closed) return;
      const handler = ANIMATIONS[event.type];
      if (handler) await handler(event);
    }
  }

  const ANIMATIONS = {
    "deal-started": async (e) => {
      rows = e.rows.map((r) => [...r]); revealed = null; drawBoard();
      if (variant() === "tournament" && e.deal > 0) { toast(t("table.handsPass")); await pause(600); }
    },
    "rows-laid": async (e) => { rows = e.rows.map((r) => [...r]); drawBoard(); await pause(400); },
    "cards-revealed": async (e) => {
      revealed = playsOf(e.plays, e.seat, e.plays);
      drawReveal();
      drawHand(true);
      promptNode.className = "prompt wait";
      promptNode.replaceChildren(h("span", {}, t("table.revealing")));
      await pause(1100);
    },
    "row-taken": async (e) => {
      const rowNode = boardNode.children[e.row];
      rowNode?.classList.add("taking");
      toast(t(e.reason === "twin" ? "table.twinTaken" : "table.took", { name: current.table.seats[e.seat].name, n: e.bullheads }));
      await pause(700);
      rows[e.row] = [];
      drawBoard();
    },
    "card-placed": async (e) => {
      if (e.side === "left") rows[e.row].unshift(e.card); else rows[e.row].push(e.card);
      const shown = revealed?.find((p) => p.card === e.card && !p.placed); // a twin is placed once each
      if (shown) shown.placed = true;
      freshRowCard = e.card;
      drawBoard();
      drawReveal();
      await pause(550);
    },
    "deal-scored": async (e) => { dealSummary(e); await pause(300); },
    "card-shown": async (e) => { // Open: a card goes down face up, for all to see
      if (current?.view?.face_up) { current.view.face_up[e.seat] = e.card; drawReveal(); }
      await pause(350);
    },
    "order-chosen": async (e) => {
      toast(t("table.ordered", { name: seatName(e.seat), first: e.cards[0], second: e.cards[1] }));
      await pause(300);
    },
    "cards-kept": async (e) => {
      toast(e.cards.length ? t("table.kept", { name: seatName(e.seat), cards: e.cards.join(", ") }) : t("table.keptNone", { name: seatName(e.seat) }));
      await pause(300);
    },
  };

  // ------------------------------------------------------------------ drawing

  const bar = h("div.tbar");
  const playersNode = h("div.players", { role: "list", "aria-label": "Players" });
  const boardNode = h("div.board", { id: "board", "aria-label": "Rows" });
  const revealNode = h("div.reveal", { id: "reveal", "aria-live": "polite" });
  const promptNode = h("div.prompt", { id: "prompt", role: "status" });
  const handNode = h("div.hand", { id: "hand", role: "group", "aria-label": "Your hand" });
  const handHelp = h("p.hand-help");
  const handWrap = h("div.hand-wrap", {}, handNode, handHelp);
  const timerNode = h("span.timer", { id: "timer", hidden: true });

  function apply(update) {
    current = { table: update.table, view: update.view };
    const { table, view } = current;
    screen.dataset.status = table.status;
    if (view) {
      rows = view.rows.map((r) => [...r]);
      screen.dataset.phase = view.phase;
      screen.dataset.deal = view.deal;
      screen.dataset.turn = view.turn;
      // what this seat must answer now ("card", "card-second", "order", "keep", "row", "draft"), for tests and styles
      screen.dataset.decision = view.decision ? view.decision.kind + (view.decision.reason === "second" ? "-second" : "") : "";
      if (view.revealed) {
        revealed = playsOf(view.revealed, view.current, view.unplaced);
      } else if (view.played.length && view.phase !== "draft" && !view.face_up?.some((c) => c != null)) {
        // between turns, the last turn's cards stay on show (faded), so nobody misses them
        const last = view.played[view.played.length - 1];
        revealed = playsOf(last, null).map((p) => ({ ...p, past: true }));
      } else revealed = null;
    }
    deadline = table.timer_left == null ? null : Date.now() + table.timer_left * 1000;
    if (table.status === "waiting" || !view) drawWaiting();
    else drawTable();
  }

  function seatName(i) { return current.table.seats[i]?.name ?? `#${i + 1}`; }

  function drawBar() {
    const { table, view } = current;
    const rules = table.rules;
    const perDeal = rules.variant === "nifty" ? 7 : 10;
    const deal = rules.deals && rules.variant !== "hand" ? t("table.dealOf", { d: view.deal + 1, n: rules.deals }) : t("table.deal", { d: view.deal + 1 });
    const turn = rules.variant === "hand" ? t("table.round", { t: view.turn + 1 })
      : t("table.turn", { t: Math.min(view.turn + 1, perDeal), n: perDeal });
    const where = view.phase === "draft" ? t("table.draft") : rules.variant === "hand" ? turn : `${deal} · ${turn}`;
    bar.replaceChildren(...[
      h("span", {}, t("table.code"), " ", h("span.code", {}, table.code)),
      h("span.where", {}, view.phase === "over" ? t("table.gameOver") : where),
      timerNode,
      table.you == null ? h("span.badge", {}, t("table.spectator")) : null,
      h("span.spacer"),
      h("a.btn.small", { href: `#/rules/${table.rules.variant}`, target: "_blank" }, t(`variant.${table.rules.variant}`), " · ", t("nav.rules")),
    ].filter(Boolean));
  }

  function drawPlayers() {
    const { table, view } = current;
    const target = table.rules.target || 66;
    const countDown = table.count === "down" && table.rules.target != null; // Tournament, Hand: no target
    const nodes = table.seats.map((seat, i) => {
      const classes = [];
      let status = "";
      if (view.phase === "play" && isSequential()) {
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
      if (i === table.you) classes.push("me");
      if (view.winners.includes(i)) classes.push("winner");
      const away = seat.kind === "human" && !seat.connected;
      if (away) classes.push("away");
      const total = countDown ? target - view.totals[i] : view.totals[i];
      return h("div.player" + classes.map((c) => "." + c).join(""), { role: "listitem", dataset: { seat: i } },
        h("span.pname", { title: seat.name }, seat.name),
        h("span.ptotal", { title: countDown ? t("table.pointsLeft") : t("table.penalties") }, String(total)),
        h("span.pstatus", {}, status,
          seat.kind === "bot" ? h("span.badge.bot", { title: t("table.bot") }, t(`level.${seat.bot}`)) : null,
          i === table.you ? h("span.badge", {}, t("table.you")) : null,
          away ? h("span.badge", {}, t("table.away")) : null),
        h("span.pdeal", { title: t("table.thisDeal", { n: view.penalties[i] }) }, view.penalties[i] ? `+${view.penalties[i]}` : ""),
        // Logic: every hand is public (the draft was open), so show the others' cards
        view.hands && i !== table.you ? h("span.phand", { title: t("table.publicHand") }, view.hands[i].join(" ")) : null);
    });
    playersNode.replaceChildren(...nodes);
  }

  function drawBoard() {
    if (!current?.view) return;
    const view = current.view;
    const decision = view.decision;
    const picking = decision?.kind === "row" && !busy ? decision : null;
    const rowNodes = rows.map((row, index) => {
      // Double: twins lie on each other at a row end, a stack taking one place of the six
      const places = [];
      for (const c of row) {
        const last = places[places.length - 1];
        if (last && last[0] === c) last.push(c); else places.push([c]);
      }
      const cards = places.map((place) => {
        const face = cardNode(place[0], { extra: place[0] === freshRowCard ? ".new" : "" });
        if (place.length === 1) return face;
        face.setAttribute("aria-label", `${face.getAttribute("aria-label")} ×${place.length} (${t("table.stack")})`);
        return h("div.stack", { title: t("table.stack"), dataset: { count: place.length } }, face);
      });
      for (let k = places.length; k < 6; k++) cards.push(ghostNode(k === 5));
      const sum = sumHeads(row);
      const attrs = { dataset: { row: index }, "aria-label": `Row ${index + 1}: ${row.join(", ")}; ${sum} bullheads` };
      const pickable = picking && picking.options.includes(index);
      if (pickable) {
        Object.assign(attrs, { role: "button", tabindex: "0", onclick: () => send({ type: "row", row: index, deal: view.deal, turn: view.turn }),
          onkeydown: (ev) => { if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); send({ type: "row", row: index, deal: view.deal, turn: view.turn }); } } });
      }
      const sumNode = h("div.rowsum", { dataset: pickable && picking.reason === "too-low" ? { take: t("table.rowTake", { n: sum }) } : {} }, bullIcon(), String(sum));
      return h("div.row" + (pickable ? ".pickable" : ""), attrs, h("div.cards", {}, cards), sumNode);
    });
    boardNode.replaceChildren(...rowNodes);
    freshRowCard = null;
  }

  function drawReveal() {
    const view = current?.view;
    if (!view) return;
    if (view.phase === "draft" && !busy) {
      const mine = view.decision?.kind === "draft";
      revealNode.replaceChildren(...view.draft_pool.map((c) => mine
        ? cardNode(c, { tag: "button", attrs: { type: "button", onclick: () => send({ type: "draft", card: c }) } })
        : cardNode(c)));
      return;
    }
    if (view.face_up?.some((c) => c != null) && !busy) {
      // Open: this turn's cards lie face up as they are played, in playing order
      const down = view.face_up.map((card, seat) => ({ seat, card })).filter((p) => p.card != null);
      revealNode.replaceChildren(h("p.caption", {}, t("table.faceUp")), ...down.map((p) => h("div.played", { dataset: { seat: p.seat } },
        cardNode(p.card, { extra: p.seat === current.table.you ? ".mine" : "" }), h("span", {}, seatName(p.seat)))));
      return;
    }
    if (revealed) {
      const caption = revealed[0]?.past ? h("p.caption", {}, t("table.lastTurn")) : null;
      revealNode.replaceChildren(...(caption ? [caption] : []), ...revealed.map((p) => h("div.played" + (p.past ? ".past" : p.placed ? ".gone" : ""), { dataset: { seat: p.seat } },
        cardNode(p.card, { extra: p.seat != null && p.seat === current.table.you ? ".mine" : "" }), h("span", {}, p.seat == null ? "" : seatName(p.seat)))));
      return;
    }
    const spectator = current.table.you == null;
    revealNode.replaceChildren(h("p.hintline", {}, spectator ? t("table.spectator") : t(isNifty() ? "table.pickTwoHelp" : isSequential() ? "table.pickHelpTurn" : "table.pickHelp")));
  }

  function drawPrompt() {
    const { table, view } = current;
    const d = view.decision;
    let text = "";
    let wait = false;
    const choices = [];  // buttons answering an order / keep / pass decision
    const answer = (message) => send({ ...message, deal: view.deal, turn: view.turn });
    if (view.phase === "over") { text = t("table.gameOver"); wait = true; }
    else if (d?.kind === "card" && d.reason === "second") {
      text = t("table.second", { card: view.my_choices[0] });
      choices.push(h("button.btn.small", { type: "button", id: "pass", onclick: () => answer({ type: "pass" }) }, t("table.pass")));
    }
    else if (d?.kind === "card" && isSequential()) text = t(variant() === "open" ? "table.yourTurnOpen" : "table.yourTurn");
    else if (d?.kind === "card" && isNifty()) {
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
    else if (view.phase === "row-choice") { wait = true; text = t("table.someoneRow", { name: seatName(view.row_choice.seat), card: view.row_choice.card }); }
    else if (view.phase === "draft") { wait = true; text = t("table.someoneDraft", { name: seatName(view.drafter) }); }
    else if (view.phase === "order") { wait = true; text = t("table.someoneOrder", { name: seatName(view.waiting_for[0]) }); }
    else if (view.phase === "keep") { wait = true; text = t("table.someoneKeep", { name: seatName(view.waiting_for[0]) }); }
    else if (view.phase === "play" && isSequential()) { wait = true; text = t("table.someoneTurn", { name: seatName(view.current) }); }
    else if (view.phase === "play" && isNifty() && view.my_choices.length) {
      wait = true;
      text = `${t("table.chosenTwo", { cards: view.my_choices.join(", ") })} ${t("table.waitOthers", { names: view.waiting_for.map(seatName).join(", ") })}`;
      choices.push(h("button.btn.small", { type: "button", id: "retract", onclick: () => answer({ type: "retract" }) }, t("table.retract")));
    }
    else if (view.phase === "play") {
      wait = true;
      const names = view.waiting_for.map(seatName).join(", ");
      text = view.my_choice ? `${t("table.changed", { card: view.my_choice })} ${t("table.waitOthers", { names })}` : t("table.waitOthers", { names });
      if (table.you == null) text = t("table.waitOthers", { names });
    }
    promptNode.className = "prompt" + (wait ? " wait" : "");
    promptNode.replaceChildren(h("span", {}, text));
    if (choices.length && !busy && online()) promptNode.append(h("div.choices", { id: "choices" }, ...choices));
    if (d && !busy) {
      promptNode.append(h("button.btn.small.hint", { type: "button", id: "hint", onclick: () => send({ type: "hint" }) }, t("table.hint")));
    }
  }

  function showHint(hint) {
    const view = current?.view;
    if (!view || hint.deal !== view.deal || hint.turn !== view.turn) return; // too late: the game moved on
    for (const node of document.querySelectorAll(".hinted")) node.classList.remove("hinted");
    const pass = hint.choice === 0; // PASS: no second card (Hand), or keep no more
    const target = hint.kind === "row" ? boardNode.querySelector(`.row[data-row="${hint.choice}"]`)
      : hint.kind === "draft" ? revealNode.querySelector(`[data-card="${hint.choice}"]`)
      : pass ? promptNode.querySelector(hint.kind === "keep" ? "#done" : "#pass")
      : hint.kind === "order" || hint.kind === "keep" ? promptNode.querySelector(`#choices [data-card="${hint.choice}"]`)
      : handNode.querySelector(`[data-card="${hint.choice}"]`);
    target?.classList.add("hinted");
    const key = pass ? (hint.kind === "keep" ? "table.hintDone" : "table.hintPass")
      : { row: "table.hintRow", draft: "table.hintDraft", order: "table.hintOrder", keep: "table.hintKeep" }[hint.kind] || "table.hintCard";
    toast(t(key, { choice: hint.kind === "row" ? hint.choice + 1 : hint.choice }));
  }

  function drawHand(locked = false) {
    const { table, view } = current;
    if (table.you == null) { handWrap.hidden = true; return; }
    handWrap.hidden = false;
    // Open and Hand: only the player whose turn it is plays; elsewhere a card may be changed until
    // the last player has chosen, so the hand stays open through the whole play phase
    const myTurn = !isSequential() || view.decision?.kind === "card";
    const canPlay = !locked && !busy && view.phase === "play" && myTurn && online();
    const shown = revealed && !revealed[0]?.past ? view.hand.filter((c) => !revealed.some((p) => p.card === c)) : view.hand;
    const mine = view.my_choices || (view.my_choice ? [view.my_choice] : []);
    const nodes = shown.map((c) => {
      const chosen = mine.includes(c);
      return cardNode(c, { tag: "button", extra: chosen ? ".selected" : "", attrs: {
        type: "button", disabled: !canPlay || (isSequential() && chosen), "aria-pressed": chosen ? "true" : "false",
        onclick: () => choose(c, mine),
      } });
    });
    handNode.replaceChildren(...nodes);
    handNode.classList.toggle("many", nodes.length > 10); // Nifty and Hand: two lines on a phone
    handHelp.textContent = canPlay ? t(isNifty() ? "table.pickTwoHelp" : isSequential() ? "table.pickHelpTurn" : "table.pickHelp") : "";
    if (variant() === "hand" && canPlay) handHelp.textContent += ` ${t("table.handDouble")}`;
  }

  /** Play card ``c``. In Nifty two cards are chosen: tapping a chosen card takes it back, and a
   * third card replaces the second (the server only knows "take back both", so the kept one is
   * sent again). */
  function choose(c, mine) {
    const { view } = current;
    const play = (card) => send({ type: "play", card, deal: view.deal, turn: view.turn });
    if (!isNifty() || (!mine.includes(c) && mine.length < 2)) { play(c); return; }
    const keep = mine.includes(c) ? mine.filter((x) => x !== c) : mine.slice(0, 1);
    send({ type: "retract", deal: view.deal, turn: view.turn });
    for (const card of keep) play(card);
    if (!mine.includes(c)) play(c);
  }

  // arrow keys move between the cards of the hand (Enter / Space play the focused one)
  handNode.addEventListener("keydown", (ev) => {
    if (ev.key !== "ArrowLeft" && ev.key !== "ArrowRight") return;
    const buttons = [...handNode.querySelectorAll("button.card:not([disabled])")];
    const at = buttons.indexOf(document.activeElement);
    const next = buttons[(at + (ev.key === "ArrowRight" ? 1 : -1) + buttons.length) % buttons.length];
    if (next) { ev.preventDefault(); next.focus(); }
  });

  function drawTable() {
    const { view } = current;
    if (!inner.contains(boardNode)) {
      inner.replaceChildren(bar, playersNode, h("div.middle", {}, boardNode, h("div.side", {}, promptNode, revealNode)), handWrap);
    }
    const focusedCard = document.activeElement?.closest?.("#hand .card")?.dataset.card;
    drawBar();
    drawPlayers();
    drawBoard();
    drawReveal();
    drawPrompt();
    drawHand();
    tick();
    if (focusedCard) handNode.querySelector(`[data-card="${focusedCard}"]`)?.focus();
    else if (view.decision?.kind === "row") boardNode.querySelector(".row.pickable")?.focus();
    else if (view.decision?.kind === "order" || view.decision?.kind === "keep") promptNode.querySelector("#choices button")?.focus();
    if (view.phase === "over") gameOver();
    else if (dialog?.dataset.kind === "over") closeDialog();
  }

  function drawWaiting() {
    const { table } = current;
    const link = `${location.origin}${location.pathname}#/t/${table.code}`;
    const linkInput = h("input", { value: link, readonly: true, "aria-label": "Link", onfocus: (e) => e.target.select() });
    const seatsList = h("ul.seat-list", { id: "waiting-seats" }, table.seats.map((s, i) => h("li", {},
      h("span", {}, t("lobby.seat", { n: i + 1 })),
      s.kind === "open" ? h("em.muted", { style: "color:#cfe3d8" }, t("table.open")) : h("strong", {}, s.name),
      s.kind === "bot" ? h("span.badge.bot", {}, t(`level.${s.bot}`)) : null,
      i === table.you ? h("span.badge", {}, t("table.you")) : null)));
    const parts = [
      h("h1", {}, t("table.waitingTitle")),
      h("p", {}, t("table.share")),
      h("div.share", {}, h("span.code.bigcode", { id: "big-code" }, table.code), linkInput,
        h("button.btn.small", { type: "button", onclick: async () => { try { await navigator.clipboard.writeText(link); toast(t("table.copied")); } catch { linkInput.select(); } } }, t("table.copy"))),
      seatsList,
    ];
    if (table.you === 0) parts.push(h("p", {}, h("button.btn.primary", { type: "button", id: "start", onclick: () => send({ type: "start" }) }, t("table.start"))));
    else if (table.you != null) parts.push(h("p.muted", { style: "color:#cfe3d8" }, t("table.startHostOnly")));
    else if (table.open > 0) {
      const name = h("input", { id: "join-name", maxlength: "24", value: localStorage.getItem("sixnimmt.name") || "", "aria-label": t("lobby.yourName"), placeholder: t("lobby.yourName") });
      const err = h("p.error", { role: "alert" });
      parts.push(h("form.share", { onsubmit: async (ev) => {
        ev.preventDefault();
        try {
          const joined = await api(`/tables/${table.code}/join`, { method: "POST", body: { name: name.value } });
          localStorage.setItem("sixnimmt.name", name.value.trim());
          seats.set(joined.code, joined.seat, joined.token);
          closed = true; socket?.close();
          location.reload();
        } catch (e) { err.textContent = e.message; }
      } }, name, h("button.btn.primary", { type: "submit" }, t("lobby.joinBtn"))), err);
    }
    inner.replaceChildren(h("div.waiting", {}, ...parts));
  }

  // ------------------------------------------------------------------ dialogs

  function closeDialog() { dialog?.remove(); dialog = null; }

  function openDialog(kind, ...content) {
    closeDialog();
    dialog = h("div.overlay", { dataset: { kind }, onclick: (e) => { if (e.target === dialog && kind !== "over") closeDialog(); } },
      h("div.dialog", { role: "dialog", "aria-modal": "true", id: `dialog-${kind}` }, ...content));
    document.body.append(dialog);
    dialog.querySelector("button, a")?.focus();
  }

  function rankingTable(totals, penalties, winners) {
    const order = totals.map((total, seat) => ({ seat, total })).sort((a, b) => a.total - b.total);
    const head = h("tr", {}, h("th", {}, "#"), h("th", {}, t("table.player")),
      penalties ? h("th.num", {}, t("table.thisDealCol")) : null, h("th.num", {}, t("table.total")));
    const body = order.map((o, rank) => h("tr" + (winners.includes(o.seat) ? ".win" : ""), {},
      h("td", {}, String(rank + 1)), h("td", {}, seatName(o.seat)),
      penalties ? h("td.num", {}, `+${penalties[o.seat]}`) : null, h("td.num", {}, String(o.total))));
    return h("table.ranking", {}, h("thead", {}, head), h("tbody", {}, body));
  }

  function dealSummary(e) {
    const low = Math.min(...e.totals);
    const leaders = e.totals.map((v, i) => (v === low ? i : -1)).filter((i) => i >= 0);
    openDialog("deal", h("h2", {}, t("table.dealOver", { d: e.deal + 1 })), rankingTable(e.totals, e.penalties, leaders),
      h("div.actions", {}, h("button.btn", { type: "button", onclick: closeDialog }, t("table.continue"))));
    const mine = dialog;
    setTimeout(() => { if (dialog === mine) closeDialog(); }, 5000 * Math.max(SPEED, 0.4));
  }

  function gameOver() {
    if (dialog?.dataset.kind === "over") return;
    const { table, view } = current;
    const names = view.winners.map(seatName).join(" & ");
    const actions = [];
    if (table.you != null) actions.push(h("button.btn.primary", { type: "button", id: "again", onclick: () => { closeDialog(); send({ type: "again" }); } }, t("table.again")));
    if (table.last_game_id) actions.push(h("a.btn.ghost", { href: `#/history/${table.last_game_id}` }, t("table.replay")));
    actions.push(h("a.btn.ghost", { href: "#/" }, t("table.lobby")));
    openDialog("over", h("h2", {}, t("table.gameOver")),
      h("p", { id: "winners" }, t(view.winners.length > 1 ? "table.winners" : "table.winner", { names })),
      rankingTable(view.totals, null, view.winners), h("div.actions", {}, actions));
  }

  // ------------------------------------------------------------------ the timer

  function tick() {
    if (deadline == null || current?.view?.phase === "over") { timerNode.hidden = true; return; }
    const left = Math.max(0, Math.ceil((deadline - Date.now()) / 1000));
    timerNode.hidden = false;
    timerNode.textContent = `${left} s`;
    timerNode.classList.toggle("low", left <= 5);
  }
  const ticker = setInterval(tick, 250);

  connect();
  return () => { closed = true; clearInterval(ticker); closeDialog(); socket?.close(); };
}
