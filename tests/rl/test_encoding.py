"""The observation vector says what docs/rl.md says it says, computed from the seat's view only."""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest

from sixnimmt.core import BULLHEADS, PASS, DecisionKind, Game, IllegalMoveError, PlayerView, Rules
from sixnimmt.core.placement import Side, best_slots, row_size
from sixnimmt.core.rules import MAX_PLAYERS, MIN_PLAYERS, PLAYER_RANGE, Variant
from sixnimmt.rl.encoding import (
    N_ACTIONS,
    OBS_SIZE,
    PASS_ACTION,
    ROW_ACTION_BASE,
    SEGMENTS,
    VARIANT_NAMES,
    action_mask,
    action_to_move,
    encode,
    encode_seats,
    move_to_action,
    segment_slice,
)

VARIANTS = VARIANT_NAMES


def player_counts(variant: str) -> list[int]:
    low, high = PLAYER_RANGE.get(Variant(variant), (MIN_PLAYERS, MAX_PLAYERS))
    return sorted({low, 4 if low <= 4 <= high else low, high})


def cards_in(obs: np.ndarray, name: str) -> set[int]:
    return {int(i) + 1 for i in np.flatnonzero(obs[segment_slice(name)])}


def views_along_random_games(variant: str, players: int, seed: int, games: int = 2):
    """Every seat's view at every decision point of a few random games (the game too, to check)."""
    rng = random.Random(seed)
    for g in range(games):
        game = Game(Rules(players=players, variant=variant, deals=1), seed=seed * 100 + g)
        while not game.is_over:
            for seat in range(players):
                yield game, game.view(seat)
            for decision in game.pending():
                game.act(decision.seat, rng.choice(decision.options))


def test_layout_is_consistent() -> None:
    assert sum(s.size for s in SEGMENTS) == OBS_SIZE
    assert len({s.name for s in SEGMENTS}) == len(SEGMENTS)
    position = 0
    for segment in SEGMENTS:
        assert segment_slice(segment.name) == slice(position, position + segment.size)
        position += segment.size
    with pytest.raises(KeyError, match="no observation segment 'nope'"):
        segment_slice("nope")


def copies_in(obs: np.ndarray, name: str) -> Counter[int]:
    """Double: card segments hold copies / 2."""
    values = obs[segment_slice(name)]
    return Counter({int(i) + 1: round(values[i] * 2) for i in np.flatnonzero(values)})


@pytest.mark.parametrize("variant, players", [(v, n) for v in VARIANTS for n in player_counts(v)])
def test_card_segments_match_the_view(variant: str, players: int) -> None:
    for game, view in views_along_random_games(variant, players, seed=players):
        obs = encode(view)
        assert obs.dtype == np.float32 and obs.shape == (OBS_SIZE,)
        assert obs.min() >= 0.0 and obs.max() <= 1.0
        table = [c for row in view.rows for c in row]
        # Cards of this turn waiting to be placed that this seat knows of.
        waiting = list(view.unplaced)
        if view.revealed is None:
            waiting += [c for c in view.my_choices if c not in waiting]
        waiting += [c for c in view.face_up or () if c is not None and c not in waiting]
        others = [] if view.hands is None else [c for s, h in enumerate(view.hands) if s != view.seat for c in h]
        if variant == "double":
            assert copies_in(obs, "hand") == Counter(view.hand)
            assert copies_in(obs, "table") == Counter(table)
            assert copies_in(obs, "unseen") == Counter(view.unseen_cards())
            assert copies_in(obs, "unplaced") == Counter(waiting)
            continue
        assert cards_in(obs, "hand") == set(view.hand)
        assert cards_in(obs, "table") == set(table)
        assert cards_in(obs, "unseen") == set(view.unseen_cards())
        assert cards_in(obs, "unplaced") == set(waiting)
        assert cards_in(obs, "draft_pool") == set(view.draft_pool)
        assert cards_in(obs, "others_hands") == set(others)
        # No hidden card reaches the vector: nobody else's hand unless the draft made it public.
        if view.hands is None:
            hidden = {c for s in range(players) if s != view.seat for c in game.hands[s]}
            hidden -= {c for c in view.face_up or () if c is not None}  # Open: face up, not yet placed
            visible = set().union(*(cards_in(obs, s.name) for s in SEGMENTS[:6] if s.name != "unseen"))
            assert not hidden & visible


@pytest.mark.parametrize("variant, players", [(v, n) for v in VARIANTS for n in player_counts(v)])
def test_every_seat_encoded_together_is_encoded_as_alone(variant: str, players: int) -> None:
    """The PettingZoo env encodes every seat of a moment at once, sharing what the seats have in
    common: each seat's vector must be exactly its own, with nothing of the seat encoded first."""
    rng = random.Random(players)
    game = Game(Rules(players=players, variant=variant, deals=1), seed=players)
    moments = 0
    while not game.is_over:
        views = [game.view(seat) for seat in range(players)]
        together = encode_seats(views)
        assert len(together) == players
        for seat in range(players):
            alone = encode(game.view(seat))
            assert together[seat].dtype == np.float32
            assert np.array_equal(together[seat], alone), (variant, players, seat, np.flatnonzero(together[seat] != alone))
        moments += 1
        decision = game.pending()[0]
        game.act(decision.seat, rng.choice(decision.options))
    assert moments >= 10
    assert encode_seats([]) == []


def test_views_of_different_moments_are_not_encoded_together() -> None:
    game = Game(Rules(players=3), seed=5)
    before = game.view(0)
    decision = game.pending()[0]
    game.act(decision.seat, decision.options[0])
    game.act(1, game.pending()[0].options[0])
    game.act(2, game.pending()[0].options[0])  # the turn is revealed: the table moved
    with pytest.raises(ValueError, match="different moments"):
        encode_seats([before, game.view(1)])
    other = Game(Rules(players=3), seed=6)
    with pytest.raises(ValueError, match="different moments"):
        encode_seats([game.view(0), other.view(1)])


@pytest.mark.parametrize("variant", ["standard", "tactics", "professional", "double"])
def test_hand_placement_features_agree_with_the_core(variant: str) -> None:
    checked = too_low_seen = takes_seen = 0
    double = variant == "double"
    for _, view in views_along_random_games(variant, 5, seed=9, games=6):
        if not view.hand or not all(view.rows):
            continue
        obs = encode(view)
        take, gap, low = obs[segment_slice("hand_take")], obs[segment_slice("hand_gap")], obs[segment_slice("hand_too_low")]
        costs = [sum(BULLHEADS[c] for c in row) for row in view.rows]
        for card in set(view.hand):
            slots = best_slots(view.rows, card, variant == "professional", stack=double)
            if not slots:
                too_low_seen += 1
                assert low[card - 1] == 1 and gap[card - 1] == 1
                assert take[card - 1] == pytest.approx(min(min(costs) / 20, 1))
            else:
                row = view.rows[slots[0].row]
                end = row[-1] if slots[0].side is Side.RIGHT else row[0]
                assert low[card - 1] == 0
                assert gap[card - 1] == pytest.approx(abs(card - end) / 104)
                full = end != card and row_size(row, double) == 5  # a stacked twin takes no place
                takes_seen += full
                assert take[card - 1] == pytest.approx(min(costs[slots[0].row] / 20, 1) if full else 0)
            checked += 1
        assert not take[[c - 1 for c in range(1, 105) if c not in view.hand]].any()
    assert checked > 500 and too_low_seen > 10 and takes_seen > 10


def test_rows_players_and_decision_features() -> None:
    game = Game(Rules(players=3, target=40), seed=4)
    rng = random.Random(4)
    row_decisions = 0
    while not game.is_over:
        for seat in range(3):
            view = game.view(seat)
            obs = encode(view)
            rows = obs[segment_slice("rows")].reshape(4, 6)
            for r, row in enumerate(view.rows):
                assert rows[r, 0] == pytest.approx(row[0] / 104) and rows[r, 1] == pytest.approx(row[-1] / 104)
                assert rows[r, 2] == pytest.approx(len(row) / 5) and rows[r, 4] == (len(row) == 5)
            slots = obs[segment_slice("players")].reshape(10, 5)
            assert slots[:, 0].tolist() == [1, 1, 1] + [0] * 7
            for k in range(3):  # slot k is the seat k places to the left
                other = (seat + k) % 3
                assert slots[k, 1] == pytest.approx(min(view.totals[other] / 40, 1))
                assert slots[k, 3] == pytest.approx(view.hand_sizes[other] / 10)
                assert slots[k, 4] == view.chosen[other]
            kind = obs[segment_slice("decision")]
            decision = view.decision
            if decision is None:
                assert not kind.any()
            elif decision.kind is DecisionKind.ROW:
                row_decisions += 1
                assert kind[1] == 1 and kind[5] == 1 and kind[7] == pytest.approx(decision.card / 104)
            else:
                assert kind[0] == 1 and not kind[1:].any()
            context = obs[segment_slice("context")]
            assert context[2] == pytest.approx(0.3) and context[3] == 1 and not context[4:].any()
        for decision in game.pending():
            game.act(decision.seat, rng.choice(decision.options))
    assert row_decisions > 0


@pytest.mark.parametrize("variant", VARIANTS)
def test_actions_and_moves_correspond(variant: str) -> None:
    game = Game(Rules(players=4, variant=variant, deals=2), seed=2)
    rng = random.Random(2)
    kinds = set()
    while not game.is_over:
        for decision in game.pending():
            kinds.add(decision.kind)
            mask = action_mask(decision)
            actions = [int(a) for a in np.flatnonzero(mask)]
            assert mask.shape == (N_ACTIONS,) and len(actions) == len(set(decision.options))
            assert sorted(action_to_move(a, decision) for a in actions) == sorted(set(decision.options))
            # PASS_ACTION is legal exactly when "no card" (Hand) is one of the options.
            assert (mask[PASS_ACTION] == 1) == (decision.kind is not DecisionKind.ROW and PASS in decision.options)
            if decision.kind is DecisionKind.ROW:
                assert all(ROW_ACTION_BASE <= a < PASS_ACTION for a in actions)
            move = rng.choice(decision.options)
            assert action_to_move(move_to_action(move, decision), decision) == move
            game.act(decision.seat, move)
    extra = {"logic": {DecisionKind.DRAFT}, "tournament": {DecisionKind.DRAFT},
             "nifty": {DecisionKind.ORDER}, "hand": {DecisionKind.KEEP}}.get(variant, set())
    assert {DecisionKind.CARD} | extra <= kinds
    assert move_to_action(5, None) == PASS_ACTION and action_mask(None).tolist() == [0] * PASS_ACTION + [1]


def test_a_finished_game_can_still_be_viewed_and_encoded() -> None:
    # Core change made for the env (game.view after the end); acting is still refused.
    game = Game(Rules(players=2, deals=1), seed=3)
    while not game.is_over:
        for d in game.pending():
            game.act(d.seat, d.options[0])
    view = game.view(1)
    assert isinstance(view, PlayerView) and view.decision is None and view.winners == game.winners
    assert encode(view)[segment_slice("decision")].sum() == 0
    with pytest.raises(IllegalMoveError, match="game is over"):
        game.play(0, 1)
    with pytest.raises(IllegalMoveError, match="no seat 2"):
        game.view(2)


def test_double_unseen_cards_count_every_hidden_twin() -> None:
    # Core fix made for the encoding: a card already played must not hide its twin in another hand.
    for _, view in views_along_random_games("double", 4, seed=5):
        known = Counter(view.hand) + Counter(c for row in view.rows for c in row)
        known += Counter(c for pile in view.taken for c in pile) + Counter(view.unplaced)
        game_hidden = Counter(view.rules.deck) - known
        assert Counter(view.unseen_cards()) == game_hidden
