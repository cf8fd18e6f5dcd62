// The host's seats: an invitation link per seat for a named friend, and releasing a bot's or a
// vanished player's seat (at once before the game, else at the start of the next deal).
import { api, h, seats, t, toast } from "../util.js";
import { botsOnline } from "../bots.js";

/** The link a friend opens to take seat `seat` (`token` from the server's `invite` reply). */
export function inviteLink(code, token, name = "") {
  // the name the host typed for this friend travels with the link, to fill in the join form
  const named = name ? `&name=${encodeURIComponent(name)}` : "";
  return `${location.origin}${location.pathname}#/t/${code}?invite=${encodeURIComponent(token)}${named}`;
}

async function copy(text, input) {
  try { await navigator.clipboard.writeText(text); toast(t("table.copied")); } catch { input.select(); }
}

/** What a seat is now, in words: open, invited, a bot, away, leaving, or taken over next deal. */
function seatState(seat) {
  const parts = [];
  if (seat.kind === "open") parts.push(t("table.open"));
  if (seat.kind === "invited") parts.push(t("seats.invited", { name: seat.name }));
  if (seat.kind === "bot" || seat.program) parts.push(t("table.bot"));
  if (seat.kind === "human" && !seat.connected) parts.push(t(seat.left ? "place.left" : "table.away"));
  if (seat.leaving) parts.push(t("seats.leaving"));
  if (seat.joining) parts.push(t("seats.joining", { name: seat.joining }));
  return parts.join(" · ");
}

/** The list of seats with the host's controls (the waiting room and the Seats dialog). */
export function hostSeatList(s) {
  const table = s.current.table;
  const started = table.status !== "waiting";
  return h("ul.seat-list.host-seats", { id: "host-seats" }, table.seats.map((seat, i) => {
    const item = h("li", { dataset: { seat: i } },
      h("span", {}, t("lobby.seat", { n: i + 1 })),
      seat.kind === "open" ? null : h("strong", {}, seat.name),
      h("span.badge", {}, seatState(seat) || t("table.you")));
    if (i === table.you) return item;
    const free = seat.kind === "open" || seat.kind === "invited" || seat.kind === "bot" || (seat.kind === "human" && !seat.connected);
    if (free && !seat.joining) {
      const name = h("input", { maxlength: "24", "aria-label": t("seats.friendName", { n: i + 1 }), placeholder: t("seats.friendName", { n: i + 1 }), dataset: { inviteName: i } });
      item.append(h("form.invite", { onsubmit: (ev) => {
        ev.preventDefault();
        if (name.value.trim()) s.send({ type: "invite", seat: i, name: name.value.trim() });
      } }, name, h("button.btn.small", { type: "submit", dataset: { invite: i } }, t("seats.invite"))));
    }
    if (!started && seat.kind === "open") item.append(botSeatForm(s, i));
    const link = s.invites.get(i);
    if (link) {
      const input = h("input.invite-link", { value: link, readonly: true, "aria-label": t("seats.link", { n: i + 1 }), dataset: { inviteLink: i }, onfocus: (e) => e.target.select() });
      item.append(h("div.share", {}, input, h("button.btn.small", { type: "button", onclick: () => copy(link, input) }, t("table.copy"))));
    }
    const releasable = seat.kind === "bot" || seat.kind === "invited" || (seat.kind === "human" && !seat.connected);
    if (releasable && !seat.leaving) {
      item.append(h("button.btn.small.ghost", { type: "button", dataset: { release: i }, onclick: () => s.send({ type: "release", seat: i }) },
        t(started ? "seats.releaseNext" : "seats.release")));
    }
    return item;
  }));
}

/** Before the game, on an open seat: ask a bot program online to take it (docs/bot-api.md). */
function botSeatForm(s, i) {
  const pick = h("select", { "aria-label": t("seats.botOnline", { n: i + 1 }), dataset: { botSeat: i } },
    h("option", { value: "" }, t("seats.botOnline", { n: i + 1 })));
  botsOnline().then((bots) => pick.append(...bots.map((bot) =>
    h("option", { value: bot.name }, t("bots.choice", { name: bot.name, owner: bot.owner })))));
  async function ask(event) {
    event.preventDefault();
    if (!pick.value) return;
    try {
      await api(`/tables/${encodeURIComponent(s.code)}/invite-bot`, { method: "POST",
        body: { seat: i, bot: pick.value, token: seats.get(s.code)?.token || "" } });
      toast(t("seats.botAsked", { name: pick.value }));
    } catch (e) { toast(e.message); }
  }
  return h("form.invite-bot", { onsubmit: ask }, pick, h("button.btn.small", { type: "submit" }, t("seats.botAsk")));
}

/** Redraw with `draw()` without losing what the host is typing into an invitation's name field. */
export function keepTyping(draw) {
  const typed = new Map([...document.querySelectorAll("[data-invite-name]")].map((n) => [n.dataset.inviteName, n.value]));
  const focused = document.activeElement?.dataset?.inviteName;
  draw();
  for (const node of document.querySelectorAll("[data-invite-name]")) {
    if (typed.has(node.dataset.inviteName)) node.value = typed.get(node.dataset.inviteName);
  }
  if (focused != null) document.querySelector(`[data-invite-name="${focused}"]`)?.focus();
}

/** The host's answer from the server: the link to send for seat `seat`. */
export function receiveInvite(s, message) {
  s.invites.set(message.seat, inviteLink(s.code, message.token, message.name));
  s.redrawSeats();
}
