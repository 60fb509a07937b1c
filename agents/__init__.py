"""Agents: rule-based baselines and learned policies behind one ``act(observation, legal_mask)`` interface."""
