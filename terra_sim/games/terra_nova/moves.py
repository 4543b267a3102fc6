"""Legal action generation for Terra Nova: one function per action family, composed at the top."""

# terra-sim: compile

from typing import TYPE_CHECKING, Final

from terra_sim.core.hexmap import bits, count
from terra_sim.games.terra_nova.actions import Action, named, pair, single
from terra_sim.games.terra_nova.data import PowerAction

if TYPE_CHECKING:
    from terra_sim.games.terra_nova.state import Player, TerraNovaState

DONE: Final = Action("done")
EDGE_SKIP: Final = Action("edge-skip")
RIVER_CHOICE: Final = [Action("river-link"), Action("no-link")]
# More power than any seat holds: a bound that says "as much as anyone likes".
UNBOUNDED: Final = 1 << 20


def legal_actions(s: "TerraNovaState") -> list[Action]:
    if s.pending:
        decision, seat = s.pending[0]
        p = s.players[seat]
        if decision == "town":
            return [single("town", t) for t in sorted(s.data.town_tiles)
                    if t not in p.tiles_used]
        if decision == "river":
            return RIVER_CHOICE[:]
        free = s.data.map.edge & ~s.occupied
        acts = [single("edge-house", h) for h in bits(free)] if houses_left(s, p) else []
        return acts + [EDGE_SKIP]
    if s.stage == "over":
        return []
    seat = s.current_player()
    p = s.players[seat]
    if s.stage in ("setup-neutral", "lucky"):
        return [single("neutral", h) for h in bits(neutral_targets(s, s.queue[0][1]))]
    if s.stage == "setup-house":
        home = s.data.map.land & ~s.occupied
        return [single("place", h) for h in bits(home) if s.terrain[h] == p.faction.home]
    if s.stage == "setup-bonus":
        return [named("pick", t) for t in sorted(s.supply)]
    if s.stage == "exchange":
        return exchanges(p) + [DONE]
    if s.stage == "final-exchange":
        return druid_exchange(p) + [DONE]
    if s.window == 1:
        return exchanges(p) + [DONE]
    return turn_actions(s, p)


def neutral_targets(s: "TerraNovaState", terrain: int) -> int:
    marked = sum(1 << h for h in s.data.neutral_spaces.get(terrain, ()))
    return marked & ~s.occupied


def houses_left(s: "TerraNovaState", p: "Player") -> int:
    return s.data.houses - count(p.houses)


def tps_left(s: "TerraNovaState", p: "Player") -> int:
    return s.data.trading_posts - count(p.tps)


def exchanges(p: "Player") -> list[Action]:
    return [single("exchange", k) for k in range(1, p.p3 + 1)] + druid_exchange(p)


def druid_exchange(p: "Player") -> list[Action]:
    ptv = p.eff.get("power_to_vp")
    return [named("druid-vp")] if ptv and p.p3 >= ptv[0] else []


def can_exchange(p: "Player") -> bool:
    ptv = p.eff.get("power_to_vp")
    return p.p3 > 0 or bool(ptv and p.p3 >= ptv[0])


def exchange_after_matters(s: "TerraNovaState", seat: int) -> bool:
    """Whether an exchange right after seat's action, which charged seat's power, can differ
    from the next chance to exchange (seat's next turn, or the round-end exchange once it has
    dropped out).

    Exchanging later is never worse (the power stays charged) unless power gained from others in
    between overflows bowl III: so the engine offers the exchange after the action only while
    others could give seat more power than bowls I and II can take.
    """
    p = s.players[seat]
    if not can_exchange(p):
        return False
    room = 2 * p.p1 + p.p2
    return power_to_come(s, seat, room) > room


def power_to_come(s: "TerraNovaState", seat: int, limit: int) -> int:
    """An upper bound on the power others' actions can give seat before its next chance to
    exchange; counting stops once past `limit`."""
    p = s.players[seat]
    if p.passed:
        # the others may act any number of times before the round-end exchange, their reach
        # growing: any building of seat's with a neighbour they may yet build on can charge it
        if not any(not q.passed for i, q in enumerate(s.players) if i != seat):
            return 0
        near = 0
        for b in bits(p.buildings):
            near |= s.adj[b]
        near &= s.data.map.land & ~p.buildings & ~s.neutral
        return UNBOUNDED if near or "others_house_power" in p.eff else 0
    return power_per_turn(s, seat, limit)


def power_per_turn(s: "TerraNovaState", seat: int, limit: int) -> int:
    """An upper bound on the power seat gains while every other player still in the round takes
    one action; counting stops once past `limit`.

    An action places at most one building (two when the Fire Sprites' left palace brings its
    free edge house): seat gains 1 per own building next to it, the Inventors 1 (2 with 2
    players) per house. Others build in their reach, on their lake anywhere (Water Sprites'
    palace) or on the edge (Fire Sprites'), and upgrade their own buildings. A bridge built
    meanwhile joins the builder's hex to a free one, so it never adds a neighbour of seat's.
    """
    p = s.players[seat]
    mine = p.buildings
    adj = s.adj
    m = s.data.map
    near = 0
    for b in bits(mine):
        near |= adj[b]
    near &= m.land & ~mine & ~s.neutral
    per_house = p.eff["others_house_power"][s.n] if "others_house_power" in p.eff else 0
    if not near and not per_house:
        return 0
    free = near & ~s.occupied
    total = 0
    for i, q in enumerate(s.players):
        if i == seat or q.passed:
            continue
        targets = (free & s.reach(q)) | (near & q.houses)
        if not (q.palace_left and q.palace_right):
            targets |= near & q.tps
        if q.eff.get("lake_house_special") and "lake-house" not in q.used:
            targets |= sum(1 << h for h in bits(free) if s.terrain[h] == q.faction.home)
        gain = most_next_to(adj, targets, mine)
        if (not q.palace_left and q.tps and q.faction.left_palace.get("on_build_edge_house")):
            gain += most_next_to(adj, free & m.edge, mine) + per_house
        total += gain + (per_house if houses_left(s, q) else 0)
        if total > limit:
            break
    return total


def most_next_to(adj: list[int], targets: int, mine: int) -> int:
    best = 0
    for h in bits(targets):
        best = max(best, count(adj[h] & mine))
    return best


def power_action_of(s: "TerraNovaState", kind: str) -> PowerAction:
    """The board power action behind a `pw-...` action kind."""
    return s.codec.power_of[kind]


def turn_actions(s: "TerraNovaState", p: "Player") -> list[Action]:
    acts = exchanges(p)
    # Drop Out takes a new bonus tile (and its coins) in the last round too: only phase 3 is
    # skipped then.
    acts += [named("pass", t) for t in sorted(s.supply)]
    reach = s.reach(p) & ~s.occupied
    acts += habitable(s, p, reach, "", 0, s.data.costs["shovel"])
    acts += upgrades(s, p)
    acts += sailing_and_bridges(s, p)
    acts += power_actions(s, p, reach)
    acts += specials(s, p, reach)
    return acts


def habitable(s: "TerraNovaState", p: "Player", targets: int, prefix: str, free: int,
              shovel: int, money: int | None = None) -> list[Action]:
    """Make-habitable (dig) and build actions on `targets` with `free` shovels, extra ones paid.

    shovel=-1 means extra shovels cannot be bought.
    """
    money = p.money if money is None else money
    house = s.data.costs["house"]
    can_build = houses_left(s, p) > 0
    build, dig = f"{prefix}build", f"{prefix}dig"
    acts = []
    for h in bits(targets):
        need = s.shovels(p, h)
        if need == 0:
            if not free and can_build and money >= house:
                acts.append(single(build, h))
            continue
        paid = max(0, need - free)
        if paid and shovel < 0:
            continue
        cost = paid * shovel
        if money >= cost:
            acts.append(single(dig, h))
            if can_build and money >= cost + house:
                acts.append(single(build, h))
    return acts


def upgrades(s: "TerraNovaState", p: "Player") -> list[Action]:
    acts = []
    if tps_left(s, p):
        acts += [single("upgrade", h) for h in bits(p.houses) if p.money >= s.tp_cost(p, h)]
    sides = [side for side, m in (("left", p.palace_left), ("right", p.palace_right)) if not m]
    if sides and p.money >= s.data.costs["palace"]:
        acts += [Action("palace", (h, side)) for h in bits(p.tps) for side in sides]
    return acts


def bridge_sites(s: "TerraNovaState", p: "Player") -> list[int]:
    if not p.bridges:
        return []
    own = p.buildings
    return [i for i, (a, b) in enumerate(s.data.map.bridge_sites)
            if s.bridge_owner[i] < 0 and (own >> a & 1 or own >> b & 1)]


def sailing_and_bridges(s: "TerraNovaState", p: "Player") -> list[Action]:
    acts = []
    if p.sail < s.max_sail() and p.money >= s.data.costs["sail"]:
        acts.append(named("sail"))
    if p.money >= s.data.costs["bridge"]:
        acts += [single("bridge", i) for i in bridge_sites(s, p)]
    return acts


def power_actions(s: "TerraNovaState", p: "Player", reach: int) -> list[Action]:
    acts = []
    for pa in s.data.power_actions:
        if pa.id in s.used_power or p.p3 < s.power_cost(p, pa.cost):
            continue
        k = f"pw-{pa.id}"
        if pa.effect == "bridge":
            acts += [single(k, i) for i in bridge_sites(s, p)]
        elif pa.effect == "sail":
            if p.sail < s.max_sail():
                acts.append(named(k))
        elif pa.effect == "coins":
            acts.append(named(k))
        elif pa.effect == "spade1":
            acts += habitable(s, p, reach, k + "-", 1, s.data.costs["shovel"])
        else:
            acts += habitable(s, p, reach, k + "-", 2, -1)
            ones = [h for h in bits(reach) if s.shovels(p, h) == 1]
            dig2, build_dig = k + "-dig2", k + "-build-dig"
            acts += [pair(dig2, a, b) for i, a in enumerate(ones) for b in ones[i + 1:]]
            if houses_left(s, p) and p.money >= s.data.costs["house"]:
                acts += [pair(build_dig, a, b) for a in ones for b in ones if a != b]
    return acts


def specials(s: "TerraNovaState", p: "Player", reach: int) -> list[Action]:
    """Bonus-tile special action and palace abilities (special and personal power actions)."""
    acts = []
    eff = p.eff
    shovel = s.data.costs["shovel"]
    if p.bonus and s.data.bonus_tiles[p.bonus]["spade_special"] and "bonus" not in p.used:
        acts += habitable(s, p, reach, "bonus-", 1, shovel)
    if "spade_action_power" in eff and "fairy" not in p.used and p.p3 >= eff["spade_action_power"]:
        acts += habitable(s, p, reach, "fairy-", 1, shovel)
    if eff.get("continent_dig_special") and "sun" not in p.used:
        m = s.data.map
        near = 0
        for b in bits(p.buildings):
            near |= m.land_neigh[b] & m.continent_of[b]
        for h in bits(near & ~s.occupied):
            if s.terrain[h] != p.faction.home:
                acts.append(single("sun-dig", h))
                if houses_left(s, p) and p.money >= s.data.costs["house"]:
                    acts.append(single("sun-build", h))
    if eff.get("lake_house_special") and "lake-house" not in p.used and houses_left(s, p):
        free = s.data.map.land & ~s.occupied
        acts += [single("lake-house", h) for h in bits(free) if s.terrain[h] == p.faction.home]
    if eff.get("free_tp_special") and "free-tp" not in p.used and tps_left(s, p):
        acts += [single("free-tp", h) for h in bits(p.houses)]
    if "tp_action_power" in eff and p.p3 >= eff["tp_action_power"] and tps_left(s, p):
        acts += [single("inventor-tp", h) for h in bits(reach)]
    return acts
