"""``sixnimmt bench ...``: speed measurements whose figures go into docs/performance.md."""

from __future__ import annotations

import json
import platform
import random
import statistics
import time
from collections.abc import Callable
from typing import Annotated, Any

import numpy as np
import typer

from ..core import Game, Rules
from ..core.fast import FastDeal, nb_random_games

app = typer.Typer(help="Measure speed (one core). Figures belong in docs/performance.md.", no_args_is_help=True)


def _rate(run_one: Callable[[], object], seconds: float) -> tuple[float, int]:
    """Runs per second of ``run_one`` over at least ``seconds`` of this process's CPU time: CPU
    time, not wall time, so that figures hold on a machine whose other work comes and goes (every
    tier runs on one core)."""
    return rates_in_turns({"run": run_one}, seconds)["run"]


def rates_in_turns(
    tiers: dict[str, Callable[[], object]],
    seconds: float,
    turn: float = 0.25,
    clock: Callable[[], float] = time.process_time,
) -> dict[str, tuple[float, int]]:
    """Runs per second of CPU time of each tier, and how many, over at least ``seconds`` of CPU time
    each. The tiers take turns of about ``turn`` seconds rather than running one after the other: on
    a shared machine, where other work slows every tier for as long as it lasts, each tier then sees
    the same mix of it, and the ratios of one run compare."""
    spent = dict.fromkeys(tiers, 0.0)
    counts = dict.fromkeys(tiers, 0)
    while any(time_spent < seconds for time_spent in spent.values()):
        for name, run_one in tiers.items():
            budget = min(turn, seconds - spent[name])
            if budget <= 0:
                continue
            start = clock()
            while True:
                run_one()
                counts[name] += 1
                elapsed = clock() - start
                if elapsed >= budget:
                    break
            spent[name] += elapsed
    return {name: (counts[name] / spent[name], counts[name]) for name in tiers}


def checked_game(rng: random.Random, players: int) -> dict[str, Any]:
    """A random-bot game through the checked API as a host plays it (the arena's loop): each
    decision's player gets their view and answers from it, the game checks every answer and emits
    its events, and the record is written at the end."""
    game = Game(Rules(players=players), rng=rng)
    while not game.is_over:
        for decision in game.pending():
            view = game.view(decision.seat)
            assert view.decision is not None
            game.act(decision.seat, rng.choice(view.decision.options))
    return game.record()


def checked_engine_alone(rng: random.Random, players: int) -> Game:
    """The same game with the answers drawn from ``pending()``: no views, no record (the engine's
    own share of the host's work)."""
    game = Game(Rules(players=players), rng=rng)
    while not game.is_over:
        for decision in game.pending():
            game.act(decision.seat, rng.choice(decision.options))
    return game


def checked_engine_and_record(rng: random.Random, players: int) -> dict[str, Any]:
    """The engine alone and then its record: the checked tier as it was when the aim of 0.4x was
    set (the engine wrote the record as it played then; now it is written from the events)."""
    return checked_engine_alone(rng, players).record()


def fast_game(rng: np.random.Generator, players: int, target: int = 66) -> int:
    """A random-bot game on the plain-Python fast path (too-low: cheapest row). Returns the number
    of deals it took."""
    totals = [0] * players
    deals = 0
    while max(totals) < target:
        deals += 1
        # The deal and every random player's play order at once (numpy shuffles 4x faster).
        deck = (rng.permutation(104) + 1).tolist()
        deal = FastDeal([[c] for c in deck[players * 10 : players * 10 + 4]], players)
        for turn in range(10):
            deal.play_turn([deck[seat * 10 + turn] for seat in range(players)])
        for seat in range(players):
            totals[seat] += deal.penalties[seat]
    return deals


@app.command()
def engine(
    seconds: Annotated[float, typer.Option(min=0.1, help="Time per measurement.")] = 3.0,
    players: Annotated[int, typer.Option(min=2, max=10, help="Players per game.")] = 4,
    seed: Annotated[int, typer.Option(help="Seed for the shuffles.")] = 1,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Random-bot games to the end (standard rules, target 66) per second on one core: the checked
    engine played as a host plays it (a view per decision, the record), the same engine with its
    record and alone, the plain-Python fast path and the compiled kernels, taking turns."""
    rng = random.Random(seed)
    np_rng = np.random.default_rng(seed)
    nb_random_games(1, players, 66, seed)  # compile (or load the cache) outside the timing
    batch = 2000
    # Deals played by each tier: the checked tiers' random players take a random row for a card
    # too low for every row, the fast path's the cheapest, so a checked game scores more per deal
    # and ends sooner, and the rates per deal say what games per second do not.
    deals = dict.fromkeys(("checked", "alone", "record", "fast"), 0)

    def played(tier: str, count: int) -> None:
        deals[tier] += count

    # The tiers take turns (``rates_in_turns``), so that the ratios of one run hold on a shared machine.
    rates = rates_in_turns(
        {
            "checked": lambda: played("checked", len(checked_game(rng, players)["deals"])),
            "alone": lambda: played("alone", checked_engine_alone(rng, players).deal_index + 1),
            "record": lambda: played("record", len(checked_engine_and_record(rng, players)["deals"])),
            "fast": lambda: played("fast", fast_game(np_rng, players)),
            "compiled": lambda: nb_random_games(batch, players, 66, seed),
        },
        seconds,
    )
    (checked, n_checked), (alone, n_alone) = rates["checked"], rates["alone"]
    recorded, n_recorded = rates["record"]
    (fast, n_fast), (compiled, n_batches) = rates["fast"], rates["compiled"]
    per_game = {tier: deals[tier] / rates[tier][1] for tier in deals}
    # deals per second of each tier, over the fast path's
    per_deal = {tier: rates[tier][0] * per_game[tier] / (fast * per_game["fast"]) for tier in ("checked", "alone", "record")}
    results = {
        "players": players,
        "checked_games_per_s": round(checked, 1),
        "checked_engine_alone_games_per_s": round(alone, 1),
        "checked_engine_and_record_games_per_s": round(recorded, 1),
        "fast_python_games_per_s": round(fast, 1),
        "compiled_games_per_s": round(compiled * batch, 1),
        "checked_vs_fast": round(checked / fast, 3),
        "checked_engine_alone_vs_fast": round(alone / fast, 3),
        "checked_engine_and_record_vs_fast": round(recorded / fast, 3),
        "games": {"checked": n_checked, "checked_engine_alone": n_alone, "checked_engine_and_record": n_recorded,
                  "fast_python": n_fast, "compiled": n_batches * batch},
        "deals_per_game": {"checked": round(per_game["checked"], 2), "checked_engine_alone": round(per_game["alone"], 2),
                           "checked_engine_and_record": round(per_game["record"], 2),
                           "fast_python": round(per_game["fast"], 2)},
        "per_deal_vs_fast": {"checked": round(per_deal["checked"], 3), "checked_engine_alone": round(per_deal["alone"], 3),
                             "checked_engine_and_record": round(per_deal["record"], 3)},
        "machine": f"{platform.machine()} {platform.processor() or ''}".strip(),
        "python": platform.python_version(),
    }
    if as_json:
        typer.echo(json.dumps(results))
        return
    typer.echo(f"random-bot games to the end, {players} players, standard rules, one core:")
    typer.echo(f"  checked API (Game)        {checked:>10,.0f} games/s  ({n_checked} games; a view per decision, the record)")
    typer.echo(f"    engine and record       {recorded:>10,.0f} games/s  ({n_recorded} games; no views)")
    typer.echo(f"    engine alone            {alone:>10,.0f} games/s  ({n_alone} games; no views, no record)")
    typer.echo(f"  fast path (FastDeal)      {fast:>10,.0f} games/s  ({n_fast} games)")
    typer.echo(f"  compiled (numba kernel)   {compiled * batch:>10,.0f} games/s  ({n_batches * batch} games)")
    typer.echo(f"  checked / fast path       {checked / fast:>10.3f}  "
               f"(engine and record: {recorded / fast:.3f}; engine alone: {alone / fast:.3f})")
    typer.echo(f"  per deal, checked / fast  {per_deal['checked']:>10.3f}  "
               f"(engine and record: {per_deal['record']:.3f}; engine alone: {per_deal['alone']:.3f})")
    typer.echo(f"  deals per game: {per_game['checked']:.2f} checked, {per_game['fast']:.2f} fast path "
               "(whose random players take the cheapest row)")


@app.command("env")
def env_speed(
    seconds: Annotated[float, typer.Option(min=0.1, help="Time per measurement.")] = 3.0,
    players: Annotated[int, typer.Option(min=2, max=10, help="Players per game.")] = 4,
    variant: Annotated[str, typer.Option(help="Any variant of docs/rules.md (standard, tactics, ..., double).")] = "standard",
    seed: Annotated[int, typer.Option(help="Seed for the shuffles and the random moves.")] = 1,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    vector: Annotated[bool, typer.Option("--vector", help="The vector env (sixnimmt.rl.vector) beside the parallel env, in agent-steps/s, with its scaling over N and players.")] = False,
    games: Annotated[int, typer.Option(min=1, max=65536, help="--vector: games stepped at once (N).")] = 1024,
) -> None:
    """RL environment steps per second (random legal moves), against the checked engine's (docs/rl.md)."""
    from ..core import RulesError
    from ..rl.benchmark import measure, measure_vector

    if vector:
        try:
            figures = measure_vector(players=players, variant=variant, games=games, seconds=seconds, seed=seed)
        except RulesError as error:
            raise typer.BadParameter(str(error)) from None
        figures["machine"] = f"{platform.machine()} {platform.processor() or ''}".strip()
        figures["python"] = platform.python_version()
        if as_json:
            typer.echo(json.dumps(figures))
            return
        typer.echo(f"random legal moves, {players} players, {variant}, one core; {figures['unit']}:")
        typer.echo(f"  vector env, N = {games:<6}      {figures['vector_steps_per_s']:>12,} agent-steps/s")
        typer.echo(f"  PettingZoo parallel env       {figures['parallel_steps_per_s']:>12,} agent-steps/s"
                   f"  (vector: {figures['speedup']}x)")
        typer.echo(f"  Gymnasium vector env, learner {figures['gym_vector_learner_steps_per_s']:>12,} learner steps/s (random opponents)")
        typer.echo("  scaling over N:       " + ", ".join(f"{n}: {v:,}" for n, v in figures["scaling_games"].items()))
        typer.echo("  scaling over players: " + ", ".join(f"{p}: {v:,}" for p, v in figures["scaling_players"].items()))
        return
    try:
        speed = measure(players=players, variant=variant, seconds=seconds, seed=seed)
    except RulesError as error:
        raise typer.BadParameter(str(error)) from None
    if as_json:
        typer.echo(json.dumps(speed.to_dict()))
        return
    typer.echo(f"random legal moves, {players} players, {variant}, one core (step = one turn or one row choice):")
    typer.echo(f"  engine (checked Game)     {speed.engine_steps_per_s:>10,.0f} steps/s  {speed.engine_games_per_s:>7,.1f} games/s")
    typer.echo(f"  PettingZoo parallel env   {speed.parallel_steps_per_s:>10,.0f} steps/s  {speed.parallel_games_per_s:>7,.1f} games/s"
               f"  ({speed.ratio:.2f} of the engine)")
    typer.echo(f"  Gymnasium env vs random   {speed.gym_steps_per_s:>10,.0f} learner steps/s")


def bot_speed(name: str, deals: int, players: int, seed: int) -> dict[str, float | int | str | None]:
    """Play ``deals`` one-deal games of ``name`` in every seat; time every decision.

    Thinking time is CPU time of this process (the bots are single-threaded), so the figures stay
    meaningful on a machine that other jobs share."""
    # The bots import numba kernels: load them only for this command.
    from ..seats import GuardedSeat, make_bot

    bots = [make_bot(name, seed + seat) for seat in range(players)]
    # Guarded, so a bot that fails plays the fallback and the figures still come; the seat times the
    # bot's own call on the CPU clock.
    seats = [GuardedSeat(bot, fallback_seed=seed + s, clock=time.process_time) for s, bot in enumerate(bots)]
    rules = Rules(players=players, deals=1)
    times: list[float] = []
    try:
        for deal in range(deals):
            game = Game(rules, seed=seed * 7919 + deal)
            while not game.is_over:
                for decision in game.pending():
                    seat = seats[decision.seat]
                    answer = seat.decide(game.view(decision.seat))
                    times.append(seat.last_seconds)
                    game.act(decision.seat, answer)
    finally:
        for seat in seats:
            seat.close()
    # Only search bots count rollouts; for the others the figure does not exist (None), it is not 0.
    searches = any(hasattr(bot, "rollouts") for bot in bots)
    rollouts = sum(int(getattr(bot, "rollouts", 0)) for bot in bots) if searches else None
    decisions, thinking = len(times), sum(times)
    return {
        "bot": name,
        "decisions": decisions,
        "decisions_per_s": round(decisions / thinking, 1) if thinking else 0.0,
        "ms_per_decision": round(1000 * thinking / decisions, 3),
        "median_ms_per_decision": round(1000 * statistics.median(times), 3),
        "max_ms_per_decision": round(1000 * max(times), 2),
        "rollouts": rollouts,
        "rollouts_per_s": None if rollouts is None else round(rollouts / thinking, 1) if thinking else 0.0,
    }


@app.command()
def bots(
    names: Annotated[
        str, typer.Option("--bots", help="Comma-separated bot specs (NAME[:key=value...], sixnimmt arena --list).")
    ] = "random,snug,cautious,mcs100,hard,expert,grandmaster",
    deals: Annotated[int, typer.Option(min=1, help="Deals per bot (every seat played by the bot).")] = 20,
    players: Annotated[int, typer.Option(min=2, max=10, help="Players per game.")] = 4,
    seed: Annotated[int, typer.Option(help="Seed for the deals and the bots.")] = 1,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Decisions per second of each bot and rollouts (simulated deal completions) per second, in CPU
    time of one core."""
    from ..seats import parse_spec

    wanted = [n.strip() for n in names.split(",") if n.strip()]
    for name in wanted:
        try:
            parse_spec(name)  # a registered name with optional options (expert:samples=400)
        except ValueError as error:
            raise typer.BadParameter(str(error), param_hint="--bots") from None
    for name in wanted:  # compile (or load the cache) outside the timing
        bot_speed(name, 1, players, seed + 1)
    results = [bot_speed(name, deals, players, seed) for name in wanted]
    if as_json:
        typer.echo(json.dumps({"players": players, "deals": deals, "bots": results}))
        return
    typer.echo(f"bot speed, {players} players, standard rules, {deals} deals per bot, CPU time of one core:")
    width = max(10, *(len(str(r["bot"])) for r in results))
    typer.echo(
        f"  {'bot':<{width}} {'decisions/s':>12} {'ms/decision':>12} {'median ms':>10} {'max ms':>9} {'rollouts/s':>12}"
    )
    for r in results:
        typer.echo(
            f"  {r['bot']:<{width}} {r['decisions_per_s']:>12,} {r['ms_per_decision']:>12} "
            f"{r['median_ms_per_decision']:>10} {r['max_ms_per_decision']:>9} "
            f"{'-' if r['rollouts_per_s'] is None else format(r['rollouts_per_s'], ','):>12}"
        )
