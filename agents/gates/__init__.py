"""Fitted arbiter gates (仲裁门控) by preset: ``<preset>.json`` files of :class:`agents.arbiter.Gate`, fitted by
:mod:`training.arbiter` (each file's ``fit`` says how)."""
