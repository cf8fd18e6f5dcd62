// What a table says of a game beyond its totals: who left it (and the bot that played on for them),
// and, when a rated game ends, each seat's rating before and after it with the provisional mark,
// on the Game over screen itself, as lichess and BGA show it (GET /api/games/ID/ratings).
import { api, h, t } from "../util.js";

/** The marks after a seat's name: "left" on a player who gave the seat up during the game (a bot
 * plays it to the end), and "for NAME, who left" on the bot that took a leaver's seat over. */
export function leftMarks(seat) {
  if (!seat) return [];
  return [
    seat.left ? h("span.badge.left-badge", { title: t("place.leftTitle") }, t("place.left")) : null,
    seat.left_by ? h("span.left-by", {}, t("place.leftBy", { name: seat.left_by })) : null,
  ];
}

const rating = (value, provisional) => `${value}${provisional ? "?" : ""}`;
const signed = (n) => (n > 0 ? `+${n}` : n < 0 ? `−${-n}` : "±0");
const change = (c) => `${rating(c.before, c.provisional_before)} → ${rating(c.after, c.provisional)} (${signed(c.delta)})`;

/** After a rated game: a Rating column in the final ranking (`dialog`'s), and this seat's own
 * change in words under the winners. Nothing for a casual game. */
export async function showRatingChanges(s, gameId, dialog) {
  let data;
  try { data = await api(`/games/${gameId}/ratings?table=${encodeURIComponent(s.code)}`); } catch { return; }
  const ranking = dialog.querySelector("#final-ranking");
  if (!data.rated || !ranking || ranking.querySelector(".rating-change")) return;
  ranking.querySelector("thead tr").append(h("th.num", {}, t("place.ratingColumn")));
  for (const row of ranking.querySelectorAll("tbody tr")) {
    const seat = data.seats[Number(row.dataset.seat)];
    row.append(h("td.num.rating-change" + (seat && seat.delta < 0 ? ".down" : ""),
      seat ? { dataset: { delta: seat.delta }, title: seat.provisional ? t("place.provisional") : null } : {}, seat ? change(seat) : ""));
  }
  const mine = s.current?.table.you != null ? data.seats[s.current.table.you] : null;
  const lines = [];
  if (mine) {
    lines.push(h("p.your-rating", { id: "rating-change" }, t("place.yourRating", {
      before: rating(mine.before, mine.provisional_before), after: rating(mine.after, mine.provisional), delta: signed(mine.delta) })));
  }
  if (data.seats.some((seat) => seat?.provisional || seat?.provisional_before)) {
    lines.push(h("p.muted.rating-note", { id: "provisional-note" }, t("place.provisionalNote")));
  }
  dialog.querySelector("#winners")?.after(...lines);
}
