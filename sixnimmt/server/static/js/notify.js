// E-mail and push notifications (docs/web.md, "E-mail" and "Push"): the address at sign-up or in
// the account's settings, the pages the mailed links open (confirm, set a new password), "Forgot
// your password?", and the "notify me" switch, which subscribes this browser with the Push API
// through the service worker (sw.js shows what arrives). What the server does not offer (no mail
// server configured, a browser without push) is not shown at all.
import { api, h, seats, t, toast } from "./util.js";

let offered = null;

/** What the server offers: {email, push, push_key} (asked once). */
export async function notifyConfig() {
  if (!offered) {
    try { offered = await api("/notify/config"); } catch { offered = { email: false, push: false, push_key: null }; }
  }
  return offered;
}

const pushSupported = () => "serviceWorker" in navigator && "PushManager" in window && "Notification" in window;

// ---------------------------------------------------------------- sign-up and sign-in

/** The sign-up form's optional address field, and the sign-in form's "Forgot your password?",
 * where the server sends mail. */
export async function addMailFields(signup, signin) {
  if (!(await notifyConfig()).email) return;
  const email = h("input", { id: "signup-email", name: "email", type: "email", maxlength: "254", autocomplete: "email" });
  signup.querySelector(".field:last-of-type").after(
    h("label.field", {}, h("span", {}, t("notify.emailOptional")), email));
  signin.append(h("p", {}, h("a", { href: "#/mail/forgot", id: "forgot-link" }, t("notify.forgot"))));
}

/** After a sign-up: the address typed there, if any, gets its confirmation mail. */
export async function afterSignUp(form) {
  const address = form.querySelector("#signup-email")?.value.trim();
  if (!address) return;
  try {
    await api("/notify/email", { method: "POST", body: { address, lang: document.documentElement.lang } });
    toast(t("notify.confirmSent", { address }));
  } catch (e) { toast(e.message, true); }
}

// ---------------------------------------------------------------- account settings

/** The settings' "Notifications" panel: the address (confirmed or not), "your move" mails on or
 * off, and this browser's push switch. */
export function notifyPanel() {
  const panel = h("section.panel", { id: "notify" }, h("h2", {}, t("notify.title")));
  draw(panel);
  return panel;
}

async function draw(panel) {
  const config = await notifyConfig();
  let mine;
  try { mine = await api("/notify/settings"); } catch { return; }
  panel.replaceChildren(h("h2", {}, t("notify.title")));
  if (config.email) panel.append(emailForm(panel, mine));
  if (config.push && pushSupported()) panel.append(await pushSwitch(config.push_key, mine.push_endpoints));
  if (panel.children.length === 1) panel.hidden = true;
}

function emailForm(panel, mine) {
  const address = h("input", { id: "notify-email", type: "email", maxlength: "254", autocomplete: "email", value: mine.email || "" });
  const error = h("p.error", { role: "alert", id: "notify-email-error" });
  const state = mine.email ? t(mine.confirmed ? "notify.confirmed" : "notify.unconfirmed") : t("notify.noAddress");
  async function save(event) {
    event.preventDefault();
    error.textContent = "";
    try {
      await api("/notify/email", { method: "POST", body: { address: address.value, lang: document.documentElement.lang } });
      toast(t("notify.confirmSent", { address: address.value.trim() }));
      draw(panel);
    } catch (e) { error.textContent = e.message; }
  }
  const moves = h("input", { id: "notify-move-mails", type: "checkbox", checked: mine.move_mails && mine.confirmed,
    disabled: !mine.confirmed });
  moves.addEventListener("change", async () => {
    try { await api("/notify/move-mails", { method: "POST", body: { on: moves.checked } }); } catch (e) { toast(e.message, true); }
  });
  return h("form", { id: "notify-email-form", onsubmit: save },
    h("label.field", {}, h("span", {}, t("notify.email")), address),
    h("p.muted", { id: "notify-email-state" }, state),
    error,
    h("button.btn", { type: "submit" }, t("notify.saveEmail")),
    h("label.check", {}, moves, " ", t("notify.moveMails")));
}

async function pushSwitch(key, endpoints) {
  const registration = await navigator.serviceWorker.getRegistration();
  const current = registration ? await registration.pushManager.getSubscription() : null;
  const on = h("input", { id: "notify-push", type: "checkbox", checked: !!current && endpoints.includes(current.endpoint) });
  const error = h("p.error", { role: "alert", id: "notify-push-error" });
  on.addEventListener("change", async () => {
    error.textContent = "";
    try {
      if (on.checked) await subscribe(key); else await unsubscribe();
    } catch (e) { on.checked = !on.checked; error.textContent = e.message; }
  });
  return h("div", {}, h("label.check", {}, on, " ", t("notify.push")), h("p.muted", {}, t("notify.pushHelp")), error);
}

function keyBytes(text) {
  const raw = atob(text.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (text.length % 4)) % 4));
  return Uint8Array.from(raw, (c) => c.charCodeAt(0));
}

async function subscribe(key) {
  if ((await Notification.requestPermission()) !== "granted") throw new Error(t("notify.pushDenied"));
  const registration = await navigator.serviceWorker.ready;
  const subscription = await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(key) });
  await api("/notify/push", { method: "POST", body: { ...subscription.toJSON(), lang: document.documentElement.lang } });
}

async function unsubscribe() {
  const registration = await navigator.serviceWorker.ready;
  const subscription = await registration.pushManager.getSubscription();
  if (!subscription) return;
  await api("/notify/push/delete", { method: "POST", body: { endpoint: subscription.endpoint } });
  await subscription.unsubscribe();
}

// ---------------------------------------------------------------- challenges

/** On another person's profile: challenge them to a two-player turn-based game (they are pushed and
 * mailed the table's link); the challenger goes to the table and waits there. */
export function challengeButton(name) {
  const error = h("p.error", { role: "alert", id: "challenge-error" });
  async function send(event) {
    event.target.disabled = true;
    error.textContent = "";
    try {
      const made = await api("/notify/challenge", { method: "POST", body: { name } });
      seats.set(made.code, made.seat, made.token);
      location.hash = `#/t/${made.code}`;
    } catch (e) { error.textContent = e.message; event.target.disabled = false; }
  }
  return h("p", {}, h("button.btn", { type: "button", id: "challenge-btn", onclick: send }, t("notify.challenge", { name })), error);
}

// ---------------------------------------------------------------- the pages the mails open

/** #/mail/confirm?token=…, #/mail/reset?token=…, #/mail/forgot. */
export async function showMailPage(main, page, token) {
  const error = h("p.error", { role: "alert", id: "mail-error" });
  if (page === "confirm") {
    main.append(h("h1", {}, t("notify.confirmTitle")), error);
    try {
      const done = await api("/notify/email/confirm", { method: "POST", body: { token } });
      main.append(h("p", { id: "mail-done" }, t("notify.confirmDone", { address: done.email })),
        h("p", {}, h("a", { href: "#/account" }, t("account.title"))));
    } catch (e) { error.textContent = e.message; }
    return;
  }
  if (!(await notifyConfig()).email) {
    main.append(h("h1", {}, t("notify.resetTitle")), h("p.muted", {}, t("notify.noMail")));
    return;
  }
  const field = (id, label, attrs) => h("label.field", {}, h("span", {}, label), h("input", { id, ...attrs }));
  if (page === "forgot") {
    async function ask(event) {
      event.preventDefault();
      error.textContent = "";
      try {
        await api("/notify/reset/request", { method: "POST", body: { name: main.querySelector("#forgot-name").value } });
        main.querySelector("#forgot").replaceChildren(h("p", { id: "mail-done" }, t("notify.resetSent")));
      } catch (e) { error.textContent = e.message; }
    }
    main.append(h("h1", {}, t("notify.resetTitle")),
      h("form.panel", { id: "forgot", onsubmit: ask },
        h("p.muted", {}, t("notify.forgotHelp")),
        field("forgot-name", t("account.name"), { maxlength: "20", required: true, autocomplete: "username", autocapitalize: "none" }),
        error, h("button.btn.primary", { type: "submit" }, t("notify.sendLink"))));
    return;
  }
  async function set(event) {
    event.preventDefault();
    error.textContent = "";
    try {
      await api("/notify/reset", { method: "POST", body: { token, password: main.querySelector("#reset-password").value } });
      main.querySelector("#reset").replaceChildren(h("p", { id: "mail-done" }, t("notify.resetDone")),
        h("p", {}, h("a", { href: "#/account" }, t("account.signIn"))));
    } catch (e) { error.textContent = e.message; }
  }
  main.append(h("h1", {}, t("notify.resetTitle")),
    h("form.panel", { id: "reset", onsubmit: set },
      field("reset-password", t("account.new"), { type: "password", maxlength: "128", required: true, autocomplete: "new-password" }),
      h("p.muted.range-note", {}, t("account.rules")),
      error, h("button.btn.primary", { type: "submit" }, t("notify.setPassword"))));
}
