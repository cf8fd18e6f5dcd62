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

An **ensemble** is several networks of the same shape in one file: each ``w``/``b`` array then has a
leading axis, one entry per network (``w0`` shaped ``(networks, out, in)``), and the policy's scores
are the mean of the networks' scores (then the residuals, once). Networks trained from the same
start with different seeds make different mistakes, and their mean can make fewer (docs/rl.md
measures one; the shipped policy is a single network). :func:`ensemble` builds one (``sixnimmt
train --ensemble``); :meth:`MlpPolicy.member` takes one network out of it (training goes on from a
single network).

A policy may also hold **networks of their own for some table sizes** (``tables``): the shared
network plays every table but those, and a table of such a size is played by its own network
(``tNN_w0, tNN_b0, ...`` in the file, ``NN`` the number of players, with its activation and meta
under ``meta["tables"]``). One network trained on every size from 2 to 10 players plays the big
table worse than a network trained on it alone, and a network trained on it alone forgets the small
ones (docs/rl.md, "The shipped policy and its strength"). :func:`with_tables` builds one (``sixnimmt
train --tables``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from itertools import pairwise
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


def _weight(residual: NDArray[np.float32], players: NDArray[np.int64]) -> NDArray[np.float32]:
    """A residual's weight for each observation (``[..., 1]``) of these table sizes: its table
    size's, or the one weight."""
    weight = residual[players] if residual.size > 1 else np.full(players.shape, residual[0])
    return np.expand_dims(weight, -1)


class MlpPolicy:
    """Masked greedy (or sampled) actions from an exported MLP actor."""

    def __init__(self, weights: list[NDArray[np.float32]], biases: list[NDArray[np.float32]],
                 activation: str = "tanh", meta: dict[str, Any] | None = None,
                 tables: Mapping[int, MlpPolicy] | None = None) -> None:
        if activation not in _ACTIVATIONS:
            raise PolicyFileError(f"unknown activation {activation!r}: choose one of {sorted(_ACTIVATIONS)}")
        if not weights or len(weights) != len(biases):
            raise PolicyFileError("a policy needs as many bias vectors as weight matrices, at least one")
        # One network: matrices (out, in). An ensemble: every array has a leading axis of networks.
        stacked = {w.ndim == 3 and b.ndim == 2 and w.shape[0] == b.shape[0] == weights[0].shape[0]
                   for w, b in zip(weights, biases)}
        if stacked == {True}:
            #: How many networks the policy averages (1: a single network).
            self.networks = int(weights[0].shape[0])
        elif {w.ndim == 2 and b.ndim == 1 for w, b in zip(weights, biases)} == {True}:
            self.networks = 1
        else:
            raise PolicyFileError("a policy's layers are all matrices (one network) or all stacks of the same "
                                  "number of matrices (an ensemble)")
        stacks = [w if w.ndim == 3 else w[None] for w in weights]
        if any(a.shape[1] != b.shape[2] for a, b in pairwise(stacks)):
            raise PolicyFileError(f"a policy's layers must chain: sizes {[w.shape[-2:] for w in weights]}")
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
        if weights[0].shape[-1] not in sizes or weights[-1].shape[-2] != N_ACTIONS:
            raise PolicyFileError(
                f"policy maps {weights[0].shape[-1]} inputs to {weights[-1].shape[-2]} actions; this "
                f"version of sixnimmt encodes {OBS_SIZE} inputs (plus {extra} derived) and {N_ACTIONS} actions"
            )
        self.weights = weights
        self.biases = biases
        #: Table sizes (numbers of players) played by networks of their own, not by this one.
        self.tables: dict[int, MlpPolicy] = dict(tables or {})
        for count, table in self.tables.items():
            if not 2 <= count <= MAX_PLAYERS:
                raise PolicyFileError(f"a network of its own is for a table of 2 to {MAX_PLAYERS} players, not {count}")
            if table.tables:
                raise PolicyFileError("a table size's own network cannot hold networks for other table sizes")
        #: How many of the observation's numbers the network reads (fewer than OBS_SIZE for a
        #: policy made for an earlier layout: the rest are slots it never saw set).
        self.inputs = int(weights[0].shape[-1]) - extra
        self.activation = activation
        self.meta = meta

    @classmethod
    def load(cls, path: str | Path = DEFAULT_POLICY) -> MlpPolicy:
        """Read a policy exported by the training script."""
        path = Path(path)
        try:
            with np.load(path, allow_pickle=False) as data:
                arrays = {key: data[key] for key in data.files}
        except FileNotFoundError:
            raise PolicyFileError(f"no policy file at {path}") from None
        except (OSError, KeyError, ValueError) as error:
            raise PolicyFileError(f"{path} is not a policy file: {error}") from None
        try:
            meta = json.loads(str(arrays["meta"])) if "meta" in arrays else {}
            activation = str(arrays["activation"]) if "activation" in arrays else "tanh"
            own_tables = meta.pop("tables", {})
            tables = {int(count): cls(*_layers(arrays, f"t{int(count)}_"), str(table.get("activation", "tanh")),
                                      dict(table.get("meta", {})))
                      for count, table in own_tables.items()}
            return cls(*_layers(arrays, ""), activation, meta, tables)
        except PolicyFileError as error:
            raise PolicyFileError(f"{path}: {error}") from None
        except (KeyError, ValueError, TypeError, AttributeError) as error:
            raise PolicyFileError(f"{path} is not a policy file: {error}") from None

    def save(self, path: str | Path) -> None:
        arrays: dict[str, Any] = {}
        meta = {key: value for key, value in self.meta.items() if key != "tables"}
        for prefix, policy in (("", self), *((f"t{count}_", table) for count, table in sorted(self.tables.items()))):
            arrays.update({f"{prefix}w{i}": w for i, w in enumerate(policy.weights)})
            arrays.update({f"{prefix}b{i}": b for i, b in enumerate(policy.biases)})
        if self.tables:
            meta["tables"] = {str(count): {"activation": table.activation, "meta": table.meta}
                              for count, table in sorted(self.tables.items())}
        np.savez_compressed(path, activation=np.array(self.activation), meta=np.array(json.dumps(meta)), **arrays)

    def logits(self, observation: NDArray[np.float32]) -> NDArray[np.float32]:
        """The actor's raw action scores for one observation (or a batch, one per row)."""
        if not self.tables:
            return self._own_logits(observation)
        players = players_of(observation)
        if observation.ndim == 1:
            return self.tables.get(int(players), self)._own_logits(observation)
        # Each observation goes to its table size's network: a batch may mix table sizes.
        scores = np.empty((*observation.shape[:-1], N_ACTIONS), dtype=np.float32)
        shared = ~np.isin(players, list(self.tables))
        if shared.any():
            scores[shared] = self._own_logits(observation[shared])
        for count, table in self.tables.items():
            if (rows := players == count).any():
                scores[rows] = table._own_logits(observation[rows])
        return scores

    def _own_logits(self, observation: NDArray[np.float32]) -> NDArray[np.float32]:
        """The scores of this policy's own network (or ensemble) and residuals, whatever the table."""
        x = observation[..., : self.inputs] if self.inputs != observation.shape[-1] else observation
        if self.features:
            x = np.concatenate([x, derived(observation)], axis=-1)
        x = self._network(x) if self.networks == 1 else np.mean(
            [self._network(x, k) for k in range(self.networks)], axis=0, dtype=np.float32)
        if not (self.residual.any() or self.row_residual.any()):
            return x
        players = players_of(observation)
        # The counting costs more than the network: only where a table size has a weight.
        if self.residual.any() and (weight := _weight(self.residual, players)).any():
            x[..., :CARD_ACTIONS] += weight * counted_cost(observation)
        if self.row_residual.any() and (weight := _weight(self.row_residual, players)).any():
            x[..., ROW_ACTION_BASE : ROW_ACTION_BASE + 4] += weight * row_cost(observation)
        return x

    def _network(self, x: NDArray[np.float32], k: int | None = None) -> NDArray[np.float32]:
        """One network's scores: the only one, or the ``k``-th of an ensemble (each network's own
        small matrix products: one wide product would hand a matrix-vector product to several
        threads, which on a busy machine costs far more than it saves)."""
        act = _ACTIVATIONS[self.activation]
        last = len(self.weights) - 1
        for i, (w, b) in enumerate(zip(self.weights, self.biases)):
            if k is not None:
                w, b = w[k], b[k]
            x = x @ w.T + b
            if i < last:
                x = act(x)
        return x

    def member(self, k: int) -> MlpPolicy:
        """The ``k``-th network of an ensemble as a policy of its own (the residuals kept): what
        training starts from when ``--init`` names an ensemble."""
        if not 0 <= k < self.networks:
            raise PolicyFileError(f"the policy has {self.networks} network(s): there is no network {k}")
        if self.networks == 1:
            return self
        return MlpPolicy([w[k] for w in self.weights], [b[k] for b in self.biases], self.activation,
                         {**self.meta, "networks": 1}, self.tables)

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


def _layers(arrays: Mapping[str, NDArray[Any]], prefix: str) -> tuple[list[NDArray[np.float32]], list[NDArray[np.float32]]]:
    """The weights and biases stored under ``prefix`` (``""``: the shared network's ``w0, b0, ...``)."""
    pattern = re.compile(rf"{re.escape(prefix)}w(\d+)")
    layers = sum(1 for key in arrays if pattern.fullmatch(key))
    return ([arrays[f"{prefix}w{i}"].astype(np.float32) for i in range(layers)],
            [arrays[f"{prefix}b{i}"].astype(np.float32) for i in range(layers)])


def with_tables(policy: MlpPolicy, tables: Mapping[int, MlpPolicy], meta: dict[str, Any] | None = None) -> MlpPolicy:
    """``policy``, with the tables of these sizes played by these policies' networks (each one
    network or an ensemble, residuals included: the one that plays that size in its file)."""
    own = {**policy.tables, **{count: _playing(table, count) for count, table in tables.items()}}
    return MlpPolicy(policy.weights, policy.biases, policy.activation, meta or policy.meta, own)


def _playing(policy: MlpPolicy, count: int) -> MlpPolicy:
    """The network of ``policy`` that plays tables of ``count`` players, as a policy without tables."""
    if count in policy.tables:
        return policy.tables[count]
    return MlpPolicy(policy.weights, policy.biases, policy.activation, policy.meta) if policy.tables else policy


def with_residuals(policy: MlpPolicy, residual: Mapping[int, float], row_residual: Mapping[int, float]) -> MlpPolicy:
    """``policy`` with these residual weights set at these table sizes, each in the network that
    plays that size (its own, where it has one)."""
    def changed(network: MlpPolicy, counts: set[int]) -> MlpPolicy:
        meta = dict(network.meta)
        for key, weights in (("residual", residual), ("row_residual", row_residual)):
            values = per_count(getattr(network, key)).copy()
            for count in counts & set(weights):
                values[count] = weights[count]
            if counts & set(weights):
                meta[key] = [float(v) for v in values]
        return MlpPolicy(network.weights, network.biases, network.activation, meta)

    counts = set(residual) | set(row_residual)
    for count in counts:
        if not 2 <= count <= MAX_PLAYERS:
            raise PolicyFileError(f"a residual weight is for a table of 2 to {MAX_PLAYERS} players, not {count}")
    tables = {count: changed(table, counts & {count}) for count, table in policy.tables.items()}
    shared = changed(policy, counts - set(policy.tables))
    return MlpPolicy(shared.weights, shared.biases, shared.activation, shared.meta, tables)


def per_count(residual: NDArray[np.float32]) -> NDArray[np.float32]:
    """A residual's weight for every player count (index: the number of players), whether the
    policy gives one weight or one per count."""
    return residual if residual.size > 1 else np.full(MAX_PLAYERS + 1, residual[0], dtype=np.float32)


def ensemble(policies: Sequence[MlpPolicy], meta: dict[str, Any] | None = None) -> MlpPolicy:
    """One policy whose scores are the mean of these networks' scores (each may itself be an
    ensemble: its networks join). They must have the same layers, activation and features. The
    residual weights are the members' mean (per player count where any member's are), so the mean
    of the members' whole scores is exactly the ensemble's."""
    if not policies:
        raise PolicyFileError("an ensemble needs at least one policy")
    if any(policy.tables for policy in policies):
        raise PolicyFileError("a policy with networks of their own for some table sizes does not join an ensemble")
    first = policies[0]
    for policy in policies[1:]:
        if ([w.shape[-2:] for w in policy.weights] != [w.shape[-2:] for w in first.weights]
                or policy.activation != first.activation or policy.features != first.features):
            raise PolicyFileError("the policies of an ensemble must have the same layers, activation and features")
    networks = [policy.member(k) for policy in policies for k in range(policy.networks)]
    weights = [np.stack([n.weights[i] for n in networks]) for i in range(len(first.weights))]
    biases = [np.stack([n.biases[i] for n in networks]) for i in range(len(first.biases))]

    def mean(name: str) -> float | list[float]:
        # Each network counts once, as in the scores' mean (a member ensemble of three counts thrice).
        values = [getattr(n, name) for n in networks]
        if all(v.size == 1 for v in values):
            return float(np.mean([v[0] for v in values]))
        return [float(v) for v in np.mean([per_count(v) for v in values], axis=0)]

    combined = {**(meta or {}), "networks": len(networks), "residual": mean("residual"),
                "row_residual": mean("row_residual")}
    if first.features:
        combined["features"] = first.features
    return MlpPolicy(weights, biases, first.activation, combined)
