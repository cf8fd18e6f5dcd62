"""A Gymnasium single-agent environment: one learner against built-in bots.

The learner sits at ``seat`` (or a random seat each game); the other seats are bots from the registry
(``random``, ``easy``, ... ``mcs100``, any spec :func:`~sixnimmt.seats.make_bot` accepts), each seeing only
its own view. ``step`` answers the learner's decision, then lets the bots play until the learner owes
the next decision or the game ends. Observation, action and reward conventions are those of
:mod:`sixnimmt.rl.encoding` and :mod:`sixnimmt.rl.parallel`; the learner always owes a decision when
it gets an observation, so ``PASS_ACTION`` is never legal here.

Unlike the PettingZoo environments, an illegal action is by default answered with a seeded random
legal one (``info["illegal_action"]`` says what was sent) rather than an error: generic Gymnasium
tools step with unmasked ``action_space.sample()``s (``check_env`` even samples before ``reset``, so
no mask could help), and nearly every unmasked action is illegal. A learner that uses the action
mask never sees the difference; ``illegal_action="raise"`` makes an illegal action an error.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from numpy.typing import NDArray

from ..core import Game, IllegalMoveError
from ..core.text import rows_text
from ..seats import GuardedSeat, make_bot
from .encoding import N_ACTIONS, action_mask, action_to_move, encode
from .options import (
    DEFAULT_REWARD,
    GYMNASIUM_ILLEGAL_ACTION,
    IllegalActionMode,
    RewardMode,
    check_choice,
    check_options,
    step_rewards,
)
from .parallel import (
    RENDER_FPS,
    RENDER_MODES,
    Observation,
    legal_action,
    make_rules,
    observation_space,
    scores,
)


class SixNimmtEnv(gym.Env[Observation, int]):
    """One seat of a game against bots; an episode is a whole game.

    >>> env = SixNimmtEnv(players=4, opponents="random")
    >>> obs, info = env.reset(seed=3)
    >>> int(obs["action_mask"].sum())  # ten cards in hand
    10
    """

    metadata = {"render_modes": list(RENDER_MODES), "render_fps": RENDER_FPS}  # noqa: RUF012 - Gymnasium's convention

    def __init__(
        self,
        players: int = 4,
        variant: str = "standard",
        *,
        opponents: str | Sequence[str] = "random",
        seat: int | None = 0,
        target: int | None = 66,
        end: str = "at-least",
        deals: int | None = None,
        pro_tie: str = "choose",
        reward: RewardMode = DEFAULT_REWARD,
        illegal_action: IllegalActionMode = GYMNASIUM_ILLEGAL_ACTION,
        render_mode: str | None = None,
    ) -> None:
        self.rules = make_rules(players, variant, target, end, deals, pro_tie)
        check_options(reward, illegal_action)
        if render_mode is not None:
            check_choice("render_mode", render_mode, RENDER_MODES)
        specs = [opponents] * (players - 1) if isinstance(opponents, str) else list(opponents)
        if len(specs) != players - 1:
            raise ValueError(f"{len(specs)} opponent(s) for {players} players: give {players - 1} or one name")
        for spec in specs:  # fail now, with the registry's message, rather than at the first reset
            make_bot(spec, seed=0).close()
        if seat is not None and not (isinstance(seat, int) and 0 <= seat < players):
            raise ValueError(f"seat must be 0 to {players - 1} or None (a random seat), not {seat!r}")
        self.opponent_specs = tuple(specs)
        self.fixed_seat = seat
        self.reward_mode = reward
        self.illegal_action = illegal_action
        self._rng = random.Random()
        self.render_mode = render_mode
        self.observation_space = observation_space()  # type: ignore[assignment]
        self.action_space = spaces.Discrete(N_ACTIONS)  # type: ignore[assignment]
        self.seat = 0 if seat is None else seat
        self._game: Game | None = None
        self._bots: dict[int, GuardedSeat] = {}  # the opponents, guarded: a failing bot cannot stop training
        self._scores: list[int] = []

    @property
    def game(self) -> Game:
        if self._game is None:
            raise RuntimeError("call reset() first")
        return self._game

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observation, dict[str, Any]]:
        super().reset(seed=seed)
        rng = random.Random(int(self.np_random.integers(2**63)))
        self._rng = random.Random(rng.getrandbits(64))  # for illegal_action="random"
        players = self.rules.players
        self.seat = rng.randrange(players) if self.fixed_seat is None else self.fixed_seat
        for bot in self._bots.values():
            bot.close()
        others = [s for s in range(players) if s != self.seat]
        self._bots = {s: _seat(spec, rng.getrandbits(63)) for s, spec in zip(others, self.opponent_specs)}
        self._game = Game(self.rules, seed=rng.getrandbits(64))
        self._scores = scores(self._game)
        self._advance()
        if self.render_mode == "human":
            self.render()
        return self._observation(), {"seat": self.seat}

    def step(self, action: int) -> tuple[Observation, float, bool, bool, dict[str, Any]]:
        game = self.game
        decision = game.decision_for(self.seat)
        if decision is None:
            raise IllegalMoveError("the game is over: call reset() to start another")
        info: dict[str, Any] = {"seat": self.seat}
        legal = legal_action(decision, action, self.illegal_action, self._rng, "the learner")
        if legal != action:
            info["illegal_action"] = action
        game.act(self.seat, action_to_move(legal, decision))
        self._advance()
        now = scores(game)
        reward = step_rewards(self._scores, now, self.reward_mode)[self.seat]
        self._scores = now
        if game.is_over:
            info.update(totals=list(game.totals), won=self.seat in game.winners)
        if self.render_mode == "human":
            self.render()
        return self._observation(), reward, game.is_over, False, info

    def action_masks(self) -> NDArray[np.int8]:
        """The legal actions now (what sb3-contrib's MaskablePPO asks for)."""
        return action_mask(self.game.decision_for(self.seat))

    def render(self) -> str | None:
        """The rows and the scores as text: ``render_mode="ansi"`` returns it, ``"human"`` prints it
        (and returns None, as Gymnasium expects; ``reset`` and ``step`` render by themselves)."""
        if self.render_mode is None or self._game is None:
            return None
        game = self._game
        text = f"seat {self.seat}; rows {rows_text(game.rows)}; bullheads {scores(game)}"
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        for bot in self._bots.values():
            bot.close()
        self._bots = {}

    # ------------------------------------------------------------------ internals

    def _advance(self) -> None:
        """Let the bots answer their decisions until the learner owes one or the game ends."""
        game = self.game
        while not game.is_over:
            bot_decisions = [d for d in game.pending() if d.seat != self.seat]
            if not bot_decisions:
                return
            for decision in bot_decisions:
                seat = decision.seat
                game.act(seat, self._bots[seat].decide(game.view(seat)))

    def _observation(self) -> Observation:
        view = self.game.view(self.seat)
        return {"observation": encode(view), "action_mask": action_mask(view.decision)}


def _seat(spec: str, seed: int) -> GuardedSeat:
    """An opponent behind the guard (its fallback moves drawn from the same seed as the bot)."""
    return GuardedSeat(make_bot(spec, seed=seed), fallback_seed=seed)
