"""Registers the built-in bots. Each bot module adds one line here."""

from __future__ import annotations

from functools import partial

from ..protocol.external import external_bot
from ..rl.bot import LearnedBot
from .grandmaster import GrandmasterBot
from .heuristics import CautiousBot, SnugBot
from .random_bot import RandomBot
from .registry import register, register_prefix
from .search import MonteCarloBot, SearchConfig

register("random", RandomBot, "plays a uniformly random legal move")
register_prefix("cmd", external_bot, "an external program speaking the bot protocol (docs/bot-protocol.md)")
register("snug", SnugBot, "heuristic: fits cards snugly behind row ends, no card counting")
register("cautious", CautiousBot, "heuristic: counts cards, plays the lowest expected penalty")
register("learned", LearnedBot, "trained by reinforcement learning (MaskablePPO, docs/rl.md); runs on numpy alone")

#: The benchmark opponent, modelled on the best published bots (flat Monte-Carlo, random rollouts).
MCS100 = SearchConfig(samples=100, relative=True, shared=False)
#: The project's searchers: shared determinizations, SNUG rollouts, own-penalty objective.
HARD = SearchConfig(samples=25)
EXPERT = SearchConfig(samples=100, split=(0.4, 0.3, 0.3))

register("mcs100", partial(MonteCarloBot, config=MCS100), "benchmark: flat Monte-Carlo, 100 random rollouts per card")
register("mcs", partial(MonteCarloBot, config=SearchConfig(samples=100)), "flat Monte-Carlo, 100 shared random rollouts per card, own penalty")

# Difficulty levels for people.
register("easy", SnugBot, "difficulty level: easy (the snug heuristic)")
register("medium", CautiousBot, "difficulty level: medium (the cautious heuristic)")
register("hard", partial(MonteCarloBot, config=HARD), "difficulty level: hard (Monte-Carlo search, 25 rollouts per option)")
register("expert", partial(MonteCarloBot, config=EXPERT), "difficulty level: expert (the strongest search)")

register("grandmaster", GrandmasterBot, "the strongest: racing Monte-Carlo search, counted self-play, duel objective (docs/bots.md)")
