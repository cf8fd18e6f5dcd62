"""6 nimmt! as an OpenSpiel game: ``pyspiel.load_game("sixnimmt(players=4,variant=nifty)")``.

Importing this module registers the game ``sixnimmt`` with ``pyspiel.register_game``. Its states
are played by the engine (:class:`~sixnimmt.core.Game`): this module only translates, so every
variant plays by the one copy of the rules there is.

**Parameters**, one per rule (:class:`~sixnimmt.core.Rules`): ``players`` (4), ``variant``
(``standard``), ``target`` (0: none), ``deals`` (1; 0: none), ``end`` (``at-least``), ``pro_tie``
(``choose``), ``double_deck`` (``two-decks``); a smaller game's ``cards``, ``hand``, ``rows`` and
``row_limit`` (0: the full game's; :mod:`sixnimmt.rl.openspiel.tiny`); and how the returns come,
``terminal_rewards`` and ``zero_sum`` (false). The default game is one deal of the standard rules;
a whole game to 66 is ``sixnimmt(target=66,deals=0)``. A parameter the game does not know is
refused by OpenSpiel, naming it; a value the rules refuse raises ``pyspiel.SpielError`` with the
engine's reason.

**Moves.** A node where two or more players owe a decision (a simultaneous turn's cards: everyone
chooses at once, in secret) is a simultaneous node: ``apply_actions`` takes every player's action,
and a player who owes nothing there has the one legal action *pass*. A node where one player decides
(a row choice, a draft pick, Nifty's order, an Open or Hand turn, Hand's kept cards) is an ordinary
node of that player. As OpenSpiel's convention has it, ``apply_actions`` ignores the action of a
player with no legal action (send 0): its RL environment asks every player at every node. Actions
are those of the Gymnasium and PettingZoo envs (``sixnimmt.rl.encoding``):
0..103 the card ``action + 1``, 104..107 the row ``action - 104``, 108 pass (also Hand's "no second
card" and "keep no more").

**Chance** deals each shuffled deal one card at a time: the chance action ``c - 1`` deals card
``c``. The first hand's cards come first, in ascending order, then the next hand's, then the row
cards, each with the probability of drawing it from the cards not dealt yet (in Double, whose twins
make the order of a hand ambiguous, every card in any order, a card held twice twice as likely; its
rows turned up until four different cards start them). Dealing a hand in order is the same deal
with a tree ``hand!`` times smaller (:meth:`Shuffles.outcomes`). The shuffle of a later deal
is drawn when the move that ends the deal before it is made, and that move's result is shown once
the cards are dealt; nobody sees a dealt card until the deal starts. Logic and Tournament deal by
an open draft and have no chance node.

**Information.** What a player may see is the engine's view of its seat (``Game.view``): the
observation string lists that view's fields, the observation tensor is the envs' observation
vector of it, and the information state string adds what makes it perfect recall: the hands this
player was dealt, every public event of the game so far (cards are public only once revealed) and
its own moves not shown yet. The information state tensor (:class:`InfoStateLayout`) holds the same
for the deal in progress, card by card, and the scores of the deals before it.
:meth:`SixNimmtState.resample_from_infostate` draws a world a player cannot tell from the one it is
in (:func:`resample`); :class:`TurnBasedResampler` does the same for the turn-based conversion.

**Returns** are minus the bullheads taken: ``returns()[p]`` is minus player p's total so far (its
scored deals plus the piles of the deal in progress), and ``rewards()`` the change at the last step.
With ``terminal_rewards=true`` they come at the end only (returns and rewards are 0 until then):
the reward model ``TERMINAL`` that ``mcts.MCTSBot`` asks for.
"""

from __future__ import annotations

import copy
import json
import random
from collections import Counter
from math import comb
from typing import Any

import numpy as np
from numpy.typing import NDArray

from . import MISSING

try:
    import pyspiel
except ImportError as error:  # pragma: no cover - the extra is missing: say how to install it
    raise ImportError(MISSING) from error

from ...core import (
    BULLHEADS,
    DECK_SIZE,
    HAND_SIZE,
    ROW_COUNT,
    ROW_LIMIT,
    CardPlaced,
    CardShown,
    CardsKept,
    CardsRevealed,
    DealSetup,
    DealStarted,
    Decision,
    DraftPicked,
    Game,
    OrderChosen,
    PlayerView,
    RowsLaid,
    Rules,
    RulesError,
    SixNimmtError,
)
from ...core.rules import HAND_VARIANT_ROUND_LIMIT, MAX_PLAYERS, MIN_PLAYERS
from ...core.variants import Dealing, TurnOrder
from ..encoding import (
    N_ACTIONS,
    OBS_SIZE,
    PASS_ACTION,
    ROW_ACTION_BASE,
    SEGMENTS,
    action_to_move,
    encode,
    move_to_action,
    segment_slice,
)

GAME_NAME = "sixnimmt"
#: The game's parameters and their defaults: one per rule. OpenSpiel has no "none", so 0 stands for
#: no target, or no fixed number of deals.
DEFAULTS: dict[str, int | str] = {
    "players": 4,
    "variant": "standard",
    "target": 0,
    "deals": 1,
    "end": "at-least",
    "pro_tie": "choose",
    "double_deck": "two-decks",
    "terminal_rewards": False,
    "zero_sum": False,
    # A smaller game (docs/rl.md, "Tiny 6 nimmt!"); 0: the full game's (104 cards, hands of 10,
    # 4 rows of 5).
    "cards": 0,
    "hand": 0,
    "rows": 0,
    "row_limit": 0,
}
#: The full game's size, for the size parameters left at 0 when another is set.
FULL_SIZE = {"cards": DECK_SIZE, "hand": HAND_SIZE, "rows": ROW_COUNT, "row_limit": ROW_LIMIT}
#: Chance actions name cards, as card actions do: ``c - 1`` deals card ``c``.
CHANCE_OUTCOMES = 104



def _game_type(reward_model: Any, utility: Any) -> Any:
    return pyspiel.GameType(
        short_name=GAME_NAME,
        long_name="6 nimmt! (sixnimmt engine)",
        dynamics=pyspiel.GameType.Dynamics.SIMULTANEOUS,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=utility,
        reward_model=reward_model,
        max_num_players=MAX_PLAYERS,
        min_num_players=MIN_PLAYERS,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=DEFAULTS,
    )


_REWARDS, _TERMINAL = pyspiel.GameType.RewardModel.REWARDS, pyspiel.GameType.RewardModel.TERMINAL
_GENERAL, _ZERO = pyspiel.GameType.Utility.GENERAL_SUM, pyspiel.GameType.Utility.ZERO_SUM
GAME_TYPE = _game_type(_REWARDS, _GENERAL)
#: The game's type for ``(terminal_rewards, zero_sum)``: with terminal rewards the returns come at
#: the end only, as ``mcts.MCTSBot`` asks; zero-sum returns are what CFR's exploitability asks for.
GAME_TYPES = {
    (False, False): GAME_TYPE,
    (True, False): _game_type(_TERMINAL, _GENERAL),
    (False, True): _game_type(_REWARDS, _ZERO),
    (True, True): _game_type(_TERMINAL, _ZERO),
}


def rules_from_params(params: dict[str, Any]) -> Rules:
    """The engine's rules for the game's parameters (missing ones default); ``SpielError`` naming
    an unknown parameter or a value the rules refuse."""
    unknown = sorted(set(params) - set(DEFAULTS))
    if unknown:
        raise pyspiel.SpielError(
            f"unknown parameter(s) of {GAME_NAME}: {', '.join(unknown)}; it takes {', '.join(DEFAULTS)}"
        )
    given = {**DEFAULTS, **params}
    for flag in ("terminal_rewards", "zero_sum"):
        if not isinstance(given[flag], bool):
            raise pyspiel.SpielError(f"{GAME_NAME}: {flag} is true or false, not {given[flag]!r}")
    sized = {name: given[name] or FULL_SIZE[name] for name in FULL_SIZE}
    try:
        return Rules.from_dict({
            "size": sized if any(given[name] for name in FULL_SIZE) else None,
            "players": given["players"],
            "variant": given["variant"],
            "target": given["target"] or None,
            "deals": given["deals"] or None,
            "end": given["end"],
            "pro_tie": given["pro_tie"],
            "double_deck": given["double_deck"],
        }, sizes=True)
    except RulesError as error:
        raise pyspiel.SpielError(f"{GAME_NAME}: {error}") from None


def _bounds(rules: Rules) -> tuple[int, int]:
    """``(worst return, most decision nodes)`` of a game under ``rules``: bounds OpenSpiel asks for.

    A deal costs a player at most every bullhead of the deck (in Hand, with the cards left in hand
    counted again). A game to a target alone has no fixed length; it is bounded here by one deal per
    bullhead of the target and player, since each deal makes someone take a row (ten cards each
    cannot all fit on four rows of five)."""
    spec = rules.spec
    per_deal = sum(BULLHEADS[c] for c in rules.deck) * (1 + spec.left_in_hand_factor)
    players = rules.players
    if spec.turns_per_deal is None:
        # Hand: at most 50 rounds of single turns; a turn is two cards, a row choice for each, and
        # the cards kept of a taken row one at a time (a hand holds at most 16), then a pass.
        nodes_per_deal = HAND_VARIANT_ROUND_LIMIT * players * (2 + 2 + 17)
    else:
        # Each card of a hand: its share of a simultaneous node (or its own node in Open), a row
        # choice and an order for every player's card of the turn; and a draft of the whole deck.
        nodes_per_deal = rules.hand_size * (2 + 2 * players) + len(rules.deck)
    deals = rules.deals if rules.deals is not None else players * (rules.target or 1)
    worst = per_deal * deals
    if rules.target is not None:
        worst = min(worst, rules.target + per_deal)
    return -worst, nodes_per_deal * deals


class SixNimmtGame(pyspiel.Game):  # type: ignore[misc]
    """The game under one set of rules (its parameters); makes states and observers."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = dict(params or {})
        self.rules = rules_from_params(params)
        self.terminal_rewards = bool(params.get("terminal_rewards", False))
        self.zero_sum = bool(params.get("zero_sum", False))
        worst, length = _bounds(self.rules)
        super().__init__(
            GAME_TYPES[self.terminal_rewards, self.zero_sum],
            pyspiel.GameInfo(
                num_distinct_actions=N_ACTIONS,
                max_chance_outcomes=CHANCE_OUTCOMES,
                num_players=self.rules.players,
                min_utility=float(worst),
                max_utility=-float(worst) if self.zero_sum else 0.0,
                utility_sum=0.0 if self.zero_sum else None,
                max_game_length=length,
            ),
            {**DEFAULTS, **params},
        )

    def new_initial_state(self) -> SixNimmtState:
        return SixNimmtState(self, self.rules)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> SixNimmtObserver:
        return SixNimmtObserver(self, iig_obs_type, params)


class _Box:
    """Holds a state's engine game, so that cloning a state (OpenSpiel's clone is a deep copy)
    shares the game's events instead of copying them: they are immutable (core/events.py), and
    copying them was two thirds of a clone's time."""

    __slots__ = ("game",)

    def __init__(self, game: Game) -> None:
        self.game = game

    def __deepcopy__(self, memo: dict[int, Any]) -> _Box:
        game = self.game
        for event in game.events:
            memo[id(event)] = event
        memo[id(game.rules)] = game.rules
        return _Box(copy.deepcopy(game, memo))


class _NeedCards(Exception):
    """The engine asked for a deal whose cards chance has not dealt yet."""


class Shuffles:
    """The engine's dealer (``dealer(deal_index) -> DealSetup``) over the cards chance has dealt:
    the finished deals, and the cards of the next one as they come."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.setups: list[DealSetup] = []
        self.drawn: list[int] = []
        self._in_hands = rules.players * rules.hand_size
        self._deck = Counter(rules.deck)
        self.left = self._deck.copy()  # the cards not dealt yet, with their copies

    def __deepcopy__(self, memo: dict[int, Any]) -> Shuffles:
        # A clone shares what never changes (the rules, the deck, the finished deals' setups).
        new = copy.copy(self)
        new.setups, new.drawn, new.left = list(self.setups), list(self.drawn), self.left.copy()
        memo[id(self)] = new
        return new

    def __call__(self, deal_index: int) -> DealSetup:
        if deal_index < len(self.setups):
            return self.setups[deal_index]
        raise _NeedCards

    def outcomes(self) -> list[tuple[int, float]]:
        """The next card's chance outcomes: each card not dealt yet, as likely as its copies left.

        Without twins a hand is dealt in ascending order, which is the same deal with a tree
        ``hand!`` times smaller for each hand: the next card ``c`` of a hand that needs ``m`` more
        cards, all above its last one, comes with the chance that it is the lowest of ``m`` cards
        drawn from those left above that last one, ``C(above c, m - 1) / C(above last, m)``."""
        left = self.left
        drawn = len(self.drawn)
        if self.rules.spec.twins or drawn >= self._in_hands:
            total = sum(left.values())
            return [(card - 1, count / total) for card, count in sorted(left.items()) if count > 0]
        size = self.rules.hand_size
        needed = size - drawn % size
        last = self.drawn[-1] if drawn % size else 0
        above = sorted(card for card, count in left.items() if count > 0 and card > last)
        total = comb(len(above), needed)
        outcomes = []
        for index, card in enumerate(above):
            ways = comb(len(above) - index - 1, needed - 1)
            if ways:
                outcomes.append((card - 1, ways / total))
        return outcomes

    def draw(self, card: int) -> bool:
        """Deal ``card``; True once the deal is complete (its setup is then in ``setups``)."""
        self.drawn.append(card)
        self.left[card] -= 1
        drawn, size = self.drawn, self.rules.hand_size
        if len(drawn) <= self._in_hands:
            return False
        turned = drawn[self._in_hands :]
        rows = self.rules.row_count
        if len(set(turned)) < rows if self.rules.spec.twins else len(turned) < rows:
            return False
        hands = tuple(tuple(sorted(drawn[i : i + size])) for i in range(0, self._in_hands, size))
        self.setups.append(DealSetup(hands, tuple(turned)))
        self.drawn = []
        self.left = self._deck.copy()
        return True


class SixNimmtState(pyspiel.State):  # type: ignore[misc]
    """One game in progress: the engine's game, and the cards chance has dealt it."""

    def __init__(self, game: SixNimmtGame, rules: Rules) -> None:
        super().__init__(game)
        self.rules = rules
        self._players = rules.players
        self.shuffles = Shuffles(rules)
        #: The engine's answers so far, ``(seat, value)``: a game is rebuilt from them when it stopped
        #: for a deal's cards.
        self._moves: list[tuple[int, int]] = []
        #: Answers made that wait for the next deal's cards (the move that ended the deal).
        self._deferred: list[tuple[int, int]] = []
        shuffled = rules.spec.dealing is Dealing.SHUFFLE
        self._dealing = shuffled
        self._box: _Box | None = None if shuffled else _Box(Game(rules, dealer=self.shuffles))
        self._returns = [0.0] * self._players
        self._rewards = [0.0] * self._players
        self._terminal_rewards = game.terminal_rewards
        self._zero_sum = game.zero_sum
        self._current: int | None = None
        #: Every action as the turn-based conversion asks for it, ``(player, action)``: chance's
        #: cards, and at a simultaneous node the action of each player with a legal action, in seat
        #: order. A resampled world is replayed from it (:meth:`resample_from_infostate`).
        self.log: list[tuple[int, int]] = []

    @property
    def engine(self) -> Game | None:
        """The engine's game (None until the first deal is dealt)."""
        return None if self._box is None else self._box.game

    # ------------------------------------------------------------------ whose move

    def current_player(self) -> int:
        # Asked many times per node by OpenSpiel's wrappers and searches: kept until the next move.
        current = self._current
        if current is None:
            current = self._current = self._current_player()
        return current

    def _current_player(self) -> int:
        if self._dealing:
            return int(pyspiel.PlayerId.CHANCE)
        engine = self._engine()
        if engine.is_over:
            return int(pyspiel.PlayerId.TERMINAL)
        seats = {d.seat for d in engine.pending()}
        if len(seats) == 1:
            return next(iter(seats))
        return int(pyspiel.PlayerId.SIMULTANEOUS)

    def _engine(self) -> Game:
        assert self.engine is not None, "the first deal is still being dealt"
        return self.engine

    def decision(self, player: int) -> Decision | None:
        """The decision ``player`` owes now (None at chance nodes, at the end, or when it owes none)."""
        if self._dealing or self.engine is None:
            return None
        return self.engine.decision_for(player)

    def view(self, player: int) -> PlayerView | None:
        """What ``player`` may see now: the engine's view of its seat (None before the first deal)."""
        return None if self.engine is None else self.engine.view(player)

    def _legal_actions(self, player: int) -> list[int]:
        if self._dealing or self.engine is None or self.engine.is_over:
            return []
        decision = self.engine.decision_for(player)
        if decision is None:
            # At a simultaneous node everyone acts; a player owing nothing passes.
            return [PASS_ACTION] if self.current_player() == pyspiel.PlayerId.SIMULTANEOUS else []
        return sorted({move_to_action(option, decision) for option in decision.options})

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if not self._dealing:
            raise pyspiel.SpielError("chance_outcomes: this is not a chance node")
        return self.shuffles.outcomes()

    # ------------------------------------------------------------------ moves

    def _apply_action(self, action: int) -> None:
        self._current = None
        if self._dealing:
            if not 0 <= action < CHANCE_OUTCOMES or action not in dict(self.shuffles.outcomes()):
                raise pyspiel.SpielError(
                    f"{GAME_NAME}: chance action {action} (card {action + 1}) is not one chance may deal now "
                    "(a card left, each hand in ascending order)"
                )
            self.log.append((int(pyspiel.PlayerId.CHANCE), action))
            if self.shuffles.draw(action + 1):
                self._deal_complete()
            return
        player = self._current_player()
        if player == pyspiel.PlayerId.SIMULTANEOUS:
            raise pyspiel.SpielError(f"{GAME_NAME}: a simultaneous node takes apply_actions, one action per player")
        self._check(player, action)
        self.log.append((player, action))
        self._answer([(player, self._move(player, action))])
        self._current = None

    def _apply_actions(self, actions: list[int]) -> None:
        """One action per player. A player with no legal action here may send anything (0, say):
        OpenSpiel's convention, which its ``rl_environment`` follows at every node of a
        simultaneous game, the nodes where one player decides included."""
        if len(actions) != self._players:
            raise pyspiel.SpielError(f"{GAME_NAME}: {len(actions)} actions for {self._players} players")
        moves, acted = [], []
        for player, action in enumerate(actions):
            if not self._legal_actions(player):
                continue
            self._check(player, action)
            acted.append((player, action))
            if self.engine is not None and self.engine.decision_for(player) is not None:
                moves.append((player, self._move(player, action)))
        self._current = None
        self.log.extend(acted)
        self._answer(moves)
        self._current = None

    def _check(self, player: int, action: int) -> None:
        legal = self._legal_actions(player)
        if action not in legal:
            raise pyspiel.SpielError(
                f"{GAME_NAME}: illegal action {action} ({action_name(action)}) for player {player}; "
                f"legal: {[action_name(a) for a in legal] or 'none'}"
            )

    def _move(self, player: int, action: int) -> int:
        decision = self._engine().decision_for(player)
        assert decision is not None
        return action_to_move(action, decision)

    def _answer(self, moves: list[tuple[int, int]]) -> None:
        engine = self._engine()
        for index, (seat, value) in enumerate(moves):
            try:
                engine.act(seat, value)
            except _NeedCards:
                # The move ended a deal and the engine asked for the next one's cards: the game
                # is rebuilt as it was before the move, which waits until chance has dealt them.
                self._deferred = moves[index:]
                self._rebuild()
                self._dealing = True
                return
            except SixNimmtError as error:  # checked above; the engine has the last word
                raise pyspiel.SpielError(f"{GAME_NAME}: {error}") from None
            self._moves.append((seat, value))
        self._score()

    def _rebuild(self) -> None:
        engine = Game(self.rules, dealer=self.shuffles)
        for seat, value in self._moves:
            engine.act(seat, value)
        self._box = _Box(engine)

    def _deal_complete(self) -> None:
        self._dealing = False
        self._current = None
        if self._box is None:
            self._box = _Box(Game(self.rules, dealer=self.shuffles))
            return
        deferred, self._deferred = self._deferred, []
        self._answer(deferred)

    def _score(self) -> None:
        engine = self._engine()
        running = list(engine.totals) if engine.is_over else [t + p for t, p in zip(engine.totals, engine.penalties)]
        returns = [-float(x) for x in running]
        if self._zero_sum:  # each player's bullheads against the others' mean
            everyone, others = sum(running), self._players - 1
            returns = [(everyone - x) / others - x for x in running]
        self._rewards = [new - old for new, old in zip(returns, self._returns)]
        self._returns = returns

    # ------------------------------------------------------------------ outcome

    def is_terminal(self) -> bool:
        return not self._dealing and self.engine is not None and self.engine.is_over

    def returns(self) -> list[float]:
        if self._terminal_rewards and not self.is_terminal():
            return [0.0] * self._players
        return list(self._returns)

    def rewards(self) -> list[float]:
        if self._terminal_rewards:
            return self.returns()
        return list(self._rewards)

    # ------------------------------------------------------------------ resampling

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> SixNimmtState:
        """A state ``player_id`` cannot tell from this one, drawn at random: the same information
        state (string and tensor), the hidden cards dealt again (see :func:`resample`)."""
        seed = int(probability_sampler() * 2**53)
        return resample(self, player_id, random.Random(seed))

    # ------------------------------------------------------------------ text

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {action + 1}"
        return action_name(action)

    def information_state(self, player: int) -> str:
        """Everything ``player`` has seen, in order: perfect recall (see the module's docstring)."""
        pieces = [f"p{player}"]
        engine = self.engine
        started = 0 if engine is None else engine.deal_index + 1
        for deal, setup in enumerate(self.shuffles.setups[:started]):
            pieces.append(f"dealt {deal}: {list(setup.hands[player])}")
        if engine is not None:
            pieces.extend(map(_event_text, engine.events))
            mine = engine.choices[player]
            if mine:
                pieces.append(f"chosen {list(mine)}")
        for seat, value in self._deferred:
            pieces.append(f"moved p{seat}" + (f" {value}" if seat == player else ""))
        return "\n".join(pieces)

    def observation(self, player: int | None) -> str:
        """What ``player`` sees now: its seat's view, field by field (see the module's docstring);
        ``None``: what everyone sees (the spectator's view)."""
        engine = self.engine
        if engine is None:
            return f"{'' if player is None else f'p{player} '}dealing: {len(self.shuffles.drawn)} cards dealt"
        view = engine.view(player)
        fields = view.to_dict()
        del fields["seats"], fields["rules"]  # the same in every state of a game
        text = " ".join(f"{key}={json.dumps(value, separators=(',', ':'))}" for key, value in fields.items())
        if self._dealing:  # the move that ended the deal waits for the next deal's cards
            text += f" dealing={len(self.shuffles.drawn)}"
        return text

    def __str__(self) -> str:
        engine = self.engine
        if engine is None:
            return f"dealing: {self.shuffles.drawn}"
        spectator = engine.view(None).shared_to_dict()
        hands = [list(h) for h in engine.hands]
        return f"hands={hands} rows={spectator['rows']} totals={spectator['totals']} " \
               f"penalties={spectator['penalties']} phase={spectator['phase']} dealing={self._dealing}"


def action_name(action: int) -> str:
    """``card 57``, ``row 2``, ``pass``."""
    if 0 <= action < ROW_ACTION_BASE:
        return f"card {action + 1}"
    if ROW_ACTION_BASE <= action < PASS_ACTION:
        return f"row {action - ROW_ACTION_BASE}"
    if action == PASS_ACTION:
        return "pass"
    return f"action {action} (no such action: 0..{N_ACTIONS - 1})"


def _event_text(event: Any) -> str:
    return f"{event.type} {json.dumps(list(event), separators=(',', ':'))}"


def resample(state: SixNimmtState, player: int, draw: random.Random) -> SixNimmtState:
    """A world ``player`` cannot tell from ``state``, drawn with ``draw``: the same game replayed
    from its :attr:`~SixNimmtState.log`, with the deal in progress dealt again and this turn's
    secret choices of the others drawn again.

    The deal in progress keeps what ``player`` has seen: its own hand, the rows, and every card
    another seat has revealed or shown; the cards it has not seen (the others' hidden cards and
    those set aside) are shuffled and dealt back in their place. A card another seat chose this
    turn and has not revealed is replaced by one drawn from that seat's hand at the same moment.
    Earlier deals are kept as they were dealt: no card of theirs changes a decision to come."""
    if state.is_chance_node() or state.is_terminal():
        raise pyspiel.SpielError(f"{GAME_NAME}: resample_from_infostate at a decision node, not a chance node or the end")
    engine = state._engine()
    rules = state.rules
    log = list(state.log)
    chance = int(pyspiel.PlayerId.CHANCE)
    if rules.spec.dealing is Dealing.SHUFFLE:
        setup = state.shuffles.setups[-1]
        known = [
            list((Counter(shown) & Counter(setup.hands[seat])).elements())
            for seat, shown in enumerate(_shown_this_deal(engine, rules.players))
        ]
        unseen = Counter(rules.deck)
        unseen.subtract(setup.hands[player])
        unseen.subtract(setup.rows)
        for seat in range(rules.players):
            if seat != player:
                unseen.subtract(known[seat])
        pool = sorted(unseen.elements())
        draw.shuffle(pool)
        hands = []
        for seat, hand in enumerate(setup.hands):
            if seat == player:
                hands.append(list(hand))
                continue
            hidden = len(hand) - len(known[seat])
            hands.append(sorted([*known[seat], *pool[:hidden]]))
            del pool[:hidden]
        cards = [card for hand in hands for card in hand] + list(setup.rows)
        # The deal in progress is the last run of chance's cards in the log.
        last = max(i for i, (who, _) in enumerate(log) if who == chance)
        first = last - len(cards) + 1
        log[first : last + 1] = [(chance, card - 1) for card in cards]
    # This turn's secret choices of the others: their last card actions, drawn again on replay.
    secret: set[int] = set()
    if rules.spec.turn_order in (TurnOrder.SIMULTANEOUS, TurnOrder.PAIRS) and engine.revealed is None:
        for seat in range(rules.players):
            hidden_choices = len(engine.choices[seat]) if seat != player else 0
            index = len(log) - 1
            while hidden_choices and index >= 0:
                who, action = log[index]
                if who == seat and action < ROW_ACTION_BASE:
                    secret.add(index)
                    hidden_choices -= 1
                index -= 1
    return _replay_log(state.get_game(), log, secret, draw)


def _shown_this_deal(engine: Game, players: int) -> list[list[int]]:
    """The cards each seat has revealed or shown face up in the deal in progress."""
    shown: list[list[int]] = [[] for _ in range(players)]
    revealed_turns = set()
    for event in reversed(engine.events):
        if isinstance(event, DealStarted):
            break
        if isinstance(event, CardsRevealed):
            revealed_turns.add(event.turn)
            for seat, card in event.seat_cards:
                shown[seat].append(card)
    for event in reversed(engine.events):
        if isinstance(event, DealStarted):
            break
        if isinstance(event, CardShown) and event.turn not in revealed_turns:
            shown[event.seat].append(event.card)
    return shown


def _replay_log(game: Any, log: list[tuple[int, int]], secret: set[int], draw: random.Random) -> SixNimmtState:
    """A new state of ``game`` that takes the actions of ``log`` (the actions at the indexes in
    ``secret`` drawn again from the legal cards of their player at that moment)."""
    new: SixNimmtState = game.new_initial_state()
    players = new.num_players()
    index = 0
    while index < len(log):
        if new.is_chance_node():
            new.apply_action(log[index][1])
            index += 1
            continue
        if new.current_player() != pyspiel.PlayerId.SIMULTANEOUS:
            new.apply_action(_pick(new, log, index, secret, draw))
            index += 1
            continue
        joint = [0] * players
        for player in range(players):
            if new.legal_actions(player):
                joint[player] = _pick(new, log, index, secret, draw)
                index += 1
        new.apply_actions(joint)
    return new


def _pick(state: SixNimmtState, log: list[tuple[int, int]], index: int, secret: set[int], draw: random.Random) -> int:
    player, action = log[index]
    if index not in secret:
        return action
    cards = [a for a in state.legal_actions(player) if a < ROW_ACTION_BASE]
    return draw.choice(cards) if cards else action


class TurnBasedResampler:
    """``resampler(state, player)``: a world ``player`` cannot tell from ``state``, a state of the
    turn-based game (``pyspiel.convert_to_turn_based``) as OpenSpiel's Python ISMCTS asks of its
    ``set_resampler``. The C++ wrapper of the turn-based game does not pass
    ``resample_from_infostate`` on to the game it wraps: this does, and draws again the secret
    actions of the players before ``player`` at a simultaneous node."""

    def __init__(self, seed: int | None = None) -> None:
        self.draw = random.Random(seed)

    def __call__(self, state: Any, player: int) -> Any:
        if state.current_player() != player:
            raise pyspiel.SpielError(f"{GAME_NAME}: resample for the player to move ({state.current_player()}), not {player}")
        world = resample(state.simultaneous_game_state(), player, self.draw)
        new = state.get_game().new_initial_state()
        for _, action in world.log:
            new.apply_action(action)
        while new.current_player() != player:  # the others' secret actions earlier in this node
            legal = new.legal_actions()
            new.apply_action(legal[self.draw.randrange(len(legal))])
        return new


class InfoStateLayout:
    """The information state tensor of one game (its rules): what a player has seen of the deal in
    progress, card by card, and the scores of the deals before it.

    Card segments are ``N`` long (``N`` the highest card of the deck: index ``c - 1`` is card
    ``c``), some once per row (``R``), seat (``P``, absolute seats) or turn of the deal (``T``),
    as ``segment[k * N + c - 1]``. Counts are 0, 1 or (Double's twins) 2.

    ============== ======= ==========================================================================
    ``hand``       N       the player's hand now
    ``dealt``      N       its hand as dealt (shuffled deals)
    ``chosen``     N       the cards it has chosen this turn and nobody has seen yet
    ``rows``       R x N   the card(s) each row started with
    ``played_by``  P x N   who revealed (or showed face up) each card
    ``played_at``  T x N   the turn it was revealed (Hand, which has no fixed turns: one number,
                           ``(turn + 1) / 1000``)
    ``placed_row`` R x N   the row it was placed in
    ``placed_left`` N      placed at a row's left end (Professional)
    ``first``      N       placed first of its owner's pair (Nifty's order)
    ``drafted_by`` P x N   who drafted it (Logic, Tournament)
    ``draft_order`` N      when: ``(pick + 1) / N``
    ``kept_by``    P x N   who kept it from a taken row (Hand)
    ``totals``     P       each seat's score of the deals before this one, / 100
    ``deal``       1       the deal's number, / 100
    ============== ======= ==========================================================================

    In a one-deal game this is perfect recall: two histories give the same tensor exactly when the
    player saw the same (its information state string). In longer games earlier deals count by
    their scores alone (a new deal's play depends on nothing else of them). Two exceptions in
    the details: Hand, where a kept card can be played twice, and Double, where two copies of a card
    share their counts."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        cards = self.cards = max(rules.deck)
        rows, players = rules.row_count, rules.players
        self.turns = rules.turns_per_deal or 1
        sizes = {
            "hand": cards, "dealt": cards, "chosen": cards, "rows": rows * cards,
            "played_by": players * cards, "played_at": self.turns * cards, "placed_row": rows * cards,
            "placed_left": cards, "first": cards, "drafted_by": players * cards, "draft_order": cards,
            "kept_by": players * cards, "totals": players, "deal": 1,
        }
        self.slices: dict[str, slice] = {}
        at = 0
        for name, size in sizes.items():
            self.slices[name] = slice(at, at + size)
            at += size
        self.size = at

    def fill(self, tensor: NDArray[np.float32], state: SixNimmtState, player: int) -> None:
        tensor.fill(0.0)
        engine = state.engine
        if engine is None:
            return
        n, part = self.cards, {name: tensor[place] for name, place in self.slices.items()}
        for card in engine.hands[player]:
            part["hand"][card - 1] += 1
        deal = engine.deal_index
        if state.rules.spec.dealing is Dealing.SHUFFLE and deal < len(state.shuffles.setups):
            for card in state.shuffles.setups[deal].hands[player]:
                part["dealt"][card - 1] += 1
        for card in engine.choices[player]:
            part["chosen"][card - 1] += 1
        part["totals"][:] = np.asarray(engine.totals, np.float32) / 100
        part["deal"][0] = deal / 100
        events = []
        for event in reversed(engine.events):
            if isinstance(event, DealStarted):
                break
            events.append(event)
        events.reverse()
        laid: list[tuple[tuple[int, ...], ...]] = [
            e.rows for e in engine.events if isinstance(e, DealStarted) and e.deal == deal
        ]
        laid.extend(e.rows for e in events if isinstance(e, RowsLaid))
        for rows in laid:
            for row, cards in enumerate(rows):
                for card in cards:
                    part["rows"][row * n + card - 1] += 1
        revealed = {e.turn for e in events if isinstance(e, CardsRevealed)}
        picks = 0
        for event in events:
            if isinstance(event, CardsRevealed):
                for seat, card in event.seat_cards:
                    self._played(part, seat, card, event.turn)
            elif isinstance(event, CardShown) and event.turn not in revealed:
                self._played(part, event.seat, event.card, event.turn)
            elif isinstance(event, CardPlaced):
                part["placed_row"][event.row * n + event.card - 1] += 1
                if event.side == "left":
                    part["placed_left"][event.card - 1] += 1
            elif isinstance(event, OrderChosen):
                part["first"][event.cards[0] - 1] += 1
            elif isinstance(event, DraftPicked):
                picks += 1
                part["drafted_by"][event.seat * n + event.card - 1] += 1
                part["draft_order"][event.card - 1] = picks / n
            elif isinstance(event, CardsKept):
                for card in event.cards:
                    part["kept_by"][event.seat * n + card - 1] += 1

    def _played(self, part: dict[str, NDArray[np.float32]], seat: int, card: int, turn: int) -> None:
        n = self.cards
        part["played_by"][seat * n + card - 1] += 1
        if self.rules.turns_per_deal is None:
            part["played_at"][card - 1] = (turn + 1) / 1000
        else:
            part["played_at"][turn * n + card - 1] += 1


class SixNimmtObserver:
    """OpenSpiel's observer (``make_py_observer``): what one player sees now (the observation) or
    has seen (perfect recall: the information state, :class:`InfoStateLayout`), each as a tensor
    and a string; or, as strings only, the public part of the observation (the spectator's view)
    or its private part (the player's hand and its secret choices). Never another player's."""

    def __init__(self, game: SixNimmtGame, iig_obs_type: Any, params: dict[str, Any] | None) -> None:
        if params:
            raise ValueError(f"{GAME_NAME} takes no observation parameters, not {sorted(params)}")
        if iig_obs_type is None:
            iig_obs_type = pyspiel.IIGObservationType(perfect_recall=False)
        private = iig_obs_type.private_info
        if private == pyspiel.PrivateInfoType.ALL_PLAYERS or not (iig_obs_type.public_info or private != pyspiel.PrivateInfoType.NONE):
            raise ValueError(
                f"{GAME_NAME} observes as one player sees the table: public information, that "
                "player's own (private_info=SINGLE_PLAYER), or both"
            )
        self.perfect_recall = bool(iig_obs_type.perfect_recall)
        #: "player" (the whole observation), "public" or "private" (its parts, strings only).
        self.part = "player"
        if not iig_obs_type.public_info:
            self.part = "private"
        elif private == pyspiel.PrivateInfoType.NONE:
            self.part = "public"
        if self.part != "player" and self.perfect_recall:
            raise ValueError(f"{GAME_NAME}: perfect recall is the whole information state (public_info=True, private_info=SINGLE_PLAYER)")
        self.layout: InfoStateLayout | None = None
        self.tensor: NDArray[np.float32] | None = None
        self.dict: dict[str, NDArray[np.float32]] = {}
        if self.perfect_recall:
            self.layout = InfoStateLayout(game.rules)
            self.tensor = np.zeros(self.layout.size, np.float32)
            self.dict = {name: self.tensor[place] for name, place in self.layout.slices.items()}
        elif self.part == "player":
            self.tensor = np.zeros(OBS_SIZE, np.float32)
            self.dict = {segment.name: self.tensor[segment_slice(segment.name)] for segment in SEGMENTS}

    def set_from(self, state: SixNimmtState, player: int) -> None:
        if self.tensor is None:
            return
        if self.layout is not None:
            self.layout.fill(self.tensor, state, player)
            return
        view = state.view(player)
        if view is None:
            self.tensor.fill(0.0)
        else:
            self.tensor[:] = encode(view)

    def string_from(self, state: SixNimmtState, player: int) -> str:
        if self.perfect_recall:
            return state.information_state(player)
        if self.part == "public":
            return state.observation(None)
        if self.part == "private":
            view = state.view(player)
            return f"p{player}" if view is None else f"p{player} hand={list(view.hand)} chosen={list(view.my_choices)}"
        return state.observation(player)


pyspiel.register_game(GAME_TYPE, SixNimmtGame)
