"""Terramara's bots."""

STRATEGIES: list = []
