"""The trained policy as a bot: numpy inference, legal moves everywhere, clear errors, and (where
the rl extra is installed) exactly the network that training produced."""

from __future__ import annotations

import importlib.util
import json
import random
from pathlib import Path

import numpy as np
import pytest

from sixnimmt.core import VARIANTS, Game, Rules
from sixnimmt.rl.encoding import (
    EARLIER_OBS_SIZES,
    N_ACTIONS,
    OBS_SIZE,
    VARIANT_NAMES,
    VARIANT_SLOTS,
    action_mask,
    encode,
    segment_slice,
)
from sixnimmt.rl.policy import DEFAULT_POLICY, MlpPolicy, PolicyFileError
from sixnimmt.seats import make_bot, play_game

ROOT = Path(__file__).resolve().parents[2]


def tiny_policy(seed: int = 0, hidden: int = 8, inputs: int = OBS_SIZE) -> MlpPolicy:
    rng = np.random.default_rng(seed)
    return MlpPolicy(
        [rng.normal(size=(hidden, inputs)).astype(np.float32), rng.normal(size=(N_ACTIONS, hidden)).astype(np.float32)],
        [rng.normal(size=hidden).astype(np.float32), rng.normal(size=N_ACTIONS).astype(np.float32)],
    )


def test_the_shipped_policy_matches_this_encoding() -> None:
    policy = MlpPolicy.load(DEFAULT_POLICY)
    assert policy.weights[0].shape[-1] in (OBS_SIZE, *EARLIER_OBS_SIZES) and policy.weights[-1].shape[-2] == N_ACTIONS
    assert policy.meta["players"] == [2, 3, 4, 6, 10] and policy.meta["variant"] == "standard"


def test_the_shipped_policy_plays_its_recorded_games_move_for_move() -> None:
    """Games the shipped policy played against seeded random bots, recorded when it was shipped: the
    same seeds give the same moves, deal for deal, and the same totals (a change of the encoding,
    the masks or the network's arithmetic that would change its play fails here)."""
    recorded = json.loads((Path(__file__).parent / "data" / "learned_games.json").read_text())
    assert {g["variant"] for g in recorded} >= {"standard", "tactics", "professional", "logic", "nifty", "double", "hand"}
    for entry in recorded:
        players, seed = entry["players"], entry["seed"]
        bots = [make_bot("learned", seed=0) if s % 2 == 0 else make_bot("random", seed=seed * 10 + s) for s in range(players)]
        game = play_game(Game(Rules(players=players, variant=entry["variant"]), seed=seed), bots)
        assert game.record()["deals"] == entry["deals"], (entry["variant"], players, seed)
        assert game.totals == entry["totals"]


def test_a_policy_for_the_earlier_layout_reads_its_prefix_of_the_vector() -> None:
    old = tiny_policy(5, inputs=EARLIER_OBS_SIZES[0])
    obs = np.random.default_rng(1).random((3, OBS_SIZE), dtype=np.float32)
    assert np.array_equal(old.logits(obs), old.logits(obs[:, : EARLIER_OBS_SIZES[0]]))
    with pytest.raises(PolicyFileError, match="this version of sixnimmt encodes"):
        tiny_policy(5, inputs=OBS_SIZE - 1)


def test_the_variant_one_hot_follows_the_core_specs_with_spare_slots() -> None:
    # The shipped policy was trained with these nine, in this order: new variants go after them.
    assert VARIANT_NAMES[:9] == ("standard", "tactics", "logic", "professional", "tournament", "open", "nifty", "hand", "double")
    assert VARIANT_NAMES == tuple(VARIANTS)
    assert VARIANT_SLOTS > len(VARIANT_NAMES)
    context = segment_slice("context")
    for name in VARIANT_NAMES:
        game = Game(Rules(players=3, variant=name), seed=1)
        one_hot = encode(game.view(0))[context][3:]
        assert one_hot.shape == (VARIANT_SLOTS,) and np.flatnonzero(one_hot).tolist() == [VARIANT_NAMES.index(name)]


@pytest.mark.parametrize(
    "variant, players",
    [("standard", 4), ("standard", 2), ("tactics", 6), ("logic", 3), ("professional", 10), ("tournament", 3),
     ("open", 5), ("nifty", 4), ("hand", 3), ("double", 6)],
)
def test_learned_bot_plays_whole_games_legally(variant: str, players: int) -> None:
    # Game.act refuses any illegal answer, so finishing proves every move was legal.
    game = play_game(Game(Rules(players=players, variant=variant), seed=players),
                     [make_bot("learned", seed=s) for s in range(players)])
    assert game.is_over and game.winners


@pytest.mark.parametrize("variant", ["standard", "professional", "open", "nifty", "hand", "double"])
def test_expert_learned_plays_whole_games_legally(variant: str) -> None:
    rules = Rules(players=4, variant=variant) if variant == "hand" else Rules(players=4, variant=variant, target=None, deals=1)
    game = play_game(Game(rules, seed=2), [make_bot("expert-learned:samples=4", seed=s) for s in range(4)])
    assert game.is_over and game.winners


def test_learned_bot_is_deterministic() -> None:
    def totals() -> list[int]:
        bots = [make_bot("learned", seed=0), make_bot("random", seed=1), make_bot("random", seed=2)]
        return play_game(Game(Rules(players=3), seed=8), bots).totals

    assert totals() == totals()


def test_masked_choice_never_picks_an_illegal_action() -> None:
    policy = tiny_policy()
    rng = np.random.default_rng(1)
    game = Game(Rules(players=4), seed=1)
    for seat in range(4):
        view = game.view(seat)
        obs, mask = encode(view), action_mask(view.decision)
        best_overall = int(np.argmax(policy.logits(obs)))
        chosen = policy.act(obs, mask)
        assert mask[chosen] == 1
        assert chosen == best_overall or mask[best_overall] == 0
        assert all(mask[policy.act(obs, mask, rng)] == 1 for _ in range(50))


def test_save_and_load_round_trip(tmp_path: Path) -> None:
    policy = tiny_policy(3)
    policy.meta = {"players": 4}
    policy.save(tmp_path / "p.npz")
    loaded = MlpPolicy.load(tmp_path / "p.npz")
    obs = np.random.default_rng(0).random(OBS_SIZE, dtype=np.float32)
    assert np.allclose(loaded.logits(obs), policy.logits(obs)) and loaded.meta == {"players": 4}


def test_bad_policy_files_give_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(PolicyFileError, match="no policy file at"):
        MlpPolicy.load(tmp_path / "missing.npz")
    (tmp_path / "junk.npz").write_text("not a zip")
    with pytest.raises(PolicyFileError, match="is not a policy file"):
        MlpPolicy.load(tmp_path / "junk.npz")
    np.savez(tmp_path / "wrong.npz", w0=np.zeros((N_ACTIONS, 7), np.float32), b0=np.zeros(N_ACTIONS, np.float32))
    with pytest.raises(PolicyFileError, match=f"maps 7 inputs to {N_ACTIONS} actions"):
        MlpPolicy.load(tmp_path / "wrong.npz")


# ---------------------------------------------------------------------- with the rl extra only


def _training_module():  # examples/ is not a package: load the script by path
    spec = importlib.util.spec_from_file_location("train_maskable_ppo", ROOT / "examples/rl/train_maskable_ppo.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow  # imports torch and trains a few steps
def test_exported_policy_equals_the_trained_network(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch", reason="needs the rl extra (pip install -e '.[rl]')")
    pytest.importorskip("sb3_contrib", reason="needs the rl extra (pip install -e '.[rl]')")
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    train = _training_module()
    args = type("Args", (), {"players": 4, "variant": "standard", "reward": "penalty", "deals": 1})()
    venv = DummyVecEnv([train.make_env(args, "random", 0)])
    model = MaskablePPO("MlpPolicy", venv, n_steps=64, batch_size=32, seed=0,
                        policy_kwargs={"net_arch": {"pi": [32, 16], "vf": [8]}})
    model.learn(total_timesteps=64)  # the weights move away from their initial values
    train.export(model, tmp_path / "p", {"players": 4})
    policy = MlpPolicy.load(tmp_path / "p.npz")

    env = train.make_env(args, "random", 5)()
    obs, _ = env.reset(seed=5)
    rng = random.Random(5)
    for _ in range(12):
        mask = env.action_masks()
        with torch.no_grad():
            tensor = torch.as_tensor(obs[None])
            latent = model.policy.mlp_extractor.forward_actor(model.policy.extract_features(tensor, model.policy.pi_features_extractor))
            expected = model.policy.action_net(latent).numpy()[0]
        assert np.allclose(policy.logits(obs), expected, atol=1e-5)
        predicted, _ = model.predict(obs, action_masks=mask, deterministic=True)
        assert policy.act(obs, mask.astype(np.int8)) == int(predicted)
        obs, _, done, _, _ = env.step(rng.choice([int(a) for a in np.flatnonzero(mask)]))
        if done:
            obs, _ = env.reset()


def test_the_learned_spec_takes_a_policy_file(tmp_path: Path) -> None:
    from sixnimmt.seats.registry import UnknownBotError

    tiny_policy(4).save(tmp_path / "mine.npz")
    bot = make_bot(f"learned:policy={tmp_path / 'mine.npz'}", seed=0)
    assert bot.policy.weights[0].shape == (8, OBS_SIZE)
    assert make_bot("learned", seed=0).policy is make_bot("learned:policy=shipped", seed=1).policy
    with pytest.raises(UnknownBotError, match="there is no file"):
        make_bot(f"learned:policy={tmp_path / 'missing.npz'}", seed=0)


def test_expert_learned_searches_the_policys_best_options() -> None:
    """keep=1 leaves the search one option, the policy's best: it plays as the learned bot does;
    a wider keep searches that many options, the policy's best ones."""
    from sixnimmt.rl.prior import searcher_with_prior

    learned = make_bot("learned", seed=0)
    narrow = make_bot("expert-learned:keep=1", seed=1)
    game = Game(Rules(players=4, target=None, deals=1), seed=21)
    compared = 0
    while not game.is_over:
        for decision in game.pending():
            view = game.view(decision.seat)
            move = learned.decide(view)
            assert narrow.decide(view) == move
            compared += len(decision.options) > 1
            game.act(decision.seat, move)
    assert compared >= 30
    wide = searcher_with_prior(2, keep=3, samples=8)
    view = Game(Rules(players=4, target=None, deals=1), seed=21).view(0)
    assert wide.prior is not None and view.decision is not None
    _, scores = wide.explain(view)
    assert set(scores) == set(wide.prior(view, view.decision.options)[:3])


def test_expert_learned_options_are_checked() -> None:
    from sixnimmt.seats import UnknownBotError

    for spec in ("expert-learned:keep=0", "expert-learned:policy=/no/such/file.npz"):
        with pytest.raises(UnknownBotError):
            make_bot(spec, seed=0)
