"""The learned-policy network (策略网络) that :class:`agents.policy.PolicyAgent` plays, importable without training.

The feature extractor and numpy actor (:mod:`~agents.learned.extractor`), the network's input
(:mod:`~agents.learned.net_input`), the tile-efficiency planes (:mod:`~agents.learned.hand_features`) and the
advice planes of a rule-based agent (:mod:`~agents.learned.advice`).
"""
