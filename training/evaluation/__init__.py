"""Evaluation (评估): seeded duplicate matches of agents (:mod:`~training.evaluation.evaluate`) and of a trained
policy against the baselines (:mod:`~training.evaluation.evaluate_policy`).  It imports no other part of training.
"""
