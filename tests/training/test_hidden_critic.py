"""The training-only critic that sees hidden information (training/hidden_critic.py, ``ppo.critic: hidden``): it
starts as the policy's own value estimate, reads the privileged planes of the seat that acted, never changes what
the policy plays, learns what the hidden tiles add, is saved with the checkpoints (a resumed run continues exactly)
and is refused where it cannot work; a damaged critic file is a clear error."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from agents.policy import NetSpec, build_policy
from envs.engine.privileged import PRIVILEGED_SHAPE
from training.hidden_critic import CRITIC_FILE, HiddenCritic
from training.ppo import ppo_update
from training.train_config import TrainConfigError, load_train_config
from training.trainer import Trainer, latest_checkpoint

from .test_batched_trainer import TINY
from .test_rollout import _rollout


def _policy():
    torch.manual_seed(0)
    return build_policy(NetSpec(features_dim=32, channels=4, honor_channels=2, broadcast_dim=8))


def test_the_critic_starts_as_the_policy_value_and_reads_the_hidden_planes() -> None:
    policy = _policy()
    critic = HiddenCritic(policy, learning_rate=1e-3, seed=3)
    r = _rollout("chengdu", seed=2)
    x = torch.as_tensor(r.net_input.build_batch(r.obs, r.venv.masks.astype(bool)))
    hidden = torch.as_tensor(r.venv.privileged_observations())
    with torch.no_grad():
        own = policy.predict_values(x).flatten()
        np.testing.assert_allclose(critic(x, hidden).flatten().numpy(), own.numpy(), rtol=1e-6)
        torch.nn.init.normal_(critic.correction[-1].weight)  # once trained, the hidden planes move the value
        assert not torch.allclose(critic(x, hidden), critic(x, torch.zeros_like(hidden)))
    again = HiddenCritic(policy, learning_rate=1e-3, seed=3)
    for a, b in zip(HiddenCritic(policy, learning_rate=1e-3, seed=3).encoder.parameters(), again.encoder.parameters()):
        assert torch.equal(a, b)  # the new layers come from the seed alone


def test_the_critic_gives_the_values_and_never_changes_the_play() -> None:
    """Same seeds, same policy: the learner's actions and log-probabilities are the same with and without the
    critic; only the stored values (the critic's) and the privileged planes (of the seat that acted) differ."""
    plain = _rollout("hongzhong", seed=4)
    critic = HiddenCritic(plain.policy, learning_rate=1e-3, seed=1)
    torch.nn.init.normal_(critic.correction[-1].weight, std=0.1)
    with_critic = _rollout("hongzhong", seed=4, critic=critic)
    for t in range(60):
        hidden = with_critic.venv.privileged_observations()
        k0 = with_critic.store.size
        torch.manual_seed(t)  # the learner samples from torch's generator: the same draws for both
        plain.step()
        torch.manual_seed(t)
        with_critic.step()
        np.testing.assert_array_equal(with_critic.store.privileged[k0 : with_critic.store.size], hidden)
    n = plain.store.size
    assert n == with_critic.store.size and n > 100
    np.testing.assert_array_equal(plain.store.actions[:n], with_critic.store.actions[:n])
    np.testing.assert_array_equal(plain.store.log_probs[:n], with_critic.store.log_probs[:n])
    assert not np.allclose(plain.store.values[:n], with_critic.store.values[:n])
    assert with_critic.timing["critic"] > 0
    batch = with_critic.collect(32)
    assert batch.privileged is not None and batch.privileged.shape == (len(batch), *PRIVILEGED_SHAPE)
    assert plain.collect(32).privileged is None


def test_the_update_fits_the_critic_to_what_the_hidden_tiles_say() -> None:
    """Returns that depend only on a hidden tile: the critic's loss falls far below the variance of the returns,
    which the policy's value head (blind to that tile) cannot do."""
    r = _rollout("chengdu", seed=6, critic=HiddenCritic(_policy(), learning_rate=3e-3, seed=0))
    batch = r.collect(256)
    assert batch.privileged is not None
    batch.returns = batch.privileged[:, 3, 0] * 4.0 - 2.0  # the copies of 1-character left in the wall, centred
    batch.values[:] = 0.0
    batch.advantages = batch.returns.copy()
    cfg = load_train_config("chengdu").replace(**TINY).ppo
    rng = np.random.default_rng(0)
    for _ in range(8):
        stats = ppo_update(r.policy, batch, cfg, 0.0, rng, critic=r.critic)
    assert stats["train/critic_loss"] < 0.1 * float(np.var(batch.returns))
    assert stats["train/value_loss"] > 0.5 * float(np.var(batch.returns))


def test_sb3_trainer_refuses_the_hidden_critic() -> None:
    cfg = load_train_config("chiyu").replace(**TINY)
    with pytest.raises(TrainConfigError, match="'ppo.critic' = 'hidden' needs 'trainer: batched'"):
        cfg.replace(**{"ppo.critic": "hidden", "trainer": "sb3"})
    with pytest.raises(TrainConfigError, match="ppo.critic"):
        cfg.replace(**{"ppo.critic": "oracle"})


def test_a_run_with_the_hidden_critic_resumes_exactly(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    longer = {"total_steps": 256, "schedule.segment_steps": 128, "ppo.critic": "hidden", "ppo.gae_lambda": 0.9}
    cfg = load_train_config("chengdu").replace(**{**TINY, **longer, "env.engine": "compiled"})
    whole = Trainer.create(cfg, tmp_path / "whole", progress=False)
    assert "warning: ppo.critic hidden with ppo.gae_lambda 0.9" in capsys.readouterr().out
    whole.train(progress=False)
    assert whole.critic is not None and whole.rollout_timing["critic"] > 0
    assert "critic that sees the hidden hands" in whole.finish()["markdown"]
    split = Trainer.create(cfg, tmp_path / "split", progress=False)
    split.train(max_segments=1, progress=False)
    resumed = Trainer.resume(tmp_path / "split")
    resumed.train(progress=False)
    assert resumed.critic is not None
    for a, b in zip(whole.model.policy.parameters(), resumed.model.policy.parameters()):
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
    for a, b in zip(whole.critic.parameters(), resumed.critic.parameters()):
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
    ckpt = latest_checkpoint(tmp_path / "split")
    assert ckpt is not None
    (ckpt / CRITIC_FILE).write_bytes(b"not a checkpoint")
    with pytest.raises(ValueError, match="not a readable critic checkpoint"):
        Trainer.resume(tmp_path / "split")
    (ckpt / CRITIC_FILE).unlink()
    with pytest.raises(ValueError, match="critic.pt' is missing"):
        Trainer.resume(tmp_path / "split")
