"""Text rendering of a Terra Nova state: the board and one line per player."""

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from terra_sim.games.terra_nova.state import TerraNovaState

MARK = {"houses": "h", "tps": "t", "palace_left": "P", "palace_right": "P"}


def render_state(s: "TerraNovaState") -> str:
    """Each hex: terrain letter, then owner seat and building (h house, t trading post,
    P palace, n neutral), e.g. `W2t`; `~~~` is river. Shifted rows are indented."""
    m = s.data.map
    letters = {i: t[0].upper() for i, t in enumerate(s.data.ring)}
    lines = []
    for h in sorted(range(m.size), key=m.coords.__getitem__):  # reading order
        r, c = m.coords[h]
        if c == 0:
            lines.append(f"{m.names[h][0]} " + ("  " if m.shifted[r] else ""))
        if s.terrain[h] < 0:
            cell = "~~~"
        else:
            cell = letters[s.terrain[h]] + _owner(s, h)
        lines[-1] += cell + " "
    header = "  " + "".join(f"{c + 1:<4}" for c in range(max(c for _, c in m.coords.values()) + 1))
    out = [header, *lines, ""]
    for seat, p in enumerate(s.players):
        bonus = p.bonus or "-"
        out.append(
            f"seat {seat} {p.faction.name:<16} VP {p.total_vp:>3}  money {p.money:>3}  "
            f"power {p.p1}/{p.p2}/{p.p3}  sail {p.sail}  bonus {bonus}  "
            f"H{p.houses.bit_count()} T{p.tps.bit_count()} P{p.palaces.bit_count()}  "
            f"bridges {s.data.bridges - p.bridges}  towns {len(p.tiles_used)}")
    return "\n".join(out)


def _owner(s: "TerraNovaState", h: int) -> str:
    bit = 1 << h
    if s.neutral & bit:
        return "-n"
    for seat, p in enumerate(s.players):
        for attr, mark in MARK.items():
            if getattr(p, attr) & bit:
                return f"{seat}{mark}"
    return "  "
