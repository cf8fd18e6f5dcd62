// How a turn is played at this table, read in one place from the variant's spec (the server's
// `table.spec`, from sixnimmt/core/variants.py), a turn's (seat, card) pairs as cards on show, and
// where a card would go. Everything else of the table asks these, never the variant name.

/** The shape of play at `table` (the server's table summary), with `view` (this seat's view). */
export function playShape(table, view) {
  const spec = table.spec;
  // the view says the turns of a deal (null: no fixed length, counted in rounds) and the target
  // that ends the game (null: the variant ends on its own), once the variant has fixed them
  const turnsPerDeal = view ? view.turns_per_deal : spec.turns_per_deal;
  const target = view ? view.target : table.rules.target ?? null;
  return {
    variant: spec.name,
    perSeat: spec.cards_per_turn, // cards each player chooses in a turn
    sequential: spec.turn_order === "sequence" || spec.turn_order === "solo", // one player at a time
    faceUp: spec.turn_order === "sequence", // cards go down face up as they are played (Open)
    turnsPerDeal,
    rounds: turnsPerDeal == null,
    target,
    handsPass: spec.dealing === "draft-once", // the drafted hands move on between deals (Tournament)
    doubleLeft: spec.left_in_hand_factor === 2, // cards left in the hand at the end count double (Hand)
    // where a card may go: after the highest row end below it; Professional: also before the
    // lowest row start above it; Double: on its twin, which stacks
    placement: spec.placement,
  };
}

/** The help line under the hand while a card can be played. */
export function pickHelpKey(shape) {
  return shape.perSeat === 2 ? "table.pickTwoHelp" : shape.sequential ? "table.pickHelpTurn" : "table.pickHelp";
}

/** A turn's (seat, card) pairs (the server says who played what) as [{seat, card, placed}], lowest first. Cards listed in `unplaced` are still
 * waiting to be placed (twins, as in Double, are matched one copy each). */
export function playsOf(pairs, unplaced = null) {
  const left = unplaced ? [...unplaced] : null;
  return pairs.map(([seat, card]) => {
    let placed = true;
    if (left) { const at = left.indexOf(card); if (at >= 0) { left.splice(at, 1); placed = false; } }
    return { seat, card, placed };
  }).sort((a, b) => a.card - b.card);
}

/** Row places a row holds before the next card takes it (the sixth card takes the row). */
const ROW_LIMIT = 5;

/** Where `card` would go on `rows` if it were placed now (others' cards may still come first):
 * {rows: [index...], sixth, tooLow}. `rows` lists one index, or two for a tie (Professional). */
export function previewPlacement(shape, rows, card) {
  const stacked = shape.placement === "stacked";
  if (stacked) {
    const twin = rows.findIndex((row) => row.length && row[row.length - 1] === card);
    if (twin >= 0) return { rows: [twin], sixth: false, tooLow: false }; // on its twin: no new place
  }
  let best = [];
  let bestDistance = Infinity;
  const consider = (index, distance) => {
    if (distance <= 0) return;
    if (distance < bestDistance) { bestDistance = distance; best = [index]; } else if (distance === bestDistance) best.push(index);
  };
  rows.forEach((row, index) => {
    if (!row.length) return;
    consider(index, card - row[row.length - 1]);
    if (shape.placement === "either-end") consider(index, row[0] - card);
  });
  if (!best.length) return { rows: [], sixth: false, tooLow: true };
  const places = (row) => (stacked ? row.filter((c, i) => i === 0 || row[i - 1] !== c).length : row.length);
  return { rows: best, sixth: best.length === 1 && places(rows[best[0]]) >= ROW_LIMIT, tooLow: false };
}
