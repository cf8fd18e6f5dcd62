"""Self-play PPO with a league, on the vector env (``sixnimmt train``; docs/rl.md, "Training: `sixnimmt train`").

Needs the optional ``rl`` extra (torch); the policy it exports plays on numpy alone (the ``learned``
bot's :class:`~sixnimmt.rl.policy.MlpPolicy`).

Every iteration plays ``steps`` steps of ``games`` games at each player count given (one
:class:`~sixnimmt.rl.vector.SixNimmtBatch` each: one policy for every table size), then runs PPO
epochs over the learner's decisions. Each game, when it starts, draws who sits where:

* with probability ``self_play``, the learner takes every seat (all of them learn);
* otherwise one seat is the learner's and the other seats are one league member: a past self (a
  snapshot of the actor, taken every ``snapshot_every`` iterations, the last ``league_size`` kept)
  or a built-in player (compiled ``greedy`` and ``random``, or ``cautious``, the ``medium`` level's
  card counting over the observation: :class:`~sixnimmt.rl.features.CountingPolicy`), or a
  Monte-Carlo searcher of the registry (``mcs100``, ``expert``: :class:`~sixnimmt.rl.league.StateSearcher`), which takes
  half the seats and leaves the learner the others.

With a ``residual`` (per player count), the actor's card scores are its network's plus that weight
times the ``cautious`` bot's expected cost of each card (:func:`~sixnimmt.rl.features.counted_cost`),
a weight PPO learns with the network: a policy can start from ``cautious``'s card choices at the
table sizes where its network plays worse, and learn where to differ. A ``row_residual`` does the
same for the row to take, with each row's bullheads (:func:`~sixnimmt.rl.features.row_cost`).

Output, all in the run folder ``out``: ``log.jsonl`` (one line per iteration), ``curve.png`` (the
learning curve: the greedy policy's margin against compiled ``greedy`` opponents, and the training
games' margin), ``policy.npz`` (the actor, for the ``learned`` bot or the arena) and
``checkpoint.pt`` (learner, critic, optimiser, league, counters and generators: ``resume=True``
goes on from it). The shipped policy is written only with ``ship=True``.
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..core.rules import MAX_PLAYERS
from ..seats import available
from .encoding import CARD_ACTIONS, N_ACTIONS, OBS_SIZE, PASS_ACTION
from .features import FEATURE_SETS, CountingPolicy, counted_cost, derived, row_cost
from .league import StateSearcher
from .policy import DEFAULT_POLICY, MlpPolicy, per_count, with_tables
from .vector import COMPILED_OPPONENTS, SixNimmtBatch, SixNimmtVectorEnv

LEARNER = -1  # role of a seat the learner plays; roles >= 0 index the league
#: League players that are numpy policies over observations rather than compiled kernels.
POLICY_OPPONENTS = {"cautious": CountingPolicy}


@dataclass
class TrainConfig:
    """Every setting of a run (saved in the checkpoint and the log's first line)."""

    out: str = "runs/selfplay"
    players: tuple[int, ...] = (4,)
    variant: str = "standard"
    games: int = 256  # per player count
    steps: int = 32  # batch steps per iteration
    agent_steps: int = 1_000_000  # stop once the learner has made this many decisions
    seed: int = 0
    hidden: tuple[int, ...] = (256, 256)
    init: str = "learned"  # "learned" (the shipped policy), "none", or a policy file
    lr: float = 1e-4
    epochs: int = 3
    minibatch: int = 2048
    clip: float = 0.2
    entropy: float = 0.003
    value_coef: float = 0.5
    gamma: float = 0.995
    lam: float = 0.95
    reward_scale: float = 0.1
    critic_warmup: int = 2  # first iterations: train the critic only (the actor may be pretrained)
    clone: str = ""  # a compiled player to imitate before PPO ("greedy"), or none
    clone_decisions: int = 400_000
    clone_epochs: int = 4
    self_play: float = 0.4
    league_bots: tuple[str, ...] = ("greedy", "random")
    residual: dict[int, float] = field(default_factory=dict)  # players -> starting weight on counted cost
    row_residual: dict[int, float] = field(default_factory=dict)  # players -> starting weight on a row's bullheads
    features: str = ""  # "derived": the networks also read features.py's per-card counting
    bot_share: float = 0.3  # of the league games, how many go to the built-in players
    half_seats: bool = False  # built-in players take half the table, as the arena seats them (searchers always do)
    snapshot_every: int = 5
    league_size: int = 8
    eval_every: int = 5
    eval_games: int = 256
    threads: int = 1
    extra: dict[str, Any] = field(default_factory=dict)


class TrainingError(ValueError):
    """A run that cannot start: a bad option, a missing extra, a run folder in the way."""


def import_torch() -> Any:
    """torch, imported on first use (the ``rl`` extra), or a :class:`TrainingError` saying how to install it."""
    try:
        import torch
    except ImportError:
        raise TrainingError("training needs the rl extra: pip install 'sixnimmt[rl]' (torch)") from None
    return torch


def _inputs(config: TrainConfig, observations: NDArray[np.float32]) -> NDArray[np.float32]:
    """What the networks read: the observations, and with ``features`` the features derived from them."""
    if not config.features:
        return observations
    return np.concatenate([observations, derived(observations)], axis=-1)


def refuse_shipped_folder(out: Path) -> None:
    """Every way of making a policy writes into its own run folder: the shipped policy is replaced
    only by :func:`ship_policy` (``--ship``), never by a run folder that happens to be its folder."""
    if out.resolve() == DEFAULT_POLICY.parent.resolve():
        raise TrainingError("--out must not be the shipped policies' folder: use --ship to replace the shipped policy")


def ship_policy(out: Path, echo: Any = print) -> None:
    """``--ship``: the run folder's ``policy.npz`` becomes the shipped policy."""
    shutil.copyfile(out / "policy.npz", DEFAULT_POLICY)
    echo(f"shipped: {out / 'policy.npz'} -> {DEFAULT_POLICY}")


def _inherit_residuals(config: TrainConfig, init: MlpPolicy) -> None:
    """A run that starts from a policy with residual weights starts from those weights too (and
    learns them), at every table size where the command line gives none: it plays as that policy."""
    for weights, inherited in ((config.residual, init.residual), (config.row_residual, init.row_residual)):
        for count, value in enumerate(per_count(inherited)):
            weight = float(value)
            if count >= 2 and weight and count not in weights:
                weights[count] = weight


def carried_tables(init: MlpPolicy | None, players: Sequence[int], echo: Any = print) -> dict[int, MlpPolicy]:
    """The ``--init`` policy's networks of their own for table sizes this run does not train: the
    policy it writes keeps them, so that training the small tables does not lose a big table's
    network. At a size the run trains, the trained shared network takes over."""
    if init is None:
        return {}
    for count in sorted(set(init.tables) & set(players)):
        echo(f"the run trains the shared network at {count} players: the --init policy's own network "
             f"for {count} players is not kept")
    return {count: table for count, table in init.tables.items() if count not in players}


def tables_to_state(tables: dict[int, MlpPolicy]) -> dict[int, dict[str, Any]]:
    """Policy tables as plain data (for a checkpoint)."""
    return {count: {"weights": table.weights, "biases": table.biases, "activation": table.activation,
                    "meta": table.meta} for count, table in tables.items()}


def tables_from_state(state: dict[int, dict[str, Any]]) -> dict[int, MlpPolicy]:
    """The policy tables :func:`tables_to_state` wrote."""
    return {int(count): MlpPolicy(t["weights"], t["biases"], t["activation"], t["meta"]) for count, t in state.items()}


def _costs(config: TrainConfig, observations: NDArray[np.float32]) -> NDArray[np.float32] | None:
    """What the residuals weigh, per card and row action (``[M, CARD_ACTIONS + 4]``); None without."""
    if not (config.residual or config.row_residual):
        return None
    return np.concatenate([counted_cost(observations), row_cost(observations)], axis=-1)


def _actor_logits(torch: Any, actor: Any, residual: Any, x: Any, cost: Any, players: Any) -> Any:
    """The actor's scores: its network's, plus (with residuals) the table size's weights times the
    counted cost of each card and the bullheads of each row (``residual[0]``, ``residual[1]``)."""
    logits = actor(x)
    if cost is None:
        return logits
    weights = residual[:, players]  # [2, M]
    card = logits[:, :CARD_ACTIONS] + weights[0].unsqueeze(-1) * cost[:, :CARD_ACTIONS]
    rows = logits[:, CARD_ACTIONS : CARD_ACTIONS + 4] + weights[1].unsqueeze(-1) * cost[:, CARD_ACTIONS:]
    return torch.cat([card, rows, logits[:, CARD_ACTIONS + 4 :]], dim=1)


def build_mlp(torch: Any, sizes: list[int]) -> Any:
    """A torch network of linear layers of ``sizes``, as the shipped policies are."""
    layers: list[Any] = []
    for i in range(len(sizes) - 1):
        layers.append(torch.nn.Linear(sizes[i], sizes[i + 1]))
        if i < len(sizes) - 2:
            layers.append(torch.nn.Tanh())
    return torch.nn.Sequential(*layers)


def linear_layers(net: Any) -> list[Any]:
    """The layers of ``net`` that hold weights."""
    return [m for m in net if hasattr(m, "weight")]


def export_actor(actor: Any, meta: dict[str, Any]) -> MlpPolicy:
    """The actor as a numpy policy (what the ``learned`` bot loads)."""
    layers = linear_layers(actor)
    return MlpPolicy([layer.weight.detach().cpu().numpy().copy() for layer in layers],
                     [layer.bias.detach().cpu().numpy().copy() for layer in layers], "tanh", meta)


def load_policy_into(torch: Any, actor: Any, policy: MlpPolicy) -> None:
    """Start the actor from ``policy`` (an ensemble: its first network): same hidden sizes; a policy
    made for an earlier, shorter observation gets zero weights for the numbers it never read (so it
    plays exactly as before)."""
    layers = linear_layers(actor)
    # An ensemble (policy.py) trains on from its first network: PPO improves one network.
    policy = policy.member(0)
    if [w.shape[0] for w in policy.weights] != [layer.weight.shape[0] for layer in layers]:
        raise TrainingError(f"--init policy has layers {[w.shape[0] for w in policy.weights]}, the run "
                            f"{[layer.weight.shape[0] for layer in layers]}: give --hidden to match")
    with torch.no_grad():
        for layer, w, b in zip(layers, policy.weights, policy.biases):
            full = np.zeros(tuple(layer.weight.shape), dtype=np.float32)
            full[:, : w.shape[1]] = w
            layer.weight.copy_(torch.as_tensor(full))
            layer.bias.copy_(torch.as_tensor(b))


class _Table:
    """One player count's games, and who plays each seat of each."""

    def __init__(self, config: TrainConfig, players: int, rng: np.random.Generator) -> None:
        self.players = players
        self.batch = SixNimmtBatch(num_games=config.games, players=players, variant=config.variant,
                                   reward="relative", seed=int(rng.integers(2**62)))
        self.obs, self.masks = self.batch.reset()
        self.roles = np.full((config.games, players), LEARNER, dtype=np.int64)

    def draw_roles(self, games: NDArray[np.int64], league: _League, rng: np.random.Generator, self_play: float) -> None:
        for g in games:
            self.roles[g] = LEARNER
            if rng.random() < self_play:
                continue
            member = league.draw(rng, self.players)
            if member == LEARNER:
                continue  # no league member plays at this table size yet: self-play
            if league.is_searcher(member) or (league.config.half_seats and league.is_bot(member)):
                # A searcher takes half the seats and the learner the others: its decisions cost
                # milliseconds each, and the arena measures the learner against it so seated.
                self.roles[g, rng.permutation(self.players)[: self.players // 2]] = member
            else:
                others = np.arange(self.players) != rng.integers(self.players)
                self.roles[g, others] = member


class _League:
    """The opponents: built-in compiled players and snapshots of the learner."""

    def __init__(self, config: TrainConfig) -> None:
        self.config = config
        entries = [league_entry(spec) for spec in config.league_bots]
        self.bots = [name for name, _ in entries]
        #: The table size each bot is seated at (``None``: every size), from a ``P:`` before its name.
        self.tables = [players for _, players in entries]
        self.policies = {name: POLICY_OPPONENTS[name]() for name in self.bots if name in POLICY_OPPONENTS}
        self.searchers = {name: StateSearcher(name, config.seed + i) for i, name in enumerate(self.bots)
                          if name not in COMPILED_OPPONENTS and name not in POLICY_OPPONENTS}
        self.snapshots: list[MlpPolicy] = []

    def is_bot(self, member: int) -> bool:
        return 0 <= member < len(self.bots)

    def is_searcher(self, member: int) -> bool:
        return self.is_bot(member) and self.bots[member] in self.searchers

    @property
    def size(self) -> int:
        return len(self.bots) + len(self.snapshots)

    def draw(self, rng: np.random.Generator, players: int) -> int:
        """A member's index for a table of ``players``: bots first (those seated at that size), then
        snapshots (newer ones a little likelier); ``LEARNER`` when there is neither."""
        bots = [i for i, size in enumerate(self.tables) if size is None or size == players]
        if not self.snapshots or (bots and rng.random() < self.config.bot_share):
            return bots[int(rng.integers(len(bots)))] if bots else LEARNER
        weights = np.arange(1, len(self.snapshots) + 1, dtype=np.float64)
        return len(self.bots) + int(rng.choice(len(self.snapshots), p=weights / weights.sum()))

    def add(self, policy: MlpPolicy) -> None:
        self.snapshots.append(policy)
        del self.snapshots[: -self.config.league_size]

    def act(self, table: _Table, actions: NDArray[np.int64]) -> None:
        """The league members' moves in ``table``, into ``actions``."""
        roles = table.roles
        kinds = np.full(roles.shape, -1, dtype=np.int64)
        owes = table.masks[..., PASS_ACTION] == 0
        for i, name in enumerate(self.bots):
            if name in COMPILED_OPPONENTS:
                kinds[roles == i] = COMPILED_OPPONENTS[name]
            elif name in self.searchers:
                games, seats = np.nonzero((roles == i) & owes)
                self.searchers[name].act(table.batch.state, games, seats, actions)
            elif (where := (roles == i) & owes).any():
                actions[where] = self.policies[name].act_batch(table.obs[where], table.masks[where])
        table.batch.compiled_actions(kinds, actions)
        for j, policy in enumerate(self.snapshots):
            where = (roles == len(self.bots) + j) & owes
            if where.any():
                actions[where] = policy.act_batch(table.obs[where], table.masks[where])


def evaluate(policy: MlpPolicy, players: int, variant: str, games: int, seed: int,
             opponents: str = "greedy") -> tuple[float, float]:
    """The policy (greedy) in one seat against ``opponents`` over ``games`` whole games: mean of
    (own total - the others' mean) per game, and its 95% half-width (lower is better)."""
    env = SixNimmtVectorEnv(num_envs=games, players=players, variant=variant, opponents=opponents, seat=None)
    obs, _ = env.reset(seed=seed)
    margins = np.full(games, np.nan)
    while np.isnan(margins).any():
        obs, _, terminated, _, info = env.step(policy.act_batch(obs["observation"], obs["action_mask"]))
        for g in np.flatnonzero(terminated & np.isnan(margins)):
            totals = info["totals"][g].astype(np.float64)
            mine = totals[info["seat"][g]]
            margins[g] = mine - (totals.sum() - mine) / (players - 1)
    return float(margins.mean()), float(1.96 * margins.std(ddof=1) / np.sqrt(games))


def draw_curve(log: list[dict[str, Any]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    evals = [e for e in log if "eval_vs_greedy" in e]
    for count in sorted({c for e in evals for c in e["eval_vs_greedy"]}, key=int):
        points = [e for e in evals if count in e["eval_vs_greedy"]]
        x = [e["agent_steps"] for e in points]
        y = np.array([e["eval_vs_greedy"][count][0] for e in points])
        half = np.array([e["eval_vs_greedy"][count][1] for e in points])
        ax.plot(x, y, marker="o", label=f"evaluation, {count} players: the policy vs compiled greedy")
        ax.fill_between(x, y - half, y + half, alpha=0.2)
    train = [e for e in log if e.get("train_margin") is not None]
    if train:
        ax.plot([e["agent_steps"] for e in train], [e["train_margin"] for e in train], alpha=0.6,
                label="training games (league)")
    ax.axhline(0.0, color="grey", linewidth=0.8)
    ax.set_xlabel("learner decisions")
    ax.set_ylabel("bullheads per game (lower is better)")
    ax.set_title("own total minus the others' mean, per game")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def league_entry(spec: str) -> tuple[str, int | None]:
    """A ``--league-bots`` entry: the bot's name and, for ``P:name``, the one table size it sits at
    (``4:mcs100``: the searcher at 4 players only; ``mcs:samples=8`` names no size)."""
    size, colon, name = spec.partition(":")
    if colon and size.isdigit():
        return name, int(size)
    return spec, None


def check_league_bots(specs: tuple[str, ...], variant: str, players: tuple[int, ...] | None = None) -> None:
    """A ``TrainingError`` for a league player a run cannot seat (``players``: the run's table sizes,
    which a ``P:`` prefix must name)."""
    for spec in specs:
        bot, size = league_entry(spec)
        if size is not None and not bot:
            raise TrainingError(f"league bot {spec!r}: a bot's name follows the table size")
        if size is not None and players is not None and size not in players:
            raise TrainingError(f"league bot {spec!r}: {size} players is not one of the run's table sizes "
                                f"({', '.join(map(str, players))})")
        if bot in COMPILED_OPPONENTS or bot in POLICY_OPPONENTS:
            continue
        if bot.split(":", 1)[0] not in available():
            raise TrainingError(f"unknown league bot {bot!r}: choose from "
                                f"{', '.join([*COMPILED_OPPONENTS, *POLICY_OPPONENTS])} or a Monte-Carlo "
                                "searcher (mcs100, hard, expert, mcs:samples=N)")
        try:
            StateSearcher(bot, 0)
        except ValueError as error:  # a searcher's bad option, or a bot that is no plain searcher
            raise TrainingError(f"league bot {bot!r}: {str(error).splitlines()[0]}") from None
        if variant != "standard":
            raise TrainingError(f"league bot {bot!r}: searchers play in standard games only")


def train(config: TrainConfig, *, resume: bool = False, ship: bool = False,
          echo: Any = print) -> dict[str, Any]:
    """Run (or, with ``resume``, go on with) the training run in ``config.out``."""
    torch = import_torch()
    out = Path(config.out)
    checkpoint_path = out / "checkpoint.pt"
    if resume:
        if not checkpoint_path.exists():
            raise TrainingError(f"nothing to resume: no {checkpoint_path}")
        saved = torch.load(checkpoint_path, weights_only=False)
        config = TrainConfig(**{**saved["config"], "agent_steps": config.agent_steps, "out": config.out})
        config.players, config.hidden, config.league_bots = (tuple(config.players), tuple(config.hidden),
                                                             tuple(config.league_bots))
        config.residual = {int(k): float(v) for k, v in config.residual.items()}
        config.row_residual = {int(k): float(v) for k, v in config.row_residual.items()}
    elif checkpoint_path.exists():
        raise TrainingError(f"{out} already holds a run: --resume to go on with it, or choose another --out")
    refuse_shipped_folder(out)
    check_league_bots(config.league_bots, config.variant, config.players)
    for option, weights in (("--residual", config.residual), ("--row-residual", config.row_residual)):
        for count in weights:
            if not 2 <= count <= MAX_PLAYERS:
                raise TrainingError(f"{option} names {count} players: tables have 2 to {MAX_PLAYERS}")
    if config.features and config.features not in FEATURE_SETS:
        raise TrainingError(f"unknown features {config.features!r}: choose from {', '.join(FEATURE_SETS)}")
    out.mkdir(parents=True, exist_ok=True)
    torch.set_num_threads(config.threads)
    torch.manual_seed(config.seed)
    rng = np.random.default_rng(config.seed)
    inputs = OBS_SIZE + FEATURE_SETS.get(config.features, 0)
    actor = build_mlp(torch, [inputs, *config.hidden, N_ACTIONS])
    critic = build_mlp(torch, [inputs, *config.hidden, 1])
    init = None if resume or config.init == "none" else MlpPolicy.load(DEFAULT_POLICY if config.init == "learned" else config.init)
    if init is not None:
        _inherit_residuals(config, init)
        # Said first, since the default fine-tunes: a run from scratch is --init none.
        source = f"the shipped policy ({DEFAULT_POLICY.name})" if config.init == "learned" else config.init
        echo(f"starting from {source}: a fine-tuning run (--init none trains from scratch)")
    carried = carried_tables(init, config.players, echo)
    kinds = (config.residual, config.row_residual)
    starting = [[weights.get(count, 0.0) for count in range(MAX_PLAYERS + 1)] for weights in kinds]
    residual = torch.nn.Parameter(torch.tensor(starting, dtype=torch.float32))
    # Only the table sizes given learn a weight; at the others the policy plays its network alone.
    given = torch.tensor([[float(count in weights) for count in range(MAX_PLAYERS + 1)] for weights in kinds])
    residual.register_hook(lambda grad: grad * given)
    residuals = bool(config.residual or config.row_residual)
    learned = [*actor.parameters(), *critic.parameters(), *([residual] if residuals else [])]
    optimizer = torch.optim.Adam(learned, lr=config.lr)
    league = _League(config)
    log: list[dict[str, Any]] = []
    iteration = agent_steps = 0
    seconds = 0.0
    if resume:
        actor.load_state_dict(saved["actor"])
        critic.load_state_dict(saved["critic"])
        residual.data.copy_(torch.as_tensor(saved.get("residual", starting)))
        optimizer.load_state_dict(saved["optimizer"])
        league.snapshots = [MlpPolicy(s["weights"], s["biases"], "tanh", s["meta"]) for s in saved["league"]]
        carried = tables_from_state(saved.get("tables", {}))
        iteration, agent_steps, seconds = saved["iteration"], saved["agent_steps"], saved["seconds"]
        rng.bit_generator.state = saved["rng"]
        torch.set_rng_state(saved["torch_rng"])
        log = saved["log"]
        # The log as of the checkpoint: iterations run after it (and lost with a crash) run again.
        (out / "log.jsonl").write_text("".join(json.dumps(e) + "\n" for e in [{"config": saved["config"]}, *log]))
    elif init is not None:
        load_policy_into(torch, actor, init)
    if config.clone and not resume:
        if config.clone not in COMPILED_OPPONENTS:
            raise TrainingError(f"unknown player to clone {config.clone!r}: choose from {', '.join(COMPILED_OPPONENTS)}")
        echo(f"imitating {config.clone}: {config.clone_decisions} decisions, {config.clone_epochs} epochs")
        agreement = _clone(torch, config, actor, rng, echo)
        log.append({"iteration": 0, "agent_steps": 0, "cloned": config.clone, "agreement": round(agreement, 4)})
    meta = {"players": list(config.players), "variant": config.variant, "algorithm": "self-play PPO with a league",
            "net": list(config.hidden), "init": config.init, "seed": config.seed,
            **({"features": config.features} if config.features else {})}
    tables = [_Table(config, p, rng) for p in config.players]
    for table in tables:
        table.draw_roles(np.arange(config.games), league, rng, config.self_play)
    if not resume:
        (out / "log.jsonl").write_text("".join(json.dumps(e) + "\n" for e in [{"config": asdict(config)}, *log]))
        echo(f"training into {out}: players {list(config.players)}, {config.variant}, {config.games} games each")
    margins: list[float] = []

    def exported(extra: dict[str, Any]) -> MlpPolicy:
        weights = {key: [round(float(w), 5) for w in residual.detach()[i]]
                   for i, key in enumerate(("residual", "row_residual")) if kinds[i]}
        return with_tables(export_actor(actor, {**meta, **weights, **extra}), carried)

    def save() -> None:
        policy = exported({"agent_steps": agent_steps})
        policy.save(out / "policy.npz")
        torch.save({"config": asdict(config), "actor": actor.state_dict(), "critic": critic.state_dict(),
                    "optimizer": optimizer.state_dict(), "residual": residual.detach().tolist(),
                    "iteration": iteration, "agent_steps": agent_steps,
                    "seconds": seconds, "rng": rng.bit_generator.state, "torch_rng": torch.get_rng_state(),
                    "league": [{"weights": p.weights, "biases": p.biases, "meta": p.meta} for p in league.snapshots],
                    "tables": tables_to_state(carried),
                    "log": log}, out / "checkpoint.tmp")
        (out / "checkpoint.tmp").replace(checkpoint_path)  # never a half-written checkpoint
        draw_curve(log, out / "curve.png")

    while agent_steps < config.agent_steps:
        start = time.process_time()
        samples = _collect(torch, config, tables, actor, residual, critic, league, rng, margins)
        agent_steps += len(samples["actions"])
        stats = _update(torch, config, actor, residual, critic, optimizer, samples,
                        policy_on=iteration >= config.critic_warmup)
        iteration += 1
        seconds += time.process_time() - start
        entry: dict[str, Any] = {"iteration": iteration, "agent_steps": agent_steps, "cpu_seconds": round(seconds, 1),
                                 "train_margin": round(float(np.mean(margins)), 3) if margins else None,
                                 "league": league.size, **stats}
        margins.clear()
        if iteration % config.snapshot_every == 0:
            league.add(exported({"iteration": iteration}))
        if iteration % config.eval_every == 0 or agent_steps >= config.agent_steps:
            policy = exported({})
            entry["eval_vs_greedy"] = {
                str(count): [round(v, 3) for v in evaluate(policy, count, config.variant, config.eval_games, seed=12345)]
                for count in config.players
            }
        log.append(entry)
        with (out / "log.jsonl").open("a") as handle:
            handle.write(json.dumps(entry) + "\n")
        echo(" ".join(f"{key} {value}" for key, value in entry.items()))
        if iteration % config.eval_every == 0 or agent_steps >= config.agent_steps:
            save()
    save()
    if ship:
        ship_policy(out, echo)
    return {"iterations": iteration, "agent_steps": agent_steps, "cpu_seconds": round(seconds, 1),
            "policy": str(out / "policy.npz"), "log": log[-1] if log else {}}


def _clone(torch: Any, config: TrainConfig, actor: Any, rng: np.random.Generator, echo: Any) -> float:
    """Behaviour cloning: fit the actor to a compiled player's decisions (every seat of games it
    plays against itself, at every player count), cross-entropy over the legal actions. Returns the
    share of decisions where the actor then agrees with it."""
    obs_parts, mask_parts, action_parts = [], [], []
    per_count = config.clone_decisions // len(config.players) + 1
    for players in config.players:
        batch = SixNimmtBatch(num_games=config.games, players=players, variant=config.variant,
                              seed=int(rng.integers(2**62)))
        obs, masks = batch.reset()
        kinds = np.full((config.games, players), COMPILED_OPPONENTS[config.clone], dtype=np.int64)
        taken = 0
        while taken < per_count:
            actions = batch.compiled_actions(kinds)
            deciding = masks[..., PASS_ACTION] == 0
            obs_parts.append(_inputs(config, obs[deciding]))
            mask_parts.append(masks[deciding])
            action_parts.append(actions[deciding])
            taken += int(deciding.sum())
            obs, masks, *_ = batch.step(actions)
    observations = torch.as_tensor(np.concatenate(obs_parts))
    illegal = torch.as_tensor(np.concatenate(mask_parts) == 0)
    targets = torch.as_tensor(np.concatenate(action_parts))
    optimizer = torch.optim.Adam(actor.parameters(), lr=1e-3)
    agreement = 0.0
    for epoch in range(config.clone_epochs):
        order = torch.randperm(len(targets))
        right = 0
        for begin in range(0, len(order), 512):
            idx = order[begin : begin + 512]
            logits = actor(observations[idx]).masked_fill(illegal[idx], -1e9)
            loss = torch.nn.functional.cross_entropy(logits, targets[idx])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            right += int((logits.detach().argmax(-1) == targets[idx]).sum())
        agreement = right / len(order)
        echo(f"cloning epoch {epoch + 1}/{config.clone_epochs}: agrees on {agreement:.1%} of {len(order)} decisions")
    return agreement


def _collect(torch: Any, config: TrainConfig, tables: list[_Table], actor: Any, residual: Any, critic: Any,
             league: _League, rng: np.random.Generator, margins: list[float]) -> dict[str, Any]:
    """``config.steps`` steps of every table; the learner's decisions with their advantages."""
    residuals = bool(config.residual or config.row_residual)
    keys = ("obs", "masks", "actions", "logp", "advantages", "returns", *(("cost", "players") if residuals else ()))
    chunks: dict[str, list[Any]] = {key: [] for key in keys}
    for table in tables:
        n, p, steps = config.games, table.players, config.steps
        values = np.zeros((steps + 1, n, p), dtype=np.float32)
        rewards = np.zeros((steps, n, p), dtype=np.float32)
        dones = np.zeros((steps, n), dtype=np.float32)
        learner_at = np.zeros((steps + 1, n, p), dtype=bool)
        kept: list[tuple[int, NDArray[np.bool_], NDArray[np.float32], NDArray[np.int8], NDArray[np.int64],
                         NDArray[np.float32], NDArray[np.float32] | None]] = []
        for t in range(steps + 1):
            mine = table.roles == LEARNER
            learner_at[t] = mine
            seen = _inputs(config, table.obs[mine])
            x = torch.as_tensor(seen)
            with torch.no_grad():
                values[t][mine] = critic(x).squeeze(-1).numpy()
                if t == steps:
                    break
                cost = _costs(config, table.obs[mine])
                seats = torch.full((len(x),), p, dtype=torch.int64)
                logits = _actor_logits(torch, actor, residual, x, None if cost is None else torch.as_tensor(cost), seats)
                logits = logits.masked_fill(torch.as_tensor(table.masks[mine] == 0), -1e9)
                dist = torch.distributions.Categorical(logits=logits)
                chosen = dist.sample()
                logp = dist.log_prob(chosen).numpy()
            actions = np.full((n, p), PASS_ACTION, dtype=np.int64)
            actions[mine] = chosen.numpy()
            league.act(table, actions)
            deciding = mine & (table.masks[..., PASS_ACTION] == 0)
            pick = deciding[mine]
            kept.append((t, deciding, seen[pick], table.masks[deciding], actions[deciding], logp[pick],
                         None if cost is None else cost[pick]))
            table.obs, table.masks, step_rewards, done, info = table.batch.step(actions)
            rewards[t] = step_rewards * config.reward_scale
            dones[t] = done
            finished = np.flatnonzero(done)
            for g in finished:
                totals = info["totals"][g].astype(np.float64)
                for s in np.flatnonzero(table.roles[g] == LEARNER):
                    margins.append(totals[s] - (totals.sum() - totals[s]) / (p - 1))
            table.draw_roles(finished, league, rng, config.self_play)
        advantages = np.zeros((steps, n, p), dtype=np.float32)
        running = np.zeros((n, p), dtype=np.float32)
        for t in range(steps - 1, -1, -1):
            alive = (1.0 - dones[t])[:, None]
            delta = rewards[t] + config.gamma * values[t + 1] * alive - values[t]
            running = delta + config.gamma * config.lam * alive * running
            running = np.where(learner_at[t], running, 0.0).astype(np.float32)
            advantages[t] = running
        returns = advantages + values[:steps]
        for t, deciding, obs, masks, acts, logp, cost in kept:
            if cost is not None:
                chunks["cost"].append(cost)
                chunks["players"].append(np.full(len(acts), p, dtype=np.int64))
            chunks["obs"].append(obs)
            chunks["masks"].append(masks)
            chunks["actions"].append(acts)
            chunks["logp"].append(logp)
            chunks["advantages"].append(advantages[t][deciding])
            chunks["returns"].append(returns[t][deciding])
    return {key: np.concatenate(parts) for key, parts in chunks.items()}


def _update(torch: Any, config: TrainConfig, actor: Any, residual: Any, critic: Any, optimizer: Any,
            samples: dict[str, Any], policy_on: bool) -> dict[str, float]:
    obs = torch.as_tensor(samples["obs"])
    cost = torch.as_tensor(samples["cost"]) if "cost" in samples else None
    players = torch.as_tensor(samples["players"]) if "players" in samples else None
    illegal = torch.as_tensor(samples["masks"] == 0)
    actions = torch.as_tensor(samples["actions"])
    old_logp = torch.as_tensor(samples["logp"])
    advantages = torch.as_tensor(samples["advantages"])
    advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
    returns = torch.as_tensor(samples["returns"])
    total = len(actions)
    sums = {"policy_loss": 0.0, "value_loss": 0.0, "entropy": 0.0, "clipped": 0.0}
    batches = 0
    for _ in range(config.epochs):
        order = torch.randperm(total)
        for begin in range(0, total, config.minibatch):
            idx = order[begin : begin + config.minibatch]
            logits = _actor_logits(torch, actor, residual, obs[idx], None if cost is None else cost[idx],
                                   None if players is None else players[idx])
            dist = torch.distributions.Categorical(logits=logits.masked_fill(illegal[idx], -1e9))
            logp = dist.log_prob(actions[idx])
            ratio = torch.exp(logp - old_logp[idx])
            adv = advantages[idx]
            policy_loss = -torch.min(ratio * adv, ratio.clamp(1 - config.clip, 1 + config.clip) * adv).mean()
            entropy = dist.entropy().mean()
            value_loss = ((critic(obs[idx]).squeeze(-1) - returns[idx]) ** 2).mean()
            loss = config.value_coef * value_loss
            if policy_on:
                loss = loss + policy_loss - config.entropy * entropy
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_([*actor.parameters(), *critic.parameters(), residual], 0.5)
            optimizer.step()
            sums["policy_loss"] += float(policy_loss.detach())
            sums["value_loss"] += float(value_loss.detach())
            sums["entropy"] += float(entropy.detach())
            sums["clipped"] += float(((ratio.detach() - 1).abs() > config.clip).float().mean())
            batches += 1
    return {key: round(value / max(batches, 1), 4) for key, value in sums.items()} | {"samples": total}
