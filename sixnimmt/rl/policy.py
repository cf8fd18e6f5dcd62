"""A trained policy, run with numpy alone.

Training (examples/rl/train_maskable_ppo.py) uses torch and sb3-contrib; playing needs neither. The
training script exports the actor network of the trained MaskablePPO model (an MLP: linear layers
with tanh between them, then the action layer) to a ``.npz`` file, which :class:`MlpPolicy` loads.
Masked logits pick the action: illegal actions are never chosen.

The ``.npz`` holds ``w0, b0, w1, b1, ...`` (``w`` shaped ``(out, in)`` as in torch), the activation
name, and the observation and action sizes it was trained with, which must match
:mod:`sixnimmt.rl.encoding`'s, or one of its earlier layouts (``EARLIER_OBS_SIZES``, which this one
extends at the end only: such a policy reads the first numbers of the vector, exactly as before).
A policy whose meta names ``features`` (``"derived"``, :mod:`sixnimmt.rl.features`) reads the
observation followed by those features, which it computes from the observation; one whose meta
has a ``residual`` adds it times the ``cautious`` bot's expected cost of each card to the card
actions' scores, and one with a ``row_residual`` adds that times the bullheads of each row to the row
actions' scores when a too-low card takes one. Each is one number, or one per player count (a list
indexed by the number of players, which the policy reads from the observation), so that a policy may
lean on the counting at ten players and not at two.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..core.rules import MAX_PLAYERS
from .encoding import CARD_ACTIONS, EARLIER_OBS_SIZES, N_ACTIONS, OBS_SIZE, ROW_ACTION_BASE
from .features import FEATURE_SETS, counted_cost, derived, players_of, row_cost

#: The policies shipped in the package.
POLICY_DIR = Path(__file__).parent / "policies"
DEFAULT_POLICY = POLICY_DIR / "standard4.npz"

_ACTIVATIONS: dict[str, Callable[[NDArray[np.float32]], NDArray[np.float32]]] = {
    "tanh": np.tanh,
    "relu": lambda x: np.maximum(x, 0.0),
}


class PolicyFileError(ValueError):
    """A policy file that is missing, unreadable, or made for another observation layout."""


def _residual(value: Any) -> NDArray[np.float32]:
    """A meta's ``residual``: one weight for every table (an array of one), or one per player count
    (indexed by the number of players: ``MAX_PLAYERS + 1`` numbers, the first two unused)."""
    if isinstance(value, list | tuple):
        if len(value) != MAX_PLAYERS + 1:
            raise PolicyFileError(f"a residual per player count has {MAX_PLAYERS + 1} numbers (index: players), "
                                  f"not {len(value)}")
        return np.asarray(value, dtype=np.float32)
    try:
        return np.asarray([float(value)], dtype=np.float32)
    except (TypeError, ValueError):
        raise PolicyFileError(f"a residual is a number or a list of numbers, not {value!r}") from None


def _weight(residual: NDArray[np.float32], observation: NDArray[np.float32]) -> NDArray[np.float32]:
    """A residual's weight for each observation (``[..., 1]``): its table size's, or the one weight."""
    weight = residual[players_of(observation)] if residual.size > 1 else np.full(observation.shape[:-1], residual[0])
    return np.expand_dims(weight, -1)


class MlpPolicy:
    """Masked greedy (or sampled) actions from an exported MLP actor."""

    def __init__(self, weights: list[NDArray[np.float32]], biases: list[NDArray[np.float32]],
                 activation: str = "tanh", meta: dict[str, Any] | None = None) -> None:
        if activation not in _ACTIVATIONS:
            raise PolicyFileError(f"unknown activation {activation!r}: choose one of {sorted(_ACTIVATIONS)}")
        if not weights or len(weights) != len(biases):
            raise PolicyFileError("a policy needs as many bias vectors as weight matrices, at least one")
        meta = meta or {}
        #: Features the policy derives from the observation and reads after it (``features.py``), or "".
        self.features = str(meta.get("features", ""))
        if self.features and self.features not in FEATURE_SETS:
            raise PolicyFileError(f"unknown features {self.features!r}: this version of sixnimmt derives "
                                  f"{', '.join(FEATURE_SETS)}")
        #: Added to the card actions' scores, times :func:`~sixnimmt.rl.features.counted_cost`: 0, or
        #: negative for a policy that starts from the ``cautious`` bot's choices (a residual); per
        #: player count (index: the number of players) when the meta gives a list.
        self.residual = _residual(meta.get("residual", 0.0))
        #: The same for the row actions, times the bullheads of each row (:func:`~sixnimmt.rl.features.row_cost`).
        self.row_residual = _residual(meta.get("row_residual", 0.0))
        extra = FEATURE_SETS.get(self.features, 0)
        sizes = (OBS_SIZE + extra,) if extra else (OBS_SIZE, *EARLIER_OBS_SIZES)
        if weights[0].shape[1] not in sizes or weights[-1].shape[0] != N_ACTIONS:
            raise PolicyFileError(
                f"policy maps {weights[0].shape[1]} inputs to {weights[-1].shape[0]} actions; this "
                f"version of sixnimmt encodes {OBS_SIZE} inputs (plus {extra} derived) and {N_ACTIONS} actions"
            )
        self.weights = weights
        self.biases = biases
        #: How many of the observation's numbers the network reads (fewer than OBS_SIZE for a
        #: policy made for an earlier layout: the rest are slots it never saw set).
        self.inputs = int(weights[0].shape[1]) - extra
        self.activation = activation
        self.meta = meta

    @classmethod
    def load(cls, path: str | Path = DEFAULT_POLICY) -> MlpPolicy:
        """Read a policy exported by the training script."""
        path = Path(path)
        try:
            with np.load(path, allow_pickle=False) as data:
                layers = sum(1 for key in data.files if key.startswith("w"))
                weights = [data[f"w{i}"].astype(np.float32) for i in range(layers)]
                biases = [data[f"b{i}"].astype(np.float32) for i in range(layers)]
                activation = str(data["activation"]) if "activation" in data.files else "tanh"
                meta = json.loads(str(data["meta"])) if "meta" in data.files else {}
        except FileNotFoundError:
            raise PolicyFileError(f"no policy file at {path}") from None
        except (OSError, KeyError, ValueError) as error:
            raise PolicyFileError(f"{path} is not a policy file: {error}") from None
        return cls(weights, biases, activation, meta)

    def save(self, path: str | Path) -> None:
        arrays: dict[str, Any] = {f"w{i}": w for i, w in enumerate(self.weights)}
        arrays.update({f"b{i}": b for i, b in enumerate(self.biases)})
        np.savez_compressed(path, activation=np.array(self.activation), meta=np.array(json.dumps(self.meta)),
                            **arrays)

    def logits(self, observation: NDArray[np.float32]) -> NDArray[np.float32]:
        """The actor's raw action scores for one observation (or a batch, one per row)."""
        x = observation[..., : self.inputs] if self.inputs != observation.shape[-1] else observation
        if self.features:
            x = np.concatenate([x, derived(observation)], axis=-1)
        act = _ACTIVATIONS[self.activation]
        last = len(self.weights) - 1
        for i, (w, b) in enumerate(zip(self.weights, self.biases)):
            x = x @ w.T + b
            if i < last:
                x = act(x)
        # The counting costs about twice the network: only where a table size has a weight.
        if self.residual.any() and (weight := _weight(self.residual, observation)).any():
            x[..., :CARD_ACTIONS] += weight * counted_cost(observation)
        if self.row_residual.any() and (weight := _weight(self.row_residual, observation)).any():
            x[..., ROW_ACTION_BASE : ROW_ACTION_BASE + 4] += weight * row_cost(observation)
        return x

    def act_batch(self, observations: NDArray[np.float32], masks: NDArray[np.int8]) -> NDArray[np.int64]:
        """The best legal action of each row of ``observations`` (shape ``[M, OBS_SIZE]``), under the
        mask in the same row of ``masks``: :meth:`act` for many observations in one matrix product."""
        scores = np.where(masks.astype(bool), self.logits(observations), -np.inf)
        best: NDArray[np.int64] = np.argmax(scores, axis=-1).astype(np.int64)
        return best

    def act(self, observation: NDArray[np.float32], mask: NDArray[np.int8],
            rng: np.random.Generator | None = None) -> int:
        """The best legal action (or, given ``rng``, one sampled from the masked softmax)."""
        scores = np.where(mask.astype(bool), self.logits(observation), -np.inf)
        if rng is None:
            return int(np.argmax(scores))
        probabilities = np.exp(scores - scores.max())
        probabilities /= probabilities.sum()
        return int(rng.choice(len(scores), p=probabilities))
