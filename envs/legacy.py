"""Old module names (旧模块名) of the layered layout, so that old run directories and checkpoints keep loading.

The modules of ``envs`` and ``training`` moved into layer packages (``envs.core``, ``envs.scoring``, ``envs.engine``,
``agents.learned``, ``training.evaluation``; see ARCHITECTURE.md).  Files written before the move name classes by
their old modules: a ``MaskablePPO`` checkpoint (``model.zip`` of a run directory) pickles its feature extractor as
``training.features.TilePlaneExtractor``.  :func:`install` (called when ``envs`` is imported) adds an import finder
that answers an old name in :data:`MOVED` with the module at its new name (the same module object, so classes stay
identical), and unpickling, ``importlib.import_module`` and ``import`` statements of old code find it.

>>> import envs.legacy, importlib
>>> importlib.import_module("envs.hand") is importlib.import_module("envs.scoring.shanten")
True
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
from types import ModuleType

MOVED: dict[str, str] = {
    "envs.tiles": "envs.core.tiles",
    "envs.melds": "envs.core.melds",
    "envs.actions": "envs.core.actions",
    "envs.config": "envs.core.rule_config",
    "envs.typecheck": "envs.core.typecheck",
    "envs.wall": "envs.core.wall",
    "envs.win_context": "envs.core.win_context",
    "envs._suit_tables": "envs.scoring._suit_tables",
    "envs.hand": "envs.scoring.shanten",
    "envs.interpret": "envs.scoring.interpret",
    "envs.patterns": "envs.scoring.patterns",
    "envs.settlement": "envs.scoring.settlement",
    "envs.judge": "envs.scoring.judge",
    "envs.wuhan": "envs.scoring.wuhan_settlement",
    "envs.view": "envs.engine.view",
    "envs.game": "envs.engine.game",
    "envs.variants": "envs.engine.variants",
    "envs.variants.base": "envs.engine.variants.base",
    "envs.variants.duankagen": "envs.engine.variants.duankagen",
    "envs.variants.wuhan": "envs.engine.variants.wuhan",
    "envs.variants.yibin": "envs.engine.variants.yibin",
    "envs.match": "envs.engine.match",
    "envs.replay": "envs.engine.replay",
    "envs.render": "envs.engine.render",
    "envs.simulate": "envs.engine.simulate",
    "envs.observation": "envs.engine.observation",
    "envs.compiled.hand": "envs.compiled.win_check",
    "envs.compiled.configs": "envs.compiled.config_numbers",
    "training.config": "training.train_config",
    "training.features": "agents.learned.extractor",
    "training.net_input": "agents.learned.net_input",
    "training.hand_features": "agents.learned.hand_features",
    "training.advice": "agents.learned.advice",
    "training.evaluate": "training.evaluation.evaluate",
    "training.evaluate_policy": "training.evaluation.evaluate_policy",
}
"""Old dotted module name -> new dotted module name.  The old module ``envs.scoring`` is not here: its name is now the
package of the scoring layer; its contents are :mod:`envs.scoring.scorer`."""


class _Alias(importlib.abc.Loader):
    """Loads an old name as the already imported module of its new name."""

    def __init__(self, target: str) -> None:
        self.target = target

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        return importlib.import_module(self.target)

    def exec_module(self, module: ModuleType) -> None:
        """Nothing to run: the module was executed under its new name."""


class _MovedFinder(importlib.abc.MetaPathFinder):
    """Finds the old names of :data:`MOVED` (and only those)."""

    def find_spec(
        self, fullname: str, path: object = None, target: object = None
    ) -> importlib.machinery.ModuleSpec | None:
        new = MOVED.get(fullname)
        if new is None:
            return None
        module = importlib.import_module(new)
        return importlib.machinery.ModuleSpec(fullname, _Alias(new), is_package=hasattr(module, "__path__"))


def install() -> None:
    """Put the finder of old names first on ``sys.meta_path`` (once): an old name means the moved module, even where
    another finder (a stale install of the old layout) still knows a file of that name."""
    if not any(isinstance(f, _MovedFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _MovedFinder())
