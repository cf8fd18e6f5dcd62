// The table: one WebSocket, the server's view of this seat, and animations of the public events.
// The server is the authority: after each batch of events the screen is redrawn from its view.
// The work is split by job: table/socket.js (the connection), table/animation.js (events),
// table/drawing.js (the screen), table/dialogs.js (deal summary, score sheet, final ranking),
// table/log.js (the game log and the sheet's data) and table/plays.js (how a turn is played);
// this module holds the state they share and the loop that applies the server's messages.
import { errorText, h, prefs, seats, t, toast } from "./util.js";
import { openSocket } from "./table/socket.js";
import { playEvents, skipAnimations } from "./table/animation.js";
import { SPEEDS, bindHandKeys, drawAway, createNodes, createTools, drawBar, drawHand, drawLateJoin, drawNotice, drawTools, drawPlayers, drawPrompt, drawTable, drawTimer, drawWaiting, showHint } from "./table/drawing.js";
import { askLeave, closeDialog, dealSummary, dialogKind, gameOver, showSeats, showSheet } from "./table/dialogs.js";
import { createLog, createLogPanel, logEvents } from "./table/log.js";
import { createChat } from "./table/chat.js";
import { createModeration } from "./moderation.js";
import { receiveInvite } from "./table/seats.js";
import { playShape, playsOf } from "./table/plays.js";
import { clearSignals, signalTurn } from "./table/signals.js";
import { drawFinding, forgetFinding } from "./table/finding.js";

// ?speed=0.05 in the address speeds every animation up (the browser tests use it)
const URL_SPEED = Number(new URLSearchParams(location.search).get("speed")) || 1;

/** The table `code`; `invite` is a friend's invitation token from the link (#/t/CODE?invite=...). */
export function showTable(main, code, invite = null, inviteName = "") {
  const screen = h("section.table-screen", { id: "table", dataset: { code, status: "connecting" } });
  const inner = h("div.table-inner");
  screen.append(inner);
  main.append(screen);
  inner.append(h("p.prompt.wait", {}, t("table.connecting")));

  /** What every part of the table shares: the last applied server state and what is drawn. */
  const s = {
    code,
    invite,
    inviteName, // the name the host typed for this friend (from the invitation link)
    invites: new Map(), // seat -> invitation link, for the host to send
    screen,
    inner,
    nodes: createNodes(),
    speed: URL_SPEED * (SPEEDS[prefs.get("speed")] ?? 1), // a factor on every animation's pause
    current: null, // the last applied {table, view}
    shape: null, // how a turn is played at this table (table/plays.js)
    rows: [[], [], [], []], // rows as drawn (may lag the view while animating)
    revealed: null, // [{seat, card, placed}] during a reveal
    freshRowCard: null, // the card just placed, drawn with a flourish
    preview: null, // where this seat's chosen card would go (drawing.js)
    busy: false, // animating: the hand and rows are locked
    skipping: false, // the reader skipped this batch's animations
    wakers: new Set(), // pauses in progress, woken by a skip
    pendingSummary: null, // a deal-scored event, shown once the board is up to date
    notice: null, // a message that stays until closed (the timer played for you)
    overPutAside: false, // the final ranking was closed to look at the board
    deadline: null, // when the turn timer runs out (Date.now() clock)
    awayUntil: {}, // seat -> when the stand-in plays for that away player (Date.now() clock)
    confirming: null, // a card held until "Play it" is pressed (the confirm-my-card setting)
    yourMove: false, // this seat is asked to move (the title, icon and sound say so)
    dialog: null,
    closed: false,
    log: createLog(code),
    extraNodes: [], // panels below the hand (the log)
    extraTools: [], // more controls in the tools row
    send: () => {},
    sent: false, // an answer was sent and the server has not replied yet: the choice is final on screen
    /** Send this seat's answer (one message or several): once only until the server replies, so a
     * second tap cannot send a move the game has already gone past. */
    answer: (messages) => {
      if (s.sent || !s.online()) return false;
      s.sent = true;
      for (const message of [].concat(messages)) s.send(message);
      if (playing()) render();
      return true;
    },
    online: () => false,
    leave: () => {},
    redraw: () => { if (playing()) render(); logPanel.draw(); },
    setSpeed: (factor) => { s.speed = URL_SPEED * factor; screen.style.setProperty("--speed", String(s.speed)); },
    skipAnimations: () => skipAnimations(s),
    showSheet: () => showSheet(s),
    showOver: () => { s.overPutAside = false; gameOver(s); },
    onDialogChange: () => { if (playing() && s.tools) drawTools(s); },
    showSeats: () => showSeats(s),
    askLeave: () => askLeave(s),
    redrawSeats: () => {
      if (dialogKind(s) === "seats") showSeats(s);
      else if (s.current?.table.status === "waiting") drawWaiting(s);
    },
  };
  screen.style.setProperty("--speed", String(s.speed));
  bindHandKeys(s.nodes.hand);
  const logPanel = createLogPanel(s);
  s.log.onChange = () => logPanel.draw();
  const chat = createChat(s);
  s.chat = chat;
  s.extraNodes.push(logPanel.node, chat.node);
  s.extraTools.push(chat.mute);
  const moderation = createModeration(s); // report and block; the host's chat and spectators
  s.extraTools.push(moderation.button);
  createTools(s);
  const queue = [];

  function receive(message) {
    if (message.type === "error") {
      if (message.fatal || message.code === "no-table") {
        inner.replaceChildren(h("p.prompt.wait", {}, t("table.notFound")), h("a.btn", { href: "#/" }, t("table.lobby")));
        s.leave();
        return;
      }
      toast(errorText(message), true);
      if (s.sent) { s.sent = false; if (playing() && !s.busy) render(); } // the answer was refused: choose again
      return;
    }
    if (message.type === "hint") { showHint(s, message); return; }
    if (message.type === "chat") { chat.receive(message); return; }
    if (message.type === "blocked") { moderation.receive(message); return; }
    if (message.type === "invite") { receiveInvite(s, message); return; }
    if (message.type === "presence" || message.type === "seats" || message.type === "thinking") { queue.push(message); if (!s.busy) drain(); return; }
    if (message.type === "state" || message.type === "update" || message.type === "chosen") {
      queue.push(message);
      if (!s.busy) drain();
    }
  }

  /** Someone's move was made for them (the timer ran out, or they were away). */
  function playedFor(info) {
    if (!info || !s.current) return;
    const seat = s.current.table.seats[info.seat];
    // (one who left: by their name, which the seat gives up at the next deal)
    s.log.add({ k: "timer", seat: info.seat, reason: info.reason, ...(seat?.left ? { left: true, name: seat.name } : {}) });
    if (info.seat === s.current.table.you) {
      s.notice = t(info.reason === "away" ? "notice.playedAway" : "notice.playedTimer");
      toast(s.notice, true);
      if (playing()) drawNotice(s);
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
          if (update.own) { // this seat chose: its own part of the view too (drawn in full below)
            s.sent = false;
            Object.assign(s.current.view, update.own);
            screen.dataset.decision = decisionName(s.current.view.decision);
          } else {
            drawPlayers(s);
            drawPrompt(s);
            signal();
          }
        }
        playedFor(update.played_for);
        continue;
      }
      if (update.type === "presence" || update.type === "seats") { seatsChanged(update); continue; }
      if (update.type === "thinking") { // a bot started or ended a long think: only its seat changes
        if (s.current) {
          const others = (s.current.table.thinking || []).filter((seat) => seat !== update.seat);
          s.current.table.thinking = update.thinking ? [...others, update.seat] : others;
          if (playing()) drawPlayers(s);
        }
        continue;
      }
      s.log.follow(update.table.game_number);
      if (update.type === "update") {
        s.shape = playShape(update.table, update.view);
        playedFor(update.played_for); // before the reveal it led to
        logEvents(s, update.events || []);
        // the deal's summary waits until the board shows the new state (below)
        s.pendingSummary = (update.events || []).find((e) => e.type === "deal-scored") ?? s.pendingSummary;
        if (s.current && queue.length < 3 && !s.skipping) await playEvents(s, update.events || []);
      }
      apply(update);
      chat.sync(update.table);
      // a (re)connection's first state: the log kept in this browser is drawn now that the seats'
      // names are known (its lines were read before any message came, and none may be added)
      if (update.type === "state") logPanel.draw();
    }
    s.busy = false;
    s.skipping = false;
    screen.dataset.busy = "";
    if (playing()) {
      render(); // unlock the hand and rows
      const summary = s.pendingSummary;
      s.pendingSummary = null;
      if (summary && s.current.view.phase !== "over") dealSummary(s, summary);
    }
  }

  /** A seat's first connection opened or its last closed, or the seats changed (a join, an invite,
   * a release, a takeover): only the seats are redrawn. */
  function seatsChanged(message) {
    const table = s.current?.table;
    if (!table) return;
    if (message.type === "seats") {
      table.seats = message.seats;
      if (message.open != null) table.open = message.open;
    }
    else if (table.seats[message.seat]) {
      table.seats[message.seat].connected = message.connected;
      // away: the stand-in plays for them after the grace period (shown as a countdown to everyone)
      if (message.connected) delete s.awayUntil[message.seat];
      else if (table.away_grace != null && table.timer < 3600) s.awayUntil[message.seat] = Date.now() + table.away_grace * 1000;
    }
    if (message.spectators != null) table.spectators = message.spectators;
    if (table.status === "waiting" || !s.current.view) drawWaiting(s);
    else { drawBar(s); drawPlayers(s); drawLateJoin(s); if (dialogKind(s) === "seats") showSeats(s); }
  }

  const playing = () => !!s.current?.view && s.current.table.status !== "waiting";

  function apply(update) {
    s.sent = false; // the server's fresh view answers whatever was sent
    s.current = { table: update.table, view: update.view };
    s.shape = playShape(update.table, update.view);
    const { table, view } = s.current;
    screen.dataset.status = table.status;
    if (table.status !== "waiting") forgetFinding(code);
    if (view) {
      s.rows = view.rows.map((r) => [...r]);
      screen.dataset.phase = view.phase;
      screen.dataset.deal = view.deal;
      screen.dataset.turn = view.turn;
      screen.dataset.decision = decisionName(view.decision);
      const playedBy = view.played_by;
      if (view.revealed_by) {
        s.revealed = playsOf(view.revealed_by, view.unplaced);
      } else if (playedBy.length && view.phase !== "draft" && !view.face_up?.some((c) => c != null)) {
        // between turns, the last turn's cards stay on show (faded), so nobody misses them
        s.revealed = playsOf(playedBy[playedBy.length - 1]).map((p) => ({ ...p, past: true }));
      } else s.revealed = null;
      if (view.phase !== "over") s.overPutAside = false;
      // the game began before this page connected: its log starts with the deal under way
      if (!s.log.entries.length && view.turn === 0 && view.phase !== "over") s.log.add({ k: "deal", deal: view.deal });
    }
    s.deadline = table.timer_left == null ? null : Date.now() + table.timer_left * 1000;
    s.awayUntil = {};
    (table.away_left || []).forEach((left, seat) => { if (left != null) s.awayUntil[seat] = Date.now() + left * 1000; });
    if (!view || view.deal !== s.confirmFor?.deal || view.turn !== s.confirmFor?.turn) s.confirming = null;
    s.confirmFor = view ? { deal: view.deal, turn: view.turn } : null;
    if (table.status === "waiting" || !view) drawWaiting(s);
    else render();
  }

  /** The title, icon and sound say whether this seat is asked to move now. */
  function signal() {
    const view = s.current?.view;
    if (s.busy) return; // the animations first: the state they lead to decides
    const asked = !!view && s.current.table.you != null && !!view.decision && view.phase !== "over" && !s.sent;
    signalTurn(s, asked ? `${s.current.table.game_number}.${view.deal}.${view.turn}.${view.phase}.${view.decision.kind}.${view.decision.card ?? ""}.${(view.my_choices || []).length}` : null);
  }

  /** What this seat must answer now ("card", "card-second", "order", "keep", "row", "draft", or ""),
   * for tests and styles. */
  function decisionName(decision) {
    return decision ? decision.kind + (decision.reason === "second" ? "-second" : "") : "";
  }

  /** Draw the game, and keep the final ranking in step with it (unless put aside). */
  function render() {
    drawTable(s);
    signal();
    if (s.current.view.phase === "over" && !s.overPutAside) gameOver(s);
    else if (s.current.view.phase !== "over" && dialogKind(s) === "over") closeDialog(s);
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

  const ticker = setInterval(() => { drawTimer(s); if (playing()) drawAway(s); else drawFinding(s); }, 250);
  return () => { s.leave(); skipAnimations(s); clearInterval(ticker); closeDialog(s); clearSignals(); };
}
