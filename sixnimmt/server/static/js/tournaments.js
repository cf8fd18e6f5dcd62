// Tournaments (docs/web.md, "Tournaments"): the list (upcoming, running, finished) with the form
// that creates one, and a tournament's page: entering, the table of the round under way, the live
// standings (asked again every few seconds while it runs), each round's tables with their game,
// replay and review, and the podium. Every name is put in the page as text (h() never parses HTML).
import { api, botBadge, getConfig, h, t, timeLeftText, tn } from "./util.js";

const REFRESH_MS = 4000;
const LEVELS = ["easy", "medium", "hard", "expert"];

function summary(item) {
  return (item.rated ? `${t("tourney.rated")} · ` : "") + t(item.format === "arena" ? "tourney.summaryArena" : "tourney.summary", {
    minutes: item.minutes,
    format: t(`tourney.format.${item.format}`), variant: t(`variant.${item.variant}`),
    players: item.players, rounds: tn("tourney.nRounds", item.rounds), entrants: tn("tourney.nEntrants", item.entrants),
  });
}

function statusText(item) {
  if (item.status === "upcoming") return t("tourney.status.upcoming", { when: timeLeftText(item.starts_at - Date.now() / 1000) });
  if (item.status === "running" && item.format === "arena") {
    return t("tourney.status.arena", { when: timeLeftText(item.starts_at + 60 * item.minutes - Date.now() / 1000) });
  }
  if (item.status === "running") return t("tourney.status.running", { round: item.round, rounds: item.rounds });
  return t("tourney.status.finished");
}

function listSection(status, items) {
  return h("section.panel.tourney-list", { "aria-labelledby": `tl-${status}` },
    h("h2", { id: `tl-${status}` }, t(`tourney.${status}`)),
    items.length ? h("ul", {}, items.map((item) => h("li", { dataset: { tournament: String(item.id) } },
      h("a", { href: `#/tournaments/${item.id}` }, h("strong", {}, item.name)), " ",
      h("span.muted", {}, summary(item)), " ", h("span.badge", {}, statusText(item)))))
      : h("p.muted", {}, t("tourney.none")));
}

function createForm(error) {
  const field = (label, input) => h("label.field", {}, h("span", {}, label), input);
  const name = h("input", { id: "tourney-name", maxlength: "24", required: true });
  const format = h("select", { id: "tourney-format" },
    ["swiss", "duplicate", "arena"].map((f) => h("option", { value: f }, t(`tourney.format.${f}`))));
  const variant = h("select", { id: "tourney-variant" });
  const players = h("input", { id: "tourney-players", type: "number", min: "2", max: "10", value: "4" });
  const rounds = h("input", { id: "tourney-rounds", type: "number", min: "1", max: "12", value: "3" });
  const deals = h("input", { id: "tourney-deals", type: "number", min: "1", max: "20", placeholder: t("tourney.dealsAll") });
  const length = h("input", { id: "tourney-minutes", type: "number", min: "1", max: "720", value: "30" });
  const rated = h("input", { id: "tourney-rated", type: "checkbox" });
  const minutes = h("input", { id: "tourney-starts", type: "number", min: "0", max: "10080", value: "5" });
  const bots = LEVELS.map((level) => h("input", { type: "number", min: "0", max: "40", value: "0", dataset: { level },
    "aria-label": t("tourney.botsOf", { level: t(`level.${level}`) }) }));
  getConfig().then((config) => variant.replaceChildren(...(config.variants || [])
    .map((v) => h("option", { value: v }, t(`variant.${v}`))))).catch(() => {});
  async function create(event) {
    event.preventDefault();
    error.textContent = "";
    const levels = bots.flatMap((input) => Array(Math.max(0, Number(input.value) || 0)).fill(input.dataset.level));
    try {
      const made = await api("/tournaments", { method: "POST", body: {
        name: name.value, format: format.value, ...(variant.value ? { variant: variant.value } : {}), players: Number(players.value),
        rounds: Number(rounds.value), starts_in: Number(minutes.value) * 60, bots: levels,
        minutes: Number(length.value), rated: rated.checked, ...(deals.value ? { deals: Number(deals.value) } : {}) } });
      location.hash = `#/tournaments/${made.id}`;
    } catch (e) { error.textContent = e.message; }
  }
  return h("form.panel", { id: "new-tournament", onsubmit: create, "aria-labelledby": "tourney-create" },
    h("h2", { id: "tourney-create" }, t("tourney.create")),
    field(t("tourney.name"), name), field(t("tourney.formatLabel"), format), field(t("lobby.variant"), variant),
    field(t("tourney.players"), players), field(t("tourney.rounds"), rounds), field(t("tourney.deals"), deals),
    field(t("tourney.minutes"), length), field(t("tourney.startsIn"), minutes),
    h("label.check", {}, rated, " ", t("tourney.rated")),
    h("fieldset.tourney-bots", {}, h("legend", {}, t("tourney.bots")),
      bots.map((input) => h("label.field", {}, h("span", {}, t(`level.${input.dataset.level}`)), input))),
    error, h("button.btn.primary", { type: "submit" }, t("tourney.createBtn")));
}

/** The list of tournaments and the form that creates one. */
export async function showTournaments(view) {
  const error = h("p.error", { role: "alert", id: "tourney-error" });
  view.append(h("h1", {}, t("tourney.title")), h("p.muted", {}, t("tourney.intro")));
  const lists = h("div.tourney-lists");
  view.append(lists, createForm(error));
  try {
    const listed = await api("/tournaments");
    lists.replaceChildren(...["running", "upcoming", "finished"].map((s) => listSection(s, listed[s] || [])));
  } catch (e) { error.textContent = e.message; }
}

function standingsTable(page) {
  const tiebreak = t(`tourney.tiebreak.${page.format}`);
  return h("table.tourney-standings", { id: "standings" },
    h("caption", {}, t("tourney.standings")),
    h("thead", {}, h("tr", {}, [t("tourney.place"), t("tourney.player"), t("tourney.points"), tiebreak,
      t("tourney.bullheads"), t("tourney.games")].map((c) => h("th", { scope: "col" }, c)))),
    h("tbody", {}, page.standings.map((s) => h("tr", { dataset: { name: s.name } },
      h("td", {}, String(s.place)), h("th", { scope: "row" }, s.name),
      h("td", {}, points(s.points)), h("td", {}, points(s.tiebreak)),
      h("td", {}, String(s.bullheads)), h("td", {}, String(s.games))))));
}

const points = (x) => (Math.round(x * 100) / 100).toString();

function roundTables(page, played) {
  return h("section.tourney-round", { "aria-label": t("tourney.round", { n: played.round }) },
    h("h3", {}, t("tourney.round", { n: played.round })),
    h("ol.tourney-tables", {}, played.tables.map((table, k) => {
      const mine = table.players.indexOf(page.you);
      const query = `?table=${table.code}`;
      return h("li.panel", { dataset: table.code ? { code: table.code } : {} },
        h("h4", {}, t("tourney.table", { n: k + 1 })),
        h("ul.tourney-seats", {}, table.players.map((name, seat) => h("li", {},
          name ?? t("tourney.fill"), name ? null : botBadge("bot"),
          table.totals ? h("span.muted", {}, ` ${table.totals[seat]} · ${points(table.points[seat])}`) : null))),
        h("p.tourney-links", {},
          table.totals || !table.code ? null : h("a.btn", { href: `#/t/${table.code}` }, t("tourney.watch")), " ",
          table.game_id ? h("a.btn.ghost", { href: `#/history/${table.game_id}${query}` }, t("tourney.replay")) : null, " ",
          table.game_id && mine >= 0 ? h("a.btn.ghost", { href: `#/review/${table.game_id}${query}&seat=${mine}` }, t("tourney.review")) : null));
    })));
}

function drawPage(box, page, redraw, error) {
  const act = async (path) => {
    error.textContent = "";
    try { await api(`/tournaments/${page.id}/${path}`, { method: "POST" }); await redraw(); }
    catch (e) { error.textContent = e.message; }
  };
  const entering = page.status === "upcoming" ? h("p", {},
    page.entered ? [h("span", {}, t("tourney.entered")), " ", h("button.btn.ghost", { type: "button", id: "tourney-leave", onclick: () => act("leave") }, t("tourney.leave"))]
      : h("button.btn.primary", { type: "button", id: "tourney-join", onclick: () => act("join") }, t("tourney.join"))) : null;
  // an arena entrant takes a pause (not seated at new tables) and resumes
  const pausing = page.format === "arena" && page.entered && page.status !== "finished" ? h("p.tourney-pause", {},
    page.paused ? [h("span", { id: "tourney-paused" }, t("tourney.paused")), " ",
      h("button.btn.primary", { type: "button", id: "tourney-resume", onclick: () => act("resume") }, t("tourney.resume"))]
      : h("button.btn.ghost", { type: "button", id: "tourney-pause", onclick: () => act("pause") }, t("tourney.pause"))) : null;
  const yours = page.your_table ? h("p.tourney-yours", {},
    h("a.btn.primary", { href: `#/t/${page.your_table}`, id: "tourney-your-table" }, t("tourney.goPlay", { code: page.your_table }))) : null;
  const podium = page.podium.length ? h("ol.tourney-podium", { id: "podium", "aria-label": t("tourney.podium") },
    page.podium.map((name, k) => h("li", { dataset: { place: String(k + 1) } }, h("span.medal", {}, t("tourney.placeN", { n: k + 1 })), " ", name))) : null;
  box.replaceChildren(...[
    h("h1", {}, page.name),
    h("p.muted", {}, summary({ ...page, entrants: page.entrants.length }), " ", h("span.badge", { id: "tourney-status" }, statusText(page))),
    error, entering, pausing, yours, podium,
    page.standings.length ? standingsTable(page) : null,
    ...[...page.rounds_played].reverse().map((played) => roundTables(page, played)),
    h("section.panel", { "aria-labelledby": "tourney-entrants" },
      h("h2", { id: "tourney-entrants" }, t("tourney.entrants", { n: page.entrants.length })),
      h("ul.tourney-entrant-list", {}, page.entrants.map((e) => h("li", {}, e.name, " ",
        e.kind === "person" ? null : botBadge(e.kind === "program" ? "program" : e.bot)))))].filter(Boolean));
}

/** A tournament's page, drawn again every few seconds until it is over. */
export async function showTournament(view, id) {
  const box = h("div.tourney-page");
  const error = h("p.error", { role: "alert", id: "tourney-error" });
  view.append(box);
  let timer = null;
  let gone = false;
  async function redraw() {
    try {
      const page = await api(`/tournaments/${id}`);
      if (gone) return;
      drawPage(box, page, redraw, error);
      clearTimeout(timer);
      if (page.status !== "finished") timer = setTimeout(redraw, REFRESH_MS);
    } catch (e) { if (!gone) { error.textContent = e.message; box.replaceChildren(error); } }
  }
  await redraw();
  return () => { gone = true; clearTimeout(timer); };
}
