// How a turn is played at this table, read in one place, and the decoding of a turn's revealed
// cards into (seat, card) pairs. Everything else of the table asks these, never the variant name.

/** The shape of play for the table `table` (the server's table summary). */
export function playShape(table) {
  const variant = table.rules.variant;
  const perSeat = variant === "nifty" ? 2 : 1; // cards each player chooses in a turn
  const sequential = variant === "open" || variant === "hand"; // one player at a time
  return {
    variant,
    perSeat,
    sequential,
    faceUp: variant === "open", // Open: cards go down face up as they are played
    oneActor: variant === "hand", // Hand: a turn's cards are all one player's
    rounds: variant === "hand", // Hand: counted in rounds of turns, not deals of turns
    turnsPerDeal: variant === "nifty" ? 7 : 10,
    target: table.rules.target ?? null, // null: the variant ends on its own (Tournament, Hand)
    handsPass: variant === "tournament", // the hands move on between deals
    doubleLeft: variant === "hand", // cards left in the hand at the end count double
  };
}

/** The help line under the hand while a card can be played. */
export function pickHelpKey(shape) {
  return shape.perSeat === 2 ? "table.pickTwoHelp" : shape.sequential ? "table.pickHelpTurn" : "table.pickHelp";
}

/** The seat of the i-th card of a turn's plays: two cards per seat are listed together; when one
 * player plays the whole turn, every card is theirs (`actor`); otherwise one card per seat. */
function playSeat(shape, i, actor) {
  if (shape.oneActor) return actor ?? null;
  return Math.floor(i / shape.perSeat);
}

/** A turn's cards as [{seat, card, placed}], lowest first. Cards listed in `unplaced` are still
 * waiting to be placed (twins, as in Double, are matched one copy each). */
export function playsOf(shape, cards, actor, unplaced = null) {
  const left = unplaced ? [...unplaced] : null;
  return cards.map((card, i) => {
    let placed = true;
    if (left) { const at = left.indexOf(card); if (at >= 0) { left.splice(at, 1); placed = false; } }
    return { seat: playSeat(shape, i, actor), card, placed };
  }).sort((a, b) => a.card - b.card);
}
