"""Bots by spec: ``make_bot("expert:samples=400", seed=1)``.

A spec is a registered NAME with optional typed options, ``NAME[:key=value[:key=value...]]``
(``expert:samples=400``, ``mcs100:samples=1000:relative=false``), or a prefix spec whose argument is
free text (``cmd:python3 mybot.py`` for an external program). A colon separates the options, so a
comma-separated list of specs (``--bots expert:samples=400,random``) still splits on commas.

The registry sits above the bots: each entry names its factory as a ``"module:attribute"`` string,
imported the first time that bot is built. Building ``random`` therefore loads neither the compiled
search kernels (numba) nor the learned policy's dependencies, and no bot module imports this one.

A factory is called as ``factory(seed, **options)`` with every option of its entry, defaults filled
in: the defaults live here, once, and ``sixnimmt arena --list`` shows them. Registering a bot with
options is one line::

    register("grandmaster", "sixnimmt.bots.grandmaster:GrandmasterBot", "the strongest search",
             options={"ms": Option(250, "milliseconds per decision", low=1), "samples": 0})
"""

from __future__ import annotations

import importlib
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from ..bots.base import Bot

#: ``factory(seed, **options) -> Bot``
BotFactory = Callable[..., "Bot"]
#: Builds a bot from a ``PREFIX:ARGUMENT`` spec, e.g. ``cmd:python3 mybot.py``: (argument, seed) -> Bot
PrefixFactory = Callable[[str, "int | None"], "Bot"]
OptionValue = bool | int | float | str


class UnknownBotError(ValueError):
    """A bot spec that no registered bot answers to, or whose options are wrong (one line saying
    what is valid)."""


@dataclass(frozen=True, slots=True)
class Option:
    """One typed option of a bot: its default (whose type is the option's type), a short help, and
    the allowed range (``low``/``high`` for numbers) or values (``choices`` for text)."""

    default: OptionValue
    help: str = ""
    low: float | None = None
    high: float | None = None
    choices: tuple[str, ...] = ()
    #: For text: raises ``ValueError`` (with the reason) for a value it refuses, e.g. a missing file.
    check: Callable[[str], None] | None = None

    @property
    def kind(self) -> str:
        return type(self.default).__name__

    def shown(self, value: OptionValue | None = None) -> str:
        """A value as it is written in a spec (``true``, ``400``, ``0.5``, ``snug``)."""
        value = self.default if value is None else value
        return ("true" if value else "false") if isinstance(value, bool) else str(value)

    def parse(self, key: str, text: str) -> OptionValue:
        """The value of ``key=text``; ``ValueError`` with the reason (without the valid keys)."""
        default = self.default
        if isinstance(default, bool):
            lowered = text.lower()
            if lowered in _TRUE:
                return True
            if lowered in _FALSE:
                return False
            raise ValueError(f"{key} is true or false, not {_short(text)}")
        if isinstance(default, int):
            if not _INTEGER.fullmatch(text):
                raise ValueError(f"{key} is a whole number, not {_short(text)}")
            number: float = int(text)
        elif isinstance(default, float):
            try:
                number = float(text)
            except ValueError:
                raise ValueError(f"{key} is a number, not {_short(text)}") from None
            if not math.isfinite(number):
                raise ValueError(f"{key} is a finite number, not {_short(text)}")
        else:
            if self.choices and text not in self.choices:
                raise ValueError(f"{key} is one of {', '.join(self.choices)}, not {_short(text)}")
            if self.check is not None:
                self.check(text)
            return text
        if self.low is not None and number < self.low:
            raise ValueError(f"{key} must be at least {self.low:g}, not {text}")
        if self.high is not None and number > self.high:
            raise ValueError(f"{key} must be at most {self.high:g}, not {text}")
        return number


_TRUE = frozenset({"true", "yes", "on", "1"})
_FALSE = frozenset({"false", "no", "off", "0"})
_INTEGER = re.compile(r"[+-]?\d{1,15}")


def _short(text: str, limit: int = 40) -> str:
    return repr(text if len(text) <= limit else text[:limit] + "...")


@dataclass(frozen=True, slots=True)
class BotEntry:
    """A registered bot: its factory (a callable, or ``"module:attribute"`` imported on first
    use), a one-line description and its options."""

    factory: BotFactory | str
    description: str
    options: Mapping[str, Option] = field(default_factory=dict)

    def resolve(self) -> BotFactory:
        if callable(self.factory):
            return self.factory
        return cast(BotFactory, _load(self.factory))

    def keys_text(self) -> str:
        """``samples=100, relative=false``: every key with its default, as written in a spec."""
        return ", ".join(f"{key}={option.shown()}" for key, option in self.options.items())


@dataclass(frozen=True, slots=True)
class PrefixEntry:
    factory: PrefixFactory | str
    description: str

    def resolve(self) -> PrefixFactory:
        if callable(self.factory):
            return self.factory
        return cast(PrefixFactory, _load(self.factory))


def _load(target: str) -> Any:
    module, _, attribute = target.partition(":")
    return getattr(importlib.import_module(module), attribute)


_REGISTRY: dict[str, BotEntry] = {}
_PREFIXES: dict[str, PrefixEntry] = {}


def register(
    name: str,
    factory: BotFactory | str,
    description: str,
    options: Mapping[str, Option | OptionValue] | None = None,
) -> None:
    """Register a bot under ``name``. ``factory`` is ``"module:attribute"`` (imported when the bot
    is first built) or a callable; it is called as ``factory(seed, **options)``. Each option is an
    :class:`Option`, or just its default value."""
    if not name or not name.replace("-", "").replace("_", "").isalnum():
        raise ValueError(f"a bot name is letters, digits, '-' and '_', not {name!r}")
    typed = {key: value if isinstance(value, Option) else Option(value) for key, value in (options or {}).items()}
    _REGISTRY[name] = BotEntry(factory, description, typed)


def unregister(name: str) -> None:
    """Remove the bot registered as ``name`` (one you registered for a while, a test's or an
    example's). A name that is not registered is ignored."""
    _REGISTRY.pop(name, None)


def register_prefix(prefix: str, factory: PrefixFactory | str, description: str) -> None:
    """Register a family of bots addressed as ``PREFIX:ARGUMENT`` (``cmd:`` for external programs)."""
    _PREFIXES[prefix] = PrefixEntry(factory, description)


def available() -> dict[str, str]:
    """Registered names with a one-line description each."""
    return {name: entry.description for name, entry in sorted(_REGISTRY.items())}


def entries() -> dict[str, BotEntry]:
    """Registered names with their entries (description, options and defaults), by name."""
    return dict(sorted(_REGISTRY.items()))


def prefixes() -> dict[str, str]:
    """Registered prefixes (``cmd``) with a one-line description each."""
    return {prefix: entry.description for prefix, entry in sorted(_PREFIXES.items())}


@dataclass(frozen=True, slots=True)
class BotSpec:
    """A parsed spec: a registered ``name`` with its ``options`` (every key, defaults filled in),
    or a ``prefix`` with its free-text ``argument``."""

    text: str
    name: str
    options: Mapping[str, OptionValue] = field(default_factory=dict)
    argument: str | None = None

    @property
    def is_prefix(self) -> bool:
        return self.argument is not None


def parse_spec(spec: str) -> BotSpec:
    """Check ``spec`` without building anything; ``UnknownBotError`` (one line) when it is wrong.

    >>> parse_spec("hard:samples=40").options["samples"]
    40
    >>> parse_spec("hard:bogus=1")
    Traceback (most recent call last):
    ...
    sixnimmt.seats.registry.UnknownBotError: bot 'hard:bogus=1': unknown option 'bogus'; hard takes samples=25, rollout=model, own=same, noise=1.0, relative=false, shared=true, halving=false
    """
    text = spec.strip()
    name, sep, rest = text.partition(":")
    if sep and name in _PREFIXES:
        if not rest.strip():
            raise UnknownBotError(f"bot {_short(text)} needs something after '{name}:'")
        return BotSpec(text, name, argument=rest)
    entry = _REGISTRY.get(name)
    if entry is None:
        raise UnknownBotError(_unknown_name(text, name))
    options: dict[str, OptionValue] = {key: option.default for key, option in entry.options.items()}
    given: set[str] = set()
    for piece in rest.split(":") if sep else ():
        key, equals, value = piece.partition("=")
        key = key.strip()
        problem = None
        if key not in entry.options:
            problem = f"unknown option {_short(key)}" if key else f"an empty option in {_short(text)}"
        elif not equals:
            problem = f"option {key!r} needs a value: {key}=VALUE"
        elif key in given:
            problem = f"option {key!r} is given twice"
        else:
            try:
                options[key] = entry.options[key].parse(key, value.strip())
            except ValueError as error:
                problem = str(error)
        if problem is not None:
            valid = f"{name} takes {entry.keys_text()}" if entry.options else f"{name} takes no options"
            raise UnknownBotError(f"bot {_short(text)}: {problem}; {valid}")
        given.add(key)
    return BotSpec(text, name, options)


def _unknown_name(text: str, name: str) -> str:
    known = ", ".join(sorted(_REGISTRY))
    families = ", ".join(f"{p}:..." for p in sorted(_PREFIXES))
    return f"unknown bot {_short(name or text)}: choose one of {known}" + (f", or {families}" if families else "")


def make_bot(spec: str, seed: int | None = None) -> Bot:
    """Build a bot from its spec (``expert``, ``expert:samples=400``, ``cmd:COMMAND LINE``).
    ``UnknownBotError`` for a spec that names no bot or has wrong options; a prefix factory may
    raise its own ``ValueError`` (``cmd:`` with a program that does not exist)."""
    parsed = parse_spec(spec)
    if parsed.argument is not None:
        bot = _PREFIXES[parsed.name].resolve()(parsed.argument, seed)
    else:
        bot = _REGISTRY[parsed.name].resolve()(seed, **parsed.options)
    bot.name = parsed.text
    return bot


def time_limit(spec: str) -> float:
    """The milliseconds per decision ``spec`` thinks at most (its ``ms`` option), 0 for a bot that
    has no time limit (a rollout budget, no search, or a prefix spec)."""
    parsed = parse_spec(spec)
    value = parsed.options.get("ms", 0.0)
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0.0


def with_time_limit(spec: str, ms: float) -> str:
    """``spec`` thinking at most ``ms`` milliseconds per decision (its other options kept); a spec
    with no time limit comes back as it is."""
    parsed = parse_spec(spec)
    if time_limit(spec) <= 0.0:
        return spec
    entry = _REGISTRY[parsed.name]
    given = [piece for piece in parsed.text.partition(":")[2].split(":") if piece.partition("=")[0].strip() not in ("", "ms")]
    return ":".join([parsed.name, *given, f"ms={entry.options['ms'].shown(float(ms))}"])


def check_bot(spec: str) -> None:
    """Raise a one-line ``ValueError`` unless ``spec`` can be built. Registered names are checked
    without importing their bot; a prefix spec is built and closed (an external program is not
    started: it only runs once it is asked something)."""
    parsed = parse_spec(spec)
    if parsed.is_prefix:
        try:
            make_bot(spec, seed=0).close()
        except UnknownBotError:
            raise
        except ValueError as error:  # the prefix factory's own complaint (a missing program)
            raise UnknownBotError(f"bot {_short(parsed.text)}: {error}") from None


def starts_spec(piece: str) -> bool:
    """Whether a piece of a comma-separated list begins a new spec (rather than continuing the
    command line of a ``cmd:`` spec before it, which may itself contain commas)."""
    stripped = piece.strip()
    return stripped.partition(":")[0] in _REGISTRY or stripped.partition(":")[0] in _PREFIXES


# ---------------------------------------------------------------------- the built-in bots

_SEARCH = "sixnimmt.bots.search:searcher"


def _search_options(samples: int, *, rollout: str = "random", own: str = "same", relative: bool = False,
                    shared: bool = True, halving: bool = False) -> dict[str, Option]:
    """The searchers' keys, with this searcher's defaults."""
    return {
        "samples": Option(samples, "rollouts per option", low=1, high=1_000_000),
        "rollout": Option(rollout, "rollout policy of the other players (model: each by the model its plays fit)",
                          choices=("random", "snug", "medium", "model")),
        "own": Option(own, "rollout policy of this seat's future turns (same: as rollout; medium when that is model)",
                      choices=("same", "random", "snug", "medium", "count")),
        "noise": Option(1.0, "snug rollouts only: how far the policy strays from its best card", low=0.0),
        "relative": Option(relative, "score own penalty minus the others' mean (else own penalty)"),
        "shared": Option(shared, "every option on the same determinizations"),
        "halving": Option(halving, "successive halving: spend the rollouts where the decision is close"),
    }


register("random", "sixnimmt.bots.random_bot:RandomBot", "plays a uniformly random legal move")
register_prefix("cmd", "sixnimmt.protocol.external:external_bot", "an external program speaking the bot protocol (docs/bot-protocol.md)")
register_prefix("openspiel", "sixnimmt.rl.openspiel:openspiel_bot",
                "an OpenSpiel algorithm: openspiel:ismcts[:simulations=100:uct_c=10.0:rollouts=1:policy=max_visit_count] "
                "(docs/bots.md; needs the openspiel extra)")
register("snug", "sixnimmt.bots.heuristics:SnugBot", "heuristic: fits cards snugly behind row ends, no card counting")
register("cautious", "sixnimmt.bots.heuristics:CautiousBot", "heuristic: counts cards, plays the lowest expected penalty")
def _policy_file(text: str) -> None:
    """The learned bot's ``policy``: ``shipped``, or a file that exists (read when the bot is built)."""
    if text != "shipped" and not Path(text).is_file():
        raise ValueError(f"policy is 'shipped' or a policy file (.npz); there is no file {_short(text)}")


register("learned", "sixnimmt.rl.bot:LearnedBot", "trained by reinforcement learning (docs/rl.md); runs on numpy alone",
         options={"policy": Option("shipped", "a policy file (.npz) from sixnimmt train, or the shipped one",
                                   check=_policy_file)})
# The benchmark opponent, modelled on the best published bots (flat Monte-Carlo, random rollouts).
register("mcs100", _SEARCH, "benchmark: flat Monte-Carlo, 100 random rollouts per card", _search_options(100, relative=True, shared=False))
register("mcs", _SEARCH, "flat Monte-Carlo, 100 shared random rollouts per card, own penalty", _search_options(100))
# Difficulty levels for people.
register("easy", "sixnimmt.bots.heuristics:SnugBot", "difficulty level: easy (the snug heuristic, slipping now and then)",
         {"slips": Option(0.3, "the share of card decisions played at random", low=0.0, high=1.0)})
register("medium", "sixnimmt.bots.heuristics:CautiousBot", "difficulty level: medium (the cautious heuristic)")
register("hard", _SEARCH, "difficulty level: hard (Monte-Carlo search, 25 rollouts per option, opponent models)",
         _search_options(25, rollout="model"))
register("expert", _SEARCH, "difficulty level: expert (Monte-Carlo search, 100 rollouts per option, opponent models)",
         _search_options(100, rollout="model", halving=True))
# Learning inside search: expert's search over the learned policy's best options only.
register("expert-learned", "sixnimmt.rl.prior:searcher_with_prior",
         "expert searching only the learned policy's best options (docs/bots.md)", {
             # The prior's searcher takes every searcher key but ``own`` (its own turns: as ``rollout``).
             **{key: option for key, option in _search_options(100, halving=True).items() if key != "own"},
             "policy": Option("shipped", "the policy that ranks the options: a policy file (.npz), or the shipped one",
                              check=_policy_file),
             "keep": Option(4, "search only the policy's best this many options", low=1, high=104),
         })
register("grandmaster", "sixnimmt.bots.grandmaster:grandmaster", "the strongest: Monte-Carlo search racing its options, 1000 rollouts per option, counted self-play, opponent models (docs/bots.md)", {
    "samples": Option(1000, "rollouts per option at most (the budget; ignored when ms is set)", low=1, high=1_000_000),
    "ms": Option(0.0, "think at most this many milliseconds per decision; 0: use the rollout budget", low=0.0),
    "own": Option("auto", "rollout policy of this seat's future turns (auto: by table size, count at 2 and from 5 players, medium at 3 and 4)",
                   choices=("auto", "count", "medium", "cautious", "snug", "random")),
    "others": Option("model", "rollout policy of the other seats (model: each by the model its plays fit)",
                     choices=("random", "model", "medium", "cautious", "snug", "count")),
    "noise": Option(0.5, "count/cautious/snug rollouts: noise added to each card's estimate (bullheads)", low=0.0),
    "objective": Option("own", "own penalty, or duel: own minus the others' mean (measured worse with two players)", choices=("own", "duel")),
    "z": Option(3.0, "racing: drop an option this many standard errors worse than the best", low=0.0),
    "guesses": Option(256, "guesses of the hidden hands the opponent models infer per decision (with ms: at most one "
                      "per millisecond); 0: the models' own (48)", low=0, high=100_000),
    "walk": Option(True, "each round of rollouts starts at the guess after the last round's (else at the first)"),
})

#: The bot levels people choose from (web lobby, terminal game, ``sixnimmt play``, ``sixnimmt
#: advise``), weakest first; ``random`` last, as a curiosity. Every interface derives its list from
#: this one.
LEVELS: tuple[str, ...] = ("easy", "medium", "hard", "expert", "grandmaster", "random")
#: The level hints ask (the web game's and the terminal game's hint, ``sixnimmt advise`` by
#: default): the strongest, since it also fits a hint's latency. With its rollout budget and the
#: opponent models it decides in about 40 ms of CPU at the median and 360 ms at the slowest with 4
#: players, 89 and 980 ms with 10 (docs/bots.md): a hint mostly comes back inside the half second a
#: person waits for it without noticing much.
HINT_LEVEL = "grandmaster"
