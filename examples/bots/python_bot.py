#!/usr/bin/env python3
"""An example 6 nimmt! bot speaking the sixnimmt bot protocol, version 2 (docs/bot-protocol.md).

Standard library only: copy it and change `choose_card`. Run it in the arena with

    sixnimmt arena --bots "cmd:python3 examples/bots/python_bot.py,random" --players 4 --deals 100

It answers every decision of every variant: a card (in Hand, maybe no second card: PASS = 0), a
row, a draft pick, Nifty's order and Hand's kept cards. It is stateless: every `decide` request
carries the complete view, so it only reads that. Anything for humans goes to stderr; stdout is for
protocol lines only.
"""

import json
import sys

NAME = "python-example (snug)"
PROTOCOL = 2
PASS = 0  # "no card": declines Hand's second card, or stops keeping taken cards
ROW_LIMIT = 5


def bullheads(card):
    """Penalty points of a card (docs/rules.md §1)."""
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


def row_size(row):
    """Places taken in a row: in Double twins stack and count once (elsewhere cards are distinct)."""
    return len(set(row))


def landing(rows, card):
    """The row a card goes to by the basic rules (behind the closest lower end; in Double also on its
    twin), or None when it is lower than every row end. Professional's left ends are ignored: this is
    an estimate, and every answer the bot gives is legal anyway."""
    ends = [(card - row[-1], i) for i, row in enumerate(rows) if row and row[-1] <= card]
    return min(ends)[1] if ends else None


def card_key(rows, card):
    """Lower is better: a snug safe fit first, then the cheapest forced take."""
    i = landing(rows, card)
    if i is None:  # too low: we would take the cheapest row
        return (2, min(row_cost(r) for r in rows), -card)
    if row_size(rows[i]) >= ROW_LIMIT and rows[i][-1] != card:
        return (1, row_cost(rows[i]), card - rows[i][-1])
    return (0, card - rows[i][-1], 0)


def choose_card(view):
    """Play the card that lands closest behind a row end without being its sixth card; failing
    that, the card whose forced take is cheapest. Hand's optional second card (PASS among the
    options) is played only when it fits safely."""
    rows = view["rows"]
    options = view["decision"]["options"]
    cards = [c for c in options if c != PASS]
    best = min(cards, key=lambda c: (card_key(rows, c), c))
    if PASS in options and card_key(rows, best)[0] != 0:
        return PASS
    return best


def choose_row(view):
    """Too-low card (or a Professional tie): take the row with the fewest bullheads."""
    rows = view["rows"]
    return min(view["decision"]["options"], key=lambda i: (row_cost(rows[i]), len(rows[i]), i))


def choose_draft(view):
    """Logic and Tournament draft: low cards are flexible, take the lowest one left."""
    return min(view["decision"]["options"])


def placement_cost(rows, cards):
    """Bullheads taken by placing `cards` in this order (basic rules; a too-low card takes the
    cheapest row)."""
    rows = [list(r) for r in rows]
    cost = 0
    for card in cards:
        i = landing(rows, card)
        if i is None:
            i = min(range(len(rows)), key=lambda r: row_cost(rows[r]))
            cost += row_cost(rows[i])
            rows[i] = [card]
        elif row_size(rows[i]) >= ROW_LIMIT and rows[i][-1] != card:
            cost += row_cost(rows[i])
            rows[i] = [card]
        else:
            rows[i].append(card)
    return cost


def choose_order(view):
    """Nifty: which of our two cards is placed first. Try both orders; lowest first on a tie."""
    first, second = sorted(view["decision"]["options"])
    if placement_cost(view["rows"], [second, first]) < placement_cost(view["rows"], [first, second]):
        return second
    return first


def choose_keep(view):
    """Hand: move a taken card to our hand, or PASS to leave the rest in the pile. A card kept
    leaves the pile but scores double if it is still in hand at the end, so keep only one-bullhead
    cards, and only while the hand is small."""
    cheap = [c for c in view["decision"]["options"] if c != PASS and bullheads(c) == 1]
    if cheap and len(view["hand"]) < 8:
        return min(cheap)
    return PASS


DECIDERS = {
    "card": choose_card,
    "row": choose_row,
    "draft": choose_draft,
    "order": choose_order,
    "keep": choose_keep,
}


def reply(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()  # the host waits for the line: never leave it in a buffer


def main():
    for line in sys.stdin:
        if not line.strip():
            continue
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            reply({"id": message["id"], "type": "hello", "protocol": PROTOCOL, "name": NAME})
        elif kind == "decide":
            view = message["view"]
            reply({"id": message["id"], "move": DECIDERS[view["decision"]["kind"]](view)})
        elif kind == "bye":
            break
        # game-start, deal-start, turn-result, deal-end, game-end: notifications, no answer


if __name__ == "__main__":
    main()
