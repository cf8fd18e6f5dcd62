"""How the cards of a turn are chosen and revealed: one small class per turn order of the variants
(a spec's ``turn_order``, core/variants.py). :class:`~sixnimmt.core.game.Game` dispatches to them.

* :class:`Simultaneous` (docs/rules.md §3): everyone chooses one card secretly; all are revealed together
  and placed in ascending order.
* :class:`Pairs` (§6 Nifty): everyone chooses two cards; once revealed, the seat holding the lowest
  card not yet placed says which of its two goes first, and both are placed.
* :class:`Sequence` (§6 Open): one card each, face up, one player after another from the seat that
  holds the marker; the marker passes on every turn.
* :class:`Solo` (§6 Hand): one player's turn at a time, one or two cards.

Each one owns what only its order needs (who is still to choose, the pairs still to order, the
rounds played) and works through the game's public state (hands, this turn's choices, whose turn it
is) and the few methods the game offers for them (``who``, ``where``, ``unchosen``,
``seat_card_decisions``); it never writes a private name of the game. What it decides, it returns:
whether the turn's cards are all in (:meth:`TurnStructure.play`), and the cards to place in their
order (:meth:`TurnStructure.reveal`, :meth:`Pairs.order`). The game passes itself to every call: a structure holds no reference to its game, so a game
nobody holds is freed at once by its reference count, not left for the cycle collector (a serving
process runs that once every few minutes: server/collector.py). Everything here is called with a
seat and an int already checked by the game.
"""

from __future__ import annotations

import threading
from itertools import compress
from operator import itemgetter, not_
from typing import TYPE_CHECKING

from .cards import Card
from .errors import IllegalMoveError
from .events import CardChosen, CardShown, OrderChosen, SeatCard
from .frozen import make
from .variants import HAND_VARIANT_PILE_LIMIT, HAND_VARIANT_ROUND_LIMIT, MAX_PLAYERS, TurnOrder
from .views import PASS, Decision, DecisionKind

if TYPE_CHECKING:  # the game imports this module; only its type is needed here
    from .game import Game

Cards = tuple[Card, ...]
_CARD, _ORDER_KIND = DecisionKind.CARD, DecisionKind.ORDER  # read once, as game.py's enum members
_first, _second = itemgetter(0), itemgetter(1)

#: The ``CardChosen`` events of the first deals, made once per process and shared by every game,
#: indexed ``[deal][turn][seat]``: such an event is immutable and says only who chose in which turn,
#: and a game of four emits 160 of them: without the table a host's loop runs 13% slower
#: (docs/performance.md). Grown a deal at a time (:func:`_card_chosen`); negative indices never occur
#: (the game's deal and turn count from 0).
_CHOSEN: list[list[list[CardChosen]]] = []
_SHARED_DEALS, _SHARED_TURNS = 64, 16  # bounds that keep the table small: beyond them, events of their own
_growing = threading.Lock()  # two threads' games growing the table at once would misplace a deal


def _card_chosen(deal: int, turn: int, seat: int) -> CardChosen:
    """The event "``seat`` has chosen" of ``turn`` of ``deal``: the shared one, made here if it is not yet."""
    try:
        return _CHOSEN[deal][turn][seat]
    except IndexError:  # beyond the table's bounds, or a deal not reached yet
        pass
    if deal >= _SHARED_DEALS or turn >= _SHARED_TURNS or seat >= MAX_PLAYERS:
        return make(CardChosen, (deal, turn, seat))
    with _growing:
        while len(_CHOSEN) <= deal:
            index = len(_CHOSEN)
            _CHOSEN.append([[make(CardChosen, (index, t, s)) for s in range(MAX_PLAYERS)] for t in range(_SHARED_TURNS)])
    return _CHOSEN[deal][turn][seat]


class TurnStructure:
    """How one turn's cards are chosen, revealed and queued for placement."""

    #: Cards each player chooses in a simultaneous turn.
    per_turn = 1
    #: A choice may be changed until everyone has chosen (so :meth:`Game.retract` is allowed).
    retractable = True

    # ---------------------------------------------------------------- the turn order's own

    def start_deal(self, game: Game) -> None:
        """A deal begins (its first turn)."""

    def start_turn(self, game: Game) -> None:
        """A turn begins: nobody has chosen yet."""

    def decisions(self, game: Game) -> tuple[Decision, ...]:
        """The card decisions owed in the play phase."""
        raise NotImplementedError

    def play(self, game: Game, seat: int, card: Card) -> bool:
        """``seat`` chooses ``card``. True once every card of the turn is in (the game reveals them)."""
        raise NotImplementedError

    def retract(self, game: Game, seat: int) -> None:
        """``seat``'s choice is taken back (only where :attr:`retractable`)."""

    def reveal(self, game: Game) -> tuple[tuple[SeatCard, ...], Cards, int | None, list[SeatCard]]:
        """Reveal this turn's cards. Returns them with their seats, as revealed (by seat); the cards
        alone (``CardsRevealed.plays``); whose turn it is, where one player plays the whole turn;
        and the cards to place now, in the order they go (lowest first)."""
        plays = tuple(map(_first, game.choices))
        seat_cards = tuple(enumerate(plays))
        return seat_cards, plays, None, sorted(seat_cards, key=_second)  # twins (Double) by seat: a stable sort

    def more_to_queue(self, game: Game) -> bool:
        """Cards revealed but not queued yet (they wait for a decision of their owner)."""
        return False

    def unqueued(self, game: Game) -> Cards:
        return ()

    def after_turn(self, game: Game) -> bool:
        """The turn's cards are all placed: move on. True when the deal is over."""
        return game.turn >= game.turns_per_deal

    def face_up(self, game: Game) -> tuple[Card | None, ...] | None:
        """This turn's cards played face up so far (Open), per seat."""
        return None

    # ---------------------------------------------------------------- shared by most

    def _not_in_hand(self, game: Game, seat: int, card: Card, where: str = "not in hand") -> IllegalMoveError:
        return IllegalMoveError(
            f"{game.where()}: {game.who(seat)} cannot play card {card!r}: "
            f"{where} {sorted(game.hands[seat])}"
        )


class Simultaneous(TurnStructure):
    """Everyone chooses one card secretly (and may change it until the last player chooses)."""

    def __init__(self) -> None:
        self.waiting = 0  # seats still to choose this turn

    def start_turn(self, game: Game) -> None:
        self.waiting = game.players

    def retract(self, game: Game, seat: int) -> None:
        self.waiting += 1

    def decisions(self, game: Game) -> tuple[Decision, ...]:
        decisions = game.seat_card_decisions()
        if self.waiting == game.players:  # nobody has chosen yet: every seat's decision
            return tuple(decisions)
        # The decisions of the seats that have not chosen (an empty choice is falsy), in C.
        return tuple(compress(decisions, map(not_, game.choices)))

    def play(self, game: Game, seat: int, card: Card) -> bool:
        if card not in game.hands[seat]:
            raise self._not_in_hand(game, seat, card)
        choices = game.choices
        if choices[seat]:
            choices[seat] = (card,)  # a changed mind: nobody else learns anything new
            return False
        choices[seat] = (card,)
        try:  # the shared event (_CHOSEN), read here directly: this runs for nearly every card played
            game.events.append(_CHOSEN[game.deal_index][game.turn][seat])
        except IndexError:
            game.events.append(_card_chosen(game.deal_index, game.turn, seat))
        self.waiting -= 1
        return not self.waiting


class Pairs(TurnStructure):
    """§6 Nifty: two secret cards each; after the reveal each owner orders their pair when due."""

    per_turn = 2

    def __init__(self) -> None:
        self.left: dict[int, list[Card]] = {}  # seats whose pair is revealed but not ordered
        self.orders: dict[int, list[Card]] = {}  # each seat's pair, in the order placed

    def decisions(self, game: Game) -> tuple[Decision, ...]:
        return tuple(
            Decision(_CARD, seat, game.unchosen(seat)) for seat in range(game.players) if len(game.choices[seat]) < 2
        )

    def play(self, game: Game, seat: int, card: Card) -> bool:
        mine = game.choices[seat]
        if len(mine) >= 2:
            raise IllegalMoveError(
                f"{game.where()}: {game.who(seat)} has already chosen {list(mine)}: retract them to change"
            )
        available = list(game.hands[seat])
        for chosen in mine:
            available.remove(chosen)
        if card not in available:
            raise self._not_in_hand(game, seat, card, "not in hand" if card not in game.hands[seat] else "already chosen")
        game.choices[seat] = (*mine, card)
        if not mine:
            game.events.append(_card_chosen(game.deal_index, game.turn, seat))
        return all(len(c) == 2 for c in game.choices)

    def reveal(self, game: Game) -> tuple[tuple[SeatCard, ...], Cards, int | None, list[SeatCard]]:
        # Each seat's pair ascending: the order they were picked in is nobody's business. Nothing
        # is queued until the pair's owner says which goes first.
        seat_cards = tuple((seat, c) for seat, cards in enumerate(game.choices) for c in sorted(cards))
        self.orders = {}
        self.left = {seat: list(cards) for seat, cards in enumerate(game.choices)}
        return seat_cards, tuple([card for _, card in seat_cards]), None, []

    def more_to_queue(self, game: Game) -> bool:
        return bool(self.left)

    def unqueued(self, game: Game) -> Cards:
        return tuple(sorted(c for cards in self.left.values() for c in cards))

    def next_seat(self, game: Game) -> int:
        """The seat holding the lowest card not yet placed places both of theirs next."""
        left = self.left
        return min(left, key=lambda s: (min(left[s]), s))

    def order_decision(self, game: Game) -> Decision:
        seat = self.next_seat(game)
        return Decision(_ORDER_KIND, seat, tuple(sorted(self.left[seat])))

    def order(self, game: Game, seat: int, card: Card) -> list[SeatCard]:
        """``seat`` places ``card`` first of its pair; returns the pair, in the order placed."""
        due = self.next_seat(game)
        if seat != due:
            raise IllegalMoveError(
                f"{game.where()}: {game.who(seat)} cannot order card {card!r}: it is "
                f"{game.who(due)}'s cards that are placed next"
            )
        pair = self.left[seat]
        if card not in pair:
            raise IllegalMoveError(
                f"{game.where()}: {game.who(seat)} cannot place card {card!r} first: "
                f"their cards are {sorted(pair)}"
            )
        rest = list(pair)
        rest.remove(card)
        del self.left[seat]
        self.orders[seat] = [card, rest[0]]
        game.events.append(OrderChosen(game.deal_index, game.turn, seat, (card, rest[0])))
        return [(seat, card), (seat, rest[0])]


class Sequence(TurnStructure):
    """§6 Open: face up, one player after another, from the seat holding the marker."""

    retractable = False

    def __init__(self) -> None:
        self.waiting = 0  # seats still to play this turn

    def start_turn(self, game: Game) -> None:
        self.waiting = game.players

    def first_player(self, game: Game) -> int:
        """The marker starts at seat 0 and passes on after every turn of the game."""
        return (game.deal_index * game.turns_per_deal + game.turn) % game.players

    def start_deal(self, game: Game) -> None:
        game.current = self.first_player(game)

    def decisions(self, game: Game) -> tuple[Decision, ...]:
        seat = game.current
        assert seat is not None
        return (Decision(_CARD, seat, tuple(game.hands[seat])),)

    def play(self, game: Game, seat: int, card: Card) -> bool:
        if seat != game.current:
            assert game.current is not None
            raise IllegalMoveError(
                f"{game.where()}: {game.who(seat)} cannot play card {card!r}: it is "
                f"{game.who(game.current)}'s turn to play"
            )
        if card not in game.hands[seat]:
            raise self._not_in_hand(game, seat, card)
        game.choices[seat] = (card,)
        game.events.append(make(CardShown, (game.deal_index, game.turn, seat, card)))
        game.current = (seat + 1) % game.players
        self.waiting -= 1
        if self.waiting:
            return False
        game.current = None  # nobody plays while the turn's cards are placed
        return True

    def after_turn(self, game: Game) -> bool:
        if super().after_turn(game):
            return True
        game.current = self.first_player(game)
        return False

    def face_up(self, game: Game) -> tuple[Card | None, ...] | None:
        if game.revealed is not None:
            return None
        return tuple(c[0] if c else None for c in game.choices)


class Solo(TurnStructure):
    """§6 Hand: one player's turn at a time: a card, then a second one or ``PASS``."""

    retractable = False

    def __init__(self) -> None:
        self.rounds = 0  # complete rounds of turns so far

    def start_deal(self, game: Game) -> None:
        game.current = 0

    def decision(self, game: Game) -> Decision:
        seat = game.current
        assert seat is not None
        if not game.choices[seat]:
            return Decision(_CARD, seat, tuple(game.hands[seat]))
        return Decision(_CARD, seat, (PASS, *game.unchosen(seat)), reason="second")

    def decisions(self, game: Game) -> tuple[Decision, ...]:
        return (self.decision(game),)

    def play(self, game: Game, seat: int, card: Card) -> bool:
        assert game.current is not None
        if seat != game.current:
            raise IllegalMoveError(
                f"{game.where()}: {game.who(seat)} cannot play card {card!r}: it is "
                f"{game.who(game.current)}'s turn"
            )
        decision = self.decision(game)
        if card not in decision.options:
            raise IllegalMoveError(
                f"{game.where()}: {game.who(seat)} cannot play card {card!r}: choose one of "
                f"{list(decision.options)}" + (" (0 = no second card)" if decision.reason else "")
            )
        if card != PASS:
            game.choices[seat] += (card,)
        return card == PASS or len(game.choices[seat]) == 2 or len(game.hands[seat]) == 1

    def reveal(self, game: Game) -> tuple[tuple[SeatCard, ...], Cards, int | None, list[SeatCard]]:
        seat = game.current
        assert seat is not None
        plays = game.choices[seat]
        seat_cards = tuple([(seat, card) for card in plays])
        return seat_cards, plays, seat, list(seat_cards)  # placed in the order played

    def after_turn(self, game: Game) -> bool:
        """Pass the turn on; True when the round just ended with the game's end condition."""
        assert game.current is not None
        seat = game.current
        while True:
            seat = (seat + 1) % game.players
            if seat == 0:
                self.rounds += 1
                if (
                    any(not h for h in game.hands)
                    or any(len(t) > HAND_VARIANT_PILE_LIMIT for t in game.taken)
                    or self.rounds >= HAND_VARIANT_ROUND_LIMIT
                ):
                    return True
            if game.hands[seat]:
                game.current = seat
                return False



#: The turn structure of each turn order.
STRUCTURES: dict[TurnOrder, type[TurnStructure]] = {
    TurnOrder.SIMULTANEOUS: Simultaneous,
    TurnOrder.PAIRS: Pairs,
    TurnOrder.SEQUENCE: Sequence,
    TurnOrder.SOLO: Solo,
}
