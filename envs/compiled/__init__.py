"""The compiled engine (编译引擎): the rules state machine of the core variants in numba, under every environment.

* :mod:`envs.compiled.layout` — one ``int32`` row per hand, named offsets;
* :mod:`envs.compiled.win_check` — win checks and waits on a row (红中, 听用 and 赖子 wildcards included);
* :mod:`envs.compiled.kernel` — the state machine (deal, legal masks, one decision) on such rows;
* :mod:`envs.compiled.encode` — the observation tensor of a seat, written from a row;
* :mod:`envs.compiled.batch` — the loops over many rows (one numba call per batched step and phase);
* :mod:`envs.compiled.ledger` — money (kongs, wins, the end of hand) with the settlement functions of the Python
  engine;
* :mod:`envs.compiled.score` — wins and 查大叫 values of the ``chengdu`` / ``hongzhong`` / ``mahjongsoul`` fan
  tables in numba; :mod:`envs.compiled.score_dkg`, :mod:`envs.compiled.score_yibin` and
  :mod:`envs.compiled.score_wuhan` those of the 断卡根, 宜宾 and 武汉 tables (other tables: the Python scorer);
* :mod:`envs.compiled.sha256` — SHA-256 in numba for the seeded deal;
* :mod:`envs.compiled.config_numbers` — configuration numbers for the kernel's calls back into the Python scorer;
* :mod:`envs.compiled.support` — which configurations it plays;
* :mod:`envs.compiled.dealing` — the seeded wall, dealer and 换三张 offset of a hand;
* :mod:`envs.compiled.mirror` — a row from an :class:`envs.engine.game.Game` (tests, debugging);
* :mod:`envs.compiled.vector` — :class:`CompiledVectorEnv`, the batched environment on it;
* :mod:`envs.compiled.aec` — ``CompiledRawEnv``, the AEC environment on it (``raw_env(engine="compiled")``), with
  :mod:`envs.compiled.shadow` replaying a hand on the Python engine for the event logs of its infos.

It plays all eight presets (``chengdu``, ``xueliu``, ``hongzhong``, ``chiyu``, ``two_player``, ``duankagen``,
``yibin``, ``wuhan``) and their scoring / settlement options; ``tests/compiled/test_compiled_engine.py`` proves it equal
to
:class:`envs.engine.game.Game` decision by decision.

numba comes with the ``env`` extra (``pip install 'chuanma[env]'``); the first use compiles the kernel and says so
on stderr (about 5 minutes of one CPU core: 320 CPU seconds measured; numba caches it on disk for later processes,
stamped with all of this package's sources: :mod:`envs.compiled._cache`).
"""

try:
    import numba  # noqa: F401
except ImportError as exc:  # pragma: no cover - numba is installed with the env extra
    raise ImportError(
        "the compiled engine (envs.compiled) needs numba: pip install 'chuanma[env]' (or use engine='python')"
    ) from exc

from envs.compiled._cache import install as _install_cache

_install_cache()  # before the kernel modules define their functions
