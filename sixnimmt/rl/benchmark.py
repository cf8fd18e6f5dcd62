"""Environment speed, measured against the engine's own (``sixnimmt bench env``, docs/performance.md).

Rates are per second of CPU time of one core. The units are chosen so that the figures compare: an environment *step* of the parallel env is one
turn's simultaneous cards from every seat (or one row choice), which is also what the checked engine
does per turn when random bots play it directly. Every agent gets its encoded observation at every
step, which is the work a learner needs and the engine alone does not do.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from ..core import Game, Rules
from .parallel import SixNimmtParallelEnv
from .single import SixNimmtEnv


@dataclass(frozen=True, slots=True)
class EnvSpeed:
    players: int
    variant: str
    engine_steps_per_s: float  # checked Game, random legal moves, no observations
    parallel_steps_per_s: float  # SixNimmtParallelEnv, every agent's observation each step
    gym_steps_per_s: float  # SixNimmtEnv vs random bots: learner decisions per second
    engine_games_per_s: float
    parallel_games_per_s: float

    @property
    def ratio(self) -> float:
        """Parallel-env steps per engine step: the issue asks for at least 0.1."""
        return self.parallel_steps_per_s / self.engine_steps_per_s

    def to_dict(self) -> dict[str, float | int | str]:
        return {**asdict(self), "ratio": round(self.ratio, 3)}


def _timed(run_game: Callable[[], int], seconds: float) -> tuple[float, float]:
    """(steps/s, games/s) of whole games run back to back for at least ``seconds`` of this process's
    CPU time: CPU time, not wall time, so that the figures hold on a machine shared with other work."""
    steps = games = 0
    start = time.process_time()
    while True:
        steps += run_game()
        games += 1
        elapsed = time.process_time() - start
        if elapsed >= seconds:
            return steps / elapsed, games / elapsed


def _parallel_games(players: int, variant: str, seed: int, rng: random.Random) -> Callable[[], int]:
    """Plays one whole game of the PettingZoo parallel env with random legal moves per call;
    returns its steps (each builds every seat's observation)."""
    parallel = SixNimmtParallelEnv(players=players, variant=variant, seed=seed)

    def parallel_game() -> int:
        obs, _ = parallel.reset()
        steps = 0
        while parallel.agents:
            actions = {a: rng.choice(np.flatnonzero(o["action_mask"]).tolist()) for a, o in obs.items()}
            obs, *_ = parallel.step(actions)
            steps += 1
        return steps

    return parallel_game


def measure(players: int = 4, variant: str = "standard", seconds: float = 3.0, seed: int = 1) -> EnvSpeed:
    """Random legal play through the engine, the parallel env and the Gymnasium env."""
    rng = random.Random(seed)
    rules = Rules(players=players, variant=variant)  # type: ignore[arg-type]  # Rules checks the name

    def engine_game() -> int:
        game, steps = Game(rules, rng=rng), 0
        while not game.is_over:
            for decision in game.pending():
                game.act(decision.seat, rng.choice(decision.options))
            steps += 1  # one turn's cards, or one row choice / draft pick: a parallel-env step
        return steps

    parallel_game = _parallel_games(players, variant, seed, rng)

    single = SixNimmtEnv(players=players, variant=variant, opponents="random")
    single.reset(seed=seed)

    def gym_game() -> int:
        obs, _ = single.reset()
        steps, done = 0, False
        while not done:
            obs, _, done, _, _ = single.step(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))
            steps += 1
        return steps

    engine_steps, engine_games = _timed(engine_game, seconds)
    parallel_steps, parallel_games = _timed(parallel_game, seconds)
    gym_steps, _ = _timed(gym_game, seconds)
    return EnvSpeed(players, variant, round(engine_steps, 1), round(parallel_steps, 1), round(gym_steps, 1),
                    round(engine_games, 1), round(parallel_games, 1))


# --------------------------------------------------------------------------------- vector envs

#: Batch sizes and table sizes of the scaling tables (``sixnimmt bench env --vector``).
SCALING_GAMES: tuple[int, ...] = (1, 16, 256, 1024, 4096)
SCALING_PLAYERS: tuple[int, ...] = (2, 3, 4, 6, 8, 10)


def _random_legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    actions: np.ndarray = (rng.random(masks.shape, dtype=np.float32) * masks).argmax(axis=-1)
    return actions


def batch_agent_steps(players: int, variant: str, games: int, seconds: float, seed: int) -> float:
    """Agent-steps per second of CPU time of :class:`~sixnimmt.rl.vector.SixNimmtBatch` (every
    seat's observation and mask built at every step): the clock runs inside ``step`` only, the
    random legal actions are drawn outside it (choosing them is the agent's work, not the env's)."""
    from .vector import SixNimmtBatch

    batch = SixNimmtBatch(num_games=games, players=players, variant=variant, seed=seed)
    _, masks = batch.reset()
    rng = np.random.default_rng(seed)
    batch.step(_random_legal(masks, rng))  # compile (or load the cache) outside the timing
    _, masks = batch.reset()
    spent, steps = 0.0, 0
    while spent < seconds:
        actions = _random_legal(masks, rng)
        start = time.process_time()
        _, masks, _, _, _ = batch.step(actions)
        spent += time.process_time() - start
        steps += 1
    return steps * games * players / spent


def vector_env_steps(players: int, variant: str, games: int, seconds: float, seed: int) -> float:
    """Learner steps per second of :class:`~sixnimmt.rl.vector.SixNimmtVectorEnv` against compiled
    random opponents (their moves are inside the clock, the learner's drawn outside it)."""
    from .vector import SixNimmtVectorEnv

    env = SixNimmtVectorEnv(num_envs=games, players=players, variant=variant, opponents="random", seat=None)
    obs, _ = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    spent, steps = 0.0, 0
    while spent < seconds:
        actions = _random_legal(obs["action_mask"], rng)
        start = time.process_time()
        obs, *_ = env.step(actions)
        spent += time.process_time() - start
        steps += 1
    return steps * games / spent


def parallel_agent_steps(players: int, variant: str, seconds: float, seed: int) -> float:
    """Agent-steps per second of CPU time of the PettingZoo parallel env (a step builds every
    seat's observation: ``players`` agent-steps), random legal moves."""
    rng = random.Random(seed)
    parallel_game = _parallel_games(players, variant, seed, rng)

    steps_per_s, _ = _timed(parallel_game, seconds)
    return steps_per_s * players


def measure_vector(
    players: int = 4, variant: str = "standard", games: int = 1024, seconds: float = 3.0, seed: int = 1,
    scaling: bool = True,
) -> dict[str, Any]:
    """The vector env beside the parallel env, in one run and one unit (agent-steps per second of
    one core's CPU time, observations and masks built), and how it scales with N and players."""
    vector = batch_agent_steps(players, variant, games, seconds, seed)
    parallel = parallel_agent_steps(players, variant, seconds, seed)
    result: dict[str, Any] = {
        "players": players,
        "variant": variant,
        "games": games,
        "unit": "agent-steps per second of CPU time, one core, every seat's observation and mask built",
        "vector_steps_per_s": round(vector),
        "parallel_steps_per_s": round(parallel),
        "speedup": round(vector / parallel, 1),
        "gym_vector_learner_steps_per_s": round(vector_env_steps(players, variant, games, seconds, seed)),
    }
    if scaling:
        short = max(seconds / 3, 0.1)
        result["scaling_games"] = {
            str(n): round(batch_agent_steps(players, variant, n, short, seed)) for n in SCALING_GAMES
        }
        result["scaling_players"] = {
            str(p): round(batch_agent_steps(p, variant, games, short, seed)) for p in SCALING_PLAYERS
        }
    return result
