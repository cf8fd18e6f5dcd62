"""Train a 6 nimmt! policy with sb3-contrib's MaskablePPO on the Gymnasium environment.

Needs the ``rl`` extra (``pip install -e '.[rl]'``). The learner plays one seat (a random one each
game) of a whole game against built-in bots; several environments run side by side, each with its
own opponents, so the policy meets every listed bot. Every ``--export-every`` steps, and at the end,
the actor network is exported to ``OUT.npz`` (what the ``learned`` bot loads, numpy only) and the
whole model to ``--checkpoint`` (an sb3 .zip, to resume training with ``--resume``).

    nice python examples/rl/train_maskable_ppo.py --timesteps 1000000 \\
        --opponents random,easy,medium --out examples/rl/runs/standard4

It writes into ``examples/rl/runs/`` by default; the shipped policy (``sixnimmt/rl/policies/``) is
replaced only with ``--overwrite-shipped``. ``sixnimmt train`` (the vector env, self-play with a
league) is the faster way to train; this script is kept for sb3-contrib users.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

try:
    import torch
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.wrappers import ActionMasker
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.vec_env import DummyVecEnv
except ImportError as missing:  # one clear line instead of a traceback
    sys.exit(f"training needs the rl extra (pip install -e '.[rl]'): {missing}")

from sixnimmt.rl.encoding import move_to_action
from sixnimmt.rl.policy import POLICY_DIR, MlpPolicy
from sixnimmt.rl.single import SixNimmtEnv
from sixnimmt.seats import make_bot


class VectorOnly(gym.ObservationWrapper[Any, int, Any]):
    """The observation vector alone: the mask reaches MaskablePPO through ``action_masks``."""

    def __init__(self, env: SixNimmtEnv) -> None:
        super().__init__(env)
        self.observation_space = env.observation_space["observation"]

    def observation(self, observation: dict[str, np.ndarray]) -> np.ndarray:
        return observation["observation"]


def make_env(args: argparse.Namespace, opponent: str, seed: int) -> Any:
    def build() -> gym.Env[Any, int]:
        env = SixNimmtEnv(players=args.players, variant=args.variant, opponents=opponent, seat=None,
                          reward=args.reward, deals=args.deals)
        env.reset(seed=seed)
        return ActionMasker(VectorOnly(env), lambda e: e.unwrapped.action_masks())

    return build


def teacher_games(args: argparse.Namespace, teacher: str, opponents: list[str], decisions: int,
                  gamma: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``decisions`` of the ``teacher`` bot playing the learner's seat: observations, masks, the
    teacher's actions, and the discounted returns that followed (for the value network)."""
    observations, masks, actions, returns = [], [], [], []
    game_index = 0
    while len(actions) < decisions:
        env = SixNimmtEnv(players=args.players, variant=args.variant, seat=None, reward=args.reward,
                          deals=args.deals, opponents=opponents[game_index % len(opponents)])
        bot = make_bot(teacher, seed=args.seed * 7919 + game_index)
        obs, _ = env.reset(seed=args.seed * 7919 + game_index)
        game_index += 1
        rewards, done = [], False
        while not done:
            view = env.game.view(env.seat)
            action = move_to_action(bot.decide(view), view.decision)
            observations.append(obs["observation"])
            masks.append(obs["action_mask"])
            actions.append(action)
            obs, reward, done, _, _ = env.step(action)
            rewards.append(reward)
        so_far = 0.0
        game_returns = []
        for reward in reversed(rewards):
            so_far = reward + gamma * so_far
            game_returns.append(so_far)
        returns.extend(reversed(game_returns))
    return (np.array(observations, dtype=np.float32), np.array(masks, dtype=bool),
            np.array(actions, dtype=np.int64), np.array(returns, dtype=np.float32))


def clone(model: MaskablePPO, data: tuple[np.ndarray, ...], epochs: int, batch: int = 256) -> None:
    """Behaviour cloning: fit the actor to the teacher's masked choices (cross-entropy) and the
    critic to the returns that followed (squared error), before reinforcement learning starts."""
    policy = model.policy
    observations, masks, actions, returns = (torch.as_tensor(a) for a in data)
    optimizer = torch.optim.Adam(policy.parameters(), lr=1e-3)
    for epoch in range(epochs):
        order = torch.randperm(len(actions))
        correct = total_loss = 0.0
        for start in range(0, len(order), batch):
            idx = order[start:start + batch]
            features = policy.extract_features(observations[idx], policy.pi_features_extractor)
            latent_pi, latent_vf = policy.mlp_extractor(features)
            logits = policy.action_net(latent_pi).masked_fill(~masks[idx], -1e9)
            values = policy.value_net(latent_vf).squeeze(-1)
            loss = torch.nn.functional.cross_entropy(logits, actions[idx])
            loss = loss + 0.5 * torch.nn.functional.mse_loss(values, returns[idx]) / 100.0
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            correct += (logits.argmax(-1) == actions[idx]).sum().item()
            total_loss += loss.item() * len(idx)
        print(f"cloning epoch {epoch + 1}/{epochs}: loss {total_loss / len(order):.3f}, "
              f"agrees with the teacher on {correct / len(order):.1%} of decisions", flush=True)


def export(model: MaskablePPO, path: Path, meta: dict[str, Any]) -> None:
    """The actor (policy MLP and action layer) as a numpy policy file for the ``learned`` bot."""
    layers = [m for m in model.policy.mlp_extractor.policy_net if isinstance(m, torch.nn.Linear)]
    layers.append(model.policy.action_net)
    activation = {torch.nn.Tanh: "tanh", torch.nn.ReLU: "relu"}[model.policy.activation_fn]
    policy = MlpPolicy([layer.weight.detach().cpu().numpy() for layer in layers],
                       [layer.bias.detach().cpu().numpy() for layer in layers], activation, meta)
    policy.save(path.with_suffix(".npz"))


class Progress(BaseCallback):
    """Prints the mean game result now and then, and exports the policy as it goes."""

    def __init__(self, out: Path, checkpoint: Path, every: int, meta: dict[str, Any]) -> None:
        super().__init__()
        self.out, self.checkpoint, self.every, self.meta = out, checkpoint, every, meta
        self.results: list[float] = []
        self.next_export = every
        self.start = time.time()
        self.first_step = 0

    def _on_training_start(self) -> None:
        # A resumed model counts on from its earlier steps.
        self.first_step = self.num_timesteps
        self.next_export = self.num_timesteps + self.every
        self.start = time.time()

    def _on_step(self) -> bool:
        for info in self.locals["infos"]:
            if "totals" in info:
                totals = info["totals"]
                mine = totals[info["seat"]]
                others = (sum(totals) - mine) / (len(totals) - 1)
                self.results.append(mine - others)
        if self.num_timesteps >= self.next_export:
            self.next_export += self.every
            recent = self.results[-200:]
            rate = (self.num_timesteps - self.first_step) / (time.time() - self.start)
            print(f"{self.num_timesteps:>9} steps  {rate:6.0f} steps/s  games {len(self.results):>6}  "
                  f"my total - others' mean (last {len(recent)}): {np.mean(recent) if recent else 0:+.2f}",
                  flush=True)
            export(self.model, self.out, {**self.meta, "timesteps": self.num_timesteps})
            self.model.save(self.checkpoint)
        return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--timesteps", type=int, default=1_000_000)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--variant", default="standard")
    parser.add_argument("--deals", type=int, default=None, help="deals per game (default: play to 66)")
    parser.add_argument("--opponents", default="random", help="comma-separated bot names, one per env")
    parser.add_argument("--envs-per-opponent", type=int, default=2)
    parser.add_argument("--reward", default="penalty", choices=["penalty", "relative"])
    parser.add_argument("--net", default="256,256", help="hidden layer sizes")
    parser.add_argument("--lr", type=float, default=3e-4)
    parser.add_argument("--ent-coef", type=float, default=0.01)
    parser.add_argument("--clone-from", default=None, help="bot to imitate before RL (e.g. cautious)")
    parser.add_argument("--clone-decisions", type=int, default=100_000)
    parser.add_argument("--clone-epochs", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--export-every", type=int, default=50_000)
    parser.add_argument("--resume", action="store_true", help="continue from the checkpoint")
    parser.add_argument("--checkpoint", type=Path, default=Path("examples/rl/runs/standard4.zip"))
    parser.add_argument("--out", type=Path, default=Path("examples/rl/runs/standard4"))
    parser.add_argument("--overwrite-shipped", action="store_true",
                        help="allow --out to replace a policy shipped in sixnimmt/rl/policies/")
    args = parser.parse_args()
    if args.out.with_suffix(".npz").resolve().parent == POLICY_DIR.resolve() and not args.overwrite_shipped:
        sys.exit(f"--out {args.out} would replace a shipped policy: add --overwrite-shipped to mean it")

    torch.set_num_threads(1)  # the machine is shared; the env, not the network, is the bottleneck
    opponents = [o.strip() for o in args.opponents.split(",") if o.strip()]
    builders = [make_env(args, o, args.seed * 1000 + i)
                for i, o in enumerate(o for o in opponents for _ in range(args.envs_per_opponent))]
    venv = DummyVecEnv(builders)
    hidden = [int(n) for n in args.net.split(",")]
    if args.resume:
        model = MaskablePPO.load(args.checkpoint, env=venv)
    else:
        model = MaskablePPO("MlpPolicy", venv, learning_rate=args.lr, n_steps=1024, batch_size=512,
                            n_epochs=5, gamma=0.99, gae_lambda=0.95, ent_coef=args.ent_coef, seed=args.seed,
                            policy_kwargs={"net_arch": {"pi": hidden, "vf": hidden}}, verbose=0)
    if args.clone_from and not args.resume:
        start = time.time()
        data = teacher_games(args, args.clone_from, opponents, args.clone_decisions, model.gamma)
        print(f"{len(data[2])} decisions of {args.clone_from} in {time.time() - start:.0f}s", flush=True)
        clone(model, data, args.clone_epochs)
        del data
    meta = {"players": args.players, "variant": args.variant, "opponents": opponents,
            "reward": args.reward, "algorithm": "MaskablePPO (sb3-contrib)", "net": hidden,
            "cloned_from": args.clone_from}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.checkpoint.parent.mkdir(parents=True, exist_ok=True)
    progress = Progress(args.out, args.checkpoint, args.export_every, meta)
    model.learn(total_timesteps=args.timesteps, callback=progress, reset_num_timesteps=not args.resume)
    export(model, args.out, {**meta, "timesteps": int(model.num_timesteps)})
    model.save(args.checkpoint)
    print(json.dumps({"timesteps": int(model.num_timesteps), "games": len(progress.results),
                      "seconds": round(time.time() - progress.start)}))


if __name__ == "__main__":
    main()
