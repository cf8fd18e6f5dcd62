// The table: one WebSocket, the server's view of this seat, and animations of the public events.
// The server is the authority: after each batch of events the screen is redrawn from its view.
// The work is split by job: table/socket.js (the connection), table/animation.js (events),
// table/drawing.js (the screen), table/dialogs.js (deal summary, final ranking) and
// table/plays.js (how a turn is played); this module holds the state they share and the loop.
import { h, seats, t, toast } from "./util.js";
import { openSocket } from "./table/socket.js";
import { playEvents } from "./table/animation.js";
import { bindHandKeys, createNodes, drawHand, drawPlayers, drawPrompt, drawTable, drawTimer, drawWaiting, showHint } from "./table/drawing.js";
import { closeDialog, dialogKind, gameOver } from "./table/dialogs.js";
import { playShape, playsOf } from "./table/plays.js";

const SPEED = Number(new URLSearchParams(location.search).get("speed") || 1);

export function showTable(main, code) {
  const screen = h("section.table-screen", { id: "table", dataset: { code, status: "connecting" } });
  screen.style.setProperty("--speed", String(SPEED));
  const inner = h("div.table-inner");
  screen.append(inner);
  main.append(screen);
  inner.append(h("p.prompt.wait", {}, t("table.connecting")));

  /** What every part of the table shares: the last applied server state and what is drawn. */
  const s = {
    code,
    screen,
    inner,
    nodes: createNodes(),
    speed: SPEED,
    current: null, // the last applied {table, view}
    shape: null, // how a turn is played at this table (table/plays.js)
    rows: [[], [], [], []], // rows as drawn (may lag the view while animating)
    revealed: null, // [{seat, card, placed}] during a reveal
    freshRowCard: null, // the card just placed, drawn with a flourish
    busy: false, // animating: the hand and rows are locked
    deadline: null, // when the turn timer runs out (Date.now() clock)
    dialog: null,
    closed: false,
    send: () => {},
    online: () => false,
    leave: () => {},
  };
  bindHandKeys(s.nodes.hand);
  let queue = [];

  function receive(message) {
    if (message.type === "error") {
      if (message.fatal) {
        inner.replaceChildren(h("p.prompt.wait", {}, t("table.notFound")), h("a.btn", { href: "#/" }, t("table.lobby")));
        s.leave();
        return;
      }
      if (message.code !== "rate") toast(message.message, true);
      return;
    }
    if (message.type === "hint") { showHint(s, message); return; }
    if (message.type === "state" || message.type === "update" || message.type === "chosen") {
      queue.push(message);
      if (!s.busy) drain();
    }
  }

  async function drain() {
    s.busy = true;
    screen.dataset.busy = "1";
    while (queue.length) {
      const update = queue.shift();
      if (update.type === "chosen") { // someone chose a card: only who-has-chosen changed
        if (s.current?.view) {
          s.current.view.chosen = update.chosen;
          s.current.view.waiting_for = update.waiting_for;
          drawPlayers(s);
          drawPrompt(s);
        }
        continue;
      }
      const animate = update.type === "update" && s.current && queue.length < 3;
      if (animate) await playEvents(s, update.events || []);
      apply(update);
    }
    s.busy = false;
    screen.dataset.busy = "";
    if (playing()) render(); // unlock the hand and rows
  }

  const playing = () => !!s.current?.view && s.current.table.status !== "waiting";

  function apply(update) {
    s.current = { table: update.table, view: update.view };
    s.shape = playShape(update.table);
    const { table, view } = s.current;
    screen.dataset.status = table.status;
    if (view) {
      s.rows = view.rows.map((r) => [...r]);
      screen.dataset.phase = view.phase;
      screen.dataset.deal = view.deal;
      screen.dataset.turn = view.turn;
      // what this seat must answer now ("card", "card-second", "order", "keep", "row", "draft"), for tests and styles
      screen.dataset.decision = view.decision ? view.decision.kind + (view.decision.reason === "second" ? "-second" : "") : "";
      if (view.revealed) {
        s.revealed = playsOf(s.shape, view.revealed, view.current, view.unplaced);
      } else if (view.played.length && view.phase !== "draft" && !view.face_up?.some((c) => c != null)) {
        // between turns, the last turn's cards stay on show (faded), so nobody misses them
        const last = view.played[view.played.length - 1];
        s.revealed = playsOf(s.shape, last, null).map((p) => ({ ...p, past: true }));
      } else s.revealed = null;
    }
    s.deadline = table.timer_left == null ? null : Date.now() + table.timer_left * 1000;
    if (table.status === "waiting" || !view) drawWaiting(s);
    else render();
  }

  /** Draw the game, and keep the game-over dialog in step with it. */
  function render() {
    drawTable(s);
    if (s.current.view.phase === "over") gameOver(s);
    else if (dialogKind(s) === "over") closeDialog(s);
  }

  const own = seats.get(code);
  const socket = openSocket(code, own?.token, {
    onMessage: receive,
    onLost: () => {
      screen.dataset.status = "reconnecting";
      if (playing()) drawHand(s); // nothing to send on: lock the hand
    },
  });
  s.send = socket.send;
  s.online = socket.online;
  s.leave = () => { s.closed = true; socket.close(); };

  const ticker = setInterval(() => drawTimer(s), 250);
  return () => { s.leave(); clearInterval(ticker); closeDialog(s); };
}
