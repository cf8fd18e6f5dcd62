"""Bots across the two worlds: ours inside OpenSpiel, and OpenSpiel's in our arena.

* :class:`SixNimmtBot` is a ``pyspiel.Bot`` that plays one of our bots (any spec) in the OpenSpiel
  game ``sixnimmt``: a researcher's OpenSpiel agent meets ``medium`` or ``expert`` without our arena.
* :func:`openspiel_bot` builds the arena's ``openspiel:ALGORITHM[:key=value...]`` bots: an OpenSpiel
  algorithm takes a seat. ``openspiel:ismcts`` is OpenSpiel's information-set Monte-Carlo tree
  search (Cowling, Powley and Whitehouse 2012, ``open_spiel.python.algorithms.ismcts``), run on the
  game made turn-based by ``pyspiel.convert_to_turn_based``, since it searches sequential games.

How an OpenSpiel bot sees the arena's game: a seat sees only its view and the public events. At each
decision the seat rebuilds the deal in progress as an OpenSpiel state of a one-deal game: its own hand
as dealt, the rows as they started, and the other hands dealt at random from the cards it has not seen
(the cards they played since are kept), then every move of the deal so far replayed from the events,
and this turn's hidden choices of the seats before it drawn from their hands. ISMCTS searches from
such states, drawing a fresh one for each simulation (its resampler), and plays its most visited
move. The search thus plays the deal at hand for the fewest bullheads, as our own searchers do, and
knows nothing of the deals before it. Variants with shuffled deals whose hands only shrink are
searched: standard, tactics, professional, open, nifty and double (Open: the deals whose marker starts
at seat 0, as in one-deal games); Logic and Tournament (drafts) and Hand (taken cards kept in hand)
are refused at the first decision, in one line.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import numpy as np

from ...bots import Bot
from ...core import (
    PASS,
    CardPlaced,
    CardShown,
    CardsRevealed,
    DealStarted,
    DecisionKind,
    Event,
    OrderChosen,
    PlayerView,
    RowChoiceRequired,
    Rules,
)
from ...core.variants import Dealing, TurnOrder
from ...seats.registry import OptionValue
from . import MISSING

try:
    import pyspiel
except ImportError as error:  # pragma: no cover - the extra is missing: say how to install it
    raise ImportError(MISSING) from error

from ..encoding import PASS_ACTION, action_to_move, move_to_action
from .game import SixNimmtState, rules_from_params

# ---------------------------------------------------------------------- our bots in OpenSpiel


class SixNimmtBot(pyspiel.Bot):  # type: ignore[misc]
    """One of our bots (``medium``, ``expert:samples=400``, ...) as a ``pyspiel.Bot`` for seat
    ``player_id`` of the OpenSpiel game ``sixnimmt``, in its simultaneous form (``step`` is asked at
    every node where the seat has a legal action, as ``evaluate_bots`` does) or turn-based
    (``pyspiel.convert_to_turn_based``: asked at the seat's own nodes). The bot sees the seat's
    view of the engine's game and nothing else."""

    def __init__(self, spec: str, player_id: int, seed: int | None = None) -> None:
        pyspiel.Bot.__init__(self)
        from ...seats import make_bot

        self.player_id = player_id
        self.bot = make_bot(spec, seed)

    def restart_at(self, state: Any) -> None:
        pass

    def inform_action(self, state: Any, player_id: int, action: int) -> None:
        pass

    def step(self, state: Any) -> int:
        if isinstance(state, pyspiel.TurnBasedSimultaneousState):
            state = state.simultaneous_game_state()
        if not isinstance(state, SixNimmtState):
            raise pyspiel.SpielError(
                f"SixNimmtBot plays states of the game 'sixnimmt' or of its turn-based form, not {type(state).__name__}"
            )
        view = state.view(self.player_id)
        if view is None or view.decision is None:
            if PASS_ACTION in state.legal_actions(self.player_id):
                return PASS_ACTION  # a simultaneous node where this seat owes nothing
            raise pyspiel.SpielError(f"player {self.player_id} has no decision to make here")
        return move_to_action(self.bot.decide(view), view.decision)


# ---------------------------------------------------------------------- OpenSpiel's bots in ours

#: The algorithms ``openspiel:`` knows, with their options and defaults.
ALGORITHMS: dict[str, dict[str, OptionValue]] = {
    "ismcts": {
        "simulations": 100,  # ISMCTS simulations per decision (each a fresh draw of the hidden cards)
        # Exploration constant of UCT. Returns are minus bullheads (about 10 a deal, not 1 as in
        # OpenSpiel's examples), so the constant is scaled up alike.
        "uct_c": 10.0,
        "rollouts": 1,  # random rollouts per leaf (OpenSpiel's RandomRolloutEvaluator)
        "policy": "max_visit_count",  # the move played: max_visit_count or max_value
    },
}


def _parse(argument: str) -> tuple[str, dict[str, OptionValue]]:
    """``ismcts:simulations=50`` -> ``("ismcts", {...every option...})``; ``ValueError`` naming the
    valid algorithms, keys and defaults otherwise."""
    name, _, rest = argument.strip().partition(":")
    if name not in ALGORITHMS:
        raise ValueError(f"unknown OpenSpiel algorithm {name!r}: choose one of {', '.join(ALGORITHMS)}")
    defaults = ALGORITHMS[name]
    options = dict(defaults)
    keys = ", ".join(f"{k}={v}" for k, v in defaults.items())
    for piece in rest.split(":") if rest else ():
        key, equals, text = piece.partition("=")
        key = key.strip()
        if key not in defaults or not equals:
            raise ValueError(f"openspiel:{name} takes {keys}; not {piece!r}")
        default = defaults[key]
        try:
            value: OptionValue = type(default)(text.strip())
        except ValueError:
            raise ValueError(f"openspiel:{name}: {key} is a {type(default).__name__}, not {text!r}") from None
        if isinstance(value, int | float) and value <= 0:
            raise ValueError(f"openspiel:{name}: {key} must be positive, not {text}")
        if key == "policy" and value not in ("max_visit_count", "max_value"):
            raise ValueError(f"openspiel:{name}: policy is max_visit_count or max_value, not {text!r}")
        options[key] = value
    return name, options


def openspiel_bot(argument: str, seed: int | None) -> Bot:
    """The bot of the spec ``openspiel:ARGUMENT`` (the registry's prefix factory)."""
    name, options = _parse(argument)
    return OpenSpielSeat(name, options, seed)


#: Variants an OpenSpiel seat can rebuild from what it sees (the module's docstring says why).
def searchable(rules: Rules) -> bool:
    spec = rules.spec
    return spec.dealing is Dealing.SHUFFLE and not spec.keeps_taken


class OpenSpielSeat(Bot):
    """An OpenSpiel algorithm in one of our seats (the spec ``openspiel:ismcts:...``)."""

    def __init__(self, algorithm: str, options: dict[str, OptionValue], seed: int | None = None) -> None:
        super().__init__(seed)
        self.algorithm = algorithm
        self.options = options
        self._events: list[Event] = []
        self._start_rows: dict[int, tuple[tuple[int, ...], ...]] = {}
        self._games: dict[Rules, tuple[Any, Any]] = {}  # rules -> (simultaneous game, turn-based game)
        self._np = np.random.RandomState(self.rng.randrange(2**32))

    def notify(self, event: Event, view: PlayerView) -> None:
        if isinstance(event, DealStarted):
            self._events = [event]  # each deal is searched on its own
            self._start_rows[event.deal] = event.rows
        else:
            self._events.append(event)

    def decide(self, view: PlayerView) -> int:
        decision = view.decision
        assert decision is not None and view.seat is not None
        if not searchable(view.rules):
            raise ValueError(
                f"openspiel:{self.algorithm} plays variants with shuffled deals whose hands only shrink "
                f"(standard, tactics, professional, open, nifty, double), not {view.rules.variant.value}"
            )
        if view.rules.spec.turn_order is TurnOrder.SEQUENCE and view.deal * (view.turns_per_deal or 0) % view.players:
            # The one-deal game it searches starts Open's marker at seat 0, as a game's first deal does.
            raise ValueError(
                f"openspiel:{self.algorithm} searches Open deals whose marker starts at seat 0 (a game's "
                f"first deal, or one-deal games); deal {view.deal + 1} starts elsewhere"
            )
        if len(decision.options) == 1:
            return decision.options[0]
        if view.deal not in self._start_rows and view.turn == 0 and not view.played and view.revealed is None:
            # The first deal starts before any event reaches a seat: its rows are those of the
            # seat's first view of it, taken before any card is placed.
            self._start_rows[view.deal] = view.rows
        if view.deal not in self._start_rows:
            raise ValueError(f"openspiel:{self.algorithm} missed the start of deal {view.deal + 1}")
        from open_spiel.python.algorithms import ismcts, mcts

        _, turn_based = self._game(view.rules)
        seat = view.seat
        resample = _Resampler(self, view, turn_based)
        evaluator = mcts.RandomRolloutEvaluator(n_rollouts=int(self.options["rollouts"]), random_state=self._np)
        final = (
            ismcts.ISMCTSFinalPolicyType.MAX_VALUE
            if self.options["policy"] == "max_value"
            else ismcts.ISMCTSFinalPolicyType.MAX_VISIT_COUNT
        )
        bot = ismcts.ISMCTSBot(
            game=turn_based,
            evaluator=evaluator,
            uct_c=float(self.options["uct_c"]),
            max_simulations=int(self.options["simulations"]),
            random_state=self._np,
            final_policy_type=final,
        )
        bot.set_resampler(lambda state, player: resample())
        root = resample()
        if root.current_player() != seat:
            raise RuntimeError(f"rebuilt the deal for seat {seat}, but it is player {root.current_player()}'s move")
        action = int(bot.step(root))
        return action_to_move(action, decision)

    def _game(self, rules: Rules) -> tuple[Any, Any]:
        """The one-deal OpenSpiel game of ``rules`` (simultaneous and turn-based), made once."""
        key = rules
        if key not in self._games:
            params: dict[str, Any] = {
                "players": rules.players, "variant": rules.variant.value, "target": 0, "deals": 1,
                "pro_tie": rules.pro_tie.value, "double_deck": rules.double_deck.value,
            }
            rules_from_params(params)  # a clear error before OpenSpiel's
            game = pyspiel.load_game("sixnimmt", params)
            self._games[key] = (game, pyspiel.convert_to_turn_based(game))
        return self._games[key]

    def rebuild(self, view: PlayerView, draw: random.Random) -> list[int]:
        """The turn-based actions that lead to a world consistent with ``view``: the deal as the
        seat saw it, the hidden cards drawn with ``draw``. Checked by replaying them."""
        assert view.seat is not None
        game, _ = self._game(view.rules)
        rules = view.rules
        seat, players = view.seat, rules.players
        events = [e for e in self._events if getattr(e, "deal", view.deal) == view.deal]
        # Every card each seat has shown this deal: revealed plays, and Open's face-up cards of a
        # turn not revealed yet.
        known: list[list[int]] = [[] for _ in range(players)]
        shown: list[list[int]] = [[] for _ in range(players)]
        revealed = set()
        for event in events:
            if isinstance(event, CardsRevealed):
                revealed.add(event.turn)
                for who, card in event.seat_cards:
                    known[who].append(card)
        for event in events:
            if isinstance(event, CardShown) and event.turn not in revealed:
                known[event.seat].append(event.card)
                shown[event.seat].append(event.card)
        # The cards this seat has not seen lie in the others' hands (or were set aside): deal them.
        unseen = list(view.unseen_cards())
        draw.shuffle(unseen)
        size = rules.hand_size
        hands: list[list[int]] = []
        for other in range(players):
            if other == seat:
                mine = [*known[other], *view.hand]
                if len(mine) > size:  # Open: a card shown this turn may still count in the hand
                    for card in shown[other]:
                        mine.remove(card)
                hands.append(mine)
                continue
            hidden = size - len(known[other])
            hands.append([*known[other], *unseen[:hidden]])
            del unseen[:hidden]
        rows = self._start_rows[view.deal]
        # Each hand dealt in ascending order, as the game deals them (Double: in any order).
        chance = [card - 1 for hand in hands for card in sorted(hand)] + [card - 1 for row in rows for card in row]
        return _replay(game, players, chance, events, view, draw)


class _Resampler:
    """A fresh world consistent with one view, as an OpenSpiel turn-based state, per call."""

    def __init__(self, seat: OpenSpielSeat, view: PlayerView, turn_based: Any) -> None:
        self.seat, self.view, self.turn_based = seat, view, turn_based
        self.draw = random.Random(seat.rng.randrange(2**63))

    def __call__(self) -> Any:
        state = self.turn_based.new_initial_state()
        for action in self.seat.rebuild(self.view, self.draw):
            state.apply_action(action)
        return state


def _replay(
    game: Any, players: int, chance: Sequence[int], events: Sequence[Event], view: PlayerView, draw: random.Random
) -> list[int]:
    """Replay a deal on the simultaneous game and return the turn-based actions that do the same:
    the chance cards, then each decision answered from the events, until the decisions of the
    moment of ``view``; there the seats before the viewer choose hidden cards drawn from their hands
    (the turn-based game asks the players of a simultaneous node in seat order)."""
    state = game.new_initial_state()
    actions: list[int] = []
    for action in chance:
        state.apply_action(action)
        actions.append(action)
    answers = _Answers(events)
    while True:
        engine = state.engine
        assert engine is not None and not state.is_chance_node()
        pending = engine.pending()
        moves = {d.seat: answers.answer(d, engine.turn) for d in pending}
        if any(move is None for move in moves.values()):
            break
        if len(pending) == 1:
            (decision,) = pending
            action = move_to_action(moves[decision.seat], decision)  # type: ignore[arg-type]
            state.apply_action(action)
            actions.append(action)
        else:
            joint = []
            for player in range(players):
                decision = engine.decision_for(player)
                joint.append(PASS_ACTION if decision is None else move_to_action(moves[player], decision))  # type: ignore[arg-type]
            state.apply_actions(joint)
            actions.extend(joint)
    seat = view.seat
    assert seat is not None
    simultaneous = state.current_player() == pyspiel.PlayerId.SIMULTANEOUS
    for card in view.my_choices if simultaneous else ():
        # Nifty: the seat already chose the first card of its pair (the others' stay hidden).
        joint = []
        for player in range(players):
            legal = state.legal_actions(player)
            joint.append(card - 1 if player == seat else legal[draw.randrange(len(legal))])
        state.apply_actions(joint)
        actions.extend(joint)
    mine = state.decision(seat)
    if mine is None or mine.kind is not view.decision.kind or mine.options != view.decision.options:  # type: ignore[union-attr]
        raise RuntimeError(f"the rebuilt deal asks seat {seat} for {mine}, not {view.decision}")
    if state.current_player() == pyspiel.PlayerId.SIMULTANEOUS:
        for player in range(seat):
            legal = state.legal_actions(player)
            actions.append(legal[draw.randrange(len(legal))])
    return actions


class _Answers:
    """Each decision of a deal answered from its public events: the cards of every revealed or
    shown play, the row each row choice went to, the card each Nifty pair placed first."""

    def __init__(self, events: Sequence[Event]) -> None:
        self.cards: dict[tuple[int, int], list[int]] = {}
        self.rows: dict[tuple[int, int, int], int] = {}
        self.order: dict[tuple[int, int], int] = {}
        asked: set[tuple[int, int, int]] = set()
        for event in events:
            if isinstance(event, CardsRevealed):
                for seat, card in event.seat_cards:
                    self.cards.setdefault((event.turn, seat), []).append(card)
            elif isinstance(event, CardShown):
                self.cards.setdefault((event.turn, event.seat), [event.card])
            elif isinstance(event, RowChoiceRequired):
                asked.add((event.turn, event.seat, event.card))
            elif isinstance(event, CardPlaced) and (event.turn, event.seat, event.card) in asked:
                self.rows[(event.turn, event.seat, event.card)] = event.row
            elif isinstance(event, OrderChosen):
                self.order[(event.turn, event.seat)] = event.cards[0]
        self._used: dict[tuple[int, int], int] = {}

    def answer(self, decision: Any, turn: int) -> int | None:
        seat = decision.seat
        if decision.kind is DecisionKind.ROW:
            return self.rows.get((turn, seat, decision.card))
        if decision.kind is DecisionKind.ORDER:
            return self.order.get((turn, seat))
        if decision.kind is DecisionKind.CARD:
            cards = self.cards.get((turn, seat))
            if cards is None:
                return None
            # Nifty: a pair is chosen one card after the other; the lower one first, as any order
            # of two secret choices gives the same turn.
            taken = self._used.get((turn, seat), 0)
            if taken >= len(cards):
                return PASS if PASS in decision.options else None
            self._used[(turn, seat)] = taken + 1
            return sorted(cards)[taken]
        return None
