"""The features a policy derives from the observation: ``cautious``'s card counting, computed from
the observation alone, and policies that read them."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from sixnimmt.bots.heuristics import CautiousBot, expected_cost
from sixnimmt.core import DecisionKind, Game, Rules
from sixnimmt.core.fast import row_cost
from sixnimmt.rl.encoding import N_ACTIONS, OBS_SIZE, action_mask, encode
from sixnimmt.rl.features import DERIVED_SIZE, CountingPolicy, counted_cost, derived
from sixnimmt.rl.policy import MlpPolicy, PolicyFileError


@pytest.mark.parametrize("players", [3, 10])
def test_danger_is_the_cautious_bots_expected_cost(players: int) -> None:
    compared = 0
    for seed in range(2):
        game = Game(Rules(players=players, target=None, deals=1), seed=seed)
        bots = [CautiousBot(s) for s in range(players)]
        while not game.is_over:
            for decision in game.pending():
                view = game.view(decision.seat)
                if decision.kind is DecisionKind.CARD:
                    features = derived(encode(view))
                    unseen = view.unseen_cards()
                    for card in view.hand:
                        if all(card < row[-1] for row in view.rows):
                            assert features[[card - 1, 104 + card - 1, 208 + card - 1]].tolist() == [0, 0, 0]
                            continue
                        cost = expected_cost(view, view.rows, card, unseen)
                        assert features[208 + card - 1] == pytest.approx(min(cost / 20, 1), abs=1e-6)
                        assert 0 <= features[104 + card - 1] <= 1
                        compared += cost > 0
                    outside = np.ones(104, dtype=bool)
                    outside[[c - 1 for c in view.hand]] = False
                    assert not features.reshape(3, 104)[:, outside].any()  # only hand cards
                game.act(decision.seat, bots[decision.seat].decide(view))
    assert compared >= 5  # positions where the card counting sees a risk (few at 3 players)


def test_a_batch_gives_each_rows_features() -> None:
    game = Game(Rules(players=5), seed=4)
    batch = np.stack([encode(game.view(seat)) for seat in range(5)])
    assert np.array_equal(derived(batch), np.stack([derived(row) for row in batch]))


@pytest.mark.parametrize(("variant", "counts"), [("standard", (2, 3, 4, 6, 10)), ("professional", (2, 5, 10)),
                                                 ("tactics", (3, 10)), ("double", (4, 10)), ("nifty", (2, 7))])
def test_one_observations_counting_is_the_batchs_number_for_number(variant: str, counts: tuple[int, ...]) -> None:
    """A playing bot counts one observation at a time by its own path (plain Python over the hand's
    cards); the environments count batches. They must agree exactly, or the bot and the policy it
    was trained as would differ: every decision of whole games, 2 to 10 players."""
    compared = 0
    for players in counts:
        game = Game(Rules(players=players, variant=variant, target=None, deals=1), seed=players)
        bots = [CautiousBot(s) for s in range(players)]
        observations = []
        while not game.is_over:
            for decision in game.pending():
                view = game.view(decision.seat)
                observations.append(encode(view))
                game.act(decision.seat, bots[decision.seat].decide(view))
        batch = counted_cost(np.stack(observations))
        for obs, row in zip(observations, batch):
            one = counted_cost(obs)
            assert one.dtype == np.float32 and np.array_equal(one, row), (players, np.flatnonzero(one != row))
            compared += int((one > 0).sum())
    assert compared >= 50  # cards with a cost, not only zeros


def test_a_policy_reading_the_features_plays_and_round_trips(tmp_path: Path) -> None:
    rng = np.random.default_rng(2)
    weights = [rng.normal(size=(8, OBS_SIZE + DERIVED_SIZE)).astype(np.float32),
               rng.normal(size=(N_ACTIONS, 8)).astype(np.float32)]
    biases = [np.zeros(8, dtype=np.float32), np.zeros(N_ACTIONS, dtype=np.float32)]
    policy = MlpPolicy(weights, biases, meta={"features": "derived"})
    view = Game(Rules(players=4), seed=1).view(0)
    assert view.decision is not None
    obs = encode(view)
    hidden = np.tanh(weights[0] @ np.concatenate([obs, derived(obs)]))
    assert np.allclose(policy.logits(obs), weights[1] @ hidden, atol=1e-4)
    assert action_mask(view.decision)[policy.act(obs, action_mask(view.decision))] == 1
    policy.save(tmp_path / "p.npz")
    loaded = MlpPolicy.load(tmp_path / "p.npz")
    assert loaded.features == "derived" and np.array_equal(loaded.logits(obs), policy.logits(obs))
    with pytest.raises(PolicyFileError, match="derived"):
        MlpPolicy(weights, biases)  # the same weights without the features: the sizes do not match
    with pytest.raises(PolicyFileError, match="unknown features"):
        MlpPolicy(weights, biases, meta={"features": "telepathy"})


def test_a_residual_policy_with_a_silent_network_plays_cautious_choices() -> None:
    """MLP output 0, residual -0.2: the card scores are minus cautious's expected costs, so the
    chosen card is one cautious rates cheapest (too-low cards at the cheapest row plus 0.5)."""
    hidden = 4
    policy = MlpPolicy([np.zeros((hidden, OBS_SIZE + DERIVED_SIZE), dtype=np.float32),
                        np.zeros((N_ACTIONS, hidden), dtype=np.float32)],
                       [np.zeros(hidden, dtype=np.float32), np.zeros(N_ACTIONS, dtype=np.float32)],
                       meta={"features": "derived", "residual": -0.2})
    checked = 0
    for players in (4, 10):
        game = Game(Rules(players=players, target=None, deals=1), seed=players)
        bots = [CautiousBot(s) for s in range(players)]
        while not game.is_over:
            for decision in game.pending():
                view = game.view(decision.seat)
                if decision.kind is DecisionKind.CARD:
                    unseen = view.unseen_cards()
                    costs = {card: expected_cost(view, view.rows, card, unseen) for card in view.hand}
                    card = policy.act(encode(view), action_mask(decision)) + 1
                    assert costs[card] == pytest.approx(min(costs.values()), abs=1e-5)
                    checked += 1
                game.act(decision.seat, bots[decision.seat].decide(view))
    assert checked == 4 * 10 + 10 * 10


def _silent(hidden: int = 4, residual: object = 0.0) -> MlpPolicy:
    """A policy whose network says nothing (all scores 0) and whose residual is ``residual``."""
    return MlpPolicy([np.zeros((hidden, OBS_SIZE), dtype=np.float32), np.zeros((N_ACTIONS, hidden), dtype=np.float32)],
                     [np.zeros(hidden, dtype=np.float32), np.zeros(N_ACTIONS, dtype=np.float32)],
                     meta={"residual": residual})


def test_a_residual_per_player_count_weighs_the_counting_at_its_table_size_only() -> None:
    weights = [0.0] * 11
    weights[10] = -2.0
    policy = _silent(residual=weights)
    for players, weight in ((10, -2.0), (4, 0.0)):
        view = Game(Rules(players=players), seed=3).view(0)
        obs = encode(view)
        assert np.allclose(policy.logits(obs)[:104], weight * counted_cost(obs), atol=1e-6)
    batch = np.stack([encode(Game(Rules(players=p), seed=3).view(0)) for p in (10, 4)])
    assert np.allclose(policy.logits(batch)[:, :104], np.stack([-2 * counted_cost(batch[0]), 0 * batch[1, :104]]))
    with pytest.raises(PolicyFileError, match="11 numbers"):
        _silent(residual=[-1.0] * 10)
    with pytest.raises(PolicyFileError, match="a number or a list"):
        _silent(residual="strong")


def test_the_counting_policy_plays_as_cautious_does() -> None:
    """The league's ``cautious`` over observations: the same card as the ``cautious`` bot in nearly
    every decision (its card counting is the bot's, from the observation), and a row of fewest
    bullheads when it must take one."""
    counting = CountingPolicy()
    same = cards = rows = 0
    for seed, players in ((1, 10), (2, 10), (3, 4), (4, 6)):
        game = Game(Rules(players=players, target=None, deals=1), seed=seed)
        bots = [CautiousBot(s) for s in range(players)]
        while not game.is_over:
            for decision in game.pending():
                view = game.view(decision.seat)
                pick = int(counting.act_batch(encode(view)[None], action_mask(decision)[None])[0])
                if decision.kind is DecisionKind.CARD:
                    cards += 1
                    same += pick + 1 == bots[decision.seat].decide(view)
                elif decision.kind is DecisionKind.ROW:
                    rows += 1
                    row = pick - 104
                    assert row in decision.options
                    if decision.reason == "too-low":
                        cost = min(row_cost(view.rows[r]) for r in decision.options)
                        assert row_cost(view.rows[row]) == cost
                game.act(decision.seat, bots[decision.seat].decide(view))
    assert cards == 10 * (10 + 10 + 4 + 6) and rows > 0
    assert same >= 0.95 * cards


def test_the_counting_policy_plays_snuggest_first_at_a_table_of_two() -> None:
    """At two players ``cautious`` plays cards of equal risk snuggest first (nearly every card is
    safe there): the league's copy follows it, so that a learner trained against it meets the
    ``medium`` it is measured against."""
    counting = CountingPolicy()
    same = cards = 0
    for seed in range(12):
        game = Game(Rules(players=2, target=None, deals=1), seed=seed)
        bots = [CautiousBot(s) for s in range(2)]
        while not game.is_over:
            for decision in game.pending():
                view = game.view(decision.seat)
                move = bots[decision.seat].decide(view)
                if decision.kind is DecisionKind.CARD:
                    pick = int(counting.act_batch(encode(view)[None], action_mask(decision)[None])[0])
                    cards += 1
                    same += pick + 1 == move
                game.act(decision.seat, move)
    assert cards == 12 * 2 * 10
    assert same >= 0.95 * cards


def test_a_row_residual_takes_the_cheapest_row_for_a_too_low_card() -> None:
    """A silent network with a row residual: where a too-low card must take a row, the policy takes
    one of fewest bullheads; the card scores are untouched (no card residual)."""
    policy = _silent(residual=0.0)
    policy.row_residual = np.asarray([-1.0], dtype=np.float32)
    chosen = 0
    for seed in range(6):
        game = Game(Rules(players=6, target=None, deals=1), seed=seed)
        bots = [CautiousBot(s) for s in range(6)]
        while not game.is_over:
            for decision in game.pending():
                view = game.view(decision.seat)
                obs = encode(view)
                if decision.kind is DecisionKind.ROW and decision.reason == "too-low":
                    row = policy.act(obs, action_mask(decision)) - 104
                    assert row_cost(view.rows[row]) == min(row_cost(r) for r in view.rows)
                    chosen += 1
                elif decision.kind is DecisionKind.CARD:
                    assert not policy.logits(obs).any()
                game.act(decision.seat, bots[decision.seat].decide(view))
    assert chosen >= 3
