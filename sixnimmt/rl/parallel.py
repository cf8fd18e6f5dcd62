"""6 nimmt! as a PettingZoo ``ParallelEnv`` (simultaneous moves), and its AEC form.

Conventions (docs/rl.md says the same at more length):

* Agents are ``player_0 .. player_{N-1}``, seat order. All are live from ``reset`` until the game
  ends, when all terminate together (or all truncate after ``max_cycles`` steps, if set).
* One ``step`` answers the decisions the game is waiting for: in the play phase every agent's card
  (simultaneous); during a row choice or a Logic draft pick, one agent's answer. Every other agent's
  ``action_mask`` allows only :data:`~sixnimmt.rl.encoding.PASS_ACTION`, and whatever it sends (or
  leaving it out of the action dict) is ignored.
* An agent that owes a decision must send a legal action. With ``illegal_action="raise"`` (the
  default) anything else raises :class:`~sixnimmt.core.IllegalMoveError` and changes nothing; with
  ``"random"`` a legal action is drawn from the environment's seeded generator instead and the
  agent's info says ``illegal_action``; this lets unmasked random testers (PettingZoo's seed test)
  play whole games.
* Each agent's action space samples legal actions: ``action_space(agent).sample()`` without a mask
  draws from the agent's current action mask (seeded like any space), so PettingZoo's seed test and
  other unmasked random testers play whole games with the default ``illegal_action="raise"``.
* ``state()`` is every seat's observation vector, in seat order (``state_space``): what a
  centralised critic may see, every hand included. An agent's own input is its observation only.
* Rewards: ``reward="penalty"``: minus the bullheads the agent took during the step;
  ``reward="relative"``: the mean of the other players' bullheads taken during the step minus the
  agent's own, so a game's rewards add up to (mean of the others' totals) minus the agent's total.
"""

from __future__ import annotations

import functools
import random
import weakref
from typing import Any

import numpy as np
from gymnasium import spaces
from numpy.typing import NDArray
from pettingzoo import AECEnv, ParallelEnv  # type: ignore[import-untyped]
from pettingzoo.utils.conversions import parallel_to_aec  # type: ignore[import-untyped]

from ..core import Decision, Game, IllegalMoveError, Rules, RulesError
from ..core.text import rows_text
from .encoding import (
    N_ACTIONS,
    OBS_SIZE,
    SUPPORTED_VARIANTS,
    action_mask,
    action_to_move,
    encode_seats,
)
from .options import (
    DEFAULT_ILLEGAL_ACTION,
    DEFAULT_REWARD,
    IllegalActionMode,
    RewardMode,
    check_choice,
    check_options,
    step_rewards,
)

RENDER_MODES: tuple[str, ...] = ("ansi", "human")
#: Frames per second a viewer of ``render_mode="human"`` would want (Gymnasium's ``render_fps``):
#: a text line per step, a few a second to follow a game by eye.
RENDER_FPS = 4

Observation = dict[str, NDArray[Any]]


def observation_space() -> spaces.Dict:
    """The observation space shared by every environment here: the vector and the action mask."""
    return spaces.Dict(
        {
            "observation": spaces.Box(0.0, 1.0, shape=(OBS_SIZE,), dtype=np.float32),
            "action_mask": spaces.Box(0, 1, shape=(N_ACTIONS,), dtype=np.int8),
        }
    )


def make_rules(
    players: int,
    variant: str,
    target: int | None,
    end: str,
    deals: int | None,
    pro_tie: str,
) -> Rules:
    """The core's :class:`Rules` (which validates every option with a clear message), for a
    variant the observation encoding covers."""
    rules = Rules(players=players, variant=variant, target=target, end=end, deals=deals, pro_tie=pro_tie)  # type: ignore[arg-type]
    if rules.variant.value not in SUPPORTED_VARIANTS:
        raise RulesError(
            f"the RL environments do not cover the {rules.variant.value} variant yet: choose one of "
            + ", ".join(SUPPORTED_VARIANTS)
        )
    return rules


def scores(game: Game) -> list[int]:
    """Bullheads each seat has taken in the game so far, the deal in progress included (public)."""
    if game.is_over:  # the last deal's penalties are already in the totals (and are not reset)
        return list(game.totals)
    return [t + p for t, p in zip(game.totals, game.penalties)]


class LegalActions(spaces.Discrete):
    """The action space of one agent of an env: ``Discrete(109)``, whose ``sample()`` without a
    mask draws from the agent's current action mask (what it may legally send now)."""

    def __init__(self, env: SixNimmtParallelEnv, agent: str) -> None:
        super().__init__(N_ACTIONS)
        self._env = weakref.ref(env)
        self._seat = env.possible_agents.index(agent)

    def sample(self, mask: Any = None, probability: Any = None) -> Any:
        env = self._env()
        if mask is None and probability is None and env is not None and env._game is not None:
            mask = action_mask(env._game.view(self._seat).decision)
        return super().sample(mask=mask, probability=probability)


class SixNimmtParallelEnv(ParallelEnv[str, Observation, int]):  # type: ignore[misc]
    """The whole game (every deal until the end rule says stop) for 2 to 10 agents.

    >>> env = SixNimmtParallelEnv(players=3, seed=5)
    >>> obs, infos = env.reset()
    >>> sorted(obs) == env.agents == ["player_0", "player_1", "player_2"]
    True
    """

    metadata = {  # noqa: RUF012 - PettingZoo's convention
        "name": "sixnimmt_v0",
        "render_modes": list(RENDER_MODES),
        "render_fps": RENDER_FPS,
        "is_parallelizable": True,
    }

    def __init__(
        self,
        players: int = 4,
        variant: str = "standard",
        *,
        target: int | None = 66,
        end: str = "at-least",
        deals: int | None = None,
        pro_tie: str = "choose",
        reward: RewardMode = DEFAULT_REWARD,
        illegal_action: IllegalActionMode = DEFAULT_ILLEGAL_ACTION,
        max_cycles: int | None = None,
        render_mode: str | None = None,
        seed: int | None = None,
    ) -> None:
        self.rules = make_rules(players, variant, target, end, deals, pro_tie)
        check_options(reward, illegal_action)
        if render_mode is not None:
            check_choice("render_mode", render_mode, RENDER_MODES)
        self.reward_mode = reward
        self.illegal_action = illegal_action
        self.max_cycles = max_cycles
        self.render_mode = render_mode
        self.possible_agents = [f"player_{seat}" for seat in range(players)]
        self.agents: list[str] = []
        self._rng = random.Random(seed)
        self._game: Game | None = None
        self._cycles = 0
        self._observation_space = observation_space()
        #: Every seat's observation vector, in seat order (:meth:`state`).
        self.state_space = spaces.Box(0.0, 1.0, shape=(players * OBS_SIZE,), dtype=np.float32)

    # PettingZoo requires the same space object on every call (space seeding depends on it).
    @functools.cache  # noqa: B019 - one env, a handful of agents
    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self._observation_space

    @functools.cache  # noqa: B019
    def action_space(self, agent: str) -> spaces.Space[Any]:
        return LegalActions(self, agent)

    def state(self) -> NDArray[np.float32]:
        """The global state for centralised training: every seat's observation vector (hands
        included), in seat order; ``state_space`` describes it."""
        game = self.game
        views = [game.view(seat) for seat in range(len(self.possible_agents))]
        return np.concatenate(encode_seats(views)).astype(np.float32, copy=False)

    @property
    def game(self) -> Game:
        """The game being played (for logging and replays: agents must learn from views only)."""
        if self._game is None:
            raise RuntimeError("call reset() first")
        return self._game

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Observation], dict[str, dict[str, Any]]]:
        """Start a new game; ``seed`` fixes this and every later game's deals (and random fallbacks)."""
        if seed is not None:
            self._rng = random.Random(seed)
        self._game = Game(self.rules, seats=self.possible_agents, seed=self._rng.getrandbits(64))
        self.agents = list(self.possible_agents)
        self._cycles = 0
        if self.render_mode == "human":
            self.render()
        return self._observations(), {agent: {} for agent in self.agents}

    def step(
        self, actions: dict[str, int]
    ) -> tuple[
        dict[str, Observation],
        dict[str, float],
        dict[str, bool],
        dict[str, bool],
        dict[str, dict[str, Any]],
    ]:
        """Answer the pending decisions with ``actions`` (see the module docstring for the rules)."""
        game = self.game
        if not self.agents:
            raise IllegalMoveError("the game is over: call reset() to start another")
        infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        moves = [
            (decision.seat, action_to_move(self._legal_action(decision, actions, infos), decision))
            for decision in game.pending()
        ]
        before = scores(game)
        for seat, move in moves:  # all checked above, so none of these can fail half-way
            game.act(seat, move)
        self._cycles += 1

        rewards = dict(zip(self.agents, step_rewards(before, scores(game), self.reward_mode)))
        over = game.is_over
        cut = not over and self.max_cycles is not None and self._cycles >= self.max_cycles
        terminations = dict.fromkeys(self.agents, over)
        truncations = dict.fromkeys(self.agents, cut)
        observations = self._observations()
        if over:
            for seat, agent in enumerate(self.agents):
                infos[agent].update(totals=list(game.totals), won=seat in game.winners)
        if over or cut:
            self.agents = []
        if self.render_mode == "human":
            self.render()
        return observations, rewards, terminations, truncations, infos

    def render(self) -> str | None:
        """The rows and the scores as text: ``render_mode="ansi"`` returns it, ``"human"`` prints it
        and returns None (``reset`` and ``step`` render by themselves in that mode)."""
        if self.render_mode is None or self._game is None:
            return None
        game = self._game
        where = "game over" if game.is_over else f"deal {game.deal_index + 1}, turn {game.turn + 1}"
        text = f"{where}: rows {rows_text(game.rows)}; bullheads {scores(game)}"
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        self._game = None

    # ------------------------------------------------------------------ internals

    def _observations(self) -> dict[str, Observation]:
        game = self.game
        views = [game.view(seat) for seat in range(len(self.possible_agents))]
        return {
            agent: {"observation": observation, "action_mask": action_mask(view.decision)}
            for agent, view, observation in zip(self.possible_agents, views, encode_seats(views))
        }

    def _legal_action(
        self, decision: Decision, actions: dict[str, int], infos: dict[str, dict[str, Any]]
    ) -> int:
        agent = self.possible_agents[decision.seat]
        sent = actions.get(agent)
        action = legal_action(decision, sent, self.illegal_action, self._rng, agent)
        if action != sent:
            infos[agent]["illegal_action"] = sent
        return action


def legal_action(
    decision: Decision, sent: Any, mode: str, rng: random.Random, who: str
) -> int:
    """``sent`` if it is a legal action for ``decision``; else raise (``mode="raise"``) or return a
    legal action drawn from ``rng`` (``mode="random"``)."""
    mask = action_mask(decision)
    try:
        action = None if sent is None else int(sent)
    except (TypeError, ValueError):
        action = None
    if action is not None and 0 <= action < N_ACTIONS and mask[action]:
        return action
    legal = [int(a) for a in np.flatnonzero(mask)]
    if mode == "raise":
        what = "no action" if sent is None else f"action {sent!r}"
        raise IllegalMoveError(
            f"{who} sent {what} for its {decision.kind.value} decision: legal actions are {legal}"
        )
    return rng.choice(legal)


def parallel_env(**kwargs: Any) -> SixNimmtParallelEnv:
    """``SixNimmtParallelEnv(**kwargs)``, PettingZoo's usual constructor name."""
    return SixNimmtParallelEnv(**kwargs)


def aec_env(**kwargs: Any) -> AECEnv[str, Observation, int]:
    """The same game as an AEC (turn-by-turn) environment, through PettingZoo's own conversion.

    Each agent acts in turn; the collected actions go to the parallel env once every live agent has
    acted, so agents without a decision pass (``PASS_ACTION``) as in the parallel form.
    """
    return parallel_to_aec(SixNimmtParallelEnv(**kwargs))
