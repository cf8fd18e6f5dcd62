// Accounts (optional), the leaderboard, profiles and "Play now". Every name is put in the page as
// text (h() never parses HTML); the session is an HttpOnly cookie this script never sees.
import { addMailFields, afterSignUp, challengeButton, notifyPanel } from "./notify.js";
import { myBotsPanel } from "./bots.js";
import { blocksPanel, profileTools } from "./moderation.js";
import { api, botBadge, disclosure, getConfig, h, lang, seats, t, tn, toast } from "./util.js";
import { rememberFinding } from "./table/finding.js";

let me = undefined; // undefined: not asked yet; null: anonymous

/** The signed-in account ({user, ratings}), or null. */
export async function account(refresh = false) {
  if (me === undefined || refresh) {
    try { const data = await api("/account"); me = data.user ? data : null; } catch { me = null; }
    drawAccountLink();
  }
  return me;
}

/** The top bar's account corner: "Sign in", or the signed-in name opening the account menu
 * (profile, settings, My bots, sign out), as on any site with accounts. */
export function drawAccountLink() {
  const corner = document.getElementById("account-menu");
  if (!corner) return;
  if (!(me && me.user)) {
    corner.replaceChildren(h("a", { href: "#/account", id: "account-link" }, t("account.signIn")));
    return;
  }
  const name = me.user.name;
  const button = h("button.account-btn", { type: "button", id: "account-link", "aria-controls": "account-items" }, name);
  const items = h("ul.account-items", { id: "account-items", "aria-label": t("account.title") },
    h("li", {}, h("a", { href: `#/u/${encodeURIComponent(name)}`, id: "menu-profile" }, t("menu.profile"))),
    h("li", {}, h("a", { href: "#/account", id: "menu-settings" }, t("menu.settings"))),
    h("li", {}, h("a", { href: "#/account/bots", id: "menu-bots" }, t("bots.title"))),
    h("li", {}, h("button", { type: "button", id: "menu-signout", onclick: signOut }, t("account.signOut"))));
  corner.replaceChildren(button, items);
  disclosure(button, items);
}

async function signOut() {
  await api("/account/signout", { method: "POST" });
  await account(true);
  location.hash = "#/";
}

const ratingText = (r) => (r ? `${r.rating}${r.provisional ? "?" : ""}` : "—");

function when(iso, withTime = false) {
  try {
    return new Date(iso).toLocaleString(lang, withTime ? { dateStyle: "medium", timeStyle: "short" } : { dateStyle: "medium" });
  } catch { return iso; }
}

// ---------------------------------------------------------------- sign in, sign up, settings

export async function showAccount(main, part = null) {
  const state = await account(true);
  if (state && state.user) {
    drawSettings(main, state.user);
    if (part === "bots") { // from the account menu: My bots, in view and focused
      const title = main.querySelector("#bots-title");
      title.setAttribute("tabindex", "-1");
      title.focus({ preventScroll: true });
      title.scrollIntoView({ block: "start" });
    }
    return;
  }
  main.append(h("h1", {}, t("account.title")), h("p.muted", {}, t("account.optional")));
  const form = (id, title, submit, help) => {
    const name = h("input", { id: `${id}-name`, name: "username", maxlength: "20", required: true, autocomplete: "username", autocapitalize: "none" });
    const password = h("input", { id: `${id}-password`, name: "password", type: "password", maxlength: "128", required: true,
      autocomplete: id === "signup" ? "new-password" : "current-password" });
    const error = h("p.error", { role: "alert", id: `${id}-error` });
    async function send(event) {
      event.preventDefault();
      error.textContent = "";
      try {
        await api(`/account/${id}`, { method: "POST", body: { name: name.value, password: password.value } });
        await account(true);
        if (id === "signup") await afterSignUp(event.target);
        location.hash = `#/u/${encodeURIComponent(me.user.name)}`;
      } catch (e) { error.textContent = e.message; }
    }
    return h("form.panel", { id, onsubmit: send },
      h("h2", {}, title),
      h("label.field", {}, h("span", {}, t("account.name")), name),
      h("label.field", {}, h("span", {}, t("account.password")), password),
      help ? h("p.muted.range-note", {}, help) : null,
      error,
      h("button.btn.primary", { type: "submit", id: `${id}-btn` }, submit));
  };
  main.append(h("div.grid2", {},
    form("signin", t("account.signIn"), t("account.signIn")),
    form("signup", t("account.signUp"), t("account.signUp"), t("account.rules"))));
  await addMailFields(main.querySelector("#signup"), main.querySelector("#signin"));
}

function drawSettings(main, user) {
  const error = h("p.error", { role: "alert", id: "password-error" });
  const current = h("input", { id: "current-password", type: "password", autocomplete: "current-password", maxlength: "128" });
  const next = h("input", { id: "new-password", type: "password", autocomplete: "new-password", maxlength: "128" });
  async function change(event) {
    event.preventDefault();
    error.textContent = "";
    try {
      await api("/account/password", { method: "POST", body: { current: current.value, new: next.value } });
      current.value = next.value = "";
      toast(t("account.passwordChanged"));
    } catch (e) { error.textContent = e.message; }
  }
  const delError = h("p.error", { role: "alert", id: "delete-error" });
  const delPassword = h("input", { id: "delete-password", type: "password", autocomplete: "current-password", maxlength: "128" });
  async function remove(event) {
    event.preventDefault();
    delError.textContent = "";
    if (!confirm(t("account.deleteConfirm"))) return;
    try {
      await api("/account/delete", { method: "POST", body: { password: delPassword.value } });
      await account(true);
      location.hash = "#/";
    } catch (e) { delError.textContent = e.message; }
  }
  main.append(
    h("h1", {}, t("account.title")),
    h("p", {}, t("account.signedInAs", { name: user.name }), " ",
      h("a", { href: `#/u/${encodeURIComponent(user.name)}` }, t("account.profile"))),
    h("div.grid2", {},
      h("form.panel", { id: "password", onsubmit: change },
        h("h2", {}, t("account.changePassword")),
        h("label.field", {}, h("span", {}, t("account.current")), current),
        h("label.field", {}, h("span", {}, t("account.new")), next),
        error,
        h("button.btn", { type: "submit" }, t("account.changePassword"))),
      h("form.panel", { id: "delete", onsubmit: remove },
        h("h2", {}, t("account.delete")),
        h("p.muted", {}, t("account.deleteHelp")),
        h("label.field", {}, h("span", {}, t("account.password")), delPassword),
        delError,
        h("button.btn.ghost", { type: "submit" }, t("account.delete")))),
    myBotsPanel(),
    notifyPanel(),
    blocksPanel(),
    h("p", {}, h("button.btn.ghost", { type: "button", id: "signout", onclick: signOut }, t("account.signOut"))));
}

/** Signed in, on a device that holds no token for table `code`: the account's seat there, if any
 * (the token is the same on every device of the account). */
export async function resumeSeat(code) {
  if (seats.get(code)) return;
  const state = await account();
  if (!state || !state.user) return;
  try {
    const mine = await api(`/tables/${encodeURIComponent(code)}/resume`, { method: "POST" });
    seats.set(mine.code, mine.seat, mine.token);
  } catch { /* no seat of ours here: watch */ }
}

// ---------------------------------------------------------------- play now (on the home page)

export function playNowPanel() {
  const mode = h("select", { id: "pn-mode" },
    h("option", { value: "casual" }, t("playNow.casual")), h("option", { value: "rated" }, t("playNow.rated")));
  const players = h("select", { id: "pn-players" },
    h("option", { value: "" }, t("playNow.any")),
    ...[2, 3, 4, 5, 6, 7, 8, 9, 10].map((n) => h("option", { value: String(n) }, String(n))));
  players.value = "4";
  // A newcomer plays at once as a guest: the name is filled in, and may be changed or left empty.
  const guest = t("place.guest", { n: 1000 + Math.floor(Math.random() * 9000) });
  const name = h("input", { id: "pn-name", maxlength: "24", autocomplete: "nickname", value: localStorage.getItem("sixnimmt.name") || guest });
  const nameField = h("label.field", { id: "pn-name-field" }, h("span", {}, t("place.nameOptional")), name);
  const error = h("p.error", { role: "alert", id: "pn-error" });
  const note = h("p.muted.range-note", { id: "pn-note" });
  account().then((state) => {
    nameField.hidden = !!(state && state.user);
    note.textContent = state && state.user ? t("playNow.as", { name: state.user.name }) : t("playNow.ratedNeedsAccount");
  });
  async function go(event) {
    event.preventDefault();
    error.textContent = "";
    try {
      if (!name.value.trim()) name.value = guest;
      localStorage.setItem("sixnimmt.name", name.value.trim());
      const made = await api("/play-now", { method: "POST", body: {
        mode: mode.value, players: players.value ? Number(players.value) : null, name: name.value,
      } });
      seats.set(made.code, made.seat, made.token);
      rememberFinding(made.code, made.bots_in);
      location.hash = `#/t/${made.code}`;
    } catch (e) { error.textContent = e.message; }
  }
  return h("form.panel.play-now", { id: "play-now", onsubmit: go },
    h("h2", {}, t("playNow.title")),
    h("div.row-fields", {},
      h("label.field", {}, h("span", {}, t("playNow.mode")), mode),
      h("label.field", {}, h("span", {}, t("lobby.players")), players)),
    nameField, note, error,
    h("button.btn.primary", { type: "submit", id: "play-now-btn" }, t("playNow.button")));
}

// ---------------------------------------------------------------- leaderboard

export async function showLeaderboard(main, variant = null, provisional = false, page = 0) {
  const config = await getConfig();
  const size = 25;
  const ask = (v, prov, offset = 0) =>
    api(`/leaderboard?variant=${encodeURIComponent(v)}&provisional=${prov}&limit=${size}&offset=${offset}`);
  let data = null;
  if (variant === null) { // the leaderboard's front door opens on a tab with players in it
    const order = ["standard", ...config.variants.filter((v) => v !== "standard")];
    variant = "standard";
    try {
      search: for (const v of order) {
        for (const prov of [false, true]) {
          const found = await ask(v, prov);
          if (v === "standard" && !prov) data = found; // (shown if no tab has anyone)
          if (found.rows.length) { data = found; variant = v; provisional = prov; break search; }
        }
      }
    } catch { data = null; }
  }
  if (!config.variants.includes(variant)) variant = "standard";
  const pick = h("select", { id: "lb-variant", "aria-label": t("lobby.variant") },
    config.variants.map((v) => h("option", { value: v }, t(`variant.${v}`))));
  pick.value = variant;
  pick.addEventListener("change", () => { location.hash = `#/leaderboard/${pick.value}`; });
  main.append(h("h1", {}, t("board.title")),
    h("p.muted", {}, t("board.help")),
    h("div.board-controls", {}, pick,
      h("a.btn.small" + (provisional ? ".ghost" : ""), { href: `#/leaderboard/${variant}` }, t("board.settled")),
      h("a.btn.small" + (provisional ? "" : ".ghost"), { href: `#/leaderboard/${variant}/provisional`, id: "lb-provisional" }, t("board.provisional"))));
  try {
    data ??= await ask(variant, provisional, page * size);
  } catch (e) { main.append(h("p.error", {}, e.message)); return; }
  if (!data.rows.length) { main.append(h("p.muted", { id: "lb-empty" }, t(provisional ? "board.noneProvisional" : "board.none"))); return; }
  main.append(h("div", { style: "overflow-x:auto" }, h("table.games.board", { id: "leaderboard" },
    h("thead", {}, h("tr", {}, ["board.rank", "board.player", "board.rating", "board.games"].map((k) => h("th", {}, t(k))))),
    h("tbody", {}, data.rows.map((row) => h("tr", { dataset: { name: row.name } },
      h("td", {}, String(row.rank)),
      h("td", {}, h("a", { href: `#/u/${encodeURIComponent(row.name)}` }, shownName(row)), " ",
        row.bot ? botBadge(row.bot) : h("span.badge" + (row.kind === "bot" ? ".bot" : ""), {}, t(row.kind === "bot" ? "board.bot" : "board.person"))),
      h("td.rating", {}, ratingText(row)),
      h("td", {}, String(row.games))))))));
  const base = `#/leaderboard/${variant}${provisional ? "/provisional" : ""}`;
  const pages = Math.ceil(data.total / size);
  if (pages > 1) {
    main.append(h("p.pager", {},
      page > 0 ? h("a.btn.small", { href: `${base}?page=${page}` }, t("board.previous")) : null, " ",
      t("board.page", { n: page + 1, of: pages }), " ",
      page + 1 < pages ? h("a.btn.small", { href: `${base}?page=${page + 2}` }, t("board.next")) : null));
  }
}

/** An account's name as the tables show it: the server's bot of a level (account "bot-easy") is a
 * bot with that level's badge there, as here; a person or a bot program by their own name. */
function shownName(user) {
  return user.bot ? h("span", { title: t("place.serverBotTitle") }, t("place.serverBot")) : user.name;
}

// ---------------------------------------------------------------- profile

function chart(points) {
  // the rating after each rated game, as an SVG line (no library)
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  const width = 320, height = 120, pad = 8;
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  svg.setAttribute("class", "rating-chart");
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", t("profile.chart"));
  const values = [points[0].before, ...points.map((p) => p.rating)];
  const low = Math.min(...values), high = Math.max(...values);
  const x = (i) => pad + (i * (width - 2 * pad)) / Math.max(1, values.length - 1);
  const y = (v) => height - pad - ((v - low) * (height - 2 * pad)) / Math.max(1, high - low);
  const line = document.createElementNS(ns, "polyline");
  line.setAttribute("points", values.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(" "));
  line.setAttribute("fill", "none");
  line.setAttribute("stroke", "#1d3b2f");
  line.setAttribute("stroke-width", "2");
  svg.append(line);
  for (const [i, v] of values.entries()) {
    const dot = document.createElementNS(ns, "circle");
    dot.setAttribute("cx", x(i).toFixed(1)); dot.setAttribute("cy", y(v).toFixed(1)); dot.setAttribute("r", "2.5");
    svg.append(dot);
  }
  return svg;
}

export async function showProfile(main, name) {
  let data;
  try { data = await api(`/users/${encodeURIComponent(name)}?limit=50`); } catch (e) {
    main.append(h("h1", {}, name), h("p.error", {}, e.message)); return;
  }
  const user = data.user;
  main.append(h("h1", { id: "profile-name" }, shownName(user), " ",
    user.bot ? botBadge(user.bot) : h("span.badge" + (user.kind === "bot" ? ".bot" : ""), {}, t(user.kind === "bot" ? "board.bot" : "board.person"))));
  if (user.kind !== "bot") main.append(h("p.muted", { id: "profile-joined" }, t("profile.joined", { date: when(user.joined) })));
  const viewer = await account();
  if (user.kind !== "bot" && viewer && viewer.user && viewer.user.id !== user.id) main.append(challengeButton(user.name));
  if (viewer?.user && viewer.user.name !== user.name) main.append(profileTools(user.name));
  if (user.owner !== undefined) {  // a bot program online (docs/bot-api.md): whose it is, and what it says of itself
    main.append(h("p.muted", { id: "profile-owner" }, user.owner ? t("bots.ownedBy", { owner: user.owner }) : t("bots.program")),
      user.description ? h("p", { id: "profile-description" }, user.description) : null);
  }
  const variants = Object.keys(data.ratings);
  if (!variants.length) main.append(h("p.muted", {}, t("profile.unrated")));
  for (const variant of variants) {
    const r = data.ratings[variant];
    const points = data.history[variant] || [];
    main.append(h("section.panel.profile-rating", { dataset: { variant } },
      h("h2", {}, t(`variant.${variant}`), ": ", h("span.rating", { dataset: { rating: r.rating } }, ratingText(r))),
      h("p.muted", {}, tn("profile.games", r.games), r.provisional ? ` · ${t("profile.provisional")}` : ""),
      points.length ? chart(points) : null));
  }
  const rows = data.games.map((g) => h("tr", { dataset: { game: g.id } },
    h("td", {}, when(g.finished_at, true)),
    h("td", {}, t(`variant.${g.variant}`), g.rated ? h("span.badge", {}, t("profile.ratedGame")) : null),
    h("td", {}, g.rank === null ? "" : `#${g.rank}`),
    h("td", {}, g.delta === null ? "" : `${g.delta >= 0 ? "+" : ""}${g.delta} → ${g.rating}`),
    h("td", {}, h("a.btn.small", { href: `#/history/${g.id}` }, t("profile.replay")), " ",
      h("button.btn.small.ghost", { type: "button", onclick: (event) => review(event.target, g) }, t("profile.review")))));
  main.append(h("h2", {}, t("profile.played", { n: data.games_total })),
    rows.length ? h("div", { style: "overflow-x:auto" }, h("table.games", { id: "profile-games" },
      h("thead", {}, h("tr", {}, ["history.when", "history.variant", "profile.place", "profile.change"].map((k) => h("th", {}, t(k))), h("th"))),
      h("tbody", {}, rows))) : h("p.muted", {}, t("profile.noGames")));
}

async function review(button, game) {
  button.disabled = true;
  try {
    const status = await api(`/games/${game.id}/review`, { method: "POST", body: { seat: game.seat } });
    button.replaceWith(h("a.btn.small.ghost", { href: `/api/games/${game.id}/review?seat=${game.seat}`, target: "_blank", rel: "noopener" },
      t(status.status === "done" ? "profile.reviewReady" : "profile.reviewQueued")));
  } catch (e) { toast(e.message, true); button.disabled = false; }
}
