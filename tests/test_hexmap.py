"""The mask helpers of terra_sim.core.hexmap on masks of any width: compiled code keeps masks up
to 62 bits native and takes another path past them, so both sides of that line are checked."""

import random

import pytest

from terra_sim.core.hexmap import CHUNK, bits, components, count

WIDE = 150  # ids past two 62-bit chunks


@pytest.mark.parametrize("mask", [0, 1, 0b1011, (1 << CHUNK) - 1, 1 << CHUNK, (1 << CHUNK) + 5,
                                  (1 << WIDE) - 1, -1, -(1 << 70)])
def test_count_is_bit_count(mask):
    assert count(mask) == mask.bit_count()


def test_count_and_bits_agree_on_random_masks():
    rng = random.Random(7)
    for _ in range(300):
        mask = rng.getrandbits(rng.choice((8, 61, 62, 63, 64, 124, WIDE)))
        assert count(mask) == mask.bit_count() == len(list(bits(mask)))
        assert sum(1 << h for h in bits(mask)) == mask


def reference_groups(mask: int, adj: list[int]) -> list[int]:
    groups = []
    todo = set(bits(mask))
    while todo:
        stack, group = [min(todo)], 0
        while stack:
            h = stack.pop()
            if h in todo:
                todo.discard(h)
                group |= 1 << h
                stack.extend(bits(adj[h] & mask))
        groups.append(group)
    return groups


@pytest.mark.parametrize("seed", range(10))
def test_components_on_a_line_across_the_62_bit_chunks(seed):
    # hexes on a line, each linked to its two neighbours: groups are the runs of set bits
    adj = [(1 << max(h - 1, 0) | 1 << (h + 1)) & ~(1 << h) for h in range(WIDE)]
    rng = random.Random(seed)
    mask = rng.getrandbits(WIDE)
    assert sorted(components(mask, adj)) == sorted(reference_groups(mask, adj))
    extra = [1 << (WIDE - 1 - h) for h in range(WIDE)]  # a second table: mirror links
    both = [a | e for a, e in zip(adj, extra, strict=True)]
    assert sorted(components(mask, adj, extra)) == sorted(reference_groups(mask, both))
