"""Preset files shipped as package data: ``variants/*.yaml`` (rule presets) and ``train/*.yaml`` (training runs).

Loaders read them through :func:`importlib.resources.files` (``files("configs") / "variants"``), so a plain
(non-editable) install finds every preset.
"""
