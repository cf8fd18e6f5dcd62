#!/usr/bin/env node
// An example 6 nimmt! bot in JavaScript (Node.js), speaking the sixnimmt bot protocol
// (docs/bot-protocol.md): newline-delimited JSON on stdin/stdout. No dependencies.
//
//   sixnimmt arena --bots "cmd:node examples/bots/node_bot.mjs,random" --players 4 --deals 100
//
// Strategy: play the lowest card that is safe (lands behind a row end on a row with fewer than
// five cards); otherwise the card whose forced take costs least. Stateless: each request carries
// the complete view. Logs go to stderr; stdout carries protocol lines only.

import { createInterface } from "node:readline";

const NAME = "node-example (low-safe)";

function bullheads(card) {
  if (card === 55) return 7;
  if (card % 11 === 0) return 5;
  if (card % 10 === 0) return 3;
  if (card % 5 === 0) return 2;
  return 1;
}

const rowCost = (row) => row.reduce((sum, c) => sum + bullheads(c), 0);

// Where a card lands under the standard rules: the row whose end is below it and closest.
function target(rows, card) {
  let best = -1;
  rows.forEach((row, i) => {
    const end = row[row.length - 1];
    if (end < card && (best < 0 || end > rows[best][rows[best].length - 1])) best = i;
  });
  return best;
}

function chooseCard(view) {
  const rows = view.rows;
  const cheapest = Math.min(...rows.map(rowCost));
  const risk = (card) => {
    const i = target(rows, card);
    if (i < 0) return cheapest; // too low: we would take the cheapest row
    return rows[i].length >= 5 ? rowCost(rows[i]) : 0;
  };
  const options = [...view.decision.options].sort((a, b) => a - b);
  return options.reduce((best, card) => (risk(card) < risk(best) ? card : best), options[0]);
}

function chooseRow(view) {
  const rows = view.rows;
  return view.decision.options.reduce((best, i) => (rowCost(rows[i]) < rowCost(rows[best]) ? i : best));
}

const deciders = {
  card: chooseCard,
  row: chooseRow,
  draft: (view) => Math.min(...view.decision.options),
};

const send = (message) => process.stdout.write(JSON.stringify(message) + "\n");

const input = createInterface({ input: process.stdin });
input.on("line", (line) => {
  if (!line.trim()) return;
  const message = JSON.parse(line);
  switch (message.type) {
    case "hello":
      send({ id: message.id, type: "hello", protocol: 1, name: NAME });
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
