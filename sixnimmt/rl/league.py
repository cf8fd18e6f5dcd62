"""Searching players for the training league: the registry's Monte-Carlo searchers (``mcs100``,
``hard``, ``expert``, ``mcs:samples=30``...) seated in a vector batch's games.

A compiled league player (``greedy``, ``random``) plays from the batch's state; a numpy one
(``cautious``) from the observation. A searcher needs what its view would give it: its own hand,
the rows, how many cards each seat holds, and the cards it has not seen (the pool its rollouts deal
the hidden hands from). The batch's state holds exactly that (``seen`` marks the cards every seat
has seen this deal), so :class:`StateSearcher` builds the searcher's arrays from it and runs the
bot's own search (:meth:`~sixnimmt.bots.search.MonteCarloBot.search`) over the same rollout kernels.
Given the same seed it answers exactly as the bot answers from that seat's view (a test checks
this, decision by decision, against the checked engine's views).

Standard rules only: the rollouts and the pool are those of the 104-card game.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from ..bots.rollout import rollout_cards, rollout_rows
from ..bots.search import MonteCarloBot
from ..core import HAND_SIZE
from ..core.fast import TIE_CHOOSE
from ..seats import make_bot
from .encoding import PASS_ACTION, ROW_ACTION_BASE
from .vector_kernels import PLAY, ROW, TOO_LOW, Batch


class StateSearcher:
    """A Monte-Carlo searcher of the registry playing seats of a vector batch's games."""

    def __init__(self, spec: str, seed: int) -> None:
        bot = make_bot(spec, seed)  # UnknownBotError (a ValueError) for a spec the registry refuses
        # A searcher with a prior (expert-learned) or a search of its own (grandmaster) would not
        # play here as it plays from a view.
        if type(bot) is not MonteCarloBot or bot.prior is not None:
            raise ValueError(f"{spec!r} is not a Monte-Carlo searcher this league can seat (mcs100, hard, expert, mcs:samples=N)")
        self.bot = bot

    def act(self, state: Batch, games: NDArray[np.int64], seats: NDArray[np.int64], actions: NDArray[np.int64]) -> None:
        """Each ``(games[i], seats[i])``'s answer, written into ``actions`` (every one owes a decision)."""
        for g, s in zip(games.tolist(), seats.tolist()):
            actions[g, s] = self.decide(state, g, s)

    def decide(self, state: Batch, g: int, me: int) -> int:
        """The action of seat ``me`` in game ``g``: a card, or the row to take."""
        bot, config = self.bot, self.bot.config
        players = state.hands.shape[1]
        rows, lens = state.rows[g].copy(), state.row_len[g].copy()
        hlen = state.hand_len[g].copy()
        hand = state.hands[g, me, : hlen[me]]
        hands = np.zeros((players, HAND_SIZE), dtype=np.int64)
        hands[me, : hlen[me]] = hand
        known = np.zeros(players, dtype=np.bool_)
        known[me] = True
        unseen = ~state.seen[g]
        unseen[0] = False
        unseen[hand] = False
        pool = np.flatnonzero(unseen).astype(np.int64)  # ascending, as the view's unseen cards
        policies = np.full(players, config.policy, dtype=np.int64)
        phase = int(state.phase[g])
        if phase == PLAY:
            options = tuple(int(c) for c in hand)
            if len(options) == 1:
                return options[0] - 1
            fixed = np.zeros(players, dtype=np.int64)

            def simulate(alive: tuple[int, ...], samples: int) -> np.ndarray:
                bot.rollouts += len(alive) * samples
                return rollout_cards(
                    rows, lens, hands, hlen, known, pool, me, np.array(alive, dtype=np.int64), samples,
                    policies, False, TIE_CHOOSE, config.noise, config.shared, bot.rng.getrandbits(31), fixed, False,
                )  # fmt: skip

            best, _ = bot.search(me, players, options, config.samples * len(options), simulate)
            return best - 1
        if phase != ROW or int(state.pending[g, 0]) != me:
            return PASS_ACTION
        card, reason = int(state.pending[g, 1]), int(state.pending[g, 2])
        options = tuple(int(r) for r in np.flatnonzero(state.options[g]))
        if len(options) == 1:
            return ROW_ACTION_BASE + options[0]
        after = int(state.queue_pos[g]) + 1  # the cards of this turn still to place after this one
        queue_cards = state.queue_card[g, after:].copy()
        queue_owners = state.queue_seat[g, after:].copy()

        def simulate_rows(alive: tuple[int, ...], samples: int) -> np.ndarray:
            bot.rollouts += len(alive) * samples
            return rollout_rows(
                rows, lens, hands, hlen, known, pool, me, card, np.array(alive, dtype=np.int64),
                reason == TOO_LOW, queue_cards, queue_owners, samples, policies, False, TIE_CHOOSE,
                config.noise, bot.rng.getrandbits(31), False,
            )  # fmt: skip

        best, _ = bot.search(me, players, options, config.samples * len(options), simulate_rows)
        return ROW_ACTION_BASE + best


__all__ = ["StateSearcher"]
