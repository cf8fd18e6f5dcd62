"""A policy file (``.npz``, the ``learned`` bot's) as a PyTorch module and checkpoint, the shipped
policy included: the same scores to float precision, for fine-tuning or for use in one's own torch
code (the ``rl`` extra).

    python -m sixnimmt.rl.torch_policy --out shipped.pt                 # the shipped policy
    python -m sixnimmt.rl.torch_policy --policy runs/x/policy.npz --out x.pt
    python -m sixnimmt.rl.torch_policy --out shipped.zip                # as an SB3 MaskablePPO model

The checkpoint is a ``torch.save`` of ``{"format", "version", "config", "state_dict"}`` (plain
tensors and numbers: ``torch.load(path, weights_only=True)`` reads it); :func:`load` makes the
module again. :class:`TorchPolicy` maps observations ``[B, 1037]`` (the envs', ``sixnimmt.rl.encoding``)
to the 109 action scores: the shared network, the networks of their own for some table sizes (the
shipped policy's at 10 players), and the counting residuals (``cautious``'s expected cost of each
card and each row, computed from the observation with numpy, times a learnable weight per table
size). Mask the illegal actions before the argmax, as the bot does. An ``--out`` ending in ``.zip``
writes a Stable-Baselines3 model instead (:mod:`sixnimmt.rl.sb3_policy`) with this module as its actor.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import numpy as np

from .encoding import CARD_ACTIONS, N_ACTIONS, ROW_ACTION_BASE
from .features import counted_cost, players_of, row_cost
from .policy import DEFAULT_POLICY, MlpPolicy, PolicyFileError

FORMAT = "sixnimmt-torch-policy"
VERSION = 1


def _torch() -> Any:
    try:
        import torch
    except ImportError as error:  # pragma: no cover - the extra is missing: say how to install it
        raise ImportError("the PyTorch policy needs the rl extra: pip install 'sixnimmt[rl]'") from error
    return torch


def config_of(policy: MlpPolicy) -> dict[str, Any]:
    """What makes the module's shape: layer sizes, activation, inputs, and the tables' own."""
    if policy.networks != 1 or policy.features:
        raise PolicyFileError("a PyTorch module is made of a single-network policy without derived features")
    return {
        "sizes": [int(policy.weights[0].shape[1]), *(int(w.shape[0]) for w in policy.weights)],
        "activation": policy.activation,
        "inputs": policy.inputs,
        "tables": {str(count): config_of(table) for count, table in sorted(policy.tables.items())},
    }


def module(config: dict[str, Any]) -> Any:
    """An untrained :class:`TorchPolicy` of this shape."""
    torch = _torch()

    class TorchPolicy(torch.nn.Module):  # type: ignore[misc, name-defined]
        """The policy's scores: see the module's docstring."""

        def __init__(self, config: dict[str, Any]) -> None:
            super().__init__()
            self.config = config
            sizes = config["sizes"]
            layers: list[Any] = []
            for i in range(len(sizes) - 1):
                layers.append(torch.nn.Linear(sizes[i], sizes[i + 1]))
                if i < len(sizes) - 2:
                    layers.append(torch.nn.Tanh() if config["activation"] == "tanh" else torch.nn.ReLU())
            self.network = torch.nn.Sequential(*layers)
            self.residual = torch.nn.Parameter(torch.zeros(11))
            self.row_residual = torch.nn.Parameter(torch.zeros(11))
            self.tables = torch.nn.ModuleDict({k: TorchPolicy(c) for k, c in config["tables"].items()})

        def own(self, observations: Any) -> Any:
            numbers = observations.detach().cpu().numpy()
            scores = self.network(observations[:, : self.config["inputs"]])
            players = torch.as_tensor(players_of(numbers), device=scores.device)
            cards = torch.as_tensor(counted_cost(numbers), dtype=scores.dtype, device=scores.device)
            rows = torch.as_tensor(row_cost(numbers), dtype=scores.dtype, device=scores.device)
            extra = torch.zeros_like(scores)
            extra[:, :CARD_ACTIONS] = self.residual[players].unsqueeze(-1) * cards
            extra[:, ROW_ACTION_BASE : ROW_ACTION_BASE + 4] = self.row_residual[players].unsqueeze(-1) * rows
            return scores + extra

        def forward(self, observations: Any) -> Any:
            players = torch.as_tensor(players_of(observations.detach().cpu().numpy()), device=observations.device)
            scores = self.own(observations)
            for count, table in self.tables.items():
                rows = players == int(count)
                if bool(rows.any()):
                    scores = scores.clone()
                    scores[rows] = table.own(observations[rows])
            return scores

    return TorchPolicy(config)


def from_policy(policy: MlpPolicy) -> Any:
    """The module playing ``policy`` (its weights copied)."""
    torch = _torch()
    made = module(config_of(policy))

    def fill(target: Any, source: MlpPolicy) -> None:
        linear = [layer for layer in target.network if isinstance(layer, torch.nn.Linear)]
        with torch.no_grad():
            for layer, w, b in zip(linear, source.weights, source.biases, strict=True):
                layer.weight.copy_(torch.as_tensor(w))
                layer.bias.copy_(torch.as_tensor(b))
            for name in ("residual", "row_residual"):
                values = np.broadcast_to(getattr(source, name), (11,)).astype(np.float32)
                getattr(target, name).copy_(torch.as_tensor(values))
        for count, table in source.tables.items():
            fill(target.tables[str(count)], table)

    fill(made, policy)
    return made


def save(policy: MlpPolicy, path: Path) -> None:
    """Write ``policy`` as a PyTorch checkpoint."""
    torch = _torch()
    made = from_policy(policy)
    torch.save({"format": FORMAT, "version": VERSION, "config": made.config, "state_dict": made.state_dict()}, path)


def load(path: Path) -> Any:
    """The :class:`TorchPolicy` of a checkpoint written by :func:`save`."""
    torch = _torch()
    data = torch.load(path, weights_only=True)
    if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("version") != VERSION:
        raise PolicyFileError(f"{path}: not a {FORMAT} checkpoint of version {VERSION}")
    made = module(data["config"])
    made.load_state_dict(data["state_dict"])
    return made


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--policy", type=Path, default=DEFAULT_POLICY, help="the policy file (default: the shipped one)")
    parser.add_argument("--out", type=Path, required=True,
                        help="the checkpoint to write: .pt the PyTorch module, .zip a Stable-Baselines3 MaskablePPO model")
    args = parser.parse_args(argv)
    sb3 = args.out.suffix == ".zip"
    try:
        policy = MlpPolicy.load(args.policy)
        if sb3:
            from .sb3_policy import save as save_sb3

            save_sb3(policy, args.out)
        else:
            save(policy, args.out)
    except (ImportError, PolicyFileError, OSError) as error:
        parser.exit(2, f"error: {error}\n")
    made = "a Stable-Baselines3 MaskablePPO model" if sb3 else "a PyTorch module"
    print(f"{args.out}: {args.policy.name} as {made} ({N_ACTIONS} action scores)")


if __name__ == "__main__":
    main()
