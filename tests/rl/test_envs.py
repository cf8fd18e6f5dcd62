"""The PettingZoo and Gymnasium environments: the libraries' own conformance tests, and the
conventions docs/rl.md promises (who acts when, masks, rewards, illegal actions, seeding)."""

from __future__ import annotations

import random
import warnings
from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, seed_test

from sixnimmt.core import DecisionKind, IllegalMoveError, RulesError, replay
from sixnimmt.core.rules import MAX_PLAYERS, MIN_PLAYERS, PLAYER_RANGE, Variant
from sixnimmt.rl import N_ACTIONS, PASS_ACTION, SixNimmtEnv, SixNimmtParallelEnv, aec_env
from sixnimmt.rl.encoding import VARIANT_NAMES, move_to_action
from sixnimmt.seats import UnknownBotError

VARIANTS = VARIANT_NAMES  # all nine of docs/rules.md

#: The decision kinds each variant asks for, besides cards and rows.
EXTRA_KINDS = {"logic": {DecisionKind.DRAFT}, "tournament": {DecisionKind.DRAFT},
               "nifty": {DecisionKind.ORDER}, "hand": {DecisionKind.KEEP}}


def player_counts(variant: str) -> list[int]:
    low, high = PLAYER_RANGE.get(Variant(variant), (MIN_PLAYERS, MAX_PLAYERS))
    return sorted({low, (low + high) // 2, high})


def legal(mask: np.ndarray) -> list[int]:
    return [int(a) for a in np.flatnonzero(mask)]


def random_actions(obs: dict, rng: random.Random) -> dict[str, int]:
    return {agent: rng.choice(legal(o["action_mask"])) for agent, o in obs.items()}


@pytest.mark.parametrize("variant, players", [(v, n) for v in VARIANTS for n in player_counts(v)])
def test_parallel_api_test_passes(variant: str, players: int) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # PettingZoo reports most API slips as warnings only
        parallel_api_test(SixNimmtParallelEnv(players=players, variant=variant, seed=players), num_cycles=2000)


def test_parallel_seed_test_passes() -> None:
    # The seed test samples actions without the mask, so illegal ones are replaced by seeded draws.
    parallel_seed_test(lambda: SixNimmtParallelEnv(players=4, illegal_action="random"))


@pytest.mark.parametrize("variant", ["standard", "nifty", "logic"])
def test_parallel_seed_test_passes_with_the_defaults(variant: str) -> None:
    """Unmasked samples of an agent's action space are legal actions: PettingZoo's seed test plays
    whole games with ``illegal_action="raise"``."""
    parallel_seed_test(lambda: SixNimmtParallelEnv(players=3, variant=variant))


def test_an_unmasked_sample_is_a_legal_action_and_an_explicit_mask_still_rules() -> None:
    env = SixNimmtParallelEnv(players=3, seed=2)
    observations, _ = env.reset()
    space = env.action_space("player_1")
    space.seed(4)
    legal = set(np.flatnonzero(observations["player_1"]["action_mask"]))
    assert {int(space.sample()) for _ in range(50)} <= legal and len(legal) > 1
    only_pass = np.zeros(N_ACTIONS, np.int8)
    only_pass[PASS_ACTION] = 1
    assert space.sample(only_pass) == PASS_ACTION


def test_the_state_is_every_seats_observation_for_a_centralised_critic() -> None:
    env = SixNimmtParallelEnv(players=3, seed=3)
    observations, _ = env.reset()
    state = env.state()
    assert state.shape == env.state_space.shape and env.state_space.contains(state)
    parts = np.split(state, 3)
    for seat, part in enumerate(parts):
        assert np.array_equal(part, observations[f"player_{seat}"]["observation"])


@pytest.mark.parametrize("variant", ["standard", "logic", "professional", "nifty", "hand"])
def test_aec_conversion_passes_api_and_seed_tests(variant: str) -> None:
    with warnings.catch_warnings():
        # Dict observations (vector + action_mask) are the convention of PettingZoo's classic
        # games, which its AEC test still flags as unusual.
        warnings.filterwarnings("ignore", message="Observation")
        api_test(aec_env(players=3, variant=variant, seed=1), num_cycles=300)
    seed_test(lambda: aec_env(players=3, variant=variant))


@pytest.mark.parametrize("variant", VARIANTS)
def test_gymnasium_check_env_passes_with_the_default_settings(variant: str) -> None:
    # check_env steps with unmasked samples, one of them drawn before reset: the default answers an
    # illegal action with a random legal one (and says so in info).
    check_env(SixNimmtEnv(players=3, variant=variant, seat=None), skip_render_check=True)


def test_check_env_passes_with_the_render_check_and_warnings_as_errors(capsys: pytest.CaptureFixture[str]) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(gymnasium.make("sixnimmt/SixNimmt-v0").unwrapped, skip_render_check=False)
    assert "bullheads" in capsys.readouterr().out  # the "human" mode it tried printed


@pytest.mark.parametrize("make", [lambda mode: SixNimmtEnv(players=3, render_mode=mode),
                                  lambda mode: SixNimmtParallelEnv(players=3, render_mode=mode)])
def test_render_modes_follow_gymnasium(make: Any, capsys: pytest.CaptureFixture[str]) -> None:
    ansi, human = make("ansi"), make("human")
    for env in (ansi, human):
        assert env.metadata["render_fps"] > 0 and set(env.metadata["render_modes"]) == {"ansi", "human"}
    ansi.reset(seed=2)
    assert capsys.readouterr().out == ""
    text = ansi.render()
    assert isinstance(text, str) and "bullheads" in text
    human.reset(seed=2)
    assert capsys.readouterr().out.strip() == text  # reset renders by itself in "human" mode
    assert human.render() is None
    assert capsys.readouterr().out.strip() == text


def test_the_gym_env_replaces_an_illegal_action_by_default() -> None:
    default = SixNimmtEnv(players=3)
    obs, _ = default.reset(seed=1)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    _, _, _, _, info = default.step(illegal)
    assert info["illegal_action"] == illegal


def test_registered_with_gymnasium() -> None:
    env = gymnasium.make("sixnimmt/SixNimmt-v0", players=2, variant="logic")
    obs, _ = env.reset(seed=0)
    assert obs["action_mask"][PASS_ACTION] == 0 and obs["action_mask"].sum() > 0


@pytest.mark.parametrize("variant", VARIANTS)
def test_masks_match_each_seats_decision_and_the_game_follows_the_actions(variant: str) -> None:
    env = SixNimmtParallelEnv(players=4, variant=variant, pro_tie="choose", seed=3, target=40)
    rng = random.Random(3)
    kinds: set[DecisionKind] = set()
    for _ in range(3):
        obs, _ = env.reset()
        while env.agents:
            game = env.game
            for seat, agent in enumerate(env.possible_agents):
                decision = game.decision_for(seat)
                mask = obs[agent]["action_mask"]
                if decision is None:
                    assert legal(mask) == [PASS_ACTION]
                    continue
                kinds.add(decision.kind)
                assert legal(mask) == sorted({move_to_action(o, decision) for o in decision.options})
            deciders = [d.seat for d in game.pending()]
            # One decision at a time outside the simultaneous card choice.
            assert len(deciders) == 1 or all(d.kind is DecisionKind.CARD for d in game.pending())
            obs, *_ = env.step(random_actions(obs, rng))
        # The env drives the real engine: its record replays to the same result.
        record = env.game.record()
        assert replay(record).game.totals == env.game.totals
    assert kinds == {DecisionKind.CARD, DecisionKind.ROW} | EXTRA_KINDS.get(variant, set())


@pytest.mark.parametrize("variant, mode", [(v, "penalty") for v in VARIANTS] + [("standard", "relative"), ("double", "relative")])
def test_rewards_add_up_to_the_scores(variant: str, mode: str) -> None:
    env = SixNimmtParallelEnv(players=5, variant=variant, reward=mode, seed=11)
    rng = random.Random(11)
    obs, _ = env.reset()
    earned = dict.fromkeys(env.possible_agents, 0.0)
    infos: dict = {}
    while env.agents:
        obs, rewards, _terminations, _truncations, infos = env.step(random_actions(obs, rng))
        for agent, reward in rewards.items():
            earned[agent] += reward
    totals = env.game.totals
    assert sum(totals) > 0
    for seat, agent in enumerate(env.possible_agents):
        assert infos[agent]["totals"] == totals
        assert infos[agent]["won"] == (totals[seat] == min(totals))
        if mode == "penalty":
            assert earned[agent] == -totals[seat]
        else:
            others = (sum(totals) - totals[seat]) / 4
            assert earned[agent] == pytest.approx(others - totals[seat])
    if mode == "relative":
        assert sum(earned.values()) == pytest.approx(0.0)


def test_illegal_or_missing_action_raises_and_changes_nothing() -> None:
    env = SixNimmtParallelEnv(players=3, seed=2)
    obs, _ = env.reset()
    events = len(env.game.events)
    hands = [list(h) for h in env.game.hands]
    actions = {agent: legal(o["action_mask"])[0] for agent, o in obs.items()}
    card_not_held = next(a for a in range(104) if obs["player_2"]["action_mask"][a] == 0)
    with pytest.raises(IllegalMoveError, match=r"player_2 sent action \d+ for its card decision: legal actions are"):
        env.step({**actions, "player_2": card_not_held})
    with pytest.raises(IllegalMoveError, match="player_1 sent no action"):
        env.step({"player_0": actions["player_0"], "player_2": actions["player_2"]})
    with pytest.raises(IllegalMoveError, match="player_0 sent action 'x'"):
        env.step({**actions, "player_0": "x"})
    assert len(env.game.events) == events and [list(h) for h in env.game.hands] == hands
    env.step(actions)
    assert env.game.turn == 1 or env.game.phase.value == "row-choice"


def test_actions_of_agents_without_a_decision_are_ignored() -> None:
    env = SixNimmtParallelEnv(players=4, seed=5)
    rng = random.Random(5)
    obs, _ = env.reset()
    row_choices = 0
    while env.agents:
        pending = env.game.pending()
        actions = random_actions(obs, rng)
        if pending[0].kind is DecisionKind.ROW:
            row_choices += 1
            idle = [a for s, a in enumerate(env.possible_agents) if s != pending[0].seat]
            actions.update(dict.fromkeys(idle, 3))  # nonsense from agents owing nothing
        obs, _, _, _, infos = env.step(actions)
        assert not any("illegal_action" in info for info in infos.values())
    assert row_choices > 0


def test_random_fallback_is_flagged_in_infos() -> None:
    env = SixNimmtParallelEnv(players=2, illegal_action="random", seed=4)
    obs, _ = env.reset()
    bad = next(a for a in range(104) if obs["player_0"]["action_mask"][a] == 0)
    good = legal(obs["player_1"]["action_mask"])[0]
    _, _, _, _, infos = env.step({"player_0": bad, "player_1": good})
    assert infos["player_0"] == {"illegal_action": bad}
    assert infos["player_1"] == {}
    plays = env.game.played[0] if env.game.played else env.game.revealed  # a row choice may be due
    assert plays is not None and plays[1] == good + 1


def test_max_cycles_truncates_every_agent() -> None:
    env = SixNimmtParallelEnv(players=3, max_cycles=5, seed=1)
    obs, _ = env.reset()
    rng = random.Random(1)
    for _step in range(5):
        obs, _, terminations, truncations, _ = env.step(random_actions(obs, rng))
    assert all(truncations.values()) and not any(terminations.values()) and env.agents == []
    with pytest.raises(IllegalMoveError, match="reset"):
        env.step({})


def test_same_seed_same_game_different_seed_different_game() -> None:
    def first_hand(seed: int) -> list[int]:
        obs, _ = SixNimmtParallelEnv(players=4).reset(seed=seed)
        return legal(obs["player_0"]["action_mask"])

    assert first_hand(7) == first_hand(7)
    assert first_hand(7) != first_hand(8)


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        ({"players": 11}, RulesError, "11 players"),
        ({"variant": "bogus"}, RulesError, "unknown variant 'bogus'"),
        ({"reward": "score"}, ValueError, "unknown reward 'score'"),
        ({"illegal_action": "ignore"}, ValueError, "unknown illegal_action 'ignore'"),
        ({"render_mode": "rgb_array"}, ValueError, "unknown render_mode 'rgb_array'"),
    ],
)
def test_bad_options_are_refused_with_a_clear_message(kwargs: dict, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        SixNimmtParallelEnv(**kwargs)
    with pytest.raises(error, match=message):
        SixNimmtEnv(**kwargs)


def test_gym_env_plays_against_bots_and_rewards_its_own_bullheads() -> None:
    env = SixNimmtEnv(players=4, opponents=["random", "random", "random"], seat=None)
    seats = set()
    for game_seed in range(4):
        obs, info = env.reset(seed=game_seed)
        seats.add(info["seat"])
        earned, done = 0.0, False
        while not done:
            assert env.game.decision_for(env.seat) is not None  # the learner is asked only when it owes a move
            assert np.array_equal(obs["action_mask"], env.action_masks())
            assert obs["action_mask"][PASS_ACTION] == 0
            action = legal(obs["action_mask"])[0]
            obs, reward, done, truncated, info = env.step(action)
            earned += reward
            assert not truncated
        assert earned == -env.game.totals[env.seat] == -info["totals"][env.seat]
    assert len(seats) > 1


def test_gym_env_is_reproducible_from_its_seed() -> None:
    def play(seed: int) -> list[int]:
        env = SixNimmtEnv(players=3, variant="professional")
        obs, _ = env.reset(seed=seed)
        done = False
        while not done:
            obs, _, done, _, _ = env.step(legal(obs["action_mask"])[-1])
        return env.game.totals

    assert play(21) == play(21)


def test_gym_env_refuses_bad_opponents_and_illegal_actions() -> None:
    with pytest.raises(UnknownBotError, match="unknown bot 'no-such-bot'"):
        SixNimmtEnv(players=3, opponents="no-such-bot")
    with pytest.raises(ValueError, match="3 opponent"):
        SixNimmtEnv(players=3, opponents=["random"] * 3)
    with pytest.raises(ValueError, match="seat must be"):
        SixNimmtEnv(players=3, seat=3)
    env = SixNimmtEnv(players=3, illegal_action="raise")
    _obs, _ = env.reset(seed=1)
    with pytest.raises(IllegalMoveError, match="legal actions are"):
        env.step(N_ACTIONS - 1)
    assert all(env.game.chosen[s] is None for s in (env.seat,))
