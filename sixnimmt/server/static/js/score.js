// One scoring display, chosen by each viewer: totals counting up (penalties taken) or down (points
// left before the target). Spanish and Swedish count down by default, as their rulebooks do; the
// choice is kept in this browser. Every score on screen is written through `scoring(target)`.
import { lang, prefs, t } from "./util.js";

const COUNT_DOWN_LANGUAGES = ["es", "sv"];
const MINUS = "\u2212"; // a real minus sign, as wide as the plus

/** "up" or "down": this browser's choice, else the language's custom. */
export function countMode() {
  const saved = prefs.get("count");
  if (saved === "up" || saved === "down") return saved;
  return COUNT_DOWN_LANGUAGES.includes(lang) ? "down" : "up";
}

export function setCountMode(mode) { prefs.set("count", mode === "down" ? "down" : "up"); }

/** How to write the scores of a game whose target is `target` (null: the variant has no target,
 * so there is nothing to count down from and totals count up). */
export function scoring(target) {
  const down = target != null && countMode() === "down";
  const signed = (n) => (n < 0 ? `${MINUS}${-n}` : n > 0 ? `+${n}` : "0");
  return {
    down,
    /** A total of `penalty` bullheads: itself, or the points left (saying so when past zero). */
    total(penalty) {
      if (!down) return String(penalty);
      const left = target - penalty;
      return left >= 0 ? String(left) : t("score.pastZero", { n: -left });
    },
    /** Whether a total has gone past zero points left (drawn as a warning). */
    past(penalty) { return down && penalty > target; },
    /** A change of `n` bullheads taken: "+5", or "−5" points left. */
    delta(n) { return down ? signed(-n) : signed(n); },
    /** The heading of a totals column, and the tooltip of a total. */
    totalHeading() { return t(down ? "score.leftColumn" : "table.total"); },
    totalTitle() { return t(down ? "table.pointsLeft" : "table.penalties"); },
  };
}
