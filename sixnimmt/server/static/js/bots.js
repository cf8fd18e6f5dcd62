// "My bots" on the account page (docs/bot-api.md): the signed-in person's bot accounts, a token
// shown once when made, revoking one; and the bots online, for the seats of a new table. Every name
// and description is put in the page as text (h() never parses HTML).
import { api, h, t } from "./util.js";

/** The bot programs online now, [{name, owner, ...}] (none if the server cannot say). */
export async function botsOnline() {
  try { return await api("/bots/online"); } catch { return []; }
}

function tokenList(bot, error) {
  const list = h("ul.token-list", { dataset: { bot: bot.name } });
  async function draw() {
    const tokens = await api(`/bots/${encodeURIComponent(bot.name)}/tokens`);
    list.replaceChildren(...tokens.map((token) => h("li", {},
      h("strong", {}, token.label), " ",
      h("span.muted", {}, token.last_used ? t("bots.lastUsed", { when: new Date(token.last_used).toLocaleString() }) : t("bots.neverUsed")), " ",
      h("button.btn.ghost", { type: "button", onclick: async () => {
        if (!confirm(t("bots.revokeConfirm", { label: token.label }))) return;
        try { await api(`/bots/${encodeURIComponent(bot.name)}/tokens/${token.id}`, { method: "DELETE" }); draw(); }
        catch (e) { error.textContent = e.message; }
      } }, t("bots.revoke")))));
  }
  draw().catch((e) => { error.textContent = e.message; });
  return { list, draw };
}

function botItem(bot, redraw) {
  const error = h("p.error", { role: "alert" });
  const shown = h("p.token-once", { hidden: true });
  const label = h("input", { maxlength: "40", placeholder: t("bots.label"), "aria-label": t("bots.label") });
  const tokens = tokenList(bot, error);
  async function newToken(event) {
    event.preventDefault();
    error.textContent = "";
    try {
      const made = await api(`/bots/${encodeURIComponent(bot.name)}/tokens`, { method: "POST", body: { label: label.value } });
      shown.replaceChildren(t("bots.tokenOnce"), " ", h("code", {}, made.token));
      shown.hidden = false;
      label.value = "";
      tokens.draw();
    } catch (e) { error.textContent = e.message; }
  }
  async function remove() {
    if (!confirm(t("bots.deleteConfirm", { name: bot.name }))) return;
    try { await api(`/bots/${encodeURIComponent(bot.name)}`, { method: "DELETE" }); redraw(); }
    catch (e) { error.textContent = e.message; }
  }
  return h("li.bot-item", {},
    h("a", { href: `#/u/${encodeURIComponent(bot.name)}` }, h("strong", {}, bot.name)), " ",
    h("span.badge.bot", {}, t("table.bot")), " ",
    bot.online ? h("span.badge", {}, t("bots.online")) : null,
    h("p.muted", {}, bot.description),
    tokens.list,
    h("form", { onsubmit: newToken }, label, " ", h("button.btn", { type: "submit" }, t("bots.newToken"))),
    shown, error,
    h("button.btn.ghost", { type: "button", onclick: remove }, t("bots.delete")));
}

/** The "My bots" panel of the account page. */
export function myBotsPanel() {
  const list = h("ul.bot-list", { id: "my-bots" });
  const error = h("p.error", { role: "alert", id: "bot-error" });
  const name = h("input", { id: "bot-name", maxlength: "20", required: true, autocapitalize: "none" });
  const description = h("input", { id: "bot-description", maxlength: "200" });
  async function draw() {
    const bots = await api("/bots");
    list.replaceChildren(...bots.map((bot) => botItem(bot, draw)));
  }
  async function create(event) {
    event.preventDefault();
    error.textContent = "";
    try {
      await api("/bots", { method: "POST", body: { name: name.value, description: description.value } });
      name.value = description.value = "";
      await draw();
    } catch (e) { error.textContent = e.message; }
  }
  draw().catch((e) => { error.textContent = e.message; });
  return h("section.panel", { id: "bots", "aria-labelledby": "bots-title" },
    h("h2", { id: "bots-title" }, t("bots.title")),
    h("p.muted", {}, t("place.botsHelp"), " ", h("a", { href: "#/docs/bot-api", id: "bot-api-link" }, t("place.botApiLink"))),
    list,
    h("form", { id: "new-bot", onsubmit: create },
      h("label.field", {}, h("span", {}, t("bots.name")), name),
      h("label.field", {}, h("span", {}, t("bots.description")), description),
      error,
      h("button.btn.primary", { type: "submit" }, t("bots.create"))));
}
