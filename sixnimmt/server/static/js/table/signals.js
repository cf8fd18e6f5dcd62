// Telling a player it is their move when they are not looking: a short sound (a setting), the tab's
// title and icon, and (opt-in) a browser notification while the page is hidden.
import { prefs, t } from "../util.js";

const TITLE = "6 nimmt!";
let plainIcon = null;
let audio = null;

/** The page icon with a red dot: the tab shows that a move is waited for. */
const ALERT_ICON = "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 64 64'%3E%3Crect width='64' height='64' rx='12' fill='%23f4c542'/%3E%3Ctext x='28' y='46' font-size='40' text-anchor='middle' font-family='Arial' font-weight='bold' fill='%231d3b2f'%3E6%3C/text%3E%3Ccircle cx='50' cy='14' r='13' fill='%23c8352e' stroke='%23fff' stroke-width='3'/%3E%3C/svg%3E";

export const soundOn = () => prefs.get("sound") !== "0"; // on unless switched off
export const notifyOn = () => prefs.get("notify") === "1" && "Notification" in window && Notification.permission === "granted";

/** A short two-note chime (Web Audio: no file to load). Where the browser lets a page follow the
 * phone's silent switch (an "ambient" audio session), it does. */
export function chime() {
  if (!soundOn()) return false;
  try {
    if (navigator.audioSession) navigator.audioSession.type = "ambient";
    const Context = window.AudioContext || window.webkitAudioContext;
    if (!Context) return false;
    audio = audio || new Context();
    if (audio.state === "suspended") audio.resume().catch(() => {});
    const now = audio.currentTime;
    for (const [i, freq] of [[0, 660], [1, 880]]) {
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      osc.frequency.value = freq;
      gain.gain.setValueAtTime(0.0001, now + i * 0.12);
      gain.gain.exponentialRampToValueAtTime(0.18, now + i * 0.12 + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, now + i * 0.12 + 0.16);
      osc.connect(gain).connect(audio.destination);
      osc.start(now + i * 0.12);
      osc.stop(now + i * 0.12 + 0.18);
    }
    return true;
  } catch { return false; }
}

function setIcon(href) {
  const link = document.querySelector("link[rel='icon']");
  if (!link) return;
  if (plainIcon == null) plainIcon = link.getAttribute("href");
  link.setAttribute("href", href ?? plainIcon);
}

/** Show (or clear) "your move" in the title and icon; when it newly became this seat's move, chime
 * and, if the page is hidden and the player asked for it, send a notification. */
export function signalTurn(s, key) {
  // `key` names the decision asked for (null: none): a new one chimes, the same one again does not
  const yourMove = key != null;
  const was = key === s.moveKey;
  if (yourMove) s.moveKey = key;
  s.yourMove = yourMove;
  document.title = yourMove ? `● ${t("signal.title")} · ${TITLE}` : TITLE;
  setIcon(yourMove ? ALERT_ICON : null);
  s.screen.dataset.yourMove = yourMove ? "1" : "";
  if (!yourMove || was) return;
  if (chime()) s.screen.dataset.chimes = String(Number(s.screen.dataset.chimes || 0) + 1);
  if (document.visibilityState === "hidden" && notifyOn()) {
    try {
      const note = new Notification(t("signal.title"), { body: t("signal.body", { code: s.code }), tag: `sixnimmt-${s.code}` });
      note.onclick = () => { window.focus(); note.close(); };
      s.screen.dataset.notified = String(Number(s.screen.dataset.notified || 0) + 1);
    } catch { /* a browser that only notifies from a service worker */ }
  }
}

/** Leaving the table: the title and icon are plain again. */
export function clearSignals() {
  document.title = TITLE;
  setIcon(null);
}

/** Ask for permission to notify (from a click on the setting), and keep the choice. */
export async function askNotify(wanted) {
  if (!wanted) { prefs.set("notify", "0"); return false; }
  if (!("Notification" in window)) return false;
  let permission = Notification.permission;
  if (permission === "default") permission = await Notification.requestPermission();
  prefs.set("notify", permission === "granted" ? "1" : "0");
  return permission === "granted";
}
