// Drawing cards. The bullheads per card come from the server (/api/config), never recomputed here.
import { h, getConfig, tn } from "./util.js";

let BULLHEADS = [];
export async function initCards() { BULLHEADS = (await getConfig()).bullheads; }
export const heads = (card) => BULLHEADS[card] || 0;
export const sumHeads = (cards) => cards.reduce((sum, c) => sum + heads(c), 0);

function bullIcon() {
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("aria-hidden", "true");
  const use = document.createElementNS("http://www.w3.org/2000/svg", "use");
  use.setAttribute("href", "#bull");
  svg.append(use);
  return svg;
}
export { bullIcon };

/** A card face; `tag` "button" for a playable card. */
export function cardNode(card, { tag = "div", extra = "", attrs = {} } = {}) {
  const n = heads(card);
  const label = tn("aria.card", n, { card });
  const node = h(`${tag}.card.h${n}${extra}`, { "aria-label": label, dataset: { card }, ...attrs },
    h("span.num", {}, String(card)),
    h("span.heads", { "aria-hidden": "true" }, Array.from({ length: n }, bullIcon)));
  return node;
}

export function ghostNode(sixth = false) {
  return h("div.card.ghost" + (sixth ? ".sixth" : ""), { "aria-hidden": "true" });
}
