"""How fast can a checked engine in plain Python be? A floor, measured beside `sixnimmt bench engine`.

`MinimalGame` below is not an engine of this project. It plays the standard rules only (4 rows,
sixth card, too-low row choice, 66), keeps no record, knows no variant and says nothing when an
answer is wrong. What it does is the least that the checked tier does for every decision: pending
decisions, a view per decision (the engine's own `PlayerView`, its decision set and every other
field deferred, as `Game.view` makes them), the answer's checks, the events (the engine's own
classes, made in one call each) and the placement. It runs the same host loop as
`sixnimmt.commands.bench.checked_game` and `checked_engine_alone`, taking turns with the real tiers,
so that the ratios of one run compare:

    .venv/bin/python benchmarks/engine_floor.py --seconds 3

The `minimal ...` lines are a bound on what any plain-Python checked engine can reach against the
fast tier: a real one does all of this and more (nine variants, clear errors, the record).
"""

from __future__ import annotations

import argparse
import json
import random
from typing import Any

import numpy as np

from sixnimmt.commands.bench import checked_engine_alone, checked_game, fast_game, rates_in_turns
from sixnimmt.core import BULLHEADS, IllegalMoveError
from sixnimmt.core.dealing import shuffle
from sixnimmt.core.events import (
    CardChosen,
    CardPlaced,
    CardsRevealed,
    DealScored,
    DealStarted,
    Event,
    GameOver,
    RowChoiceRequired,
    RowTaken,
)
from sixnimmt.core.frozen import make
from sixnimmt.core.views import DEFERRED, Decision, DecisionKind, PlayerView, make_view

_CARD, _ROW = DecisionKind.CARD, DecisionKind.ROW
_ALL_ROWS = (0, 1, 2, 3)


def _shared_fields(moment: tuple[dict[str, Any], tuple[bool, ...], list[dict[str, Any]]]) -> dict[str, Any]:
    table, chosen, made = moment
    if not made:
        made.append({**table, "chosen": chosen})
    return made[0]


class MinimalGame:
    """Standard rules, checked answers, events and views; nothing else (see the module docstring)."""

    def __init__(self, players: int, rng: random.Random) -> None:
        self.players = players
        self.rng = rng
        self.totals = [0] * players
        self.deal = -1
        self.over = False
        self.events: list[Event] = []
        self._pending: tuple[Decision, ...] | None = None
        self._moment: tuple[dict[str, Any], tuple[bool, ...], list[dict[str, Any]]] | None = None
        self._table: tuple[dict[str, Any], tuple[tuple[int, ...], ...]] | None = None
        self._cards: list[Decision] | None = None
        self._row: Decision | None = None
        self._start_deal()

    def _start_deal(self) -> None:
        self.deal += 1
        deck = list(range(1, 105))
        shuffle(deck, self.rng)
        players = self.players
        self.hands = [sorted(deck[seat * 10 : seat * 10 + 10]) for seat in range(players)]
        self.rows = [[card] for card in deck[players * 10 : players * 10 + 4]]
        self.penalties = [0] * players
        self.choices: list[int | None] = [None] * players
        self.waiting = players
        self.turn = 0
        self.queue: list[tuple[int, int]] = []
        self.revealed: tuple[int, ...] = ()
        self.played: list[tuple[int, ...]] = []
        self._table = self._moment = self._pending = self._cards = None
        self.events.append(make(DealStarted, (self.deal, tuple(map(tuple, self.rows)))))

    def pending(self) -> tuple[Decision, ...]:
        pending = self._pending
        if pending is None:
            if self._row is None:
                cards = self._cards or self._card_decisions()
                pending = tuple([cards[seat] for seat, card in enumerate(self.choices) if card is None])
            else:
                pending = (self._row,)
            self._pending = pending
        return pending

    def _card_decisions(self) -> list[Decision]:
        hands = (self._table or self._take_table())[1]
        self._cards = [make(Decision, (_CARD, seat, hand, None, None)) for seat, hand in enumerate(hands)]
        return self._cards

    def _take_table(self) -> tuple[dict[str, Any], tuple[tuple[int, ...], ...]]:
        hands = tuple(map(tuple, self.hands))
        table = {"deal": self.deal, "turn": self.turn, "rows": tuple(map(tuple, self.rows)),
                 "totals": tuple(self.totals), "penalties": tuple(self.penalties), "played": tuple(self.played)}
        self._table = (table, hands)
        return self._table

    def view(self, seat: int) -> PlayerView:
        if seat.__class__ is not int or not 0 <= seat < self.players:
            raise IllegalMoveError(f"there is no seat {seat!r}")
        table = self._table or self._take_table()
        moment = self._moment
        if moment is None:
            moment = self._moment = (table[0], tuple([card is not None for card in self.choices]), [])
        mine = self.choices[seat]
        if self._row is not None:
            decision = self._row if seat == self._row.seat else None
        else:
            decision = None if mine is not None else (self._cards or self._card_decisions())[seat]
        return make_view({"seat": seat, "hand": table[1][seat], "my_choice": mine, "decision": decision,
                          DEFERRED: (_shared_fields, moment)})

    def act(self, seat: int, value: int) -> list[Event]:
        events = self.events
        mark = len(events)
        if self._row is not None:
            self._choose_row(seat, value)
            return events[mark:]
        if seat.__class__ is not int or not 0 <= seat < self.players or value.__class__ is not int:
            raise IllegalMoveError("a seat and a card are whole numbers")
        if value not in self.hands[seat]:
            raise IllegalMoveError(f"card {value} is not in seat {seat}'s hand")
        self._pending = self._moment = None
        if self.choices[seat] is None:
            events.append(make(CardChosen, (self.deal, self.turn, seat)))
            self.waiting -= 1
        self.choices[seat] = value
        if not self.waiting:
            self._reveal()
        return events[mark:]

    def _reveal(self) -> None:
        self._table = self._cards = None
        plays: tuple[int, ...] = tuple(self.choices)  # type: ignore[arg-type]  # every seat has chosen
        seat_cards = tuple(enumerate(plays))
        for seat, card in seat_cards:
            self.hands[seat].remove(card)
        self.events.append(make(CardsRevealed, (self.deal, self.turn, plays, None, seat_cards)))
        self.revealed = plays
        self.queue = sorted([(card, seat) for seat, card in seat_cards], reverse=True)
        self._resolve()

    def _resolve(self) -> None:
        queue, rows, emit = self.queue, self.rows, self.events.append
        while queue:
            card, seat = queue[-1]
            # The row whose end is the highest card below this one, over the four rows written out
            # (as the checked engine does).
            gap = card - rows[0][-1]
            if gap > 0:
                best = 0
            else:
                best, gap = -1, 1 << 30
            distance = card - rows[1][-1]
            if 0 < distance < gap:
                best, gap = 1, distance
            distance = card - rows[2][-1]
            if 0 < distance < gap:
                best, gap = 2, distance
            distance = card - rows[3][-1]
            if 0 < distance < gap:
                best = 3
            if best < 0:
                self._row = make(Decision, (_ROW, seat, _ALL_ROWS, card, "too-low"))
                emit(make(RowChoiceRequired, (self.deal, self.turn, seat, card, _ALL_ROWS, "too-low")))
                return
            queue.pop()
            if len(rows[best]) >= 5:
                self._take(seat, best, "full")
            rows[best].append(card)
            emit(make(CardPlaced, (self.deal, self.turn, seat, card, best, "right")))
        self.played.append(self.revealed)
        self.choices = [None] * self.players
        self.waiting = self.players
        self.turn += 1
        if self.turn >= 10:
            self._score()

    def _take(self, seat: int, index: int, reason: str) -> None:
        cards = tuple(self.rows[index])
        points = sum(map(BULLHEADS.__getitem__, cards))
        self.rows[index] = []
        self.penalties[seat] += points
        self.events.append(make(RowTaken, (self.deal, self.turn, seat, index, cards, points, reason)))

    def _choose_row(self, seat: int, row: int) -> None:
        choice = self._row
        assert choice is not None
        if seat != choice.seat or row.__class__ is not int or row not in choice.options:
            raise IllegalMoveError(f"seat {seat} cannot choose row {row!r}")
        self._pending = self._moment = self._table = self._row = None
        card, owner = self.queue.pop()
        self._take(owner, row, "too-low")
        self.rows[row].append(card)
        self.events.append(make(CardPlaced, (self.deal, self.turn, owner, card, row, "right")))
        self._resolve()

    def _score(self) -> None:
        for seat in range(self.players):
            self.totals[seat] += self.penalties[seat]
        self.events.append(DealScored(self.deal, tuple(self.penalties), tuple(self.totals)))
        if max(self.totals) >= 66:
            self.over = True
            low = min(self.totals)
            self.events.append(GameOver(tuple(self.totals), tuple(s for s, t in enumerate(self.totals) if t == low)))
        else:
            self._start_deal()


def minimal_game(rng: random.Random, players: int) -> None:
    """`checked_game`'s loop (a view per decision), on the minimal engine."""
    game = MinimalGame(players, rng)
    while not game.over:
        for decision in game.pending():
            view = game.view(decision.seat)
            assert view.decision is not None
            game.act(decision.seat, rng.choice(view.decision.options))


def minimal_engine_alone(rng: random.Random, players: int) -> None:
    """`checked_engine_alone`'s loop (answers from the pending decisions), on the minimal engine."""
    game = MinimalGame(players, rng)
    while not game.over:
        for decision in game.pending():
            game.act(decision.seat, rng.choice(decision.options))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="CPU time per tier")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng, np_rng = random.Random(args.seed), np.random.default_rng(args.seed)
    rates = rates_in_turns({
        "checked": lambda: checked_game(rng, 4),
        "checked_engine_alone": lambda: checked_engine_alone(rng, 4),
        "minimal": lambda: minimal_game(rng, 4),
        "minimal_engine_alone": lambda: minimal_engine_alone(rng, 4),
        "fast": lambda: fast_game(np_rng, 4),
    }, args.seconds)
    fast = rates["fast"][0]
    print(json.dumps({f"{name}_vs_fast": round(rate / fast, 3) for name, (rate, _) in rates.items() if name != "fast"}
                     | {f"{name}_games_per_s": round(rate, 1) for name, (rate, _) in rates.items()}))


if __name__ == "__main__":
    main()
