"""The vector environments play exactly the checked engine's game, and say so in exactly the single
environments' encoding: every observation, mask, reward and final score of random games compared,
decision by decision, with ``Game`` fed the same deals and the same choices.

``SIXNIMMT_VECTOR_GAMES`` sets the games per configuration at 4 players (default 30, fewer at big
tables, more at small ones: about 100 whole games per variant; 300 makes thousands)."""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import pytest
from gymnasium.utils import env_checker
from gymnasium.utils.env_checker import data_equivalence

from sixnimmt.core import Game, IllegalMoveError, RulesError
from sixnimmt.rl.encoding import (
    N_ACTIONS,
    OBS_SIZE,
    PASS_ACTION,
    action_mask,
    action_to_move,
    encode,
)
from sixnimmt.rl.options import step_rewards
from sixnimmt.rl.parallel import scores
from sixnimmt.rl.policy import MlpPolicy
from sixnimmt.rl.vector import SixNimmtBatch, SixNimmtVectorEnv

GAMES = int(os.environ.get("SIXNIMMT_VECTOR_GAMES", "30"))

CONFIGS = [
    ("standard", 2, {}), ("standard", 4, {"reward": "relative"}), ("standard", 10, {"end": "above"}),
    ("tactics", 3, {}), ("tactics", 5, {"deals": 2}), ("tactics", 10, {"reward": "relative"}),
    ("professional", 2, {}), ("professional", 4, {"pro_tie": "left"}), ("professional", 6, {"pro_tie": "right"}),
    ("professional", 10, {"target": 30}),
]


def random_legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action for every mask (the last axis)."""
    noise = rng.random(masks.shape) * masks
    return noise.argmax(axis=-1)


def make_game(env: Any, g: int) -> Game:
    """The checked engine's game, dealt the vector game ``g``'s deals as it reaches them."""
    return Game(env.rules, dealer=lambda _deal: env.deal_setup(g))


@pytest.mark.parametrize("variant, players, options", CONFIGS)
def test_batch_plays_the_engines_game(variant: str, players: int, options: dict[str, Any]) -> None:
    reward = options.get("reward", "penalty")
    rules_options = {key: value for key, value in options.items() if key != "reward"}
    count = max(6, GAMES * 4 // players)  # whole games to check (the checked engine's encode is slow)
    batch = SixNimmtBatch(num_games=count, players=players, variant=variant, reward=reward, seed=players, **rules_options)
    obs, masks = batch.reset()
    games = [make_game(batch, g) for g in range(count)]
    rng = np.random.default_rng(players)
    finished = row_choices = 0
    while finished < count:
        for g, game in enumerate(games):
            for seat in range(players):
                view = game.view(seat)
                assert np.array_equal(masks[g, seat], action_mask(view.decision)), (g, seat, view.decision)
                assert np.array_equal(obs[g, seat], encode(view)), (g, seat, np.flatnonzero(obs[g, seat] != encode(view)))
        actions = random_legal(masks, rng)
        actions[masks[..., PASS_ACTION] == 1] = -5  # idle seats' actions are ignored, whatever they are
        before = [scores(game) for game in games]
        obs, masks, rewards, dones, info = batch.step(actions)
        for g, game in enumerate(games):
            pending = game.pending()
            row_choices += pending[0].kind.value == "row"
            for decision in pending:
                game.act(decision.seat, action_to_move(int(actions[g, decision.seat]), decision))
            assert np.allclose(rewards[g], step_rewards(before[g], scores(game), reward)), g
            assert dones[g] == game.is_over
            if game.is_over:
                assert info["totals"][g].tolist() == game.totals
                finished += 1
                games[g] = make_game(batch, g)
    assert row_choices > 0  # too-low cards (and Professional ties) were among the decisions checked


def lowest_legal(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """An opponent the test can replay in the engine: the lowest legal action."""
    return masks.argmax(axis=-1)


@pytest.mark.parametrize("variant, players, seat", [("standard", 4, None), ("tactics", 2, 1), ("professional", 5, None)])
def test_gymnasium_vector_env_is_the_single_env_game(variant: str, players: int, seat: int | None) -> None:
    """One learner against opponents, as SixNimmtEnv plays it: the opponents choose their cards
    before the learner is asked (so the learner sees them as chosen) and answer their own row
    choices in between; the learner's reward counts everything since its previous decision."""
    n = max(6, GAMES * 4 // players)
    env = SixNimmtVectorEnv(num_envs=n, players=players, variant=variant, opponents=lowest_legal, seat=seat, reward="relative")
    obs, info = env.reset(seed=7)
    seats = info["seat"]
    games = [make_game(env, g) for g in range(n)]
    rng = np.random.default_rng(1)
    finished = 0

    def advance(game: Game, me: int) -> None:  # SixNimmtEnv._advance, the bots playing lowest_legal
        while not game.is_over:
            owed = [d for d in game.pending() if d.seat != me]
            if not owed:
                return
            for decision in owed:
                game.act(decision.seat, action_to_move(int(action_mask(decision).argmax()), decision))

    for g, game in enumerate(games):
        advance(game, int(seats[g]))
    restarting = np.zeros(n, dtype=bool)
    while finished < n:
        for g, game in enumerate(games):
            if not restarting[g]:
                view = game.view(int(seats[g]))
                assert np.array_equal(obs["observation"][g], encode(view)), g
                assert np.array_equal(obs["action_mask"][g], action_mask(view.decision)), g
        actions = random_legal(obs["action_mask"], rng)
        before = [scores(game) for game in games]
        obs, rewards, terminated, truncated, info = env.step(actions)
        assert not truncated.any()
        for g, game in enumerate(games):
            me = int(seats[g])
            if restarting[g]:  # next-step autoreset: this step started game g's next game
                assert rewards[g] == 0 and not terminated[g]
                games[g] = make_game(env, g)
                seats[g] = info["seat"][g]
                advance(games[g], int(seats[g]))
                continue
            decision = game.decision_for(me)
            assert decision is not None
            game.act(me, action_to_move(int(actions[g]), decision))
            advance(game, me)
            assert rewards[g] == pytest.approx(step_rewards(before[g], scores(game), "relative")[me])
            assert terminated[g] == game.is_over
            if game.is_over:
                assert info["_totals"][g] and info["totals"][g].tolist() == game.totals
                finished += 1
        restarting = terminated.copy()


def test_seeds_repeat_runs_and_games_keep_their_own_streams() -> None:
    def run(seed: int, num: int) -> list[np.ndarray]:
        batch = SixNimmtBatch(num_games=num, players=3, seed=seed)
        obs, masks = batch.reset()
        seen = [obs[:2].copy()]
        for _ in range(40):
            obs, masks, *_ = batch.step(masks.argmax(axis=-1))
            seen.append(obs[:2].copy())
        return seen

    first = run(5, 4)
    assert all(np.array_equal(a, b) for a, b in zip(first, run(5, 4)))
    # Game g's deals depend on the seed and g alone, not on how many games run beside it.
    assert all(np.array_equal(a, b) for a, b in zip(first, run(5, 9)))
    assert not all(np.array_equal(a, b) for a, b in zip(first, run(6, 4)))


def test_illegal_actions_raise_and_change_nothing() -> None:
    batch = SixNimmtBatch(num_games=3, players=4, seed=2)
    _, masks = batch.reset()
    actions = masks.argmax(axis=-1)
    bad = actions.copy()
    bad[2, 1] = PASS_ACTION
    hands = batch.state.hands.copy()
    with pytest.raises(IllegalMoveError, match="game 2: seat 1 sent action 108"):
        batch.step(bad)
    assert np.array_equal(batch.state.hands, hands)
    with pytest.raises(IllegalMoveError, match="shape"):
        batch.step(actions[:2])
    with pytest.raises(IllegalMoveError, match="whole numbers"):
        batch.step(actions.astype(float))
    batch.step(actions)  # the legal ones still play
    assert not np.array_equal(batch.state.hands, hands)


@pytest.mark.parametrize(
    "kwargs, message",
    [({"variant": "nifty"}, "do not cover the nifty variant"), ({"players": 11}, "11 players"),
     ({"num_games": 0}, "at least 1"), ({"reward": "score"}, "unknown reward"),
     ({"seed": -1}, "seed must be")],
)
def test_bad_options_are_refused_clearly(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises((RulesError, ValueError), match=message):
        SixNimmtBatch(**kwargs).reset()


def test_vector_env_opponents_and_errors() -> None:
    with pytest.raises(ValueError, match="unknown opponent 'nobody'"):
        SixNimmtVectorEnv(num_envs=2, opponents="nobody")
    with pytest.raises(ValueError, match="2 opponent"):
        SixNimmtVectorEnv(num_envs=2, players=4, opponents=["random", "greedy"])
    with pytest.raises(ValueError, match="seat must be"):
        SixNimmtVectorEnv(num_envs=2, seat=4)
    # Mixed opponents, the shipped policy among them, play whole games: rewards add up to the totals.
    env = SixNimmtVectorEnv(num_envs=16, players=4, opponents=["random", "greedy", "learned"], seat=None)
    obs, info = env.reset(seed=1)
    returns = np.zeros(16)
    done = np.zeros(16, dtype=bool)
    while not done.all():
        obs, rewards, terminated, _, info = env.step(obs["action_mask"].argmax(axis=1))
        returns += np.where(done, 0.0, rewards)
        for g in np.flatnonzero(terminated & ~done):
            assert returns[g] == -info["totals"][g][info["seat"][g]]
        done |= terminated


def test_greedy_opponents_beat_random_ones() -> None:
    """The compiled greedy opponent is a real player: the same learner loses more to it."""
    def learner_loss(opponent: str) -> float:
        env = SixNimmtVectorEnv(num_envs=200, players=4, opponents=opponent, seat=None, reward="relative")
        obs, _ = env.reset(seed=3)
        rng = np.random.default_rng(0)
        total, done = 0.0, np.zeros(200, dtype=bool)
        while not done.all():
            obs, rewards, terminated, _, _ = env.step(random_legal(obs["action_mask"], rng))
            total += float(np.where(done, 0.0, rewards).sum())
            done |= terminated
        return -total / 200

    assert learner_loss("greedy") > learner_loss("random") + 5


def test_gymnasium_checks_that_apply_to_vector_envs() -> None:
    """Gymnasium's own checks (its check_env is for single envs; these parts of it are not)."""
    env = SixNimmtVectorEnv(num_envs=4, players=4, opponents="random", illegal_action="random")
    env_checker.check_space_limit(env.observation_space, "observation")
    env_checker.check_space_limit(env.action_space, "action")
    env_checker.check_reset_return_type(env)  # type: ignore[arg-type]
    env_checker.check_reset_seed_determinism(env)  # type: ignore[arg-type]
    env_checker.check_reset_options(env)  # type: ignore[arg-type]
    # check_returned_data_not_reused tests "terminated or truncated": one game makes those truthful.
    env_checker.check_returned_data_not_reused(SixNimmtVectorEnv(num_envs=1, illegal_action="random"))  # type: ignore[arg-type]
    # check_step_determinism, for arrays of results (it asserts `truncated is False`, a scalar).
    results = []
    for _ in range(2):
        env.action_space.seed(3)
        env.reset(seed=123)
        results.append(env.step(env.action_space.sample()))
    for a, b in zip(*results):
        assert data_equivalence(a, b, exact=True)
    obs, _ = env.reset(seed=1)
    assert obs in env.observation_space and env.single_observation_space["observation"].shape == (OBS_SIZE,)
    assert env.action_space.shape == (4,) and int(env.single_action_space.n) == N_ACTIONS


def test_random_fallback_for_illegal_actions_is_reported() -> None:
    env = SixNimmtVectorEnv(num_envs=3, players=3, illegal_action="random")
    obs, _ = env.reset(seed=0)
    sent = obs["action_mask"].argmax(axis=1)
    sent[1] = PASS_ACTION
    _, _, _, _, info = env.step(sent)
    assert info["_illegal_action"].tolist() == [False, True, False]
    assert info["illegal_action"][1] == PASS_ACTION


def test_a_policy_plays_the_same_on_the_vector_env_as_on_views() -> None:
    """The shipped policy's action from the vector env's observation is its action from the view."""
    policy = MlpPolicy.load()
    batch = SixNimmtBatch(num_games=20, players=4, seed=9)
    obs, masks = batch.reset()
    games = [make_game(batch, g) for g in range(20)]
    for _ in range(12):
        actions = policy.act_batch(obs.reshape(-1, OBS_SIZE), masks.reshape(-1, N_ACTIONS)).reshape(20, 4)
        for g, game in enumerate(games):
            if game.is_over:
                continue
            for seat in range(4):
                view = game.view(seat)
                assert actions[g, seat] == policy.act(encode(view), action_mask(view.decision))
            for decision in game.pending():
                game.act(decision.seat, action_to_move(int(actions[g, decision.seat]), decision))
        obs, masks, *_ = batch.step(actions)



def test_compiled_players_fill_the_seats_a_league_gives_them() -> None:
    from sixnimmt.rl.vector import COMPILED_OPPONENTS

    batch = SixNimmtBatch(num_games=32, players=5, variant="professional", seed=4)
    _, masks = batch.reset()
    kinds = np.full((32, 5), -1, dtype=np.int64)
    kinds[:, 1] = COMPILED_OPPONENTS["greedy"]
    kinds[:, 3] = COMPILED_OPPONENTS["random"]
    rng = np.random.default_rng(2)
    for _ in range(60):
        mine = random_legal(masks, rng)
        actions = batch.compiled_actions(kinds, mine.copy())
        owed = masks[..., PASS_ACTION] == 0
        # The compiled seats answer legally; the other seats keep the actions given.
        for seat in (1, 3):
            games = np.flatnonzero(owed[:, seat])
            assert masks[games, seat, actions[games, seat]].all()
        assert np.array_equal(actions[:, [0, 2, 4]], mine[:, [0, 2, 4]])
        _, masks, *_ = batch.step(actions)
