// Moderation in the browser (docs/web.md, "Moderation"): report and block a player from the table or
// their profile, the host's hold on the table's chat and its spectators, the blocked players in the
// account settings, and the admin page of the moderators (#/admin).
import { api, h, t, toast } from "./util.js";
import { closeDialog, dialogKind, openDialog } from "./table/dialogs.js";

/** Why a player is reported (as the server's REASONS). */
export const REASONS = ["abuse", "cheating", "name", "spam", "throwing", "other"];

const title = (kind, text) => h("h2", { id: `dialog-${kind}-title` }, text);
const closeButton = (s) => h("button.btn", { type: "button", onclick: () => closeDialog(s) }, t("dialog.close"));

/** The table's "Players" tool (report, block; the host's chat and spectators): {button, receive}. */
export function createModeration(s) {
  s.blocked = new Set(); // the seats this player blocks here
  const button = h("button.btn.small", { type: "button", id: "players-btn", onclick: () => showPlayers(s) }, t("mod.players"));
  return {
    button,
    /** The server's answer to a block: `{type: "blocked", seat, block}`. */
    receive(message) {
      if (message.block) {
        s.blocked.add(message.seat);
        // what they said before goes too (the server's states no longer carry it)
        s.log.entries = s.log.entries.filter((e) => !(e.k === "chat" && e.seat === message.seat));
        s.log.save();
        s.log.onChange?.();
      } else s.blocked.delete(message.seat);
      const name = s.current?.table.seats[message.seat]?.name ?? "";
      toast(t(message.block ? "mod.blocked" : "mod.unblocked", { name }));
      if (dialogKind(s) === "players") showPlayers(s);
    },
  };
}

function showPlayers(s) {
  const table = s.current?.table;
  if (!table) return;
  const rows = table.seats.map((seat, i) => (i === table.you || seat.kind !== "human" ? null : h("li.mod-player", { dataset: { seat: i } },
    h("span.mod-name", {}, seat.name),
    h("button.btn.small.ghost", { type: "button", dataset: { action: "report" }, onclick: () => showReport(s, seat.name, reportedAt(s, i)) }, t("mod.report")),
    table.you == null ? null : h("button.btn.small.ghost", { type: "button", dataset: { action: "block" },
      onclick: () => s.send({ type: "block", seat: i, block: !s.blocked.has(i) }) }, t(s.blocked.has(i) ? "mod.unblock" : "mod.block")))))
    .filter(Boolean);
  openDialog(s, "players", title("players", t("mod.title")), h("p.muted", {}, t("mod.help")),
    rows.length ? h("ul.mod-list", { id: "players-list" }, rows) : h("p.muted", {}, t("mod.none")),
    table.you === 0 ? hostTools(s, table) : null,
    h("div.actions", {}, closeButton(s)));
}

/** Where a report of seat `i` comes from: this table, its finished game if there is one, and the
 * seat's last chat line (the moderators see the chat around it). */
function reportedAt(s, i) {
  const table = s.current.table;
  const lines = s.log.entries.filter((e) => e.k === "chat" && e.seat === i && e.id != null);
  const finished = table.status === "finished" && table.last_game_id;
  return { table: s.code, seat: i, place: lines.length ? "chat" : finished ? "game" : "table",
    ...(lines.length ? { line: lines[lines.length - 1].id } : {}), ...(finished ? { game: table.last_game_id } : {}) };
}

/** The host's part: the chat on or off for the table, and the spectators who wrote, to remove. */
function hostTools(s, table) {
  const on = h("input", { type: "checkbox", id: "table-chat", checked: table.chat_off ? null : true,
    onchange: () => s.send({ type: "table-chat", allow: on.checked }) });
  const numbers = [...new Set(s.log.entries.filter((e) => e.k === "chat" && e.spectator != null).map((e) => e.spectator))];
  const watchers = numbers.map((n) => h("li.mod-player", { dataset: { spectator: n } }, h("span.mod-name", {}, t("mod.spectator", { n })),
    h("button.btn.small.ghost", { type: "button", onclick: () => { s.send({ type: "remove-spectator", spectator: n }); closeDialog(s); } }, t("mod.remove"))));
  return h("div.mod-host", {}, h("label.check", {}, on, " ", t("mod.chatOn")),
    watchers.length ? h("ul.mod-list", { id: "spectators-list" }, watchers) : null);
}

/** The report form for `name`; `where` says where from (a table and seat, or an account's name). */
export function showReport(s, name, where) {
  const reason = h("select", { id: "report-reason" }, REASONS.map((r) => h("option", { value: r }, t(`mod.reason-${r}`))));
  const note = h("textarea", { id: "report-note", maxlength: "500", rows: "3" });
  const error = h("p.error", { role: "alert", id: "report-error" });
  async function send(event) {
    event.preventDefault();
    error.textContent = "";
    try {
      await api("/reports", { method: "POST", body: { reason: reason.value, note: note.value, place: "profile", ...where } });
      closeDialog(s);
      toast(t("mod.sent"));
    } catch (e) { error.textContent = e.message; }
  }
  openDialog(s, "report", title("report", t("mod.reportTitle", { name })), h("form", { id: "report-form", onsubmit: send },
    h("label.field", {}, h("span", {}, t("mod.reason")), reason),
    h("label.field", {}, h("span", {}, t("mod.note")), note),
    error,
    h("div.actions", {}, h("button.btn.primary", { type: "submit", id: "report-send" }, t("mod.send")), closeButton(s))));
}

/** A profile's Report and Block buttons (for a signed-in visitor who is not its owner). */
export function profileTools(name) {
  const s = {}; // (a dialog's holder away from a table)
  return h("p.mod-tools", { id: "profile-moderation" },
    h("button.btn.small.ghost", { type: "button", id: "report-profile", onclick: () => showReport(s, name, { name }) }, t("mod.report")), " ",
    h("button.btn.small.ghost", { type: "button", id: "block-profile", onclick: async () => {
      try { await api("/account/blocks", { method: "POST", body: { name } }); toast(t("mod.blocked", { name })); } catch (e) { toast(e.message, true); }
    } }, t("mod.block")));
}

/** The account settings' blocked players (listed, undone one by one, or one more by name) and the
 * account's reports (each open one may be withdrawn). */
export function blocksPanel() {
  const list = h("ul.mod-list", { id: "blocks-list" });
  const name = h("input", { id: "block-name", maxlength: "20", autocomplete: "off", autocapitalize: "none" });
  const error = h("p.error", { role: "alert", id: "block-error" });
  const admin = h("p", {});
  const reports = h("ul.mod-list", { id: "reports-list" });
  async function draw() {
    let blocked = [];
    try { blocked = await api("/account/blocks"); } catch (e) { error.textContent = e.message; }
    list.replaceChildren(...(blocked.length ? blocked.map((b) => h("li.mod-player", { dataset: { name: b.name } }, h("span.mod-name", {}, b.name),
      h("button.btn.small.ghost", { type: "button", onclick: () => unblock(b.name) }, t("mod.unblock"))))
      : [h("li.muted", {}, t("mod.blocksNone"))]));
  }
  async function drawReports() {
    let made = [];
    try { made = await api("/account/reports"); } catch (e) { error.textContent = e.message; }
    reports.replaceChildren(...(made.length ? made.map((r) => h("li.mod-player", { dataset: { report: r.id } },
      h("span.mod-name", {}, `${r.target} · ${t(`mod.reason-${r.reason}`)}`),
      r.open ? h("button.btn.small.ghost", { type: "button", onclick: () => withdraw(r.id) }, t("mod.withdraw"))
        : h("span.muted", {}, t("mod.closed"))))
      : [h("li.muted", {}, t("mod.reportsNone"))]));
  }
  async function withdraw(id) {
    try { await api(`/account/reports/${id}`, { method: "DELETE" }); } catch (e) { error.textContent = e.message; }
    drawReports();
  }
  async function unblock(who) {
    try { await api(`/account/blocks/${encodeURIComponent(who)}`, { method: "DELETE" }); } catch (e) { error.textContent = e.message; }
    draw();
  }
  async function add(event) {
    event.preventDefault();
    error.textContent = "";
    try { await api("/account/blocks", { method: "POST", body: { name: name.value } }); name.value = ""; } catch (e) { error.textContent = e.message; }
    draw();
  }
  draw();
  drawReports();
  api("/admin/me").then(() => admin.replaceChildren(h("a.btn.ghost", { href: "#/admin", id: "admin-link" }, t("mod.admin")))).catch(() => {});
  return h("section.panel", { id: "blocks" }, h("h2", {}, t("mod.blocksTitle")), h("p.muted", {}, t("mod.help")), list,
    h("form", { id: "block-form", onsubmit: add }, h("label.field", {}, h("span", {}, t("mod.blockName")), name), error,
      h("button.btn", { type: "submit" }, t("mod.block"))), h("h3", {}, t("mod.myReports")), reports, admin);
}

/** The admin page (moderators only): the open reports with their context, the actions, the log. */
export async function showAdmin(main) {
  try { await api("/admin/me"); } catch (e) { main.append(h("h1", {}, t("mod.admin")), h("p.error", {}, e.message)); return; }
  const reports = h("div", { id: "admin-reports" });
  const log = h("ol.mod-log", { id: "admin-log" });
  async function draw() {
    const open = await api("/admin/reports");
    reports.replaceChildren(...(open.length ? open.map(reportPanel) : [h("p.muted", {}, t("mod.noReports"))]));
    const entries = await api("/admin/log?limit=50");
    log.replaceChildren(...entries.map((e) => h("li", {}, `${e.at.slice(0, 16).replace("T", " ")} · ${e.actor} · ${e.action} · ${e.target} · ${e.reason}`)));
  }
  function reportPanel(r) {
    const context = h("div.mod-context");
    const reason = h("input", { maxlength: "500", "aria-label": t("mod.resolution") });
    const show = h("button.btn.small.ghost", { type: "button", onclick: async () => {
      const full = await api(`/admin/reports/${r.id}`);
      const lines = (full.context.chat || []).map((l) => h("li" + (l.id === full.context.line ? ".mod-pointed" : ""), {},
        `${l.name ?? t("mod.spectator", { n: l.spectator ?? "" })}: ${l.text ?? l.emoji ?? ""}`));
      const game = full.context.game ? h("a", { href: `#/history/${full.context.game.id}` }, t("mod.game", { id: full.context.game.id })) : null;
      context.replaceChildren(h("ol.mod-chat", {}, lines), game);
    } }, t("mod.context"));
    const resolve = h("button.btn.small", { type: "button", onclick: async () => {
      try { await api(`/admin/reports/${r.id}/resolve`, { method: "POST", body: { reason: reason.value } }); draw(); } catch (e) { toast(e.message, true); }
    } }, t("mod.resolve"));
    const meta = [r.at.slice(0, 16).replace("T", " "), r.reporter || r.address, r.table].filter(Boolean).join(" · ");
    return h("section.panel.mod-report", { dataset: { report: r.id } },
      h("h3", {}, `#${r.id} · ${r.target} · ${t(`mod.reason-${r.reason}`)}`),
      h("p.muted", {}, meta),
      r.note ? h("p", {}, r.note) : null, show, context, h("div.actions", {}, reason, resolve));
  }
  main.append(h("h1", {}, t("mod.admin")), h("h2", {}, t("mod.reports")), reports, actionsPanel(draw), h("h2", {}, t("mod.log")), log);
  draw();
}

/** One form for the moderators' actions on an account, an address or a game. */
function actionsPanel(done) {
  const actions = { ban: "/admin/ban", unban: "/admin/unban", rename: "/admin/rename", "close-bot": "/admin/close-bot", void: "/admin/void" };
  const action = h("select", { id: "admin-action" }, Object.keys(actions).map((a) => h("option", { value: a }, t(`mod.action.${a}`))));
  const target = h("input", { id: "admin-target", maxlength: "64" });
  const extra = h("input", { id: "admin-extra", maxlength: "64" });
  const reason = h("input", { id: "admin-reason", maxlength: "500" });
  const error = h("p.error", { role: "alert" });
  async function send(event) {
    event.preventDefault();
    error.textContent = "";
    const who = target.value.trim();
    const address = /^[\d.:a-fA-F]+$/.test(who) && /[.:]/.test(who);
    const body = { reason: reason.value };
    if (action.value === "void") body.game = Number(who);
    else if (action.value === "ban" || action.value === "unban") Object.assign(body, address ? { address: who } : { name: who });
    else body.name = who;
    if (action.value === "ban" && extra.value.trim()) body.length = extra.value.trim();
    if (action.value === "rename") body.new_name = extra.value.trim();
    try { await api(actions[action.value], { method: "POST", body }); toast(t("mod.done")); done(); } catch (e) { error.textContent = e.message; }
  }
  return h("form.panel", { id: "admin-actions", onsubmit: send }, h("h2", {}, t("mod.actions")),
    h("label.field", {}, h("span", {}, t("mod.action")), action),
    h("label.field", {}, h("span", {}, t("mod.target")), target),
    h("label.field", {}, h("span", {}, t("mod.extra")), extra),
    h("label.field", {}, h("span", {}, t("mod.why")), reason), error,
    h("button.btn.primary", { type: "submit" }, t("mod.apply")));
}
