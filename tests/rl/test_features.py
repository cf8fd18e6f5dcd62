"""The features a policy derives from the observation: ``cautious``'s card counting, computed from
the observation alone, and policies that read them."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from sixnimmt.bots.heuristics import CautiousBot, expected_cost
from sixnimmt.core import DecisionKind, Game, Rules
from sixnimmt.rl.encoding import N_ACTIONS, OBS_SIZE, action_mask, encode
from sixnimmt.rl.features import DERIVED_SIZE, derived
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
