"""Terra Mystica knowledge shared by the scripted bots: what resources, income, buildings, cult
positions, tiles and follow-ups are worth, in VP equivalents.

Everything here reads a TerraMysticaState and never changes it. A bot's `weights` dict (see
DEFAULT_WEIGHTS) scales each term, which is how the plans differ. Resources lose worth as the
game ends: after the last income they are worth only what final scoring pays for them.
"""

# terra-sim: compile

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from math import exp
from typing import Final

from terra_sim.core.hexmap import added, bits, components, count, join, largest
from terra_sim.games.terra_mystica import moves
from terra_sim.games.terra_mystica.player import Player
from terra_sim.games.terra_mystica.scoring import network_size, place_points
from terra_sim.games.terra_mystica.state import TerraMysticaState

DEFAULT_WEIGHTS: Final[dict[str, float]] = {
    "coin": 0.45,  # a coin with the whole game ahead (falls to final scoring's rate)
    "worker": 0.7,
    "priest": 1.5,
    "power3": 0.4,  # a power token in bowl III: spendable now
    "power2": 0.2,
    "power1": 0.03,
    "token": 0.3,  # a power token in any bowl, per round left: what it will cycle into
    "income": 1.0,  # scales income by the income phases still to come
    "building": 1.0,  # a building's worth beyond income: reach, leech, town material
    "network": 0.7,  # the share of final network points the current networks would take
    "cult": 0.7,  # the share of final cult points the current cult positions would take
    "cult_step": 0.15,  # a cult step beyond its rank (ties broken later, thresholds ahead)
    "cult_bonus": 1.0,  # the scoring tiles' cult rewards still to come
    "priest_send": 0.0,  # extra liking for sending priests (prefilter)
    "town": 1.0,  # progress towards the next town
    "reach": 0.12,  # per cheap free hex in reach
    "ability": 1.0,  # per-round worth of stronghold abilities
    "opponent_adjacent": 0.12,  # per own building touching an opponent (leech, cheap TPs)
    "leech": 2.2,  # scales the worth of power taken from a neighbour's build
    "round_now": 1.0,  # the current round tile's VP (prefilter emphasis)
    "round_next": 0.0,  # VP next round's tile would pay for what can be afforded then
    "power_action": 0.0,  # extra liking for board power actions (prefilter)
    # A board power action's worth beyond what it pays, in the look-ahead: first come, first
    # served, and what it buys funds the round's later actions, which one ply cannot see.
    "power_tempo": 0.0,
    "cluster": 0.5,  # building next to own buildings (prefilter and hex choice)
    "spread": 0.0,  # building away from own buildings, into new ground (prefilter)
    "advance": 0.0,  # extra liking for shipping and digging advances (prefilter)
    "pass_margin": 0.3,  # an action must beat passing by this much
    "stronghold_save": 0.0,  # workers and coins held towards a stronghold still to build
    "pass_vp": 0.0,  # VP the passes to come will pay for what stands now (tiles, bridges)
    "bridge_prospects": 0.0,  # the Engineers' pass VP for bridges still waiting for a building
    "bridge_pairs": 0.0,  # ... and for their buildings across a river still waiting for a bridge
    "build_room": 0.0,  # per dwelling still wanted that has free land in reach (build_room)
    "favor_build": 0.6,  # share of a favour tile's VP per building still to come (favor_value)
    # how far coins the held workers cannot spend fall towards final scoring's rate (Prices)
    "hoard": 0.0,
    # A starting dwelling's worth per free land hex beside it, by the spades that make the hex
    # home terrain (none, one, two, three; greedy.choose_place). Weights, so that a faction's
    # tuning sets its own: a spade costs each faction differently (the Darklings pay priests).
    "start_home": 1.5,
    "start_spade": 1.0,
    "start_spade2": 0.35,
    "start_spade3": 0.15,
}

# Per-round worth of stronghold effects that are not one-time: the one-time ones (VP, power,
# favour, spades, shipping) happen in the engine and show in the state directly.
ABILITY_VALUE: Final[dict[str, float]] = {
    "ride": 3.0,
    "cult_action": 2.2,
    "double_turn": 2.4,
    "spade_action": 2.8,
    "sandstorm": 2.4,
    "free_tp_action": 3.0,
    "pass_bridge_vp": 1.5,
    "spade_power": 0.6,
    "carpet_range": 0.8,
    "tunnel_workers": 0.6,
}
# A building's worth beyond its income, by kind: a trading house is the way to temples and the
# stronghold, and counts double for towns and power offers.
BUILDING_WORTH: Final[dict[str, float]] = {"D": 1.0, "TP": 2.5, "TE": 3.0, "SH": 5.0, "SA": 3.5}
# How much of a favour tile's VP for passing still to come the bots count on: they build
# less than a tile's best case. (Its VP for buildings to come is the `favor_build` weight.)
SPECULATIVE: Final = 0.6
NETWORK_SHARE: Final = 0.15  # the network term's weight in round 1; it grows to 1 by the end
# Coins the held workers can spend: every building and digging costs workers beside coins, two
# to three coins a worker, and nothing turns coins into workers; a few more for a shipping
# advance or a conversion's change. Beyond it coins wait for next round's workers.
COINS_PER_WORKER: Final = 3
SPARE_COINS: Final = 3


def rounds_left(s: TerraMysticaState) -> int:
    """Income phases still to come."""
    if s.stage == "over":
        return 0
    return s.data.rules["rounds"] - max(s.round, 0)


def phase(s: TerraMysticaState) -> float:
    """1.0 with plenty of game left, falling to 0.0 in the last round."""
    return min(1.0, (rounds_left(s) + 0.3) / 3.0)


@dataclass
class Prices:
    """VP worth of one unit of each resource now, for one weights dict."""

    coin: float
    worker: float
    priest: float
    power3: float
    power2: float
    power1: float
    token: float
    final_coin: float
    idle_coin: float  # a coin beyond what the held workers can spend (COINS_PER_WORKER)
    # cult_bonus_value at the player's own positions, once asked (cult_bonus_now)
    cult_now: float | None = None

    @staticmethod
    def of(s: TerraMysticaState, p: Player, w: dict[str, float]) -> Prices:
        g = phase(s)
        fin = 1.0 / p.eff.get("coins_per_vp", s.data.rules["coins_per_vp"])

        def mix(base: float, final: float) -> float:
            return final + (base - final) * g

        coin = mix(w["coin"], fin)
        return Prices(coin, mix(w["worker"], fin), mix(w["priest"], fin),
                      mix(w["power3"], fin), mix(w["power2"], fin / 2), mix(w["power1"], 0.0),
                      w["token"] * rounds_left(s), fin, coin - w["hoard"] * (coin - fin))

    def res(self, r: str) -> float:
        return {"C": self.coin, "W": self.worker, "P": self.priest, "PW": self.power3,
                "VP": 1.0}.get(r, 0.0)

    def cult_bonus_now(self, s: TerraMysticaState, p: Player) -> float:
        """cult_bonus_value at p's positions, for the (s, p) these prices are of. Every cult
        step weighed (each favour tile, each track, each pending step) is weighed against it,
        and it was made again for each."""
        v = self.cult_now
        if v is None:
            v = self.cult_now = cult_bonus_value(s, p, p.cults, self)
        return v

    def power_gain(self, p: Player, n: int) -> float:
        """Worth of gaining n power into p's bowls (bowl I -> II first, then II -> III)."""
        a = min(n, p.p1)
        b = min(n - a, p.p2 + a)
        return a * (self.power2 - self.power1) + b * (self.power3 - self.power2)


def income_of(s: TerraMysticaState, p: Player) -> dict[str, int]:
    """p's income each round from its buildings and favour tiles; a bonus tile's is left out,
    since the tile changes hands at every pass."""
    got = {"C": 0, "W": 0, "P": 0, "PW": 0}
    for b, rows in p.faction.income.items():
        n = count(p.b[b])
        for r, arr in rows.items():
            got[r] += arr[n]
    favor = s.data.tiles.favor
    for t in p.favors:
        for r, v in favor[t]["income"].items():
            got[r] += v
    return got


def income_value(inc: dict[str, int], pr: Prices) -> float:
    # Power income mostly lands in bowls I and II: a token of it is worth less than a charged one
    return (inc["C"] * pr.coin + inc["W"] * pr.worker + inc["P"] * pr.priest
            + inc["PW"] * 0.5 * (pr.power2 + pr.power3))


def spade_value(s: TerraMysticaState, p: Player, pr: Prices) -> float:
    """A free spade: the digging it saves, at least a little (a lone spade may be wasted)."""
    if "priest_spades" in p.eff:
        return pr.priest + p.eff["priest_spades"] * 0.5
    return max(0.6, p.faction.spade_workers[p.dig] * pr.worker)


def cult_points(pos: list[int], mine: int, vp: list[int]) -> float:
    """Final cult points `mine` would take on one track with `pos` of every player."""
    return float(place_points(mine, pos, vp))


@dataclass
class Context:
    """What a valuation of seat's states needs that the actor's move cannot change much: the
    opponents' network sizes and cult positions, computed once per decision.

    It also keeps the groups of the first network it sizes. The look-ahead's states mostly have
    the same buildings or one more on the same tables, and their groups then come from those
    (`hexmap.join`) instead of a search of the board: the same integers.
    """

    seat: int
    w: dict[str, float]
    other_networks: list[int]
    other_cults: list[list[int]]
    # (adjacency, range table, buildings, groups) of the first network sized
    network_base: tuple[list[int], Sequence[int], int, list[int]] | None = None

    def network(self, s: TerraMysticaState, p: Player) -> int:
        """network_size(s, p)."""
        k = s.jump_range(p)
        extra = s.data.within[k + 1] if k else s.data.map.sail[s.ship_range(p, bonus=False)]
        b = p.buildings
        base = self.network_base
        if base is None or base[0] is not s.adj or base[1] is not extra:
            groups = components(b, s.adj, extra)
            if base is None:
                self.network_base = (s.adj, extra, b, groups)
        elif base[2] == b:
            groups = base[3]
        else:
            h = added(base[2], b)
            groups = (join(base[3], h, s.adj[h] | extra[h]) if h >= 0
                      else components(b, s.adj, extra))
        return largest(groups)

    @staticmethod
    def of(s: TerraMysticaState, seat: int, w: dict[str, float]) -> Context:
        others = [q for q in s.players if q.seat != seat]
        return Context(seat, w, [network_size(s, q) for q in others],
                       [[q.cults[i] for q in others] for i in range(len(s.data.cults))])


def track_value(s: TerraMysticaState, others: list[int], pos: int,
                w: dict[str, float]) -> float:
    """Worth of standing on `pos` of one track: early, every step counts alike (the ranks will
    change); late, the final ranking's points."""
    g = phase(s)
    rank = cult_points(others, pos, s.data.rules["cult_vp"])
    return w["cult"] * ((1 - g) * rank + g * 0.6 * pos) + w["cult_step"] * pos


def cult_value(s: TerraMysticaState, p: Player, ctx: Context, pr: Prices) -> float:
    total = 0.0
    for i, pos in enumerate(p.cults):
        total += track_value(s, ctx.other_cults[i], pos, ctx.w)
    return total + ctx.w["cult_bonus"] * pr.cult_bonus_now(s, p)


def cult_bonus_value(s: TerraMysticaState, p: Player, cults: list[int], pr: Prices) -> float:
    """The cult rewards of this and the coming rounds' scoring tiles at these positions."""
    tiles = s.data.tiles.scoring
    total = 0.0
    first = max(s.round, 1)
    for r in range(first, len(s.scoring_tiles)):  # the last round's tile pays no cult reward
        t = tiles[s.scoring_tiles[r - 1]]
        if t["cult"] in s.data.cults:
            k = cults[s.data.cults.index(t["cult"])] // t["per"]
        else:
            k = p.cult_priests
        if not k:
            continue
        for res, v in t["reward"].items():
            worth = spade_value(s, p, pr) * 0.7 if res == "spade" else (
                0.5 * (pr.power2 + pr.power3) if res == "PW" else pr.res(res))
            total += k * v * worth
    return total


def town_need(s: TerraMysticaState, p: Player) -> int:
    need = s.data.rules["town_power"]
    favor = s.data.tiles.favor
    for t in p.favors:
        tp = favor[t]["town_power"]
        if tp:
            need = min(need, tp)
    return need


def town_worth(s: TerraMysticaState, p: Player) -> float:
    worth = 9.0 + p.eff.get("town_vp", 0) + 0.7 * p.eff.get("town_workers", 0)
    tile = s.scoring_tile()
    if tile is not None and tile["event"] == "town":
        worth += tile["vp"] * 0.5
    return worth


def town_progress(s: TerraMysticaState, p: Player, w: dict[str, float]) -> float:
    """Worth of the best group outside towns, by how close it is to founding one."""
    if not any(s.town_supply.values()) or rounds_left(s) == 0 and s.round >= 6 and p.passed:
        return 0.0
    rules = s.data.rules
    # typed, so that the arithmetic below compiles natively (the rules dict holds Any)
    values: dict[str, int] = rules["building_power"]
    town_buildings: int = rules["town_buildings"]
    sa_extra: int = rules["sa_town_buildings"] - 1
    need = town_need(s, p)
    loose = p.buildings & ~p.town_mask
    if not loose:
        return 0.0
    best = 0.0
    for g in components(loose, s.adj):
        power = 0
        for k, m in p.b.items():
            power += values[k] * count(m & g)
        n = count(g) + sa_extra * count(p.b["SA"] & g)
        missing = max(max((need - power + 1) // 2, town_buildings - n), 0)
        share = max(0.0, 1.0 - 0.3 * missing) if n >= 2 else 0.0
        best = max(best, share)
    return best * 0.55 * town_worth(s, p) * w["town"]


def land_in_reach(s: TerraMysticaState, p: Player) -> int:
    """The free land hexes p reaches now: next to its buildings, by shipping, tunnel or carpet."""
    free = s.data.map.land & ~s.occupied
    return (s.direct_reach(p, bonus=False) | s.jump_reach(p)) & free


def land_worth(s: TerraMysticaState, p: Player, near: int) -> tuple[float, float]:
    """(reach, land) of the free hexes in near, in one pass over them (both terms read them in
    every valuation). reach: the first 14, home terrain 1.5, else 1 / (1 + spades to dig);
    land: all of them, home terrain 1, else 1 / (1 + spades / 2)."""
    home = p.faction.home
    to_home = [row[home] for row in s.data.spades[p.faction.slug]]
    terrain = s.terrain
    reach = 0.0
    land = 0.0
    n = 0
    for h in bits(near):
        k = to_home[terrain[h]]
        land += 1.0 / (1.0 + 0.5 * k)
        if n < 14:
            reach += 1.5 if terrain[h] == home else 1.0 / (1 + k)
            n += 1
    return reach, land


def build_room(s: TerraMysticaState, p: Player, land: float) -> float:
    """About how many of the dwellings p will still want to build have free land in reach.

    The want is the dwellings left in supply, at most two for each round still to come; the
    land is the free hexes p reaches now (land_worth), home terrain whole and each spade to
    dig counting less. The first hexes count most and the last ones hardly at all
    (1 - e^-land/want): a player with land for every dwelling gains little from more.
    Without this term greedy is boxed in before it notices, because a shipping advance, or a
    dwelling built towards open land, pays only rounds later, when the land would have run
    out."""
    want = min(s.data.rules["buildings"]["D"] - count(p.b["D"]), 2 * rounds_left(s))
    if want <= 0:
        return 0.0
    return want * (1.0 - exp(-land / want))


def ability_value(s: TerraMysticaState, p: Player, w: dict[str, float]) -> float:
    """Per-round stronghold abilities, for the rounds still to play after this one."""
    if not p.b["SH"]:
        return 0.0
    return w["ability"] * ability_worth(p) * rounds_left(s)


def opponent_contact(s: TerraMysticaState, p: Player) -> int:
    others = s.occupied & ~p.buildings
    adj = s.adj
    return sum(1 for h in bits(p.buildings) if adj[h] & others)


def favor_value(s: TerraMysticaState, p: Player, tile: str, w: dict[str, float],
                pr: Prices) -> float:
    """Worth of taking a favour tile now: its cult steps and what it does in the rounds left."""
    t = s.data.tiles.favor[tile]
    later = rounds_left(s)
    v = cult_step_value(s, p, s.data.cults.index(t["cult"]), t["steps"], w, pr)
    for r, n in t["income"].items():
        v += later * w["income"] * n * (0.5 * (pr.power2 + pr.power3) if r == "PW"
                                        else pr.res(r))
    now = later + (0 if p.passed else 1)  # this round still counts for build and pass VP
    for b, n in t["build_vp"].items():
        left = s.data.rules["buildings"][b] - count(p.b[b])
        per_round = 0.8 if b == "D" else 0.5
        v += w["favor_build"] * n * min(left, per_round * now)
    table = t["pass_tp_vp"]
    if len(table) > 1:
        v += SPECULATIVE * now * table[min(count(p.b["TP"]) + 1, len(table) - 1)]
    if t["town_power"]:
        v += 0.25 * town_worth(s, p) * w["town"] * (1.0 if later >= 2 else 0.4)
    if t["action"]:
        v += now * 0.8 * cult_step_value(s, p, best_track(s, p, w, pr), 1, w, pr)
    return v


def cult_step_value(s: TerraMysticaState, p: Player, track: int, steps: int,
                    w: dict[str, float], pr: Prices) -> float:
    """Worth of `steps` on one track: its final rank, its power thresholds, its rewards."""
    pos = p.cults[track]
    target = s.cult_target(p, track, steps)
    if target <= pos:
        return 0.0
    others = [q.cults[track] for q in s.players if q is not p]
    v = track_value(s, others, target, w) - track_value(s, others, pos, w)
    gain = 0
    for th, pw in s.data.cult_power.items():
        if pos < th <= target:
            gain += pw
    v += pr.power_gain(p, gain)
    moved = p.cults[:]
    moved[track] = target
    v += w["cult_bonus"] * (cult_bonus_value(s, p, moved, pr) - pr.cult_bonus_now(s, p))
    return v


def best_track(s: TerraMysticaState, p: Player, w: dict[str, float], pr: Prices,
               steps: int = 1) -> int:
    return max(range(len(s.data.cults)),
               key=lambda i: (cult_step_value(s, p, i, steps, w, pr), -i))


def town_tile_value(s: TerraMysticaState, p: Player, tile: str, w: dict[str, float],
                    pr: Prices) -> float:
    t = s.data.tiles.town[tile]
    v = t["vp"] + t["C"] * pr.coin + t["W"] * pr.worker + t["P"] * pr.priest
    v += pr.power_gain(p, t["PW"])
    if t["cult"]:
        v += sum(cult_step_value(s, p, i, t["cult"], w, pr) for i in range(len(p.cults)))
    # a key matters only to a track that can reach 10
    v += (t["keys"] - 1) * 1.0 + 0.5 * max(0, max(p.cults) - 6)
    if t["ship"] and rounds_left(s) >= 2:
        v += 2.0
    return v


def bonus_tile_value(s: TerraMysticaState, p: Player, tile: str, coins_on: int,
                     w: dict[str, float], pr: Prices, r: int) -> float:
    """Worth of holding a bonus tile during round r (its income comes before it)."""
    b = s.data.tiles.bonus[tile]
    v = coins_on * pr.coin
    for res, n in b["income"].items():
        v += n * (0.5 * (pr.power2 + pr.power3) if res == "PW" else pr.res(res))
    if b["action"] == "spade":
        v += spade_value(s, p, pr) + 0.5
        tile_r = round_tile(s, r)
        if tile_r is not None and tile_r["event"] == "spade":
            v += tile_r["vp"]
    elif b["action"] == "cult":
        v += 0.8 * cult_step_value(s, p, best_track(s, p, w, pr), 1, w, pr)
    if b["ship"] and p.faction.ship_max and p.ship < 4:
        v += 1.2
    for what, n in b["pass_vp"].items():
        if what == "ship":
            v += n * p.ship
        else:
            built = count(p.b[what])
            if what == "D":
                built = max(built, min(8, built + 1))
            v += n * built
    return v


def round_tile(s: TerraMysticaState, r: int) -> dict | None:
    if 1 <= r <= len(s.scoring_tiles):
        return s.data.tiles.scoring[s.scoring_tiles[r - 1]]
    return None


def pending_value(s: TerraMysticaState, p: Player, w: dict[str, float], pr: Prices) -> float:
    """Follow-ups owed to p that a look-ahead stopped short of: favour and town tiles, cult
    steps, free spades and the specials' one-shot moves, a bridge. A double turn's second action
    gets no guess: greedy plays it out (GreedyStrategy.play_out_turn), and a guess in the state
    it starts from would raise the bar its first action must clear by as much."""
    v = 0.0
    seat = p.seat
    for e in s.pending:
        if e[1] != seat:
            continue
        kind = e[0]
        if kind == "favor":
            choices = [t for t, n in s.favor_supply.items() if n > 0 and t not in p.favors]
            if choices:
                vals = sorted((favor_value(s, p, t, w, pr) for t in choices), reverse=True)
                v += sum(vals[: e[2]])
        elif kind == "town":
            v += max((town_tile_value(s, p, t, w, pr) for t, n in s.town_supply.items()
                      if n > 0), default=0.0)
        elif kind == "cult":
            v += cult_step_value(s, p, best_track(s, p, w, pr, e[2]), e[2], w, pr)
        elif kind == "spades":
            spec = e[3]
            if spec.get("ride"):
                v += 2.0 + w["building"] + 2 * pr.coin + pr.worker
            elif spec.get("sandstorm"):
                v += spade_value(s, p, pr) * 1.5 + 1.0
            elif spec.get("free_tp"):
                v += 3.0 + 3 * pr.coin + 2 * pr.worker
            else:
                v += e[2] * spade_value(s, p, pr) * (0.7 if spec.get("cult") else 1.0)
        elif kind == "bridge":
            v += 1.5
    if s.pending and s.pending[0][1] == seat and s.spade:
        v += s.spade.get("free", 0) * spade_value(s, p, pr) * 0.5
    return v


def resource_value(p: Player, pr: Prices) -> float:
    """Held resources at their prices. Coins the held workers cannot spend are worth less
    (`hoard`): greedy otherwise kept coins at full price and passed with three coins a round
    more than people do (profile.py), short of the workers to build with them."""
    idle = max(0, p.coins - COINS_PER_WORKER * p.workers - SPARE_COINS)
    return (p.coins * pr.coin - idle * (pr.coin - pr.idle_coin) + p.workers * pr.worker
            + p.priests * pr.priest
            + p.p3 * pr.power3 + p.p2 * pr.power2 + p.p1 * pr.power1
            + (p.p1 + p.p2 + p.p3) * pr.token)


def building_value(s: TerraMysticaState, p: Player, w: dict[str, float]) -> float:
    """Buildings beyond their income: town material, leech and growth; it fades by the end."""
    n = 0.0
    for k, m in p.b.items():
        n += BUILDING_WORTH[k] * count(m)
    return w["building"] * n * phase(s)


# valuation's terms, in the order terms() lists them: the search's fitted leaf value
# (strategies/leaf.py) weighs each by how well it foretells final VP.
TERMS: Final[tuple[str, ...]] = (
    "vp", "resources", "income", "buildings", "network", "cults", "town", "reach", "build_room",
    "round_next", "ability", "opponent_adjacent", "dig", "pending", "stronghold_save",
    "pass_vp", "bridge_prospects")


def valuation(s: TerraMysticaState, seat: int, ctx: Context) -> float:
    """seat's position in VP equivalents (higher is better): the sum of its terms."""
    return sum(terms(s, seat, ctx))


def terms(s: TerraMysticaState, seat: int, ctx: Context) -> list[float]:
    """valuation's terms for seat, named by TERMS; after the game, its VP alone."""
    p = s.players[seat]
    w = ctx.w
    if s.stage == "over":
        return [float(p.total_vp)] + [0.0] * (len(TERMS) - 1)
    pr = Prices.of(s, p, w)
    later = rounds_left(s)
    inc = income_of(s, p)
    g = phase(s)
    share = NETWORK_SHARE + (1 - NETWORK_SHARE) * (1 - g)
    size = ctx.network(s, p)
    pts = place_points(size, ctx.other_networks, s.data.rules["network_vp"])
    reach, land = land_worth(s, p, land_in_reach(s, p))
    return [
        float(p.total_vp),
        resource_value(p, pr),
        later * w["income"] * income_value(inc, pr),
        building_value(s, p, w),
        w["network"] * share * (pts + 0.6 * size * g),
        cult_value(s, p, ctx, pr),
        town_progress(s, p, w),
        w["reach"] * reach * g,
        w["build_room"] * build_room(s, p, land) if w["build_room"] else 0.0,
        w["round_next"] * round_next(s, p, land, inc) if w["round_next"] else 0.0,
        ability_value(s, p, w),
        w["opponent_adjacent"] * opponent_contact(s, p) * g,
        p.dig * 0.8 * later * pr.worker,
        pending_value(s, p, w, pr),
        stronghold_saving(s, p, w),
        w["pass_vp"] * pass_vp_due(s, p),
        bridge_prospects(s, p, w),
    ]


def passes_left(s: TerraMysticaState, p: Player) -> int:
    """Passes p has still to make: this round's, unless made, and one a round after it."""
    if s.stage != "play":
        return 0
    return rounds_left(s) + (0 if p.passed else 1)


def pass_vp_due(s: TerraMysticaState, p: Player) -> float:
    """VP the coming passes pay for what stands now: the held bonus tile's (this round),
    favour 12's for trading houses and the Engineers' for bridges between their buildings
    (every pass left). Without it a trading house or a bridge shows none of that worth."""
    passes = passes_left(s, p)
    if not passes:
        return 0.0
    now = 0 if p.passed else s.tile_pass_vp(p)
    return float(now + passes * s.standing_pass_vp(p))


def bridge_prospects(s: TerraMysticaState, p: Player, w: dict[str, float]) -> float:
    """What the stronghold's pass bonus for bridges (the Engineers') would pay on the passes to
    come for bridges still to complete, half of it before the stronghold stands: p's bridges
    that wait only for a building at their far end (`bridge_prospects`), and p's buildings
    facing each other across a river where a bridge could join them, as many as p has bridges
    left, from the next pass on (`bridge_pairs`). A bridge pays in turns to come: a one-ply
    look-ahead sees nothing in one to free land, nor in the dwelling that makes a pair: without
    the pairs the Engineers built about one bridge a game, and rarely stood on both banks."""
    per: int = p.faction.stronghold.get("pass_bridge_vp", 0)
    passes = passes_left(s, p) if per else 0
    if not passes:
        return 0.0
    own = p.buildings
    free = s.data.map.land & ~s.occupied
    sites = s.data.map.bridge_sites
    waiting = 0
    for site, seat in s.bridges:
        if seat == p.seat:
            x, y = sites[site]
            if own >> x & 1 and free >> y & 1 or own >> y & 1 and free >> x & 1:
                waiting += 1
    v = w["bridge_prospects"] * float(per * passes * waiting)
    if w["bridge_pairs"] and passes > 1:
        # the sites p can still bridge (none once its bridges are spent) with p at both ends
        pairs = sum(1 for i in moves.bridge_sites(s, p)
                    if own >> sites[i][0] & 1 and own >> sites[i][1] & 1)
        left = s.data.rules["bridges"] - p.bridges
        v += w["bridge_pairs"] * float(per * (passes - 1) * min(pairs, left))
    return v * (1.0 if p.b["SH"] else 0.5)


def round_next(s: TerraMysticaState, p: Player, land: float, inc: dict[str, int]) -> float:
    """VP next round's scoring tile would pay for the buildings (or spades) of its kind p could
    pay for then, with what it holds and its next income (`inc`, without the bonus tile's,
    which is added here). Greedy spends as soon as anything pays, so a dwelling round finds it
    with nothing left to build with."""
    if s.stage != "play":
        return 0.0
    tile = round_tile(s, s.round + 1)
    if tile is None:
        return 0.0
    ev = tile["event"]
    bonus = s.data.tiles.bonus[p.bonus]["income"] if p.bonus else {}
    workers = p.workers + inc["W"] + bonus.get("W", 0)
    coins = p.coins + inc["C"] + bonus.get("C", 0)
    supply = s.data.rules["buildings"]
    b = p.b
    if ev == "spade":  # the Darklings dig with priests
        n = min(4, p.priests + inc["P"] + bonus.get("P", 0) if "priest_spades" in p.eff
                else workers // max(1, p.faction.spade_workers[p.dig]))
    elif ev in ("D", "TP", "TE"):
        cw, cc = p.faction.costs[ev]
        n = min(supply[ev] - count(b[ev]), workers // max(1, cw), coins // max(1, cc))
        if ev == "D":
            n = min(n, int(land))
        else:
            n = min(n, count(b["D" if ev == "TP" else "TP"]))
    elif ev == "SHSA":
        n = 0
        for kind, below in (("SH", "TP"), ("SA", "TE")):
            cw, cc = p.faction.costs[kind]
            if not b[kind] and b[below] and workers >= cw and coins >= cc:
                n = 1
    else:
        n = 0
    return float(tile["vp"] * max(0, n))


def stronghold_saving(s: TerraMysticaState, p: Player, w: dict[str, float]) -> float:
    """Resources held towards the stronghold while a trading house waits for it: greedy
    spends a worker as soon as anything pays, and the stronghold's four or so at once never
    come together; a strong player saves for it in the first rounds."""
    if p.b["SH"] or not p.b["TP"] or rounds_left(s) < 3 or not w["stronghold_save"]:
        return 0.0
    cw, cc = p.faction.costs["SH"]
    have = min(1.0, p.workers / cw) * min(1.0, p.coins / cc)
    return w["stronghold_save"] * have * ability_worth(p) * (rounds_left(s) - 1)


def ability_worth(p: Player) -> float:
    """Per-round worth of p's stronghold abilities (ABILITY_VALUE)."""
    total = 0.0
    for k in p.faction.stronghold:
        total += ABILITY_VALUE.get(k, 0.0)
    return total
