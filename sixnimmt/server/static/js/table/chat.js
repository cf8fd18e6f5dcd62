// Table chat: short messages and quick reactions, shown in the game log (as text, never HTML).
// Spectators read, and write only when the host allows it. Muting is kept in this browser.
import { getConfig, h, prefs, t, toast } from "../util.js";

export const chatMuted = () => prefs.get("chatMuted") === "1";

/** The chat's form and mute toggle for the table state `s`; returns {node, mute, draw, receive, sync}. */
export function createChat(s) {
  const text = h("input", { id: "chat-text", maxlength: "200", autocomplete: "off", "aria-label": t("chat.label"), placeholder: t("chat.placeholder") });
  const send = h("button.btn.small", { type: "submit", id: "chat-send" }, t("chat.send"));
  const reactions = h("span.reactions", { role: "group", "aria-label": t("chat.reactions") });
  const form = h("form.chat", { id: "chat", onsubmit: (ev) => {
    ev.preventDefault();
    const line = text.value.trim();
    if (!line) return;
    s.send({ type: "chat", text: line });
    text.value = "";
  } }, text, send, reactions);
  const mute = h("button.btn.small", { type: "button", id: "mute", onclick: () => {
    prefs.set("chatMuted", chatMuted() ? "0" : "1");
    draw();
    s.redraw();
  } });
  getConfig().then((config) => {
    if (config.chat_max_chars) text.maxLength = config.chat_max_chars;
    reactions.replaceChildren(...(config.reactions || []).map((emoji) => h("button.btn.small.react", {
      type: "button", dataset: { emoji }, "aria-label": t("chat.react", { emoji }), onclick: () => s.send({ type: "react", emoji }),
    }, emoji)));
    form.hidden = !config.reactions; // a server without chat
    mute.hidden = !config.reactions;
    draw();
  });

  /** Spectators may write only when the host allows it. */
  function draw() {
    const muted = chatMuted();
    mute.textContent = t(muted ? "chat.unmute" : "chat.mute");
    mute.setAttribute("aria-pressed", muted ? "true" : "false");
    const table = s.current?.table;
    const closed = !table || table.chat_off || (table.you == null && !table.spectator_chat);
    for (const node of [text, send, ...reactions.children]) node.disabled = closed;
    text.placeholder = t(closed ? "chat.readOnly" : "chat.placeholder");
  }

  /** A line that has not been shown yet goes into the log (and a toast, unless muted). */
  function add(line, announce) {
    if (line.id != null && line.id <= s.log.chatSeen) return;
    if (line.id != null) s.log.chatSeen = line.id;
    s.log.add({ k: "chat", id: line.id, seat: line.seat, name: line.name, text: line.text, emoji: line.emoji, spectator: line.spectator });
    const mine = line.seat != null && line.seat === s.current?.table.you;
    if (announce && !mine && !chatMuted()) toast(`${line.name ?? t("chat.spectator")}: ${line.text ?? line.emoji}`);
  }

  return {
    node: form,
    mute,
    draw,
    receive: (message) => add(message, true),
    /** The table's last lines (on connect, and after a gap). */
    sync(table) { for (const line of [...(table.chat || [])].sort((a, b) => a.id - b.id)) add(line, false); },
  };
}
