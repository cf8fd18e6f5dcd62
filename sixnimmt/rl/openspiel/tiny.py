"""Tiny 6 nimmt!: the same rules on a deck, hands and rows so small that OpenSpiel's CFR solves the
game, and the exploitability of any policy (our bots, a learned one) can be measured exactly.

A smaller game is a size of the rules (:class:`~sixnimmt.core.variants.TableSize`: the deck
``1..cards``, hands of ``hand``, ``rows`` rows of ``row_limit``), played by the one engine. As an
OpenSpiel game it takes the parameters ``cards``, ``hand``, ``rows`` and ``row_limit``, with
``zero_sum=true`` (each player's bullheads against the others' mean) since exploitability is
defined for zero-sum games.

CFR visits every history at every iteration; a game written in Python makes that slow (each state
is the engine's, cloned at every step). :func:`solve` therefore runs OpenSpiel's CFR+ on the same
tree written out once in Gambit's format (OpenSpiel's ``export_gambit``, read back by
``pyspiel.load_efg_game``): the same game, node for node and information set for information set,
at C++ speed. Run directly on the Python game, CFR+ gives the same exploitability to the last digit
in about forty times the time (docs/baselines.md).

    python -m sixnimmt.rl.openspiel.tiny --deep-cfr 10,40     # the table of docs/baselines.md
    python -m sixnimmt.rl.openspiel.tiny --game "sixnimmt(players=2,cards=6,hand=2,rows=1,row_limit=2,zero_sum=true)"
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from . import require_pyspiel

#: The smallest game of the tests: CFR+ brings it under 0.01 in 20 iterations (a few seconds).
TINY = "sixnimmt(players=2,cards=6,hand=2,rows=1,row_limit=2,zero_sum=true)"
#: The game of the table in docs/baselines.md: two rows, so row choices count.
SMALL = "sixnimmt(players=2,cards=7,hand=2,rows=2,row_limit=2,zero_sum=true)"
#: The bots whose exploitability the table reports.
BOTS = ("random", "easy", "medium", "hard", "expert", "learned")


@dataclass(frozen=True)
class Tree:
    """A game's whole tree as an OpenSpiel EFG game, and one state of the game at each of its
    information sets (named ``i0``, ``i1``, ...: the EFG information state string ends with it)."""

    efg: Any
    infosets: dict[str, Any]

    def state_at(self, efg_information_state: str) -> Any:
        return self.infosets[efg_information_state.rsplit("-", 1)[1]]


@dataclass(frozen=True)
class Solved:
    """CFR+'s run on one game: its average policy over the tree, and its exploitability."""

    policy: Any
    exploitability: float
    iterations: int


def turn_based(game_string: str) -> Any:
    """The turn-based form of ``game_string`` (a game ``sixnimmt(...)``)."""
    import pyspiel

    from . import game  # noqa: F401  (registers the game)

    return pyspiel.convert_to_turn_based(pyspiel.load_game(game_string))


def tree(game_string: str) -> Tree:
    """The turn-based game's whole tree, written out in Gambit's format as OpenSpiel's
    ``export_gambit`` does (with each information set named) and read back as an EFG game."""
    import pyspiel

    game = turn_based(game_string)
    lines = [f'EFG 2 R "{game_string}" {{ {" ".join(f"{chr(34)}Pl{p}{chr(34)}" for p in range(game.num_players()))} }}']
    numbers: list[dict[str, int]] = [{} for _ in range(game.num_players())]
    infosets: dict[str, Any] = {}
    names: dict[tuple[int, str], str] = {}
    counters = {"terminal": 0, "chance": 0}

    def visit(state: Any) -> None:
        if state.is_terminal():
            counters["terminal"] += 1
            lines.append(f't "" {counters["terminal"]} "" {{ {" ".join(map(str, state.returns()))} }}')
            return
        labels = [f'"{state.action_to_string(state.current_player(), a)}"' for a in state.legal_actions()]
        if state.is_chance_node():
            counters["chance"] += 1
            pairs = " ".join(f"{label} {p:.17g}" for label, (_, p) in zip(labels, state.chance_outcomes()))
            lines.append(f'c "" {counters["chance"]} "" {{ {pairs} }} 0')
        else:
            player = state.current_player()
            key = state.information_state_string()
            if key not in numbers[player]:
                numbers[player][key] = len(numbers[player]) + 1
                names[player, key] = f"i{len(infosets)}"
                infosets[names[player, key]] = state.clone()
            number, name = numbers[player][key], names[player, key]
            lines.append(f'p "" {player + 1} {number} "{name}" {{ {" ".join(labels)} }} 0')
        for action in state.legal_actions():
            visit(state.child(action))

    visit(game.new_initial_state())
    efg = pyspiel.load_efg_game("\n".join(lines) + "\n")
    return Tree(efg, infosets)


def solve(tree: Tree, iterations: int) -> Solved:
    """Run OpenSpiel's CFR+ for ``iterations`` on the tree; its exploitability after."""
    import pyspiel

    solver = pyspiel.CFRPlusSolver(tree.efg)
    for _ in range(iterations):
        solver.evaluate_and_update_policy()
    policy = solver.average_policy()
    return Solved(policy, float(pyspiel.exploitability(tree.efg, policy)), iterations)


def tabular(tree: Tree, probabilities: Callable[[Any], dict[int, float]]) -> Any:
    """A policy over the game's turn-based states (``probabilities(state)``: action to
    probability, at the player to move's states) as a tabular policy over the tree, to measure."""
    import pyspiel

    table: dict[str, list[tuple[int, float]]] = {}

    def visit(state: Any) -> None:
        if state.is_terminal():
            return
        if not state.is_chance_node():
            key = state.information_state_string()
            if key not in table:
                ours = tree.state_at(key)
                player = ours.current_player()
                by_label = {ours.action_to_string(player, a): p for a, p in probabilities(ours).items()}
                table[key] = [(a, float(by_label.get(state.action_to_string(a), 0.0))) for a in state.legal_actions()]
        for action in state.legal_actions():
            visit(state.child(action))

    visit(tree.efg.new_initial_state())
    return pyspiel.TabularPolicy(table)


def bot_policy(tree: Tree, spec: str, seed: int = 0) -> Any:
    """One of our bots as a policy over the tree: at each information set, the move the bot makes
    from the seat's view there (probability 1)."""
    from ...seats import make_bot
    from ..encoding import move_to_action

    bot = make_bot(spec, seed)

    def move(state: Any) -> dict[int, float]:
        view = state.simultaneous_game_state().view(state.current_player())
        assert view is not None and view.decision is not None
        return {move_to_action(bot.decide(view), view.decision): 1.0}

    return tabular(tree, move)


def deep_cfr_policy(tree: Tree, game_string: str, iterations: int, traversals: int, seed: int = 0) -> Any:
    """OpenSpiel's Deep CFR (PyTorch) trained on the game itself, from its information state
    tensor, as a policy over the tree: a learned policy to measure."""
    import numpy as np
    import torch
    from open_spiel.python.pytorch import deep_cfr

    torch.manual_seed(seed)
    np.random.seed(seed)
    solver = deep_cfr.DeepCFRSolver(
        turn_based(game_string), policy_network_layers=(64, 64), advantage_network_layers=(64, 64),
        num_iterations=iterations, num_traversals=traversals, learning_rate=1e-3, batch_size_advantage=128,
        batch_size_strategy=512, memory_capacity=10**6, policy_network_train_steps=400,
        advantage_network_train_steps=200, reinitialize_advantage_networks=True,
    )
    solver.solve()
    return tabular(tree, lambda state: dict(solver.action_probabilities(state)))


def exploitability(tree: Tree, policy: Any) -> float:
    """OpenSpiel's exploitability of ``policy`` (over the tree) in the two-player zero-sum game."""
    import pyspiel

    return float(pyspiel.exploitability(tree.efg, policy))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--game", default=SMALL, help=f"the game (default {SMALL})")
    parser.add_argument("--iterations", default="1,10,100,1000", help="CFR+ iterations to report")
    parser.add_argument("--bots", default=",".join(BOTS), help="our bots to measure (empty: none)")
    parser.add_argument("--deep-cfr", default="", metavar="ITERATIONS,TRAVERSALS",
                        help="also train OpenSpiel's Deep CFR (PyTorch) so long and measure it (minutes)")
    args = parser.parse_args(argv)
    try:
        require_pyspiel()
        counts = [int(n) for n in args.iterations.split(",") if n]
        if args.deep_cfr and len(args.deep_cfr.split(",")) != 2:
            raise ValueError("--deep-cfr takes ITERATIONS,TRAVERSALS, e.g. 10,40")
    except (ImportError, ValueError) as error:
        parser.exit(2, f"error: {error}\n")
    import pyspiel

    start = time.perf_counter()
    try:
        if not args.game.startswith("sixnimmt("):
            raise pyspiel.SpielError(f"--game is a game sixnimmt(...), not {args.game!r}")
        written = tree(args.game)
        if written.efg.get_type().utility != pyspiel.GameType.Utility.ZERO_SUM or written.efg.num_players() != 2:
            raise pyspiel.SpielError("exploitability is measured in two-player zero-sum games: players=2,zero_sum=true")
    except pyspiel.SpielError as error:
        parser.exit(2, f"error: {error}\n")
    print(f"{args.game}: tree written out in {time.perf_counter() - start:.1f} s, "
          f"{len(written.infosets)} information sets")
    print("| policy | exploitability |\n| --- | ---: |")
    print(f"| uniform random | {exploitability(written, pyspiel.UniformRandomPolicy(written.efg)):.4f} |", flush=True)
    for spec in filter(None, args.bots.split(",")):
        try:
            figure = f"{exploitability(written, bot_policy(written, spec)):.4f}"
        except Exception as error:  # a bot that cannot play this size: say so, go on
            figure = f"cannot play it ({type(error).__name__}: {error})"
        print(f"| `{spec}` | {figure} |", flush=True)
    for count in counts:
        print(f"| CFR+, {count} iterations | {solve(written, count).exploitability:.4f} |", flush=True)
    if args.deep_cfr:
        iterations, traversals = (int(n) for n in args.deep_cfr.split(","))
        learned = deep_cfr_policy(written, args.game, iterations, traversals)
        print(f"| Deep CFR, {iterations} iterations of {traversals} traversals | "
              f"{exploitability(written, learned):.4f} |", flush=True)


if __name__ == "__main__":
    main()
