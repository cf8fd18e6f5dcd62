"""Many games at once, in arrays: the fast environments for training (docs/rl.md, "Vector environments").

Two interfaces over the same compiled games (:mod:`sixnimmt.rl.vector_kernels`):

* :class:`SixNimmtBatch`, for self-play: N games of P agents each. ``reset()`` returns observations
  ``[N, P, OBS_SIZE]`` and action masks ``[N, P, N_ACTIONS]``; ``step(actions)`` takes actions
  ``[N, P]`` and returns observations, masks, rewards ``[N, P]``, dones ``[N]`` and an info dict.
  A finished game starts again at once (the returned observation is the new game's first); its
  final totals are in ``info["totals"]``.
* :class:`SixNimmtVectorEnv`, a Gymnasium ``VectorEnv``: one learning seat per game against built-in
  compiled opponents (``random``, ``greedy``) or policies (the shipped ``learned`` one, any
  :class:`~sixnimmt.rl.policy.MlpPolicy`), with Gymnasium's next-step autoreset.

Observations, masks and actions are exactly those of the single-game environments
(:mod:`sixnimmt.rl.encoding`): a policy trained on one runs on the others. One step of the batch
answers the decisions every game waits for, as the PettingZoo env does: every seat's card, or one
seat's row choice (every other seat may only pass, and whatever it sends is ignored).

Variants: standard, Tactics and Professional (with every ``pro_tie``), 2 to 10 players, with every
end option (``target``, ``end``, ``deals``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space
from numpy.typing import NDArray

from ..core import HAND_SIZE, DealSetup, IllegalMoveError, ProTie, Rules, RulesError
from . import vector_kernels as k
from .encoding import N_ACTIONS, OBS_SIZE, PASS_ACTION, VARIANT_NAMES
from .options import (
    DEFAULT_ILLEGAL_ACTION,
    DEFAULT_REWARD,
    IllegalActionMode,
    RewardMode,
    batch_rewards,
    check_options,
)
from .parallel import make_rules, observation_space
from .policy import DEFAULT_POLICY, MlpPolicy

#: ``policy(observations [M, OBS_SIZE], masks [M, N_ACTIONS]) -> actions [M]``: an opponent that is
#: not compiled (a trained network, a past self in a league).
BatchPolicy = Callable[[NDArray[np.float32], NDArray[np.int8]], NDArray[np.int64]]
#: What may sit in an opponent's seat: a compiled opponent's name, ``"learned"`` (the shipped
#: policy), a policy file's path, an :class:`MlpPolicy`, or any :data:`BatchPolicy`.
Opponent = str | MlpPolicy | Callable[..., Any]

COMPILED_OPPONENTS = {"random": k.OPP_RANDOM, "greedy": k.OPP_GREEDY}
_TIE_MODES = {ProTie.CHOOSE: k.TIE_CHOOSE, ProTie.LEFT: k.TIE_LEFT, ProTie.RIGHT: k.TIE_RIGHT}


def vector_config(rules: Rules) -> k.Config:
    """The compiled games' settings for ``rules``; :class:`RulesError` for a variant they do not
    cover (what they cover: one secret card per seat per turn, shuffled deals of ten cards from a
    deck of distinct cards 1..n, right-end or either-end placement)."""
    deck = rules.deck
    simple_deck = list(deck) == list(range(1, len(deck) + 1))
    one_card = rules.cards_per_turn == 1 and not rules.sequential and not rules.drafted
    if not (simple_deck and one_card and rules.hand_size == HAND_SIZE):
        raise RulesError(
            f"the vector environments do not cover the {rules.variant.value} variant: they play "
            "standard, tactics and professional (the others: SixNimmtParallelEnv, SixNimmtEnv)"
        )
    return k.Config(
        players=rules.players,
        deck_top=len(deck),
        professional=rules.professional,
        tie_mode=_TIE_MODES[rules.pro_tie],
        target=-1 if rules.target is None else rules.target,
        above=rules.end.value == "above",
        deals=-1 if rules.deals is None else rules.deals,
        score_scale=float(rules.target) if rules.target is not None else 100.0,
        variant_slot=VARIANT_NAMES.index(rules.variant.value),
        layout=k.layout(),
    )


def _check_games(num: int, what: str) -> int:
    if isinstance(num, bool) or not isinstance(num, int) or num < 1:
        raise ValueError(f"{what} must be a whole number of at least 1, not {num!r}")
    return num


def _seed_value(seed: int | None) -> int:
    if seed is None:
        return int(np.random.SeedSequence().generate_state(1, np.uint64)[0] >> np.uint64(1))
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise ValueError(f"seed must be a whole number >= 0 or None, not {seed!r}")
    return int(seed)


class _Games:
    """The compiled games, the rules they follow and the checks of what comes in."""

    def __init__(self, num: int, rules: Rules, reward: str, illegal_action: str) -> None:
        check_options(reward, illegal_action)
        self.illegal_action = illegal_action
        self.num = _check_games(num, "the number of games")
        self.rules = rules
        self.config = vector_config(rules)
        self.players = rules.players
        self.reward_mode = reward
        self.state = k.Batch.empty(self.num, self.players)
        self.all_games = np.arange(self.num, dtype=np.int64)

    def seed(self, seed: int | None) -> None:
        k.seed_games(self.state.rng, self.all_games, _seed_value(seed))

    def new_games(self, games: NDArray[np.int64]) -> None:
        for g in games:
            k.new_game(self.state, self.config, int(g))

    def check(
        self, actions: NDArray[np.int64], games: NDArray[np.int64], who: Callable[[int], str]
    ) -> NDArray[np.bool_] | None:
        """Raise :class:`IllegalMoveError` for the first owed decision ``actions`` does not answer
        legally (``illegal_action="raise"``), or replace each by a random legal action
        (``"random"``) and return where (``None``: nothing was replaced)."""
        if self.illegal_action == "random":
            replaced = np.zeros(actions.shape, dtype=np.bool_)
            k.replace_illegal(self.state, actions, games, replaced)
            return replaced if replaced.any() else None
        bad = k.first_illegal(self.state, actions, games)
        if bad >= 0:
            g, seat = divmod(bad, self.players)
            legal = self.legal_actions(g, seat)
            raise IllegalMoveError(
                f"game {g}: {who(seat)} sent action {int(actions[g, seat])}, which does not answer its "
                f"decision: legal actions are {legal}"
            )
        return None

    def legal_actions(self, game: int, seat: int) -> list[int]:
        return [a for a in range(N_ACTIONS) if k.is_legal(self.state, game, seat, a)]

    def deal_setup(self, game: int) -> DealSetup:
        """Game ``game``'s current deal as the engine's :class:`DealSetup`, read at the deal's start
        (the tests hand it to the checked engine as its dealer)."""
        s = self.state
        hands = tuple(tuple(int(c) for c in s.hands[game, p, : s.hand_len[game, p]]) for p in range(self.players))
        return DealSetup(hands=hands, rows=tuple(int(s.rows[game, r, 0]) for r in range(4)))


def _as_actions(actions: Any, shape: tuple[int, ...]) -> NDArray[np.int64]:
    try:
        array = np.asarray(actions)
        if array.dtype.kind not in "iu" or array.shape != shape:
            raise TypeError
    except (TypeError, ValueError):
        raise IllegalMoveError(
            f"actions must be whole numbers in an array of shape {shape}, not {getattr(actions, 'shape', type(actions).__name__)}"
        ) from None
    return array.astype(np.int64, copy=False)


class SixNimmtBatch:
    """N games, every seat an agent: the multi-agent batch API for self-play.

    >>> batch = SixNimmtBatch(num_games=8, players=4, seed=1)
    >>> obs, masks = batch.reset()
    >>> obs.shape, masks.shape
    ((8, 4, 1037), (8, 4, 109))
    >>> actions = masks.argmax(axis=-1)  # every seat plays its lowest legal action
    >>> obs, masks, rewards, dones, info = batch.step(actions)
    >>> rewards.shape, dones.shape
    ((8, 4), (8,))

    ``rewards[g, seat]`` follows ``reward`` as in the other environments (``"penalty"``: minus the
    bullheads taken in the step; ``"relative"``: the mean of the others' minus one's own). When
    ``dones[g]`` is true, game ``g`` ended in this step: ``info["totals"][g]`` holds its final
    totals and ``obs[g]`` is already the first observation of the next game. A seat that owes no
    decision has a mask allowing only ``PASS_ACTION``; its action is ignored. An owed decision
    answered illegally raises :class:`~sixnimmt.core.IllegalMoveError`, and no game changes.
    ``seed`` (or ``reset(seed=...)``) fixes every game's deals, each game its own stream.
    """

    def __init__(
        self,
        num_games: int = 1024,
        players: int = 4,
        variant: str = "standard",
        *,
        target: int | None = 66,
        end: str = "at-least",
        deals: int | None = None,
        pro_tie: str = "choose",
        reward: RewardMode = DEFAULT_REWARD,
        seed: int | None = None,
    ) -> None:
        rules = make_rules(players, variant, target, end, deals, pro_tie)
        self._games = _Games(num_games, rules, reward, DEFAULT_ILLEGAL_ACTION)
        self.num_games = self._games.num
        self.players = players
        self.rules = rules
        self._seed = seed
        self._started = False
        self._obs = np.zeros((self.num_games, players, OBS_SIZE), dtype=np.float32)
        self._masks = np.zeros((self.num_games, players, N_ACTIONS), dtype=np.int8)

    @property
    def state(self) -> k.Batch:
        """The games' arrays (read them; changing them breaks the rules)."""
        return self._games.state

    def deal_setup(self, game: int) -> DealSetup:
        return self._games.deal_setup(game)

    def reset(self, seed: int | None = None) -> tuple[NDArray[np.float32], NDArray[np.int8]]:
        """Start every game anew; ``seed`` (else the constructor's) fixes all their deals."""
        games = self._games
        games.seed(seed if seed is not None else self._seed)
        games.new_games(games.all_games)
        self._started = True
        return self._observe()

    def step(
        self, actions: Any
    ) -> tuple[NDArray[np.float32], NDArray[np.int8], NDArray[np.float32], NDArray[np.bool_], dict[str, Any]]:
        """Answer every game's pending decisions with ``actions[g, seat]``."""
        if not self._started:
            raise RuntimeError("call reset() first")
        games = self._games
        acts = _as_actions(actions, (self.num_games, self.players))
        games.check(acts, games.all_games, lambda seat: f"seat {seat}")
        taken = np.zeros((self.num_games, self.players), dtype=np.int64)
        k.apply(games.state, games.config, acts, games.all_games, taken)
        dones = games.state.phase == k.OVER
        finished = np.flatnonzero(dones)
        totals = np.zeros((self.num_games, self.players), dtype=np.int64)
        if finished.size:
            totals[finished] = games.state.totals[finished]
            games.new_games(finished)
        obs, masks = self._observe()
        return obs, masks, batch_rewards(taken, games.reward_mode), dones, {"totals": totals, "_totals": dones}

    def compiled_actions(self, kinds: NDArray[np.int64], actions: NDArray[np.int64] | None = None) -> NDArray[np.int64]:
        """Moves of the compiled opponents for the decisions owed now: ``kinds[g, seat]`` is
        ``COMPILED_OPPONENTS[name]`` for a seat they play, -1 for any other (left as it is in
        ``actions``, default ``PASS_ACTION``). For leagues that mix the built-in players with
        policies in one batch."""
        out = np.full((self.num_games, self.players), PASS_ACTION, dtype=np.int64) if actions is None else actions
        learner = np.full(self.num_games, -1, dtype=np.int64)  # no seat is skipped
        k.opponent_actions(self._games.state, self._games.config, out, self._games.all_games, learner,
                           np.ascontiguousarray(kinds, dtype=np.int64))
        return out

    def _observe(self) -> tuple[NDArray[np.float32], NDArray[np.int8]]:
        # Fresh arrays each step: a learner may keep the previous ones (a rollout buffer).
        obs = np.empty((self.num_games, self.players, OBS_SIZE), dtype=np.float32)
        masks = np.empty((self.num_games, self.players, N_ACTIONS), dtype=np.int8)
        k.encode_all(self._games.state, self._games.config, self._games.all_games, obs, masks)
        return obs, masks


def _policy_of(opponent: Opponent) -> BatchPolicy | None:
    """The batch policy behind an opponent spec (``None`` for a compiled opponent)."""
    if isinstance(opponent, str):
        if opponent in COMPILED_OPPONENTS:
            return None
        path = DEFAULT_POLICY if opponent == "learned" else opponent
        if opponent != "learned" and not opponent.endswith(".npz"):
            raise ValueError(
                f"unknown opponent {opponent!r}: choose one of {', '.join([*COMPILED_OPPONENTS, 'learned'])}, "
                "or a policy file (.npz)"
            )
        opponent = MlpPolicy.load(path)
    if isinstance(opponent, MlpPolicy):
        return opponent.act_batch
    if callable(opponent):
        return opponent
    raise ValueError(f"an opponent is a name, a policy file, an MlpPolicy or a callable, not {opponent!r}")


class SixNimmtVectorEnv(VectorEnv[dict[str, NDArray[Any]], NDArray[np.int64], NDArray[Any]]):
    """``num_envs`` games, each with one learning seat against opponents; Gymnasium's ``VectorEnv``.

    >>> env = SixNimmtVectorEnv(num_envs=16, players=4, opponents="random")
    >>> obs, info = env.reset(seed=3)
    >>> obs["observation"].shape, obs["action_mask"].shape
    ((16, 1037), (16, 109))
    >>> obs, rewards, terminations, truncations, info = env.step(obs["action_mask"].argmax(axis=1))

    Like :class:`~sixnimmt.rl.single.SixNimmtEnv` for every game: the learner sits at ``seat``
    (``None``: a seat drawn for each game), the other seats are ``opponents`` (one for all, or a list
    of ``players - 1``), and the learner is asked only when it owes a decision. Opponents: the
    compiled ``"random"`` (uniform legal moves) and ``"greedy"`` (the search bots' rollout
    heuristic), ``"learned"`` (the shipped policy), a policy file, an ``MlpPolicy`` or any
    ``policy(observations, masks) -> actions`` over a batch, such as a past self. Autoreset is
    Gymnasium's next-step mode: the step after a game ends starts the next one (its action is
    ignored; reward 0). ``info["totals"]`` holds a finished game's totals (``info["_totals"]`` says
    which games finished), ``info["seat"]`` the learner's seat.
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP}  # noqa: RUF012 - Gymnasium's convention

    def __init__(
        self,
        num_envs: int = 1024,
        players: int = 4,
        variant: str = "standard",
        *,
        opponents: Opponent | Sequence[Opponent] = "random",
        seat: int | None = 0,
        target: int | None = 66,
        end: str = "at-least",
        deals: int | None = None,
        pro_tie: str = "choose",
        reward: RewardMode = DEFAULT_REWARD,
        illegal_action: IllegalActionMode = DEFAULT_ILLEGAL_ACTION,
    ) -> None:
        rules = make_rules(players, variant, target, end, deals, pro_tie)
        self._games = _Games(num_envs, rules, reward, illegal_action)
        self.num_envs = self._games.num
        self.rules = rules
        self.players = players
        specs = [opponents] * (players - 1) if isinstance(opponents, str | MlpPolicy) or callable(opponents) else list(opponents)
        if len(specs) != players - 1:
            raise ValueError(f"{len(specs)} opponent(s) for {players} players: give {players - 1} or one")
        if seat is not None and (isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < players):
            raise ValueError(f"seat must be 0 to {players - 1} or None (a seat drawn for each game), not {seat!r}")
        self.fixed_seat = seat
        self.opponent_specs = tuple(specs)
        self._policies: list[BatchPolicy] = []
        self._kinds = [self._opponent_kind(spec) for spec in specs]  # per opponent, in seat order after the learner
        self.single_observation_space = observation_space()
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.single_action_space = spaces.Discrete(N_ACTIONS)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.seats = np.zeros(self.num_envs, dtype=np.int64)
        self._kind = np.full((self.num_envs, players), -1, dtype=np.int64)
        self._needs_reset = np.zeros(self.num_envs, dtype=np.bool_)
        self._started = False

    def _opponent_kind(self, spec: Opponent) -> int:
        """``OPP_*`` for a compiled opponent; ``-2 - i`` for the ``i``-th batch policy."""
        policy = _policy_of(spec)
        if policy is None:
            assert isinstance(spec, str)
            return COMPILED_OPPONENTS[spec]
        self._policies.append(policy)
        return -1 - len(self._policies)

    @property
    def state(self) -> k.Batch:
        return self._games.state

    def deal_setup(self, game: int) -> DealSetup:
        return self._games.deal_setup(game)

    def reset(
        self, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, NDArray[Any]], dict[str, Any]]:
        if isinstance(seed, list):
            raise ValueError("give one seed for all the games (each game draws its own stream from it)")
        super().reset(seed=None if seed is None else _seed_value(seed))
        # Every game's deals follow from this draw, so reset(seed=s) then reset() repeats too.
        self._games.seed(int(self.np_random.integers(2**62)))
        self._start(self._games.all_games)
        self._needs_reset[:] = False
        self._started = True
        return self._observe(), {"seat": self.seats.copy(), "_seat": np.ones(self.num_envs, dtype=np.bool_)}

    def step(
        self, actions: Any
    ) -> tuple[dict[str, NDArray[Any]], NDArray[np.float32], NDArray[np.bool_], NDArray[np.bool_], dict[str, Any]]:
        if not self._started:
            raise RuntimeError("call reset() first")
        games = self._games
        n = self.num_envs
        learner = _as_actions(actions, (n,))
        restart = np.flatnonzero(self._needs_reset)
        live = np.flatnonzero(~self._needs_reset)
        full = np.full((n, self.players), PASS_ACTION, dtype=np.int64)
        full[np.arange(n), self.seats] = learner
        taken = np.zeros((n, self.players), dtype=np.int64)
        # The learner's answer, with the opponents' cards of the same turn (they choose from the same
        # position, before seeing the learner's card, as the single-game env's bots do).
        self._opponents_answer(full, live)
        replaced = games.check(full, live, lambda seat: "the learner")
        k.apply(games.state, games.config, full, live, taken)
        # Then the opponents' row choices, until the learner owes a decision or the game is over.
        while True:
            waiting = live[(games.state.phase[live] == k.ROW) & (games.state.pending[live, 0] != self.seats[live])]
            if not waiting.size:
                break
            full[waiting] = PASS_ACTION
            self._opponents_answer(full, waiting)
            k.apply(games.state, games.config, full, waiting, taken)
        rewards = batch_rewards(taken, games.reward_mode)[np.arange(n), self.seats]
        terminated = games.state.phase == k.OVER
        terminated[restart] = False
        totals = np.where(terminated[:, None], games.state.totals, 0)
        info: dict[str, Any] = {"totals": totals, "_totals": terminated.copy()}
        if restart.size:
            self._start(restart)
            rewards[restart] = 0.0
        self._needs_reset = terminated
        info.update(seat=self.seats.copy(), _seat=np.ones(n, dtype=np.bool_))
        if replaced is not None:  # illegal_action="random": what the learner sent instead
            illegal = replaced[np.arange(n), self.seats]
            info.update(illegal_action=np.where(illegal, learner, -1), _illegal_action=illegal)
        return self._observe(), rewards, terminated, np.zeros(n, dtype=np.bool_), info

    def action_masks(self) -> NDArray[np.int8]:
        """The legal actions of each game's learner now (shape ``[num_envs, N_ACTIONS]``)."""
        return self._observe()["action_mask"]

    def close_extras(self, **kwargs: Any) -> None:
        self._policies = []

    # ------------------------------------------------------------------ internals

    def _start(self, games: NDArray[np.int64]) -> None:
        """New games in ``games``: a learner's seat each and the opponents around it."""
        players = self.players
        if self.fixed_seat is None:
            self.seats[games] = self.np_random.integers(players, size=games.size)
        else:
            self.seats[games] = self.fixed_seat
        for g in games:
            seat = int(self.seats[g])
            self._kind[g, seat] = -1
            for i, kind in enumerate(self._kinds):
                self._kind[g, (seat + 1 + i) % players] = kind
        self._games.new_games(games)

    def _opponents_answer(self, actions: NDArray[np.int64], games: NDArray[np.int64]) -> None:
        """The opponents' answers to what they owe now in ``games``, into ``actions``."""
        state, config = self._games.state, self._games.config
        k.opponent_actions(state, config, actions, games, self.seats, self._kind)
        for i, policy in enumerate(self._policies):
            kind = -2 - i
            owing = (self._kind[games] == kind) & self._owing(games)
            g_idx, seat_idx = np.nonzero(owing)
            if not g_idx.size:
                continue
            g_sel, s_sel = games[g_idx], seat_idx.astype(np.int64)
            obs = np.empty((g_sel.size, OBS_SIZE), dtype=np.float32)
            masks = np.empty((g_sel.size, N_ACTIONS), dtype=np.int8)
            k.encode_pairs(state, config, g_sel, s_sel, obs, masks)
            actions[g_sel, s_sel] = np.asarray(policy(obs, masks), dtype=np.int64)

    def _owing(self, games: NDArray[np.int64]) -> NDArray[np.bool_]:
        state = self._games.state
        phase = state.phase[games][:, None]
        seats = np.arange(self.players)[None, :]
        owing: NDArray[np.bool_] = (phase == k.PLAY) | ((phase == k.ROW) & (state.pending[games, 0][:, None] == seats))
        return owing

    def _observe(self) -> dict[str, NDArray[Any]]:
        obs = np.empty((self.num_envs, OBS_SIZE), dtype=np.float32)
        masks = np.empty((self.num_envs, N_ACTIONS), dtype=np.int8)
        k.encode_seats(self._games.state, self._games.config, self.seats, True, obs, masks)
        return {"observation": obs, "action_mask": masks}


__all__ = ["COMPILED_OPPONENTS", "BatchPolicy", "SixNimmtBatch", "SixNimmtVectorEnv", "vector_config"]
