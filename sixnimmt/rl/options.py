"""The options every environment shares, each defined once with its default: what a step's reward
is (``reward``) and what an action that is not legal does (``illegal_action``).

The PettingZoo, batch and vector environments take both with these defaults; the single-agent
Gymnasium env answers an illegal action with a random legal one by default
(:data:`GYMNASIUM_ILLEGAL_ACTION`, its module says why).
"""

from __future__ import annotations

from typing import Literal, get_args

import numpy as np
from numpy.typing import NDArray

#: ``"penalty"``: minus the bullheads the agent took during the step; ``"relative"``: the mean of
#: the other players' bullheads taken during the step minus the agent's own.
RewardMode = Literal["penalty", "relative"]
#: ``"raise"``: an illegal action is an error that changes nothing; ``"random"``: it is replaced by
#: a seeded random legal action, and the agent's info says what it sent.
IllegalActionMode = Literal["raise", "random"]
REWARD_MODES: tuple[str, ...] = get_args(RewardMode)
ILLEGAL_ACTION_MODES: tuple[str, ...] = get_args(IllegalActionMode)
DEFAULT_REWARD: RewardMode = "penalty"
DEFAULT_ILLEGAL_ACTION: IllegalActionMode = "raise"
#: The single-agent env's default: generic Gymnasium tools step with unmasked samples.
GYMNASIUM_ILLEGAL_ACTION: IllegalActionMode = "random"


def check_choice(name: str, value: str, choices: tuple[str, ...]) -> None:
    if value not in choices:
        raise ValueError(f"unknown {name} {value!r}: choose one of {', '.join(map(repr, choices))}")


def check_options(reward: str, illegal_action: str) -> None:
    """``ValueError`` naming the option whose value is not one of its choices."""
    check_choice("reward", reward, REWARD_MODES)
    check_choice("illegal_action", illegal_action, ILLEGAL_ACTION_MODES)


def step_rewards(before: list[int], after: list[int], mode: str) -> list[float]:
    """Each seat's reward for a change of scores (bullheads so far, this deal included)."""
    taken = [a - b for a, b in zip(after, before)]
    if mode == "penalty":
        return [float(-t) for t in taken]
    total, others = sum(taken), len(taken) - 1
    return [(total - t) / others - t for t in taken]


def batch_rewards(taken: NDArray[np.int64], mode: str) -> NDArray[np.float32]:
    """:func:`step_rewards` for many games at once: ``taken[game, seat]`` bullheads in a step."""
    rewards: NDArray[np.float32]
    if mode == "penalty":
        rewards = (-taken).astype(np.float32)
    else:
        total = taken.sum(axis=-1, keepdims=True)
        rewards = ((total - taken) / (taken.shape[-1] - 1) - taken).astype(np.float32)
    return rewards
