"""Terra Nova (Kosmos 2022): the reference game."""
