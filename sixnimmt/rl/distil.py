"""Distilling the searchers into the network (``sixnimmt train --distil``; docs/rl.md, "Distilling
the search").

Self-play PPO did not move the policy's strength in the CPU time this machine has. This trains the
same network another way, as expert iteration does: positions are played, each decision is scored
by the searchers' own rollouts, and the network learns the scores.

* **Labels**: at every decision with a choice, each option is played out ``samples`` times over the
  rest of the deal (the searchers' compiled rollouts, :meth:`MonteCarloBot.simulate`: determinizations
  consistent with the seat's view, every option on the same ones, random play after), and the mean
  of the seat's own penalty is that option's value, the expected bullheads still to take. A few
  rollouts per option are a noisy label, but the network fits the mean over many positions: what it
  learns is the value of flat Monte-Carlo search with an unbounded budget, which ``expert`` and
  ``mcs100`` estimate with 100 rollouts per option at every decision.
* **Training**: the network's output for each legal action is fitted (squared error) to minus that
  option's value, less the mean over the options, divided by ``value_scale``: the highest output is
  the option with the least expected penalty, which the ``learned`` bot plays (numpy alone). The
  network reads the observation and features derived from it (``features``, the ``cautious`` bot's
  card counting per hand card), and with ``residual`` its card scores are a learned multiple of
  ``cautious``'s expected cost of each card plus the MLP's output, which starts at 0: the first
  policy is ``cautious``, and the labels teach it where to differ.
* **Rounds (DAgger)**: round 0 plays positions with the ``cautious`` heuristic (the ``medium``
  level) in every seat; later rounds with the network trained so far in most seats, so the labels
  cover the positions it reaches itself. Every round adds its positions to the data and trains on
  all of it. ``explore`` of the moves are random while collecting (wider coverage).
* **Player counts**: one network for all the counts given; each round's labels are shared between
  them in proportion to their seats, and come from ``labelled_seats`` seats of each game (two), so
  they spread over many deals.

Output in the run folder: ``data/round-K.npz`` (the labelled decisions of round K), ``log.jsonl``
(the settings, then a line per round: decisions, CPU seconds, training loss, and per player count
on held-out decisions the share where the network picks the best-valued option and its regret,
the value of its pick less the best one's, in bullheads), ``curve.png``, ``policy.npz`` and
``checkpoint.pt`` (network, optimiser, rounds done, generators: ``resume=True`` goes on with the
next round). The shipped policy is written only with ``ship=True``.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..bots.heuristics import CautiousBot
from ..bots.rollout import CAUTIOUS, COUNT, RANDOM, SNUG
from ..bots.search import MonteCarloBot, SearchConfig
from ..core import Game, Rules, RulesError, Variant
from .encoding import (
    CARD_ACTIONS,
    N_ACTIONS,
    OBS_SIZE,
    action_mask,
    action_to_move,
    encode,
    move_to_action,
)
from .features import FEATURE_SETS, counted_cost, derived
from .policy import DEFAULT_POLICY, MlpPolicy, with_tables
from .train import (
    TrainingError,
    build_mlp,
    carried_tables,
    export_actor,
    import_torch,
    linear_layers,
    load_policy_into,
    refuse_shipped_folder,
    ship_policy,
    tables_from_state,
    tables_to_state,
)
from .vector import vector_config

#: The rollout policies the labels may use (``sixnimmt.bots.rollout``).
ROLLOUT_POLICIES = {"count": COUNT, "cautious": CAUTIOUS, "snug": SNUG, "random": RANDOM}
#: Decisions of the first games of each round and player count, kept out of training to measure on.
HOLDOUT_SHARE = 0.05


@dataclass
class DistilConfig:
    """Every setting of a distillation run (saved in the checkpoint and the log's first line)."""

    out: str = "runs/distil"
    players: tuple[int, ...] = (2, 3, 4, 6, 10)
    variant: str = "standard"
    rounds: int = 3
    decisions: int = 60_000  # labelled decisions per round, all player counts together
    samples: int = 16  # rollouts per option for each label
    rollout: str = "count"  # every seat's policy in the rollouts: count, cautious, snug or random
    noise: float = 0.5  # count, cautious and snug rollouts: noise on each card's estimate (bullheads)
    explore: float = 0.05  # share of moves played at random while collecting positions
    labelled_seats: int = 2  # seats of each game whose decisions are labelled (the others only play)
    learner_share: float = 0.75  # rounds after the first: share of seats the network plays
    hidden: tuple[int, ...] = (256, 256)
    features: str = "derived"  # features the network derives from the observation (features.py), or ""
    residual: bool = True  # add a learned multiple of cautious's expected cost to the card scores
    init: str = "none"  # "none", "learned" (the shipped policy) or a policy file
    epochs: int = 4  # over all the data, after each round
    lr: float = 1e-3
    minibatch: int = 256
    value_scale: float = 5.0  # bullheads per unit of the network's output
    seed: int = 0
    threads: int = 1


@dataclass
class Labelled:
    """Labelled decisions: observations, masks, each legal option's value (expected own
    bullheads to the end of the deal; 0 elsewhere), the player count and whether it is held out."""

    obs: NDArray[np.float16]
    masks: NDArray[np.int8]
    values: NDArray[np.float32]
    players: NDArray[np.int8]
    holdout: NDArray[np.bool_]

    @classmethod
    def join(cls, parts: list[Labelled]) -> Labelled:
        return cls(*(np.concatenate([getattr(p, name) for p in parts]) for name in
                     ("obs", "masks", "values", "players", "holdout")))

    def save(self, path: Path) -> None:
        np.savez_compressed(path, **asdict(self))

    @classmethod
    def load(cls, path: Path) -> Labelled:
        with np.load(path) as data:
            return cls(*(data[name] for name in ("obs", "masks", "values", "players", "holdout")))

    def __len__(self) -> int:
        return len(self.players)


def _rules(config: DistilConfig, players: int) -> Rules:
    """One-deal games, no target: the arena's setting for the strength measurements."""
    return Rules(players=players, variant=Variant(config.variant), target=None, deals=1)


def collect(config: DistilConfig, policy: MlpPolicy | None, players: int, decisions: int,
            rng: np.random.Generator) -> Labelled:
    """``decisions`` labelled decisions of one-deal games at ``players`` players: the decisions
    with a choice of ``labelled_seats`` seats drawn for each game. Seats are played by ``cautious``, or (given ``policy``) by the
    policy with probability ``learner_share``; ``explore`` of the moves are random instead."""
    searcher = MonteCarloBot(int(rng.integers(2**31)), SearchConfig(
        samples=config.samples, policy=ROLLOUT_POLICIES[config.rollout], noise=config.noise, shared=True))
    rules = _rules(config, players)
    obs: list[NDArray[np.float32]] = []
    masks: list[NDArray[np.int8]] = []
    values: list[NDArray[np.float32]] = []
    holdout: list[bool] = []
    held = max(1, round(HOLDOUT_SHARE * decisions))
    while len(obs) < decisions:
        game = Game(rules, seed=int(rng.integers(2**62)))
        heuristic = [CautiousBot(int(rng.integers(2**31))) for _ in range(players)]
        learner = [policy is not None and rng.random() < config.learner_share for _ in range(players)]
        # A few seats per game: the labels spread over many more deals (a 10-player deal has 100
        # decisions, and the positions of one deal are much alike).
        labelled = set(rng.choice(players, size=min(players, config.labelled_seats), replace=False).tolist())
        held_game = len(obs) < held
        while not game.is_over:
            for decision in game.pending():
                seat = decision.seat
                view = game.view(seat)
                observation = encode(view)
                mask = action_mask(decision)
                if seat in labelled and len(decision.options) > 1:
                    out = searcher.simulate(view, tuple(decision.options), config.samples)
                    value = np.zeros(N_ACTIONS, dtype=np.float32)
                    actions = [move_to_action(option, decision) for option in decision.options]
                    value[actions] = out[:, :, seat].mean(axis=1)
                    obs.append(observation)
                    masks.append(mask)
                    values.append(value)
                    holdout.append(held_game)
                if rng.random() < config.explore:
                    move = decision.options[int(rng.integers(len(decision.options)))]
                elif learner[seat]:
                    assert policy is not None
                    move = action_to_move(policy.act(observation, mask), decision)
                else:
                    move = heuristic[seat].decide(view)
                game.act(seat, move)
    count = len(obs)
    return Labelled(np.array(obs, dtype=np.float16), np.array(masks, dtype=np.int8),
                    np.array(values, dtype=np.float32), np.full(count, players, dtype=np.int8),
                    np.array(holdout, dtype=np.bool_))


def value_targets(values: NDArray[np.float32], masks: NDArray[np.int8], scale: float) -> NDArray[np.float32]:
    """Minus each legal option's value less the legal options' mean, over ``scale``; 0 elsewhere."""
    legal = masks.astype(bool)
    mean = np.where(legal, values, 0.0).sum(axis=1) / legal.sum(axis=1)
    targets: NDArray[np.float32] = np.where(legal, -(values - mean[:, None]) / scale, 0.0).astype(np.float32)
    return targets


def judge(policy: MlpPolicy, data: Labelled) -> dict[str, dict[str, float]]:
    """On the held-out decisions of ``data``, per player count: how often the policy picks the best-valued option, and its mean regret
    (the value of its pick less the best value, bullheads), with that regret's 95% half-width."""
    report: dict[str, dict[str, float]] = {}
    for players in np.unique(data.players):
        rows = (data.players == players) & data.holdout
        legal = data.masks[rows].astype(bool)
        values = np.where(legal, data.values[rows], np.inf)
        picks = policy.act_batch(data.obs[rows].astype(np.float32), data.masks[rows])
        regret = values[np.arange(len(picks)), picks] - values.min(axis=1)
        report[str(int(players))] = {
            "best": round(float((regret == 0).mean()), 4),
            "regret": round(float(regret.mean()), 4),
            "regret_half_width": round(float(1.96 * regret.std(ddof=1) / np.sqrt(len(regret))), 4),
            "decisions": len(regret),
        }
    return report


def _fit(torch: Any, config: DistilConfig, net: Any, coef: Any, optimizer: Any, data: Labelled,
         generator: Any) -> float:
    """``epochs`` epochs over the training decisions; the last epoch's mean loss."""
    train_rows = np.flatnonzero(~data.holdout)
    inputs = data.obs[train_rows]
    if config.features:
        inputs = np.concatenate([inputs, derived(inputs).astype(np.float16)], axis=1)
    obs = torch.as_tensor(inputs)
    counted = np.zeros((len(train_rows), N_ACTIONS), dtype=np.float32)
    if config.residual:
        counted[:, :CARD_ACTIONS] = counted_cost(data.obs[train_rows])
    prior = torch.as_tensor(counted)
    legal = torch.as_tensor(data.masks[train_rows].astype(bool))
    targets = torch.as_tensor(value_targets(data.values[train_rows], data.masks[train_rows], config.value_scale))
    loss_sum = 0.0
    for _ in range(config.epochs):
        order = torch.randperm(len(train_rows), generator=generator)
        loss_sum, batches = 0.0, 0
        for begin in range(0, len(order), config.minibatch):
            idx = order[begin : begin + config.minibatch]
            where = legal[idx]
            error = (net(obs[idx].float()) + coef * prior[idx] - targets[idx]) * where
            loss = (error**2).sum() / where.sum()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            loss_sum += float(loss.detach())
            batches += 1
        loss_sum /= max(batches, 1)
    return loss_sum


def draw_curve(log: list[dict[str, Any]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rounds = [e for e in log if "holdout" in e]
    fig, ax = plt.subplots(figsize=(7, 4))
    for count in sorted({c for e in rounds for c in e["holdout"]}, key=int):
        points = [e for e in rounds if count in e["holdout"]]
        x = [e["decisions"] for e in points]
        y = np.array([e["holdout"][count]["regret"] for e in points])
        half = np.array([e["holdout"][count]["regret_half_width"] for e in points])
        ax.plot(x, y, marker="o", label=f"{count} players")
        ax.fill_between(x, y - half, y + half, alpha=0.2)
    ax.set_xlabel("labelled decisions trained on")
    ax.set_ylabel("regret, bullheads per decision")
    ax.set_title("held-out decisions: the network's pick against the best rollout value")
    ax.set_ylim(bottom=0)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def distil(config: DistilConfig, *, resume: bool = False, ship: bool = False, echo: Any = print) -> dict[str, Any]:
    """Run (or, with ``resume``, go on with) the distillation run in ``config.out``."""
    torch = import_torch()
    out = Path(config.out)
    checkpoint_path = out / "checkpoint.pt"
    refuse_shipped_folder(out)
    if resume:
        if not checkpoint_path.exists():
            raise TrainingError(f"nothing to resume: no {checkpoint_path}")
        saved = torch.load(checkpoint_path, weights_only=False)
        config = DistilConfig(**{**saved["config"], "rounds": config.rounds, "out": config.out})
        config.players, config.hidden = tuple(config.players), tuple(config.hidden)
    elif checkpoint_path.exists():
        raise TrainingError(f"{out} already holds a run: --resume to go on with it, or choose another --out")
    if config.rollout not in ROLLOUT_POLICIES:
        raise TrainingError(f"unknown rollout policy {config.rollout!r}: choose one of {', '.join(ROLLOUT_POLICIES)}")
    if config.variant not in {v.value for v in Variant}:
        raise RulesError(f"unknown variant {config.variant!r}: choose one of {', '.join(v.value for v in Variant)}")
    for count in config.players:
        # RulesError for a bad table, or a variant whose decisions the labels do not model (the
        # vector env's: one card per player and turn, and row choices).
        vector_config(_rules(config, count))
    (out / "data").mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(config.threads)
    torch.manual_seed(config.seed)
    rng = np.random.default_rng(config.seed)
    generator = torch.Generator().manual_seed(config.seed)
    if config.features and config.features not in FEATURE_SETS:
        raise TrainingError(f"unknown features {config.features!r}: choose one of {', '.join(FEATURE_SETS)}, or none")
    net = build_mlp(torch, [OBS_SIZE + FEATURE_SETS.get(config.features, 0), *config.hidden, N_ACTIONS])
    # The residual's weight on cautious's expected cost (bullheads): -1 / value_scale fits it exactly
    # where the rollouts agree with it; the network's last layer starts at 0, so the first policy is
    # cautious itself.
    coef = torch.nn.Parameter(torch.tensor(-1.0 / config.value_scale if config.residual else 0.0))
    if config.residual:
        with torch.no_grad():
            linear_layers(net)[-1].weight.zero_()
            linear_layers(net)[-1].bias.zero_()
    optimizer = torch.optim.Adam([*net.parameters(), *([coef] if config.residual else [])], lr=config.lr)
    log: list[dict[str, Any]] = []
    done, decisions, seconds = 0, 0, 0.0
    carried: dict[int, MlpPolicy] = {}
    if resume:
        carried = tables_from_state(saved.get("tables", {}))
        net.load_state_dict(saved["net"])
        coef.data.fill_(saved["residual"])
        optimizer.load_state_dict(saved["optimizer"])
        done, decisions, seconds, log = saved["rounds_done"], saved["decisions"], saved["seconds"], saved["log"]
        rng.bit_generator.state = saved["rng"]
        torch.set_rng_state(saved["torch_rng"])
        generator.set_state(saved["generator"])
        (out / "log.jsonl").write_text("".join(json.dumps(e) + "\n" for e in [{"config": saved["config"]}, *log]))
    else:
        if config.init != "none":
            init = MlpPolicy.load(DEFAULT_POLICY if config.init == "learned" else config.init)
            load_policy_into(torch, net, init)
            carried = carried_tables(init, config.players, echo)
        (out / "log.jsonl").write_text(json.dumps({"config": asdict(config)}) + "\n")
        echo(f"distilling into {out}: players {list(config.players)}, {config.variant}, "
             f"{config.decisions} decisions per round, {config.samples} rollouts per option")
    meta = {"players": list(config.players), "variant": config.variant, "net": list(config.hidden),
            "features": config.features,
            "algorithm": "distilled from Monte-Carlo search (expert iteration)", "seed": config.seed}

    def current() -> MlpPolicy:
        residual = {"residual": float(coef.detach())} if config.residual else {}
        return with_tables(export_actor(net, {**meta, **residual, "rounds": done, "decisions": decisions}), carried)

    while done < config.rounds:
        start = time.process_time()
        behaviour = current() if done > 0 else None
        # Each player count's share of the labels is in proportion to its seats: a bigger table's
        # positions are more varied (and its labels noisier).
        seats = sum(config.players)
        fresh = Labelled.join([collect(config, behaviour, count, max(1, config.decisions * count // seats), rng)
                               for count in config.players])
        fresh.save(out / "data" / f"round-{done}.npz")
        labelled = time.process_time() - start
        data = Labelled.join([Labelled.load(out / "data" / f"round-{r}.npz") for r in range(done + 1)])
        loss = _fit(torch, config, net, coef, optimizer, data, generator)
        done += 1
        decisions = int((~data.holdout).sum())
        seconds += time.process_time() - start
        entry = {"round": done, "decisions": decisions, "labelled": len(fresh), "cpu_seconds": round(seconds, 1),
                 "label_cpu_seconds": round(labelled, 1), "loss": round(loss, 4),
                 # the first round's held-out decisions (the same every round), then this round's
                 "holdout": judge(current(), Labelled.load(out / "data" / "round-0.npz")),
                 "holdout_latest": judge(current(), fresh)}
        log.append(entry)
        with (out / "log.jsonl").open("a") as handle:
            handle.write(json.dumps(entry) + "\n")
        echo(json.dumps(entry))
        current().save(out / "policy.npz")
        torch.save({"config": asdict(config), "net": net.state_dict(), "optimizer": optimizer.state_dict(),
                    "residual": float(coef.detach()), "rounds_done": done, "decisions": decisions, "seconds": seconds, "log": log,
                    "rng": rng.bit_generator.state, "torch_rng": torch.get_rng_state(),
                    "generator": generator.get_state(), "tables": tables_to_state(carried)}, out / "checkpoint.tmp")
        (out / "checkpoint.tmp").replace(checkpoint_path)  # never a half-written checkpoint
        draw_curve(log, out / "curve.png")
    if ship:
        ship_policy(out, echo)
    return {"rounds": done, "decisions": decisions, "cpu_seconds": round(seconds, 1),
            "policy": str(out / "policy.npz"), "log": log[-1] if log else {}}

