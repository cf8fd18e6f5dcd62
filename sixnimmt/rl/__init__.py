"""Reinforcement learning: 6 nimmt! as PettingZoo and Gymnasium environments (docs/rl.md).

* :class:`SixNimmtParallelEnv` (:func:`parallel_env`): every seat an agent, simultaneous card plays;
  :func:`aec_env` is the same game turn by turn, through PettingZoo's conversion.
* :class:`SixNimmtEnv`: a Gymnasium single-agent env where the other seats are built-in bots
  (also ``gymnasium.make("sixnimmt/SixNimmt-v0", ...)``).
* :class:`SixNimmtBatch` and :class:`SixNimmtVectorEnv` (:mod:`sixnimmt.rl.vector`): N games at
  once in compiled arrays, for self-play (observations ``[N, P, D]``) or as a Gymnasium
  ``VectorEnv`` (one learner per game against opponents).
* :mod:`sixnimmt.rl.encoding`: the observation vector and the action numbers all of them share.
* :mod:`sixnimmt.rl.policy` and :mod:`sixnimmt.rl.bot`: a trained policy, run with numpy alone, as
  the ``learned`` bot.

Training (``sixnimmt train``, and the scripts in examples/rl/) needs the optional ``rl`` extra (torch, stable-baselines3, sb3-contrib);
the environments and the ``learned`` bot need only the default install.
"""

from __future__ import annotations

import importlib
from typing import Any

import gymnasium as _gymnasium

# The environments are imported on first use, so that the learned bot (numpy only) does not pay for
# PettingZoo at import time.
_LAZY = {
    "SixNimmtParallelEnv": "parallel",
    "parallel_env": "parallel",
    "aec_env": "parallel",
    "SixNimmtEnv": "single",
    "SixNimmtBatch": "vector",
    "SixNimmtVectorEnv": "vector",
    "N_ACTIONS": "encoding",
    "OBS_SIZE": "encoding",
    "PASS_ACTION": "encoding",
    "ROW_ACTION_BASE": "encoding",
    "SEGMENTS": "encoding",
    "encode": "encoding",
    "encode_seats": "encoding",
    "segment_slice": "encoding",
}

__all__ = [
    "N_ACTIONS", "OBS_SIZE", "PASS_ACTION", "ROW_ACTION_BASE", "SEGMENTS", "SixNimmtBatch", "SixNimmtEnv",
    "SixNimmtParallelEnv", "SixNimmtVectorEnv", "aec_env", "encode", "encode_seats", "parallel_env", "segment_slice",
]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# ``gymnasium.make("sixnimmt/SixNimmt-v0", players=4, opponents="random")`` once this package is imported.
if "sixnimmt/SixNimmt-v0" not in _gymnasium.registry:
    _gymnasium.register(id="sixnimmt/SixNimmt-v0", entry_point="sixnimmt.rl.single:SixNimmtEnv")
