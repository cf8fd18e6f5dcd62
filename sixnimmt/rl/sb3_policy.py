"""A policy file (the shipped one by default) as a Stable-Baselines3 model: sb3-contrib's
``MaskablePPO`` whose actor gives the policy's action scores (the ``rl`` extra).

    python -m sixnimmt.rl.torch_policy --out shipped.zip      # .zip: this model; .pt: the torch module

    from sb3_contrib import MaskablePPO
    model = MaskablePPO.load("shipped.zip")
    action, _ = model.predict(observation, action_masks=mask, deterministic=True)

The observation is the envs' vector (``obs["observation"]`` of ``SixNimmtEnv``, 1037 numbers) and
the mask ``obs["action_mask"]``: with ``deterministic=True`` the model plays the ``learned`` bot's
move. Its actor is :mod:`sixnimmt.rl.torch_policy`'s module (every table's network and the counting
residuals, which no ``MlpPolicy`` has room for), so loading the model imports this module: SB3 saves
the policy's class by name. The value head starts at zero (the policy file has none); PPO trains it
when the model learns on.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

from .encoding import N_ACTIONS
from .parallel import observation_space as env_observation_space
from .policy import MlpPolicy
from .torch_policy import config_of, from_policy, module

try:
    import torch
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
except ImportError as missing:  # pragma: no cover - the extra is missing: say how to install it
    raise ImportError("the SB3 model needs the rl extra: pip install 'sixnimmt[rl]'") from missing


class PolicyFileActor(MaskableActorCriticPolicy):  # type: ignore[misc]
    """MaskablePPO's policy with a policy file's network as its actor: the features are the
    observation itself (no hidden layers before the heads), the action head the torch module of
    ``config`` (:func:`sixnimmt.rl.torch_policy.config_of`)."""

    def __init__(self, observation_space: Any, action_space: Any, lr_schedule: Any, config: dict[str, Any], **kwargs: Any) -> None:
        self.policy_config = config
        super().__init__(observation_space, action_space, lr_schedule, **{**kwargs, "net_arch": []})

    def _build(self, lr_schedule: Any) -> None:
        super()._build(lr_schedule)
        self.action_net = module(self.policy_config)
        with torch.no_grad():
            self.value_net.weight.zero_()
            self.value_net.bias.zero_()
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)

    def _get_constructor_parameters(self) -> dict[str, Any]:
        return {**super()._get_constructor_parameters(), "config": self.policy_config}


class _Spaces(gym.Env[np.ndarray, np.int64]):
    """The spaces the model is made for; SB3 builds a model from an environment, and this one is
    never stepped (train the model on ``SixNimmtEnv``, its observation vector and ``action_masks``)."""

    observation_space = env_observation_space()["observation"]
    action_space = gym.spaces.Discrete(N_ACTIONS)


def model(policy: MlpPolicy) -> Any:
    """A ``MaskablePPO`` that plays ``policy``."""
    made = MaskablePPO(PolicyFileActor, _Spaces(), policy_kwargs={"config": config_of(policy)}, device="cpu")
    made.policy.action_net.load_state_dict(from_policy(policy).state_dict())
    return made


def save(policy: MlpPolicy, path: Path) -> None:
    """Write ``policy`` as a MaskablePPO model (``MaskablePPO.load(path)`` reads it back)."""
    model(policy).save(path)
