// The lobby: create a table, join by code, see open tables and your own.
import { botsOnline } from "./bots.js";
import { api, getConfig, h, joinKey, seats, t, timeLeftText, tn, toast } from "./util.js";
import { account, playNowPanel } from "./account.js";

/** A time per move in words: seconds, hours (a turn-based table), or none. */
export function timerLabel(seconds) {
  if (!seconds) return t("lobby.timer.off");
  return seconds >= 3600 ? t("lobby.timer.h", { n: seconds / 3600 }) : t("lobby.timer.s", { n: seconds });
}

export async function showLobby(main) {
  const config = await getConfig();
  const savedName = localStorage.getItem("sixnimmt.name") || "";
  const error = h("p.error", { role: "alert", id: "create-error" });

  // ---- new table form
  const name = h("input", { id: "name", name: "name", maxlength: "24", required: true, value: savedName, autocomplete: "nickname" });
  const variant = h("select", { id: "variant" }, config.variants.map((v) => h("option", { value: v }, t(`variant.${v}`))));
  const players = h("select", { id: "players" });
  const rangeNote = h("p.muted.range-note", { id: "range-note" });
  // Each variant's player range (from the server, which checks it again): offer only those counts.
  function drawPlayerChoices() {
    const [low, high] = config.player_range?.[variant.value] || [2, 10];
    const wanted = Number(players.value) || 4;
    players.replaceChildren(...Array.from({ length: high - low + 1 }, (_, i) => h("option", { value: low + i }, String(low + i))));
    players.value = String(Math.min(high, Math.max(low, wanted)));
    rangeNote.textContent = t("lobby.range", { variant: t(`variant.${variant.value}`), low, high });
  }
  const seatList = h("ol.seat-list", { id: "seats", "aria-label": t("lobby.seats") });
  const target = h("input", { id: "target", type: "number", min: "1", max: "1000", value: "66", inputmode: "numeric" });
  const end = h("select", { id: "end" }, ["at-least", "above"].map((v) => h("option", { value: v }, t(`lobby.end.${v}`))));
  const deck = h("select", { id: "deck" }, ["two-decks", "doubles"].map((v) => h("option", { value: v }, t(`lobby.deck.${v}`))));
  const deckField = h("label.field", { id: "deck-field" }, h("span", {}, t("lobby.deck")), deck);
  const targetField = h("label.field", { id: "target-field" }, h("span", {}, t("lobby.target")), target);
  const endField = h("label.field", { id: "end-field" }, h("span", {}, t("lobby.end")), end);
  const noTarget = h("p.muted", { id: "no-target" }, t("lobby.noTarget"));
  // What the variant's spec asks for: a choice of deck where twins are dealt (Double); no target
  // where the variant ends on its own (Tournament, Hand).
  const spec = () => config.specs[variant.value];
  function drawVariantOptions() {
    deckField.hidden = !spec().twins;
    const ownEnd = !spec().has_target;
    targetField.hidden = ownEnd;
    endField.hidden = ownEnd;
    noTarget.hidden = !ownEnd;
  }
  // private by default: a table is reached by its link or code, and listed here only if public
  const isPublic = h("input", { type: "checkbox", id: "public" });
  const timer = h("select", { id: "timer" }, config.timers.map((s) => h("option", { value: s }, timerLabel(s))));

  // The bot levels the server offers (sixnimmt.seats.LEVELS, weakest first), those it can build;
  // at a rated table only those that play rated games (docs/web.md, "Rated play").
  const rated = h("input", { type: "checkbox", id: "rated" });
  const allLevels = config.bot_levels.filter((lv) => lv.ready);
  let levels = allLevels.map((lv) => lv.level);
  // and the bot programs online now (docs/bot-api.md), asked to take the seat
  let online = [];
  const seatChoices = () => [
    h("option", { value: "open" }, t("lobby.friend")),
    ...levels.map((lv) => h("option", { value: `bot:${lv}` }, t("lobby.bot", { level: t(`level.${lv}`) }))),
    online.length ? h("optgroup", { label: t("bots.onlineGroup") },
      online.map((bot) => h("option", { value: `program:${bot.name}` }, t("bots.choice", { name: bot.name, owner: bot.owner })))) : null,
  ];
  function drawSeats() {
    levels = allLevels.filter((lv) => !rated.checked || lv.rated !== false).map((lv) => lv.level);
    const offered = (value) => !value.startsWith("bot:") || levels.includes(value.slice(4));
    const keep = [...seatList.querySelectorAll("select")].map((s) => (offered(s.value) ? s.value : ""));
    const n = Number(players.value);
    const items = [h("li", {}, h("span", {}, t("lobby.seat", { n: 1 })), h("strong", {}, t("lobby.you")))];
    for (let i = 1; i < n; i++) {
      const select = h("select", { "aria-label": t("lobby.seat", { n: i + 1 }), dataset: { seat: i } }, seatChoices());
      select.value = keep[i - 1] || "bot:medium";
      items.push(h("li", {}, h("span", {}, t("lobby.seat", { n: i + 1 })), select));
    }
    seatList.replaceChildren(...items);
  }
  players.addEventListener("change", drawSeats);
  variant.addEventListener("change", () => { drawPlayerChoices(); drawVariantOptions(); drawSeats(); });
  drawPlayerChoices();
  drawVariantOptions();
  drawSeats();
  const ratedField = ratedChoice(rated, [target, end], drawSeats);
  botsOnline().then((bots) => { online = bots; if (online.length) drawSeats(); });

  async function create(event) {
    event.preventDefault();
    error.textContent = "";
    const seatSpecs = [...seatList.querySelectorAll("select")].map((s) =>
      s.value === "open" ? { kind: "open" }
        : s.value.startsWith("program:") ? { kind: "program", name: s.value.slice(8) } : { kind: "bot", bot: s.value.slice(4) });
    try {
      localStorage.setItem("sixnimmt.name", name.value.trim());
      const made = await api("/tables", { method: "POST", body: {
        name: name.value, variant: variant.value, seats: seatSpecs,
        target: Number(target.value) || 66, end: end.value, timer: Number(timer.value),
        ...(spec().twins ? { double_deck: deck.value } : {}),
        ...(isPublic.checked ? { public: true } : {}),
        ...(rated.checked ? { rated: true } : {}),
      } });
      seats.set(made.code, made.seat, made.token);
      location.hash = `#/t/${made.code}`;
    } catch (e) { error.textContent = e.message; }
  }

  const form = h("form.panel", { id: "create", onsubmit: create, "aria-labelledby": "new-title" },
    h("h2", { id: "new-title" }, t("lobby.new")),
    h("label.field", {}, h("span", {}, t("lobby.yourName")), name),
    h("div.row-fields", {},
      h("label.field", {}, h("span", {}, t("lobby.variant")), variant),
      h("label.field", {}, h("span", {}, t("lobby.players")), players),
      deckField),
    rangeNote,
    h("fieldset.field", { style: "border:0;padding:0;margin:0 0 .75rem" }, h("legend", {}, t("lobby.seats")), seatList),
    h("div.row-fields", {},
      targetField,
      endField,
      h("label.field", {}, h("span", {}, t("lobby.timer")), timer)),
    noTarget,
    h("label.check", { id: "public-field" }, isPublic, " ", t("lobby.public")),
    h("p.muted.range-note", {}, t("lobby.publicHelp")),
    ratedField,
    error,
    h("button.btn.primary", { type: "submit", id: "create-btn" }, t("lobby.create")));

  // ---- join by code
  const joinError = h("p.error", { role: "alert" });
  const code = h("input", { id: "join-code", maxlength: "5", autocapitalize: "characters", autocomplete: "off", class: "code", placeholder: "ABCDE" });
  const joinName = h("input", { id: "join-name", maxlength: "24", value: savedName, autocomplete: "nickname" });
  const joinKeys = new Map(); // table code -> the key of the join to it (kept for its retries)
  async function join(event) {
    event.preventDefault();
    joinError.textContent = "";
    const wanted = code.value.trim().toUpperCase();
    if (seats.get(wanted)) { location.hash = `#/t/${wanted}`; return; }
    try {
      localStorage.setItem("sixnimmt.name", joinName.value.trim());
      if (!joinKeys.has(wanted)) joinKeys.set(wanted, joinKey());
      const joined = await api(`/tables/${encodeURIComponent(wanted)}/join`, { method: "POST", body: { name: joinName.value, key: joinKeys.get(wanted) } });
      seats.set(joined.code, joined.seat, joined.token);
      location.hash = `#/t/${joined.code}`;
    } catch (e) { joinError.textContent = e.message; }
  }
  const joinForm = h("form.panel", { id: "join", onsubmit: join },
    h("h2", {}, t("lobby.join")),
    h("div.row-fields", {},
      h("label.field", {}, h("span", {}, t("lobby.code")), code),
      h("label.field", {}, h("span", {}, t("lobby.yourName")), joinName)),
    joinError,
    h("button.btn", { type: "submit" }, t("lobby.joinBtn")));

  // Signed in: the account's name is the name to play under, unless another was typed here.
  account().then((me) => {
    if (!me?.user) return;
    for (const input of [name, joinName]) if (!input.value.trim()) input.value = me.user.name;
  });

  const list = h("ul.tables", { id: "open-tables" });
  const side = h("div", {}, joinForm, h("section.panel", { style: "margin-top:1rem" }, h("h2", {}, t("lobby.open")), list));
  const yourMove = yourMoveBlock();
  main.append(
    h("h1", {}, t("lobby.title")),
    h("p.muted", { style: "margin-top:-.6rem" }, t("lobby.tagline")),
    playNowPanel(),
    h("p.first-game", { id: "first-game" }, t("home.newHere"), " ", h("a.btn.small", { href: "#/tutorial", id: "tutorial-link" }, t("home.tutorial"))),
    yourMove.node,
    h("div.grid2", {}, form, side));

  async function refresh() {
    let tables = [];
    try { tables = await api("/tables"); } catch { return; }
    const mine = seats.all();
    const items = tables.map((table) => {
      const own = mine[table.code];
      // names, and the open seats in words (not a dot nobody reads)
      const taken = table.seats.filter((s) => s.kind !== "open").map(seatLabel).join(", ");
      const free = table.seats.filter((s) => s.kind === "open").length;
      const who = free ? `${taken} · ${tn("lobby.openSeats", free)}` : taken;
      const end = table.rules.target != null ? t("lobby.to", { n: table.rules.target }) : null;
      const action = own
        ? h("a.btn.small.primary", { href: `#/t/${table.code}` }, t("lobby.resume"))
        : table.status === "waiting" && table.open > 0
          ? h("button.btn.small", { type: "button", onclick: () => { code.value = table.code; joinName.focus(); } }, t("lobby.joinBtn"))
          : h("a.btn.small.ghost", { href: `#/t/${table.code}` }, t("lobby.watch"));
      return h("li", { dataset: { code: table.code } },
        h("span.code", {}, table.code),
        h("span.badge", {}, t(`variant.${table.rules.variant}`)),
        h("span.who", {}, who),
        end ? h("span.badge.target", {}, end) : null,
        h("span.badge.timer-badge", {}, timerLabel(table.timer)),
        h("span.badge" + (table.status === "playing" ? ".live" : ""), {},
          table.status === "waiting" ? t("lobby.seatsFree", { n: table.open }) : t("lobby.playing")),
        action);
    });
    list.replaceChildren(...(items.length ? items : [h("li.muted", {}, t("lobby.none"))]));
  }
  await refresh();
  yourMove.refresh();
  const poll = setInterval(refresh, 5000);
  const movePoll = setInterval(yourMove.refresh, 30000);
  return () => { clearInterval(poll); clearInterval(movePoll); };
}

/** Signed in, the New table form may make a rated table: ticked, the seats offer only the bots
 * that play rated games, and the target and end are the variant's own (the server checks again). */
function ratedChoice(rated, [target, end], drawSeats) {
  const node = h("div", { id: "rated-field", hidden: true },
    h("label.check", {}, rated, " ", t("place.rated")),
    h("p.muted.range-note", { id: "rated-help", hidden: true }, t("place.ratedHelp")));
  rated.addEventListener("change", () => {
    node.querySelector("#rated-help").hidden = !rated.checked;
    if (rated.checked) { target.value = target.defaultValue; end.value = "at-least"; }
    for (const input of [target, end]) input.disabled = rated.checked;
    drawSeats();
  });
  account().then((me) => { node.hidden = !me?.user; });
  return node;
}

/** A seat's name in a list of tables: a bot program's says it is a bot, as the built-in bots'
 * names do at the table. */
const seatLabel = (s) => (s.program ? `${s.name} (${t("table.bot")})` : s.name);

// ---- "Your move": every table where this browser or the signed-in account holds a seat, those
// waiting for it first (turn-based tables above all), each with the time left for the move. Read
// from the seat tokens this browser keeps and, signed in, from the account (any device's seats).
function yourMoveBlock() {
  const list = h("ul.tables", { id: "your-move-list" });
  const node = h("section.panel.your-move", { id: "your-move", hidden: true, "aria-labelledby": "your-move-title" },
    h("h2", { id: "your-move-title" }, t("home.yourMove")), list);
  async function refresh() {
    const held = Object.entries(seats.all()).slice(-20); // the newest twenty
    const [found, theAccount] = await Promise.all([
      Promise.all(held.map(async ([code, own]) => {
        try { return { code, seat: own.seat, table: await api(`/tables/${encodeURIComponent(code)}`) }; } catch { return null; }
      })),
      account().then((me) => (me ? api("/account/tables") : [])).catch(() => []),
    ]);
    const byCode = new Map(found.filter(Boolean).map((f) => [f.code, f]));
    for (const table of theAccount) if (!byCode.has(table.code)) byCode.set(table.code, { code: table.code, seat: table.seat, table });
    const live = [...byCode.values()].filter((f) => f.table.status !== "finished" && f.table.seats[f.seat]?.kind === "human");
    const mine = (f) => f.table.status === "playing" && (f.table.waiting_for || []).includes(f.seat);
    live.sort((a, b) => Number(mine(b)) - Number(mine(a)) || Number(b.table.timer >= 3600) - Number(a.table.timer >= 3600));
    node.hidden = !live.length;
    list.replaceChildren(...live.map((f) => h("li" + (mine(f) ? ".my-move" : ""), { dataset: { code: f.code, move: mine(f) ? "1" : "" } },
      h("span.code", {}, f.code),
      h("span.badge", {}, t(`variant.${f.table.rules.variant}`)),
      h("span.who", {}, f.table.seats.filter((s) => s.name).map(seatLabel).join(", ")),
      h("span.badge.timer-badge", {}, timerLabel(f.table.timer)),
      h("span.badge" + (mine(f) ? ".live" : ""), {}, mine(f) ? t("home.yourTurn") : f.table.status === "waiting" ? t("lobby.waiting") : t("home.theirTurn")),
      f.table.status === "playing" && f.table.timer_left != null
        ? h("span.badge.time-left", { dataset: { left: Math.round(f.table.timer_left) } }, t("home.timeLeft", { time: timeLeftText(f.table.timer_left) }))
        : null,
      // not "Play now", the matchmaking button's name: this one goes to a table waiting for you
      h("a.btn.small" + (mine(f) ? ".primary" : ""), { href: `#/t/${f.code}` }, mine(f) ? t("home.move") : t("lobby.resume")))));
  }
  return { node, refresh };
}
