"""The shipped policy as a PyTorch checkpoint and as a Stable-Baselines3 model: the module gives the
bot's scores, at a table size with its own network (10 players) and without, and both make its
moves (needs the rl extra)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from sixnimmt.rl import SixNimmtParallelEnv
from sixnimmt.rl.policy import MlpPolicy
from sixnimmt.rl.torch_policy import PolicyFileError, load, main

torch = pytest.importorskip("torch")


def observations(players: int, steps: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    env = SixNimmtParallelEnv(players=players, seed=seed, deals=1, target=None)
    found, masks = [], []
    obs, _ = env.reset()
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        if not env.agents:
            obs, _ = env.reset()
        for agent in env.agents:
            found.append(obs[agent]["observation"])
            masks.append(obs[agent]["action_mask"])
        actions = {a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in env.agents}
        obs, *_ = env.step(actions)
    return np.array(found, np.float32), np.array(masks, np.int8)


def test_the_checkpoint_plays_the_shipped_policy(tmp_path: Path) -> None:
    main(["--out", str(tmp_path / "shipped.pt")])
    module = load(tmp_path / "shipped.pt")
    shipped = MlpPolicy.load()
    assert set(module.tables) == {str(count) for count in shipped.tables}
    for players in (2, 4, 10):
        x, masks = observations(players, 12, seed=players)
        with torch.no_grad():
            scores = module(torch.as_tensor(x)).numpy()
        assert np.allclose(scores, shipped.logits(x), atol=1e-3)
        mine = np.argmax(np.where(masks.astype(bool), scores, -np.inf), axis=-1)
        assert np.array_equal(mine, shipped.act_batch(x, masks))


def test_the_sb3_model_plays_the_shipped_policy(tmp_path: Path) -> None:
    """``MaskablePPO.load`` of the exported model, asked for its deterministic move with the action
    mask, makes the bot's move on positions of random games."""
    sb3_contrib = pytest.importorskip("sb3_contrib")
    main(["--out", str(tmp_path / "shipped.zip")])
    model = sb3_contrib.MaskablePPO.load(tmp_path / "shipped.zip", device="cpu")
    shipped = MlpPolicy.load()
    for players in (2, 4, 10):
        x, masks = observations(players, 12, seed=players + 20)
        actions, _ = model.predict(x, action_masks=masks.astype(bool), deterministic=True)
        assert np.array_equal(actions, shipped.act_batch(x, masks))
        with torch.no_grad():
            values = model.policy.predict_values(torch.as_tensor(x)).numpy()
        assert np.all(values == 0.0)  # the value head starts at zero: the policy file has none


def test_the_sb3_model_learns_on_from_the_shipped_policy(tmp_path: Path) -> None:
    """Fine-tuning as docs/rl.md says: loaded with an environment, the model trains, and what it
    learned is saved and loaded again."""
    sb3_contrib = pytest.importorskip("sb3_contrib")
    import gymnasium as gym
    from sb3_contrib.common.wrappers import ActionMasker

    from sixnimmt.rl.single import SixNimmtEnv

    main(["--out", str(tmp_path / "shipped.zip")])
    game = SixNimmtEnv(players=4, opponents="random", deals=1, target=None)
    vector = gym.wrappers.TransformObservation(game, lambda obs: obs["observation"], game.observation_space["observation"])
    env = ActionMasker(vector, lambda e: e.unwrapped.action_masks())
    model = sb3_contrib.MaskablePPO.load(tmp_path / "shipped.zip", env=env, n_steps=32, batch_size=16, n_epochs=1, seed=1, device="cpu")
    before = [p.detach().clone() for p in model.policy.action_net.parameters()]
    model.learn(32)
    after = list(model.policy.action_net.parameters())
    assert any(not torch.equal(b, a) for b, a in zip(before, after, strict=True))
    model.save(tmp_path / "tuned.zip")
    again = sb3_contrib.MaskablePPO.load(tmp_path / "tuned.zip", device="cpu")
    assert all(torch.equal(a, b) for a, b in zip(after, again.policy.action_net.parameters(), strict=True))


def test_a_file_that_is_not_a_checkpoint_is_refused(tmp_path: Path) -> None:
    torch.save({"format": "something else"}, tmp_path / "other.pt")
    with pytest.raises(PolicyFileError, match="not a sixnimmt-torch-policy checkpoint"):
        load(tmp_path / "other.pt")
