"""Self-play training, evaluation (:mod:`training.evaluation`) and the ``chuanma`` command line."""

from envs.legacy import install as _install_legacy_names

_install_legacy_names()  # old checkpoints pickle classes under training.* names that moved (envs.legacy.MOVED)
