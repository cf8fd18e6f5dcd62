#!/usr/bin/env python3
"""An example 6 nimmt! bot speaking the sixnimmt bot protocol (docs/bot-protocol.md).

Standard library only: copy it and change `choose_card`. Run it in the arena with

    sixnimmt arena --bots "cmd:python3 examples/bots/python_bot.py,random" --players 4 --deals 100

It is stateless: every `decide` request carries the complete view, so it only reads that. Anything
for humans goes to stderr; stdout is for protocol lines only.
"""

import json
import sys

NAME = "python-example (snug)"


def bullheads(card):
    """Penalty points of a card (RULES.md §1)."""
    if card == 55:
        return 7
    if card % 11 == 0:
        return 5
    if card % 10 == 0:
        return 3
    if card % 5 == 0:
        return 2
    return 1


def row_cost(row):
    return sum(bullheads(c) for c in row)


def choose_card(view):
    """Play the card that lands closest behind a row end without being its sixth card; failing
    that, the card whose forced take is cheapest. (Standard placement; a fine start for a bot.)"""
    rows = view["rows"]
    best, best_key = None, None
    for card in view["decision"]["options"]:
        ends = [(card - row[-1], i) for i, row in enumerate(rows) if row and row[-1] < card]
        if not ends:  # too low: we would take the cheapest row
            key = (2, min(row_cost(r) for r in rows), -card)
        else:
            gap, i = min(ends)
            if len(rows[i]) >= 5:
                key = (1, row_cost(rows[i]), gap)
            else:
                key = (0, gap, 0)
        if best_key is None or key < best_key:
            best, best_key = card, key
    return best


def choose_row(view):
    """Too-low card (or a Professional tie): take the row with the fewest bullheads."""
    rows = view["rows"]
    return min(view["decision"]["options"], key=lambda i: (row_cost(rows[i]), len(rows[i]), i))


def choose_draft(view):
    """Logic draft: low cards are flexible, take the lowest one left."""
    return min(view["decision"]["options"])


DECIDERS = {"card": choose_card, "row": choose_row, "draft": choose_draft}


def reply(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()  # the host waits for the line: never leave it in a buffer


def main():
    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            reply({"id": message["id"], "type": "hello", "protocol": 1, "name": NAME})
        elif kind == "decide":
            view = message["view"]
            reply({"id": message["id"], "move": DECIDERS[view["decision"]["kind"]](view)})
        elif kind == "bye":
            break
        # game-start, deal-start, turn-result, deal-end, game-end: notifications, no answer


if __name__ == "__main__":
    main()
