"""Seeded random streams. Every random choice in a game flows from its one seed."""

import hashlib
import random


def derive_seed(seed: int, *labels: object) -> int:
    """A 64-bit seed that depends only on `seed` and `labels` (stable across processes and runs)."""
    text = ":".join([str(int(seed)), *map(str, labels)])
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big")


def stream(seed: int, *labels: object) -> random.Random:
    """An independent random stream derived from `seed` and `labels`."""
    return random.Random(derive_seed(seed, *labels))
