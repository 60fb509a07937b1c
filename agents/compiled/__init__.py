"""Compiled (numba) helpers for the rule-based agents (编译版智能体): batch decoding of the observation rows."""
