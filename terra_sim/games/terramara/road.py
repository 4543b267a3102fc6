"""The Road: two Caravans per player walk down from the start, one Crossroads per row, and
arrive at the camp by the River.

A Caravan's position is one int that only grows: Crossroads k (0 = the start, 1-6 one per row)
is 3k; the detour of segment k (from Crossroads k-1 to k) past its bonus tile is 3k-2 and past
its Outpost 3k-1; the camp is CAMP. One Travel step goes to the next Crossroads or onto a
detour; a detour takes one more step to its Crossroads (the text: 2 steps in all). So "reached
or passed Crossroads k" is `pos >= 3k`.
"""

# terra-sim: compile

from typing import Final

CAMP: Final = 21
LAST: Final = 6  # Crossroads of the last row


def node_name(pos: int) -> str:
    if pos == CAMP:
        return "camp"
    if pos % 3 == 0:
        return f"X{pos // 3}"
    return f"{'B' if pos % 3 == 1 else 'O'}{pos // 3 + 1}"


def node_pos(name: str) -> int:
    """Inverse of node_name; -1 for a name that is no node."""
    if name == "camp":
        return CAMP
    if len(name) == 2 and name[0] in "XBO" and name[1].isdigit():
        k = int(name[1])
        if name[0] == "X" and k <= LAST:
            return 3 * k
        if 1 <= k <= LAST:
            return 3 * k - 2 if name[0] == "B" else 3 * k - 1
    return -1


def next_nodes(pos: int, round: int) -> tuple[int, ...]:
    """Where one Travel step may take a Caravan at `pos` in `round`. An Outpost opens once the
    Plains/Quarry tile of its row has been flipped (at the end of that row's round)."""
    if pos == CAMP:
        return ()
    if pos % 3 == 0:
        k = pos // 3 + 1
        if k > LAST:
            return (CAMP,)
        if k <= 4 and round > k:
            return (3 * k, 3 * k - 2, 3 * k - 1)
        return (3 * k, 3 * k - 2)
    return (pos + 3 - pos % 3,)
