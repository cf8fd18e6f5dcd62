"""``sixnimmt train``: self-play PPO with a league on the vector env, or (``--distil``) the searchers
distilled into the network (docs/rl.md; needs the rl extra)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

app = typer.Typer(
    help="Train a policy by self-play (docs/rl.md; needs the rl extra: torch). By default PPO fine-tunes the shipped "
    "policy (--init learned); --init none trains from scratch.",
    subcommand_metavar="",
)


def _numbers(text: str, what: str) -> tuple[int, ...]:
    try:
        values = tuple(int(piece) for piece in text.split(",") if piece.strip())
    except ValueError:
        raise typer.BadParameter(f"{what} must be whole numbers separated by commas, not {text!r}") from None
    if not values:
        raise typer.BadParameter(f"give at least one {what}")
    return values


def _weights(text: str) -> dict[int, float]:
    """``--residual 10:-8,6:-2`` (or ``--row-residual``): a starting weight per player count."""
    weights: dict[int, float] = {}
    for piece in (p.strip() for p in text.split(",")):
        if not piece:
            continue
        count, sep, weight = piece.partition(":")
        try:
            if not sep:
                raise ValueError
            weights[int(count)] = float(weight)
        except ValueError:
            raise typer.BadParameter(f"the residuals take PLAYERS:WEIGHT pairs separated by commas (10:-8,6:-2), not {piece!r}") from None
    return weights


def _policy_path(name: str) -> Path:
    """A policy named on the command line: ``learned`` (the shipped one) or a file."""
    from ..rl.policy import DEFAULT_POLICY

    return DEFAULT_POLICY if name == "learned" else Path(name)


def _ensemble(sources: str, out: str, ship: bool) -> dict[str, object]:
    """``--ensemble A,B,...``: one policy file whose scores are the mean of these policies' scores."""
    from ..rl.policy import MlpPolicy, ensemble
    from ..rl.train import TrainingError, refuse_shipped_folder, ship_policy

    paths = [_policy_path(name) for name in (p.strip() for p in sources.split(",")) if name]
    if len(paths) < 2:
        raise TrainingError("--ensemble averages two policies or more: give their files separated by commas")
    folder = Path(out)
    refuse_shipped_folder(folder)
    policies = [MlpPolicy.load(path) for path in paths]
    history = list(policies[0].meta.get("history", []))
    history.append(f"sixnimmt train --ensemble {sources}: the mean of these {len(paths)} policies' scores")
    meta = {**policies[0].meta, "history": history, "ensemble_of": [str(path) for path in paths]}
    combined = ensemble(policies, meta)
    folder.mkdir(parents=True, exist_ok=True)
    combined.save(folder / "policy.npz")
    if ship:
        ship_policy(folder, typer.echo)
    return {"policy": str(folder / "policy.npz"), "networks": combined.networks}


def _tables(sources: str, init: str | None, residual: str, row_residual: str, out: str, ship: bool) -> dict[str, object]:
    """``--tables P:FILE,...``: the ``--init`` policy with the tables of these sizes played by these
    files' networks, and the residual weights given set where they play."""
    from ..rl.policy import MlpPolicy, with_residuals, with_tables
    from ..rl.train import TrainingError, refuse_shipped_folder, ship_policy

    networks: dict[int, MlpPolicy] = {}
    for piece in (p.strip() for p in sources.split(",")):
        count, sep, name = piece.partition(":")
        if not (sep and count.strip().isdigit() and name.strip()):
            raise TrainingError(f"--tables takes PLAYERS:FILE pairs separated by commas (10:runs/ten/policy.npz), not {piece!r}")
        networks[int(count)] = MlpPolicy.load(_policy_path(name.strip()))
    base_name = init or "learned"
    if base_name == "none":
        raise TrainingError("--tables adds networks to a policy: give it with --init (a file, or learned)")
    base = MlpPolicy.load(_policy_path(base_name))
    folder = Path(out)
    refuse_shipped_folder(folder)
    history = [*base.meta.get("history", []), f"sixnimmt train --init {base_name} --tables {sources}"
               + (f" --residual {residual}" if residual else "") + (f" --row-residual {row_residual}" if row_residual else "")
               + ": tables of these sizes played by these networks"]
    combined = with_residuals(with_tables(base, networks, {**base.meta, "history": history}),
                              _weights(residual), _weights(row_residual))
    folder.mkdir(parents=True, exist_ok=True)
    combined.save(folder / "policy.npz")
    if ship:
        ship_policy(folder, typer.echo)
    return {"policy": str(folder / "policy.npz"), "tables": sorted(combined.tables)}


@app.callback(invoke_without_command=True)
def train(
    out: Annotated[str, typer.Option(help="Run folder: log.jsonl, curve.png, policy.npz, checkpoint.pt.")] = "runs/selfplay",
    players: Annotated[str, typer.Option(help="Player counts to train on, e.g. 4 or 2,3,4,6,10 (one policy for all).")] = "4",
    variant: Annotated[str, typer.Option(help="standard, tactics or professional.")] = "standard",
    agent_steps: Annotated[int, typer.Option(min=1, help="Stop after this many learner decisions (in all).")] = 1_000_000,
    games: Annotated[int, typer.Option(min=1, help="Games at once per player count.")] = 256,
    steps: Annotated[int, typer.Option(min=1, help="Steps of every game per iteration.")] = 32,
    seed: Annotated[int, typer.Option(min=0, help="Seed of the games, the league draws and the network.")] = 0,
    init: Annotated[str | None, typer.Option(help="Start from: learned (the shipped policy: a fine-tuning run), none (from scratch), or a policy file. Default: learned (PPO), none (--distil).", show_default=False)] = None,
    hidden: Annotated[str, typer.Option(help="Hidden layer sizes.")] = "256,256",
    lr: Annotated[float | None, typer.Option(min=0.0, help="Adam learning rate. Default: 1e-4 (PPO), 1e-3 (--distil).", show_default=False)] = None,
    self_play: Annotated[float, typer.Option(min=0.0, max=1.0, help="Share of games where the learner takes every seat.")] = 0.4,
    league_bots: Annotated[str, typer.Option(help="Built-in league players: greedy, random (compiled), cautious (the medium level's card counting), or a Monte-Carlo searcher: mcs100, hard, expert, mcs:samples=N (standard games; it takes half the seats). P:name seats one at tables of P players only (4:mcs100).")] = "greedy,random",
    bot_share: Annotated[float, typer.Option(min=0.0, max=1.0, help="Of the league games, the share the built-in players take once there are snapshots.")] = 0.3,
    half_seats: Annotated[bool, typer.Option(help="Built-in league players take half the table, as the arena seats them, not every seat but the learner's (searchers always take half).")] = False,
    residual: Annotated[str, typer.Option(help="Card scores plus a learned weight times cautious's expected cost, per player count, from these starting weights: e.g. 10:-8,6:-2. Empty: none.")] = "",
    row_residual: Annotated[str, typer.Option(help="Row scores (a too-low card's row) plus a learned weight times the row's bullheads, per player count: e.g. 4:-4. Empty: none.")] = "",
    eval_every: Annotated[int, typer.Option(min=1, help="Iterations between evaluations and checkpoints.")] = 5,
    eval_games: Annotated[int, typer.Option(min=2, help="Games per evaluation (vs compiled greedy).")] = 256,
    clone: Annotated[str, typer.Option(help="First imitate this compiled player (greedy), then PPO; empty: no cloning.")] = "",
    clone_decisions: Annotated[int, typer.Option(min=1, help="Decisions of the player to imitate.")] = 400_000,
    distil: Annotated[bool, typer.Option("--distil", help="Distil the searchers instead of PPO: label positions with rollouts, fit the network to them, in DAgger rounds (docs/rl.md).")] = False,
    rounds: Annotated[int, typer.Option(min=1, help="--distil: rounds of collecting, labelling and fitting (in all).")] = 3,
    decisions: Annotated[int, typer.Option(min=1, help="--distil: labelled decisions per round, all player counts together.")] = 50_000,
    samples: Annotated[int, typer.Option(min=1, help="--distil: rollouts per option for each label.")] = 16,
    rollout: Annotated[str, typer.Option(help="--distil: every seat's policy in the labels' rollouts: count, cautious, snug or random.")] = "count",
    features: Annotated[str | None, typer.Option(help="Features the networks derive from the observation: derived, or none. Default: derived (--distil), none (PPO).", show_default=False)] = None,
    explore: Annotated[float, typer.Option(min=0.0, max=1.0, help="--distil: share of random moves while collecting positions.")] = 0.05,
    epochs: Annotated[int, typer.Option(min=1, help="--distil: epochs over all the data after each round.")] = 4,
    resume: Annotated[bool, typer.Option("--resume", help="Go on with the run in --out from its checkpoint.")] = False,
    ship: Annotated[bool, typer.Option("--ship", help="At the end, replace the shipped policy (sixnimmt/rl/policies/standard4.npz).")] = False,
    ensemble: Annotated[str, typer.Option(help="Instead of training: average these policies (files, or learned: the shipped one; separated by commas) into --out/policy.npz. Needs no torch.")] = "",
    tables: Annotated[str, typer.Option(help="Instead of training: the --init policy (default: learned), its tables of P players played by the network of FILE (P:FILE, separated by commas), into --out/policy.npz; --residual and --row-residual set weights where they play. Needs no torch.")] = "",
) -> None:
    """Self-play PPO against a league of past selves and built-in players, or (--distil) the
    searchers distilled into the network, on CPU; or (--ensemble) trained policies averaged."""
    from ..core import RulesError
    from ..rl.policy import PolicyFileError
    from ..rl.train import TrainConfig, TrainingError
    from ..rl.train import train as run

    try:
        if ensemble:
            result = _ensemble(ensemble, out, ship)
        elif tables:
            result = _tables(tables, init, residual, row_residual, out, ship)
        elif distil:
            from ..rl.distil import DistilConfig
            from ..rl.distil import distil as run_distil

            result = run_distil(DistilConfig(
                out=out, players=_numbers(players, "player counts"), variant=variant, rounds=rounds,
                decisions=decisions, samples=samples, rollout=rollout, explore=explore, features="" if features == "none" else (features or "derived"), hidden=_numbers(hidden, "layer sizes"),
                init=init or "none", epochs=epochs, lr=1e-3 if lr is None else lr, seed=seed,
            ), resume=resume, ship=ship, echo=typer.echo)
        else:
            config = TrainConfig(
                out=out, players=_numbers(players, "player counts"), variant=variant, agent_steps=agent_steps,
                games=games, steps=steps, seed=seed, init=init or "learned", hidden=_numbers(hidden, "layer sizes"),
                lr=1e-4 if lr is None else lr, self_play=self_play,
                league_bots=tuple(b.strip() for b in league_bots.split(",") if b.strip()), bot_share=bot_share, half_seats=half_seats,
                residual=_weights(residual), row_residual=_weights(row_residual), features="" if features in (None, "none") else features,
                eval_every=eval_every, eval_games=eval_games, clone=clone, clone_decisions=clone_decisions,
            )
            result = run(config, resume=resume, ship=ship, echo=typer.echo)
    except (TrainingError, RulesError, PolicyFileError) as error:
        typer.echo(f"sixnimmt train: {error}", err=True)  # one line, as every command's errors
        raise typer.Exit(2) from None
    typer.echo(json.dumps(result))
