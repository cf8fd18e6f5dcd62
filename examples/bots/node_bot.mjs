#!/usr/bin/env node
// An example 6 nimmt! bot in JavaScript (Node.js), speaking the sixnimmt bot protocol, version 2
// (docs/bot-protocol.md): newline-delimited JSON on stdin/stdout. No dependencies.
//
//   sixnimmt arena --bots "cmd:node examples/bots/node_bot.mjs,random" --players 4 --deals 100
//
// Strategy: play the lowest card that is safe (lands behind a row end on a row with fewer than
// five cards); otherwise the card whose forced take costs least. It answers every decision of every
// variant: Hand's optional second card only when it is safe (else PASS = 0), Nifty's order lowest
// card first, Hand's kept cards only one-bullhead ones while the hand is small. Stateless: each
// request carries the complete view. Logs go to stderr; stdout carries protocol lines only.

import { createInterface } from "node:readline";

const NAME = "node-example (low-safe)";
const PROTOCOL = 2;
const PASS = 0; // "no card": declines Hand's second card, or stops keeping taken cards

function bullheads(card) {
  if (card === 55) return 7;
  if (card % 11 === 0) return 5;
  if (card % 10 === 0) return 3;
  if (card % 5 === 0) return 2;
  return 1;
}

const rowCost = (row) => row.reduce((sum, c) => sum + bullheads(c), 0);
// Places taken in a row: in Double twins stack and count once (elsewhere cards are distinct).
const rowSize = (row) => new Set(row).size;
const last = (row) => row[row.length - 1];

// Where a card lands under the basic rules: the row whose end is below it (or, in Double, its
// twin) and closest; -1 when it is lower than every row end.
function target(rows, card) {
  let best = -1;
  rows.forEach((row, i) => {
    if (last(row) <= card && (best < 0 || last(row) > last(rows[best]))) best = i;
  });
  return best;
}

// Bullheads a card would cost now: 0 when it fits safely.
function risk(rows, card) {
  const i = target(rows, card);
  if (i < 0) return Math.min(...rows.map(rowCost)); // too low: we would take the cheapest row
  return rowSize(rows[i]) >= 5 && last(rows[i]) !== card ? rowCost(rows[i]) : 0;
}

function chooseCard(view) {
  const rows = view.rows;
  const options = view.decision.options;
  const cards = options.filter((c) => c !== PASS).sort((a, b) => a - b);
  const best = cards.reduce((b, card) => (risk(rows, card) < risk(rows, b) ? card : b), cards[0]);
  // Hand: a second card only when it is free.
  if (options.includes(PASS) && risk(rows, best) > 0) return PASS;
  return best;
}

function chooseRow(view) {
  const rows = view.rows;
  return view.decision.options.reduce((best, i) => (rowCost(rows[i]) < rowCost(rows[best]) ? i : best));
}

function chooseKeep(view) {
  // A kept card leaves the pile but scores double if still in hand at the end.
  const cheap = view.decision.options.filter((c) => c !== PASS && bullheads(c) === 1);
  return cheap.length > 0 && view.hand.length < 8 ? Math.min(...cheap) : PASS;
}

const deciders = {
  card: chooseCard,
  row: chooseRow,
  draft: (view) => Math.min(...view.decision.options),
  order: (view) => Math.min(...view.decision.options), // Nifty: lowest card first
  keep: chooseKeep,
};

const send = (message) => process.stdout.write(JSON.stringify(message) + "\n");

const input = createInterface({ input: process.stdin });
input.on("line", (line) => {
  if (!line.trim()) return;
  const message = JSON.parse(line);
  switch (message.type) {
    case "hello":
      send({ id: message.id, type: "hello", protocol: PROTOCOL, name: NAME });
      break;
    case "decide":
      send({ id: message.id, move: deciders[message.view.decision.kind](message.view) });
      break;
    case "bye":
      input.close();
      break;
    default: // game-start, deal-start, turn-result, deal-end, game-end: no answer
      break;
  }
});
input.on("close", () => process.exit(0));
