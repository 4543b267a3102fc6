"""Terra Nova knowledge shared by the scripted bots: costs, hex quality, tiles and a valuation.

Everything here reads a TerraNovaState and never changes it. Values are in "VP equivalents" so
that money, power, income and position can be weighed against points; a bot's Weights scale
each term, which is how the plans differ.
"""

# terra-sim: compile

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Final

from terra_sim.core.hexmap import added, bits, components, count, join, largest
from terra_sim.games.terra_nova import towns
from terra_sim.games.terra_nova.actions import Action
from terra_sim.games.terra_nova.moves import houses_left, power_action_of
from terra_sim.games.terra_nova.scoring import dropout_vp, mat_income, network_size
from terra_sim.games.terra_nova.state import Player, TerraNovaState


@dataclass
class Weights:
    """The valuation's weights, each scaling one of its terms; the plans differ by them. Native
    floats, because the bots read them hundreds of times a decision and a lookup by name in a
    dict costs about a hundred instructions. A bot's `w` dict (by name, as configs give them)
    makes one: Weights(**w).
    """

    money: float = 0.37  # a coin early in the game (falls to 1/3 VP in the last round)
    power3: float = 0.32  # a charged power token (worth a coin, more through power actions)
    power2: float = 0.16
    power1: float = 0.05
    income_coins: float = 0.36  # a coin of income, per income phase still to come
    income_power: float = 0.18
    house: float = 2.0  # a house on the board beyond its income: territory, town value, reach
    tp: float = 3.0
    palace_ability: float = 1.0  # scales the per-round value of palace abilities
    reach: float = 0.08  # per cheap free hex in reach
    territory: float = 0.6  # share of the territory points the current networks would get
    town: float = 1.6  # founded towns and progress towards the next one (scales their worth)
    opponent_adjacent: float = 0.25  # per own building touching an opponent (cheap TPs, power)
    prepared: float = 0.6  # per free home-terrain hex in reach (up to 3): a house without shovels
    sail: float = 0.4  # a sailing level beyond its VP (reach across the river)
    round_now: float = 1.0  # the current round tile's VP (prefilter emphasis)
    round_next: float = 0.0  # holding resources that next round's tile rewards
    power_action: float = 0.0  # extra liking for board power actions (prefilter)
    cluster: float = 0.6  # building next to own buildings (prefilter)
    spread: float = 0.0  # building away from own buildings, into new ground (prefilter)
    pass_margin: float = 0.15  # an action must beat passing by this much


DEFAULT_WEIGHTS: Final[dict[str, float]] = asdict(Weights())

# Per-round values (VP equivalents) of palace abilities that are not income; on-build effects
# happen in apply() and show up in the valuation directly.
ABILITY_VALUE: Final[dict[str, float]] = {
    "lake_house_special": 2.6,
    "free_tp_special": 2.8,
    "tp_action_power": 2.2,
    "spade_action_power": 1.6,
    "continent_dig_special": 1.6,
    "max_shovels": 1.2,
    "town_value": 1.0,
    "house_vp": 1.6,
    "tp_upgrade_vp": 1.3,
    "dropout_settlement_power": 0.6,
    "dropout_inland_vp": 1.6,
    "dropout_edge_settlement_vp": 0.9,
    "tp_cost_adjacent": 0.8,
    "tp_cost_alone": 0.3,
}


def round_event(state: TerraNovaState, r: int) -> tuple[str, int]:
    """(event, vp) of round r's scoring tile, or ("", 0) outside rounds 1..rounds."""
    if 1 <= r <= len(state.round_tiles):
        return state.data.round_tiles[state.round_tiles[r - 1]]
    return "", 0


def future_incomes(state: TerraNovaState) -> int:
    """Income phases still to come."""
    if state.stage in ("final-exchange", "over"):
        return 0
    return state.data.rounds - max(state.round, 0)


def money_weight(state: TerraNovaState, w: Weights) -> float:
    fut = future_incomes(state)
    if fut == 0:
        return 1 / state.data.coins_per_vp
    return max(1 / state.data.coins_per_vp, w.money * (0.75 + 0.05 * fut))


def ability_value(p: Player) -> float:
    """Per-round worth of p's active non-income palace abilities."""
    eff = p.eff
    v = 0.0
    for key, value in ABILITY_VALUE.items():
        if key in eff and key not in p.faction.ability:
            v += value
    return v


# Share of a town's worth that a group already "holds", by the building actions (a house next
# to it, or an upgrade inside it) it still needs: steep near the end, so the last steps of a town
# outbid a fresh house elsewhere, while a lone house is barely a start.
TOWN_STEP_SHARE: Final[tuple[float, ...]] = (1.0, 0.6, 0.4, 0.26, 0.15, 0.08, 0.03)


def town_steps(state: TerraNovaState, p: Player, memo: Context | None = None) -> int:
    """Building actions p's most advanced group outside towns needs to found a town.

    Every house added to a group or upgrade inside it adds 1 to the group's value, so a group of
    n buildings worth v needs max(min_buildings - n, threshold - v) more actions, as long as an
    upgrade (trading posts left, a palace not built) or a free neighbour remains for each.
    Returns len(TOWN_STEP_SHARE) when no town can be founded any more. A `memo` finds the
    groups from the ones it holds.
    """
    far = len(TOWN_STEP_SHARE)
    if len(p.tiles_used) >= len(state.data.town_tiles):
        return far
    need: int = p.eff.get("town_value", state.data.town_min_value)  # typed: native arithmetic
    min_b = state.data.town_min_buildings
    loose = p.buildings & ~p.towns
    if not loose:
        return far
    adj = towns.town_adjacency(state, p)
    bv = state.data.building_value
    houses, tps = p.houses, p.tps
    best = far
    groups = components(loose, adj) if memo is None else memo.loose_groups(loose, adj)
    for g in groups:
        n = count(g)
        if min_b - n >= best:
            continue  # too small to beat the best group: no need to weigh its buildings
        nh, nt = count(g & houses), count(g & tps)
        val = bv["house"] * nh + bv["tp"] * nt + bv["palace"] * (n - nh - nt)
        steps = max(max(min_b - n, need - val), 1)  # max of two compiles natively, of three not
        best = min(best, steps)
    return best


def step_share(steps: int) -> float:
    """The share of a town's worth held by a group `steps` building actions from founding it."""
    return TOWN_STEP_SHARE[steps] if steps < len(TOWN_STEP_SHARE) else 0.0


def town_progress(state: TerraNovaState, p: Player) -> float:
    """0..1: how much of a town p's most advanced group outside towns already holds."""
    return step_share(town_steps(state, p))


def town_worth(state: TerraNovaState, p: Player, w: Weights) -> float:
    """What founding a town now brings p: its best unused tile, the faction's town VP and the
    current round tile's town VP."""
    # a loop: max() over a generator, with a default, is a Python call from compiled code
    best, found = 0.0, False
    for t in state.data.town_tiles:
        if t not in p.tiles_used:
            v = town_tile_value(state, p, t, w)
            if not found or v > best:
                best, found = v, True
    event, vp = round_event(state, state.round)
    town_vp: int = p.eff.get("town_vp", 0)  # typed: native arithmetic
    return best + town_vp + (vp if event == "town" else 0)


def territory_share(size: int, others: list[int], points: tuple[int, ...]) -> float:
    """Expected territory points for a network of `size` against the others' sizes."""
    above = tied = 0
    for o in others:
        if o > size:
            above += 1
        elif o == size:
            tied += 1
    # the places the tie covers; those past the last paying place (cut off by the slice) pay 0
    return sum(points[above:above + tied + 1]) / (tied + 1)


# The worth of a free hex by the shovels it needs (0, 1, 2, 3 or more), as constants: compiled
# code builds a literal tuple of floats anew at every use, inside these loops over hexes.
REACH_SHARE: Final[tuple[float, ...]] = (1.0, 0.6, 0.3, 0.2)


def reach_value(state: TerraNovaState, p: Player,
                memo: Context | None = None) -> tuple[float, int]:
    """(free land in reach, fewer shovels counting more; free home-terrain hexes in reach)."""
    free = (state.reach(p) if memo is None else memo.reach_mask(state, p)) & ~state.occupied
    table = p.shovel_row
    terrain = state.terrain
    v = 0.0
    ready = 0
    for h in bits(free):
        need = table[terrain[h]]
        v += REACH_SHARE[min(need, 3)]
        ready += need == 0
    return v, ready


class Context:
    """Per-decision facts that one action of the deciding seat cannot change, and a memo of the
    board-shaped terms of the valuation.

    The look-ahead values about ten states per decision, and half of them (an upgrade, a power
    action, an exchange) leave the deciding seat's buildings where they were. The memo keys each
    term by what it reads, and serves it only while the board it was made on stands: the same
    abilities (a palace replaces them), and for the terms that read the board, the same
    adjacency (a bridge replaces it) and, for reach, the same terrain (a dig changes it). The
    first state valued sets that board.

    Most of the rest add one building to the first state's: their groups (network, towns) come
    from the first state's groups joined at the new hex, and their reach from its reach, instead
    of a search of the board. Both give exactly the integers a search would.
    """

    __slots__ = ("seat", "others_network", "fut", "w", "adj", "eff", "terrain", "networks",
                 "steps", "reaches", "worths", "net_base", "loose_base", "reach_base",
                 "money_w", "abilities", "incomes")

    def __init__(self, seat: int, w: Weights, fut: int, others_network: list[int]):
        self.seat = seat
        self.w = w
        self.fut = fut
        self.others_network = others_network
        self.adj: list[int] | None = None
        self.eff: dict[str, Any] | None = None
        self.terrain: tuple[int, ...] = ()
        self.networks: dict[tuple[int, int], int] = {}
        self.steps: dict[tuple[int, int, int, int, int], int] = {}
        self.reaches: dict[tuple[int, int, int], tuple[float, int]] = {}
        self.worths: dict[tuple[tuple[int, ...], int, int, int, str], float] = {}
        # (mask, sailing, groups or reach) of the first state asked, on the memo's board
        self.net_base: tuple[int, int, list[int]] | None = None
        self.loose_base: tuple[int, list[int]] | None = None
        self.reach_base: tuple[int, int, int] | None = None
        self.money_w = -1.0  # money_weight at `fut`, once asked
        self.abilities = -1.0  # ability_value on the memo's board, once asked
        self.incomes: dict[tuple[int, int], tuple[int, int]] = {}

    def same_abilities(self, state: TerraNovaState, p: Player) -> bool:
        """Whether p (the deciding seat) still has the abilities the memo holds."""
        if self.adj is None:
            self.adj, self.eff, self.terrain = state.adj, p.eff, state.terrain
            return True
        return p.eff is self.eff

    def network(self, state: TerraNovaState, p: Player, same: bool) -> int:
        if not same:
            return network_size(state, p)
        key = (p.buildings, p.sail)
        size = self.networks.get(key)
        if size is None:
            size = self.networks[key] = largest(self.network_groups(state, p))
        return size

    def network_groups(self, state: TerraNovaState, p: Player) -> list[int]:
        """network_size's groups (own adjacency plus final sailing) on the memo's board."""
        b = p.buildings
        sailing = state.sailing(p, True)
        sail = state.data.map.sail[sailing]
        base = self.net_base
        if base is not None and base[1] == sailing:
            h = added(base[0], b)
            if h >= 0:
                return join(base[2], h, state.adj[h] | sail[h])
        groups = components(b, state.adj, sail)
        if base is None:
            self.net_base = (b, sailing, groups)
        return groups

    def loose_groups(self, loose: int, adj: list[int]) -> list[int]:
        """town_steps' groups of buildings outside towns, under the town adjacency `adj` (which
        the memo's board fixes)."""
        base = self.loose_base
        if base is not None:
            if base[0] == loose:
                return base[1]
            h = added(base[0], loose)
            if h >= 0:
                return join(base[1], h, adj[h])
        groups = components(loose, adj)
        if base is None:
            self.loose_base = (loose, groups)
        return groups

    def reach_mask(self, state: TerraNovaState, p: Player) -> int:
        """state.reach(p) on the memo's board."""
        b = p.buildings
        sailing = state.sailing(p)
        base = self.reach_base
        if base is not None and base[1] == sailing:
            h = added(base[0], b)
            if h >= 0:
                m = state.data.map
                return base[2] | ((state.adj[h] | m.sail[sailing][h]) & m.land)
        r = state.reach(p)
        if base is None:
            self.reach_base = (b, sailing, r)
        return r

    def money_weight(self, state: TerraNovaState, fut: int) -> float:
        if fut != self.fut:
            return money_weight(state, self.w)
        if self.money_w < 0:
            self.money_w = money_weight(state, self.w)
        return self.money_w

    def ability_value(self, p: Player, same: bool) -> float:
        if not same:
            return ability_value(p)
        if self.abilities < 0:
            self.abilities = ability_value(p)
        return self.abilities

    def mat_income(self, state: TerraNovaState, p: Player, same: bool) -> tuple[int, int]:
        if not same:
            return mat_income(state, p)
        key = (count(p.houses), count(p.tps))
        income = self.incomes.get(key)
        if income is None:
            income = self.incomes[key] = mat_income(state, p)
        return income

    def town_steps(self, state: TerraNovaState, p: Player, same: bool) -> int:
        if not same:
            return town_steps(state, p)
        key = (p.houses, p.tps, p.palaces, p.towns, len(p.tiles_used))
        steps = self.steps.get(key)
        if steps is None:
            steps = self.steps[key] = town_steps(state, p, self)
        return steps

    def town_worth(self, state: TerraNovaState, p: Player, same: bool) -> float:
        if not same:
            return town_worth(state, p, self.w)
        # what town_tile_value reads: power room, sailing, the round and the stage
        key = (p.tiles_used, 2 * p.p1 + p.p2, p.sail, state.round, state.stage)
        worth = self.worths.get(key)
        if worth is None:
            worth = self.worths[key] = town_worth(state, p, self.w)
        return worth

    def reach(self, state: TerraNovaState, p: Player, same: bool) -> tuple[float, int]:
        # (terrain is replaced on a dig, never changed in place: the same tuple is the same land)
        if not same or (state.terrain is not self.terrain and state.terrain != self.terrain):
            return reach_value(state, p)
        key = (p.buildings, state.sailing(p), state.occupied)
        value = self.reaches.get(key)
        if value is None:
            value = self.reaches[key] = reach_value(state, p, self)
        return value

    @staticmethod
    def of(state: TerraNovaState, seat: int, w: Weights) -> Context:
        return Context(seat, w, future_incomes(state),
                       [others_network(state, q) for i, q in enumerate(state.players) if i != seat])


# The others' network sizes each decision asks for change only when they build or sail: sizes
# are kept by what network_size reads, for the adjacency (and so the map) they were made on.
# Holding the list keeps the identity test sound (a freed list's address could be reused).
_SIZES_ADJ: Final[list[list[int]]] = [[]]
_SIZES: Final[dict[tuple[int, int], int]] = {}


def others_network(state: TerraNovaState, q: Player) -> int:
    if state.adj is not _SIZES_ADJ[0] or len(_SIZES) > 10000:
        _SIZES_ADJ[0] = state.adj
        _SIZES.clear()
    key = (q.buildings, state.sailing(q, True))
    size = _SIZES.get(key)
    if size is None:
        size = _SIZES[key] = network_size(state, q)
    return size


# valuation's terms, in the order terms() lists them: the search's fitted leaf value
# (strategies/leaf.py) weighs each by how well it foretells final VP. The last round's state is
# valued by its own few (final, last_town); the others are zero there, and those two elsewhere.
TERMS: Final[tuple[str, ...]] = (
    "vp", "pending_towns", "dropout", "final", "last_town", "resources", "income",
    "bonus_income", "territory", "buildings", "ability", "town", "reach", "sail",
    "opponent_adjacent", "edge", "round_next")


def valuation(state: TerraNovaState, seat: int, ctx: Context) -> float:
    """How good `state` is for `seat`, in VP equivalents (only differences matter): the total of
    its terms."""
    return total(terms(state, seat, ctx))


def total(ts: list[float]) -> float:
    """Terms added in order (an explicit loop: sum() of floats rounds otherwise from 3.12)."""
    v = 0.0
    for t in ts:
        v += t
    return v


def terms(state: TerraNovaState, seat: int, ctx: Context) -> list[float]:
    """valuation's terms for seat, named by TERMS."""
    p = state.players[seat]
    w = ctx.w
    data = state.data
    # VP earned, not the score: a starting-VP handicap then changes no float and so no choice
    # (the same number at another magnitude rounds differently, and can break a tie otherwise).
    vp = float(p.total_vp - p.faction.start_vp)
    fut = future_incomes(state)
    # the terms that read no adjacency serve a bridge's state from the memo too
    same_eff = seat == ctx.seat and ctx.same_abilities(state, p)
    same = same_eff and state.adj is ctx.adj
    size = ctx.network(state, p, same)
    terr = territory_share(size, ctx.others_network, data.territory_points)
    pending_towns = sum(1 for d, who in state.pending if d == "town" and who == seat)
    # The town weight scales a founded town as well as the progress towards one, so a group one
    # step from a town never holds more than founding it would bring.
    worth = ctx.town_worth(state, p, same_eff) * w.town
    # scored when p drops out this round: a building counts now
    dropout = float(dropout_vp(state, p)) if not p.passed and state.round >= 1 else 0.0
    if fut == 0:
        last_town = 0.0
        if not p.passed:
            # the last round: a town one or two actions away still pays if money allows
            steps = ctx.town_steps(state, p, same)
            if steps <= 2 and p.money + p.p3 >= 7 * steps:
                last_town = worth * TOWN_STEP_SHARE[steps] * 0.8
        return [vp, pending_towns * worth, dropout,
                (p.money + p.p3) / data.coins_per_vp + terr, last_town] + [0.0] * 12
    m = ctx.money_weight(state, fut)
    coins, power = ctx.mat_income(state, p, same_eff)
    bonus_income = 0.0
    if p.passed and p.bonus:  # the tile just taken pays at the next income
        tile = data.bonus_tiles[p.bonus]
        bonus_income = m * tile["coins"] + w.income_power * tile["power"]
    age = 1.0 - 0.1 * fut  # territory firms up as the game goes on
    # the memo's terms asked in the order they always were: the first state asked sets a board
    ability = w.palace_ability * ctx.ability_value(p, same_eff) * (fut + 0.5)
    town = worth * step_share(ctx.town_steps(state, p, same))
    reach, ready = ctx.reach(state, p, same)
    adjacent = 0.0
    if w.opponent_adjacent:
        others = state.occupied & ~p.buildings & ~state.neutral
        adj = state.adj
        adjacent = w.opponent_adjacent * sum(1 for h in bits(p.houses) if adj[h] & others)
    edge = 3.0 if any(d == "edge" and who == seat for d, who in state.pending) else 0.0
    ready_next = 0.0
    if w.round_next and state.round < data.rounds:
        ready_next = w.round_next * next_round_readiness(state, p)
    return [
        vp, pending_towns * worth, dropout, 0.0, 0.0,
        m * p.money + w.power3 * p.p3 + w.power2 * p.p2 + w.power1 * p.p1,
        fut * (w.income_coins * coins + w.income_power * min(power, 10)),
        bonus_income,
        w.territory * age * terr,
        w.house * count(p.houses) + w.tp * count(p.tps),
        ability,
        town,
        w.reach * min(reach, 12.0) + w.prepared * min(ready, 3),
        w.sail * p.sail * min(fut, 3) / 3,
        adjacent, edge, ready_next,
    ]


def next_round_readiness(state: TerraNovaState, p: Player) -> float:
    """Resources held for what the next round tile rewards (round-scorer's look-ahead)."""
    event, vp = round_event(state, state.round + 1)
    if event in ("house", "shovel"):
        return vp * min(houses_left(state, p), (p.money + p.p3) // 6) * 0.3
    if event == "tp":
        return vp * min(count(p.houses), p.money // 8) * 0.3
    if event == "palace":
        return vp * 0.3 if p.tps and not (p.palace_left and p.palace_right) else 0.0
    if event == "town":
        return vp * town_progress(state, p) * 0.5
    if event == "sail":
        return vp * 0.3 if p.sail < state.max_sail() else 0.0
    return 0.0


# ----- action costs -------------------------------------------------------------------------
# How an action kind is paid for. Tens of candidates are priced per decision, so each kind's
# string tests run once per data set (kind_cost) and the prices below only branch on ints.
MONEY_NONE: Final = 0
MONEY_FIXED: Final = 1
MONEY_TP: Final = 2
MONEY_SHOVELS: Final = 3
POWER_NONE: Final = 0
POWER_BOARD: Final = 1
POWER_FAIRY: Final = 2
POWER_INVENTOR: Final = 3


class KindCost:
    """An action kind's pricing: `money` (a MONEY_ mode) with its `fixed` coins or `free`
    shovels plus `house` coins; `power` (a POWER_ mode) with the board action's `power_base`;
    whether its hexes' shovels are used (`digs`) and whether it builds a house."""

    __slots__ = ("money", "fixed", "free", "house", "power", "power_base", "digs", "builds")

    def __init__(self, state: TerraNovaState, kind: str):
        c = state.data.costs
        self.money, self.fixed, self.free, self.house = MONEY_NONE, 0, 0, 0
        self.power, self.power_base = POWER_NONE, 0
        self.builds = kind.endswith(("build", "build-dig")) or kind in ("lake-house",
                                                                         "edge-house")
        effect = ""  # a board power action's
        if kind.startswith("pw-"):
            pa = power_action_of(state, kind)
            self.power, self.power_base, effect = POWER_BOARD, pa.cost, pa.effect
        elif kind.startswith("fairy-"):
            self.power = POWER_FAIRY
        elif kind == "inventor-tp":
            self.power = POWER_INVENTOR
        if kind == "upgrade":
            self.money = MONEY_TP
        elif kind in ("palace", "sail", "bridge"):
            self.money, self.fixed = MONEY_FIXED, c[kind]
        elif kind.startswith("sun-"):
            self.money, self.fixed = MONEY_FIXED, c["house"] if kind == "sun-build" else 0
        elif effect in ("spade1", "spade2"):
            if kind.endswith("-build-dig"):
                self.money, self.fixed = MONEY_FIXED, c["house"]
            elif not kind.endswith("-dig2"):
                self.money, self.free = MONEY_SHOVELS, 1 if effect == "spade1" else 2
        elif kind.startswith(("bonus-", "fairy-")):
            self.money, self.free = MONEY_SHOVELS, 1
        elif kind in ("build", "dig"):
            self.money = MONEY_SHOVELS
        if self.money == MONEY_SHOVELS and kind.endswith("build"):
            self.house = c["house"]
        self.digs = not (
            kind in ("upgrade", "palace", "sail", "bridge", "free-tp", "lake-house", "pass",
                     "exchange", "druid-vp", "done", "town", "place", "pick", "neutral")
            or kind.startswith("sun-") or kind == "inventor-tp"
            or (kind.startswith("pw-") and effect not in ("spade1", "spade2")))


# The kinds priced so far, for the data set and codec (power actions) they were priced on;
# holding both keeps the identity test sound.
# (Final containers changed in place: compiled code reaches them without a module lookup.)
_COSTS_OF: Final[list[object]] = [None, None]
_COSTS: Final[dict[str, KindCost]] = {}


def kind_cost(state: TerraNovaState, kind: str) -> KindCost:
    if _COSTS_OF[0] is not state.data or _COSTS_OF[1] is not state.codec:
        _COSTS_OF[0], _COSTS_OF[1] = state.data, state.codec
        _COSTS.clear()
    k = _COSTS.get(kind)
    if k is None:
        k = _COSTS[kind] = KindCost(state, kind)
    return k


def money_cost(state: TerraNovaState, p: Player, a: Action, k: KindCost | None = None) -> int:
    """Coins the action takes (before exchanges); `k` is its kind_cost when the caller has it."""
    if k is None:
        k = kind_cost(state, a.kind)
    if k.money == MONEY_FIXED:
        return k.fixed
    if k.money == MONEY_TP:
        return state.tp_cost(p, a.args[0])
    if k.money == MONEY_SHOVELS:
        need = state.shovels(p, a.args[0])
        return max(0, need - k.free) * state.data.costs["shovel"] + k.house
    return 0


def power_cost(state: TerraNovaState, p: Player, a: Action, k: KindCost | None = None) -> int:
    if k is None:
        k = kind_cost(state, a.kind)
    if k.power == POWER_BOARD:
        return state.power_cost(p, k.power_base)
    if k.power == POWER_FAIRY:
        return p.eff.get("spade_action_power", 0)
    if k.power == POWER_INVENTOR:
        return p.eff.get("tp_action_power", 0)
    return 0


def shovels_used(state: TerraNovaState, p: Player, a: Action, k: KindCost | None = None) -> int:
    args = a.args
    if not args or not (kind_cost(state, a.kind) if k is None else k).digs:
        return 0
    return sum(state.shovels(p, h) for h in args)


# ----- hex quality -----------------------------------------------------------------------------
ROOM_SHARE: Final[tuple[float, ...]] = (1.0, 0.5, 0.25, 0.1)  # as REACH_SHARE, room to grow


def hex_scores(state: TerraNovaState, p: Player, targets: int,
               w: Weights) -> dict[int, float]:
    """How good each hex in `targets` is to build on for p, apart from its price."""
    adj = state.adj
    land = state.data.map.land
    own = p.buildings
    others = state.occupied & ~own & ~state.neutral
    free = land & ~state.occupied
    reach_now = state.reach(p)
    sail = state.data.map.sail[state.sailing(p)]
    table = p.shovel_row
    terrain = state.terrain
    out = {}
    for h in bits(targets):
        n = adj[h]
        n_own = count(n & own)
        n_opp = count(n & others)
        room = 0.0
        for x in bits(n & free):
            room += ROOM_SHARE[min(table[terrain[x]], 3)]
        new_reach = count((n | sail[h]) & free & ~reach_now)
        s = 0.25 * min(room, 4.0)
        s += w.cluster * min(n_own, 3) * 0.5
        s += (w.opponent_adjacent + 0.1) * min(n_opp, 3)
        s += w.spread * (0.3 * min(new_reach, 6) - 0.6 * min(n_own, 2))
        s += 0.05 * min(new_reach, 6)
        out[h] = s
    return out


START_ROOM_SHARE: Final[tuple[float, ...]] = (1.0, 0.55, 0.2)  # (0, 1, 2 or more shovels)


def placement_score(state: TerraNovaState, p: Player, h: int, w: Weights) -> float:
    """A starting house on hex h: room to grow, neighbours to trade with, own houses nearby."""
    m = state.data.map
    adj = m.neigh
    free = m.land & ~state.occupied
    own = p.houses
    others = state.occupied & ~own
    room = 0.0
    for x in bits(adj[h] & free):
        room += START_ROOM_SHARE[min(state.shovels(p, x), 2)]
    ring2 = 0
    for x in bits(adj[h]):
        ring2 |= adj[x]
    ring2 &= ~adj[h] & ~(1 << h)
    room2 = sum(1 for x in bits(ring2 & free) if state.shovels(p, x) <= 1)
    s = room + 0.2 * room2
    s += (0.5 + w.opponent_adjacent) * min(count(adj[h] & others), 2)
    s += 0.3 * min(count(ring2 & others), 2)
    if own:
        near1 = bool(adj[h] & own)
        near2 = bool(ring2 & own)
        if near1:
            s += w.cluster * 1.5 - 0.5
        elif near2:
            s += 0.8 + w.cluster
        else:
            s += w.spread * 2.0 - 0.3
    if adj[h] & m.river:
        s += 0.4 + (0.4 if p.eff.get("river_towns") else 0.0)
    if "dropout_inland_vp" in p.faction.right_palace and not adj[h] & m.river:
        s += 0.3
    if "dropout_edge_settlement_vp" in p.faction.right_palace and m.edge >> h & 1:
        s += 0.3
    return s


# ----- tiles -----------------------------------------------------------------------------------
def bonus_tile_value(state: TerraNovaState, p: Player, tile: str, coins_on: int, r: int,
                     w: Weights) -> float:
    """Worth of holding bonus tile `tile` during round r (and dropping out with it)."""
    d = state.data
    b = d.bonus_tiles[tile]
    m = max(1 / 3, w.money)
    event, vp = round_event(state, r)
    v = m * (coins_on + b["coins"])
    power_room = 2 * p.p1 + p.p2
    v += w.income_power * 1.6 * min(b["power"], power_room)
    if b["spade_special"]:
        v += 2.2 + (vp if event == "shovel" else 0) + w.spread
    if b["sail_bonus"] and p.sail < state.max_sail():
        v += 0.9 + w.sail + w.spread
    nh = count(p.houses) + (1 if houses_left(state, p) else 0)
    nt = count(p.tps) + (0.7 if p.houses else 0)
    v += b["dropout_house_vp"] * nh + b["dropout_tp_vp"] * nt
    v += b["dropout_palace_vp"] * (count(p.palaces) + (0.4 if p.tps else 0))
    v += b["dropout_sail_vp"] * p.sail
    return v


def town_tile_value(state: TerraNovaState, p: Player, tile: int, w: Weights) -> float:
    t = state.data.town_tiles[tile]
    fut = future_incomes(state)
    m = money_weight(state, w)
    v = t["vp"] + m * t["coins"]
    if fut:
        room = 2 * p.p1 + p.p2
        v += (w.power3 + 0.05) * min(t["power"], room)
    else:
        v += min(t["power"], 2 * p.p1 + p.p2) / 3 * 0.5
    for i in range(t["sail"]):
        lvl = p.sail + i + 1
        if lvl < len(state.data.sailing_vp):
            v += state.data.sailing_vp[lvl] + w.sail * min(fut, 3) / 3 + (
                0.8 if fut else 0.0)
    return v


def palace_gain(state: TerraNovaState, p: Player, side: str, w: Weights) -> float:
    """Rough worth of building the `side` palace now: its abilities over the rounds left."""
    pal = getattr(p.faction, f"{side}_palace")
    fut = future_incomes(state)
    v = 0.0
    for key, value in pal.items():
        if key in ABILITY_VALUE:
            v += w.palace_ability * ABILITY_VALUE[key] * (fut + 0.5)
        elif key == "income_power":
            v += w.income_power * value * fut
        elif key == "income_coins":
            v += w.income_coins * value * fut
        elif key == "on_build_power":
            v += w.power2 * value
        elif key == "on_build_sail":
            v += 2.5 * value
        elif key == "on_build_edge_house":
            v += 3.0
    return v
