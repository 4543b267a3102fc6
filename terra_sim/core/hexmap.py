"""Hex maps as integers: a hex is an int, a set of hexes is an int bitmask.

Layout: rows of cells, at (row, column). A row marked `shifted` sits half a hex to the right of
its neighbours (every second row, on a board like the one below):

    row 0:  0,0  0,1  0,2 ...        unshifted: diagonal neighbours (r±1, c-1), (r±1, c)
    row 1:     1,0  1,1  1,2 ...     shifted:   diagonal neighbours (r±1, c),   (r±1, c+1)

Ids go in reading order, land hexes first and river hexes after them (see HexMap).

Everything a rule asks about geometry (neighbours, river reach for sailing, edge hexes,
continents, bridge sites) is precomputed here once per map, so the engine only does `|` and `&`.
"""

# terra-sim: compile

from collections.abc import Container, Iterator, Sequence
from typing import Final

RIVER: Final = "river"


# Masks of a whole board pass 62 bits, where a compiled int becomes a heap object and every `&`
# or `^` allocates; bits() walks them 62 bits at a time so the per-bit arithmetic stays native.
CHUNK: Final = 62
CHUNK_MASK: Final = (1 << CHUNK) - 1


def bits(mask: int) -> Iterator[int]:
    """The hex ids in `mask`, lowest first."""
    base = 0
    while mask:
        chunk = mask & CHUNK_MASK
        while chunk:
            low = chunk & -chunk
            yield base + low.bit_length() - 1
            chunk ^= low
        mask >>= CHUNK
        base += CHUNK


def count(mask: int) -> int:
    """The hexes in `mask`, as int.bit_count() gives: mypyc has no native bit_count, so compiled
    code would call it as a Python method on a boxed int. A mask holds few hexes (one clears per
    pass); past 62 bits (a heap int) or below 0, the method is the cheaper or the only way."""
    if mask > CHUNK_MASK or mask < 0:
        return mask.bit_count()
    n = 0
    while mask:
        mask &= mask - 1
        n += 1
    return n


def components(mask: int, adj: list[int], extra: list[int] | None = None) -> list[int]:
    """Connected groups of `mask` under the adjacency table `adj` (hex -> neighbour mask), with
    the links of a second table `extra` too (e.g. sailing reach) without merging the tables.
    The tables are lists: compiled code reads a list natively, a Sequence through Python."""
    groups = []
    while mask:
        comp = frontier = mask & -mask
        while frontier:
            grown = 0
            # bits(frontier) inlined: the hottest loop over hexes, and a generator costs more
            # to resume than this body costs to run
            rest, base = frontier, 0
            while rest:
                chunk = rest & CHUNK_MASK
                while chunk:
                    low = chunk & -chunk
                    h = base + low.bit_length() - 1
                    grown |= adj[h]
                    if extra is not None:
                        grown |= extra[h]
                    chunk ^= low
                rest >>= CHUNK
                base += CHUNK
            frontier = grown & mask & ~comp
            comp |= frontier
        groups.append(comp)
        mask &= ~comp
    return groups


def join(groups: list[int], h: int, links: int) -> list[int]:
    """The groups of a mask with hex h added, from the mask's groups (`components`, in any
    order), where `links` are h's links under the same (symmetric) tables: one pass over the
    groups instead of a search of the board."""
    merged = 1 << h
    out = []
    for g in groups:
        if g & links:
            merged |= g
        else:
            out.append(g)
    out.append(merged)
    return out


def largest(groups: list[int]) -> int:
    """Hexes in the largest of `groups` (0 for none): a loop, where max() over a generator
    would call Python's builtin from compiled code."""
    best = 0
    for g in groups:
        n = count(g)
        if n > best:
            best = n
    return best


def added(base: int, mask: int) -> int:
    """The hex `mask` adds to `base` when it is `base` plus exactly one hex, else -1."""
    new = mask ^ base
    if new & (new - 1) or not new & mask:
        return -1
    return new.bit_length() - 1


class HexMap:
    """Static geometry of one board, precomputed on construction."""

    def __init__(
        self,
        rows: Sequence[Sequence[str]],
        shifted: Sequence[bool],
        bridge_sites: Sequence[tuple[str, str]] = (),
        max_sail: int = 4,
        row_names: str = "ABCDEFGHIJKLMNOP",
        names: Sequence[str] | None = None,
    ):
        self.shifted = list(shifted)
        cells = [(r, c, terrain) for r, row in enumerate(rows) for c, terrain in enumerate(row)]
        self.size = len(cells)
        # a board may bring its own labels (say, letters and numbers that skip river cells)
        if names is None:
            names = [f"{row_names[r]}{c + 1}" for r, c, _ in cells]
        elif len(names) != self.size or len(set(names)) != self.size:
            raise ValueError(f"expected {self.size} distinct hex names, got {len(names)}")
        # Land hexes take the low ids, in reading order, and river hexes the ids after them: a
        # mask of land hexes (buildings, reach) then fits a compiled native int on a board of up
        # to 62 land hexes, where a row-major mask past 62 bits would be a heap int.
        order = sorted(range(self.size), key=lambda i: cells[i][2] == RIVER)
        self.terrain = [cells[i][2] for i in order]
        self.names = [names[i].upper() for i in order]
        coords = {(cells[i][0], cells[i][1]): h for h, i in enumerate(order)}
        self.index = {name: h for h, name in enumerate(self.names)}
        self.coords = {h: rc for rc, h in coords.items()}

        self.neigh = [0] * self.size
        grid_degree = [0] * self.size
        for (r, c), h in coords.items():
            diag = (c, c + 1) if shifted[r] else (c - 1, c)
            cand = [(r, c - 1), (r, c + 1)] + [(r + dr, dc) for dr in (-1, 1) for dc in diag]
            for rc in cand:
                if rc in coords:
                    self.neigh[h] |= 1 << coords[rc]
                    grid_degree[h] += 1

        self.river = sum(1 << h for h, t in enumerate(self.terrain) if t == RIVER)
        self.land = ((1 << self.size) - 1) & ~self.river
        self.terrain_mask: dict[str, int] = {}
        for h, t in enumerate(self.terrain):
            self.terrain_mask[t] = self.terrain_mask.get(t, 0) | (1 << h)
        self.edge = sum(1 << h for h in bits(self.land) if grid_degree[h] < 6)
        self.river_adjacent = sum(1 << h for h in bits(self.land) if self.neigh[h] & self.river)
        self.land_neigh = [n & self.land for n in self.neigh]

        self.continents = components(self.land, self.land_neigh)
        self.continent_of = [0] * self.size
        for h in range(self.size):
            for mask in self.continents:
                if mask >> h & 1:
                    self.continent_of[h] = mask

        # sail[d][h]: land hexes reachable from land hex h across 1..d river hexes.
        self.max_sail = max_sail
        self.sail = [[0] * self.size for _ in range(max_sail + 1)]
        for h in bits(self.land):
            seen = frontier = self.neigh[h] & self.river
            reach = 0
            for d in range(1, max_sail + 1):
                for x in bits(frontier):
                    reach |= self.neigh[x] & self.land
                self.sail[d][h] = reach & ~(1 << h)
                grown = 0
                for x in bits(frontier):
                    grown |= self.neigh[x] & self.river
                frontier = grown & ~seen
                seen |= frontier

        self.bridge_sites: list[tuple[int, int]] = []
        for a, b in bridge_sites:
            ha, hb = self.hex(a), self.hex(b)
            if not (self.land >> ha & 1 and self.land >> hb & 1):
                raise ValueError(f"bridge site {a}-{b} must join two land hexes")
            if self.neigh[ha] >> hb & 1:
                raise ValueError(f"bridge site {a}-{b} joins hexes that are already adjacent")
            self.bridge_sites.append((min(ha, hb), max(ha, hb)))
        self.bridge_index = {
            f"{self.names[a]}-{self.names[b]}": i for i, (a, b) in enumerate(self.bridge_sites)
        }

    def hex(self, name: str) -> int:
        try:
            return self.index[name.upper()]
        except KeyError:
            raise ValueError(f"unknown hex {name!r}") from None

    def name(self, h: int) -> str:
        return self.names[h]

    def bridge_name(self, site: int) -> str:
        a, b = self.bridge_sites[site]
        return f"{self.names[a]}-{self.names[b]}"

    def mask_names(self, mask: int) -> list[str]:
        return [self.names[h] for h in bits(mask)]

    def positions(self) -> dict[str, tuple[float, float]]:
        """Plot positions of the land hexes (x across, y up; a shifted row half a hex right)."""
        return {self.names[h]: (c + (0.5 if self.shifted[r] else 0.0), -r)
                for h, (r, c) in sorted(self.coords.items()) if self.land >> h & 1}

    def site_of(self, action_text: str, kinds: Container[str],
                suffixes: tuple[str, ...] = ()) -> str | None:
        """The hex an action text of the form "<kind> <hex> ..." builds on, when its kind is
        one of `kinds` or ends with one of `suffixes`; None for any other action."""
        kind, _, rest = action_text.partition(" ")
        if kind not in kinds and not (suffixes and kind.endswith(suffixes)):
            return None
        name = rest.split(" ", 1)[0].upper()
        return name if name in self.index else None
