// Bots' challenges to the signed-in person (docs/bot-api.md, "Challenging a person"): while the
// site is open, it asks every few seconds (which is what tells the server the person is here to be
// challenged) and shows each challenge as a notice under the top bar, to accept or to decline with
// a reason. Accepting opens the table through the challenge's invitation, as a friend's link does.
import { account } from "./account.js";
import { api, h, t } from "./util.js";

const EVERY_MS = 5000;
const REASONS = ["later", "variant", "players", "generic"];

let box = null;

function notice(challenge) {
  const rules = challenge.rules || {};
  const reason = h("select", { "aria-label": t("botChallenge.reasonLabel") },
    ...REASONS.map((r) => h("option", { value: r }, t(`botChallenge.reason.${r}`))));
  const accept = h("button.primary", { type: "button" }, t("botChallenge.accept"));
  const decline = h("button", { type: "button" }, t("botChallenge.decline"));
  const node = h("div.notice.bot-challenge", { role: "status", "data-challenge": challenge.id },
    h("span", {}, t("botChallenge.notice", {
      from: challenge.from, variant: t(`variant.${rules.variant}`), players: rules.players,
      mode: t(challenge.rated ? "botChallenge.rated" : "botChallenge.casual"),
    })),
    h("span", {}, accept, " ", reason, " ", decline));
  accept.addEventListener("click", async () => {
    node.remove();
    const seat = await api(`/challenges/${challenge.id}/accept`, { method: "POST" }).catch(() => null);
    if (seat) location.hash = `#/t/${seat.game}?invite=${encodeURIComponent(seat.invite)}&name=${encodeURIComponent(seat.name)}`;
  });
  decline.addEventListener("click", async () => {
    node.remove();
    await api(`/challenges/${challenge.id}/decline`, { method: "POST", body: { reason: reason.value } }).catch(() => null);
  });
  return node;
}

async function poll() {
  const me = await account();
  let waiting = [];
  if (me && me.user && me.user.kind !== "bot" && document.visibilityState !== "hidden") {
    waiting = await api("/challenges").catch(() => []);
  }
  const shown = new Set([...box.children].map((n) => n.dataset.challenge));
  const wanted = new Set(waiting.map((c) => c.id));
  for (const node of [...box.children]) if (!wanted.has(node.dataset.challenge)) node.remove();
  for (const challenge of waiting) if (!shown.has(challenge.id)) box.append(notice(challenge));
}

/** Start asking for challenges (once, at the app's start). */
export function watchChallenges() {
  box = h("div.bot-challenges", { id: "bot-challenges" });
  document.querySelector(".topbar").after(box);
  poll();
  setInterval(poll, EVERY_MS);
}
