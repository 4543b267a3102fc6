"""Legal Terra Mystica actions, composed from the state's tables and bitmasks."""

# terra-sim: compile

from typing import TYPE_CHECKING, Final

from terra_sim.core.hexmap import bits, count
from terra_sim.games.terra_mystica.actions import Action
from terra_sim.games.terra_mystica.player import Player

if TYPE_CHECKING:
    from terra_sim.games.terra_mystica.state import TerraMysticaState

UPGRADES: Final = {"D": ("TP",), "TP": ("TE", "SH"), "TE": ("SA",)}
DONE: Final = Action("done")
LEECH: Final = [Action("leech"), Action("decline")]


def legal_actions(s: "TerraMysticaState") -> list[Action]:
    if s.stage == "over":
        return []
    seat = s.current_player()
    p = s.players[seat]
    if s.pending:
        return pending_actions(s, p)
    if s.stage == "setup-dwelling":
        home = p.faction.home
        return [s.data.made.get("place", (h,)) for h in bits(s.data.map.land & ~s.occupied)
                if s.terrain[h] == home]
    if s.stage == "setup-bonus":
        return [s.data.made.get("pick", (t,)) for t in s.bonus_supply]
    out = free_actions(s, p)
    if s.actions_left:
        out += main_actions(s, p)
    else:
        out.append(DONE)
    return out


def pending_actions(s: "TerraMysticaState", p: Player) -> list[Action]:
    entry = s.pending[0]
    kind = entry[0]
    if kind == "leech":
        return LEECH[:]
    if kind == "cult":
        return [s.data.made.get("cult", (c,)) for c in s.data.cults]
    if kind in ("favor", "town"):
        # a player owed both a favour and a town tile takes them in either order
        kinds = {e[0] for e in picks(s)}
        out = []
        if "favor" in kinds:
            out += [s.data.made.get("favor", (t,)) for t in favor_choices(s, p)]
        if "town" in kinds:
            out += [s.data.made.get("town", (t,)) for t, n in s.town_supply.items() if n > 0]
        return out
    if kind == "bridge":
        return [s.data.made.get("bridge", (i,)) for i in bridge_sites(s, p)]
    if kind == "spades":
        extra = [] if s.spade.get("cult") else free_actions(s, p)
        return spade_moves(s, p) + extra + [DONE]
    raise AssertionError(kind)


def picks(s: "TerraMysticaState") -> list[tuple]:
    """The favour and town tile picks at the front of the queue owed by one player."""
    out = []
    seat = s.pending[0][1]
    for e in s.pending:
        if e[0] not in ("favor", "town") or e[1] != seat:
            break
        out.append(e)
    return out


def favor_choices(s: "TerraMysticaState", p: Player) -> list[str]:
    return [t for t, n in s.favor_supply.items() if n > 0 and t not in p.favors]


def bridge_sites(s: "TerraMysticaState", p: Player) -> list[int]:
    if p.bridges >= s.data.rules["bridges"]:
        return []
    taken = {site for site, _ in s.bridges}
    own = p.buildings
    return [i for i, (a, b) in enumerate(s.data.map.bridge_sites)
            if i not in taken and (own >> a & 1 or own >> b & 1)]


def free_spot(s: "TerraMysticaState", track: int, steps: int) -> int:
    """The slot index of a free priest spot worth `steps`, or -1."""
    spots = s.data.cult_spots
    for i, seat in enumerate(s.cult_spots[track]):
        if seat < 0 and spots[i] == steps:
            return i
    return -1


ALCHEMIST_RATES: Final = {("VP", "C"): (1, 1), ("C", "VP"): (2, 1)}


def conversion_rate(s: "TerraMysticaState", p: Player, src: str, dst: str) -> tuple[int, int]:
    # the Alchemists' 2 C -> 1 VP replaces everybody's 3 C -> 1 VP
    if "alchemist_trade" in p.eff and (src, dst) in ALCHEMIST_RATES:
        return ALCHEMIST_RATES[src, dst]
    for a, n, b, m in s.data.conversions:
        if (a, b) == (src, dst):
            return n, m
    raise KeyError((src, dst))


def _has(p: Player, res: str, n: int) -> bool:
    if res == "C":
        return p.coins >= n
    if res == "W":
        return p.workers >= n
    if res == "P":
        return p.priests >= n
    if res == "PW":
        return p.p3 >= n
    return p.total_vp >= n


def free_actions(s: "TerraMysticaState", p: Player) -> list[Action]:
    out = []
    made = s.data.made
    if p.p2 >= 2:
        out.append(made.get("burn"))
    rates = [(a, n, b) for a, n, b, _ in s.data.conversions]
    if "alchemist_trade" in p.eff:
        rates = [r for r in rates if (r[0], r[2]) not in ALCHEMIST_RATES]
        rates += [(a, n, b) for (a, b), (n, _) in ALCHEMIST_RATES.items()]
    cap = s.data.rules["max_priests"] - p.cult_priests
    for a, n, b in rates:
        if _has(p, a, n) and not (b == "P" and p.priests >= cap):
            out.append(made.get("convert", (a, b)))
    if p.w2p and p.workers and p.priests < cap:
        out.append(made.get("convert", ("W", "P")))
    if "river_towns" in p.eff:
        out += [made.get("connect", (r,)) for r in river_links(s, p)]
    return out


def river_links(s: "TerraMysticaState", p: Player) -> list[int]:
    """River hexes that would found a town by joining the buildings of p on their banks."""
    m = s.data.map
    own = p.buildings
    out = []
    for r in bits(m.river & ~s.river_links[p.seat]):
        if count(m.neigh[r] & own) >= 2 and s.towns_from(
                p, s.river_links[p.seat] | 1 << r)[1]:
            out.append(r)
    return out


def afford(p: Player, w: int, c: int, pr: int = 0) -> bool:
    return p.workers >= w and p.coins >= c and p.priests >= pr


def main_actions(s: "TerraMysticaState", p: Player) -> list[Action]:
    out: list[Action] = []
    data = s.data
    made = data.made
    limits = data.rules["buildings"]
    f = p.faction
    # build and transform
    free = data.map.land & ~s.occupied
    direct = s.direct_reach(p) & free
    jump = s.jump_reach(p) & free & ~direct
    d_left = p.count("D") < limits["D"]
    dw, dc = f.costs["D"]
    for targets, jumping in ((direct, False), (jump, True)):
        jw, jp = s.jump_cost(p) if jumping else (0, 0)
        for h in bits(targets):
            t = s.terrain[h]
            for dst in range(len(data.wheel)):
                if dst == t:
                    continue
                need = s.spades_needed(p, t, dst)
                w, pr = s.dig_cost(p, need)
                if afford(p, w + jw, 0, pr + jp):
                    out.append(made.transform_home[h] if dst == f.home
                               else made.transform[h][dst])
            if d_left:
                need = s.spades_needed(p, t, f.home)
                w, pr = s.dig_cost(p, need)
                if afford(p, w + jw + dw, dc, pr + jp):
                    out.append(made.build[h])
    # upgrades
    for old, news in UPGRADES.items():
        for h in bits(p.b[old]):
            for new in news:
                if p.count(new) >= limits[new]:
                    continue
                w, c = s.tp_price(p, h) if new == "TP" else f.costs[new]
                if afford(p, w, c):
                    out.append(made.upgrade[new][h])
    # priests to cults
    if p.priests:
        for i, track in enumerate(data.cults):
            if p.cults[i] >= 10:
                continue
            for steps in sorted(set(data.cult_spots), reverse=True):
                if free_spot(s, i, steps) >= 0:
                    out.append(made.get("send", (track, steps)))
            out.append(made.get("send", (track, 1)))
    # advances
    if p.ship < f.ship_max and afford(p, 0, f.ship_cost[0], f.ship_cost[1]):
        out.append(made.get("advance", ("ship",)))
    if p.dig < f.dig_max and afford(p, *f.dig_cost):
        out.append(made.get("advance", ("dig",)))
    # power actions
    for act, (cost, effect, _) in data.tiles.power_actions.items():
        if act in s.power_used or p.p3 < cost:
            continue
        if effect == "bridge" and not bridge_sites(s, p):
            continue
        out.append(made.get("action", (act,)))
    # bonus, favour and faction actions
    if p.bonus and p.bonus not in p.used and data.tiles.bonus[p.bonus]["action"]:
        out.append(made.get("action", (p.bonus,)))
    for fav in p.favors:
        if data.tiles.favor[fav]["action"] and fav not in p.used:
            out.append(made.get("action", (fav,)))
    out += faction_actions(s, p)
    # pass
    if s.round >= data.rules["rounds"]:
        out.append(made.get("pass"))
    else:
        out += [made.get("pass", (t,)) for t in s.bonus_supply]
    return out


def faction_actions(s: "TerraMysticaState", p: Player) -> list[Action]:
    eff = p.eff
    out = []
    if "bridge_workers" in eff and p.workers >= eff["bridge_workers"] and bridge_sites(s, p):
        out.append(s.data.made.get("action", ("ACTE",)))
    if not p.b["SH"]:
        return out
    for key, act in (("ride", "ACTW"), ("cult_action", "ACTA"), ("double_turn", "ACTC"),
                     ("spade_action", "ACTG"), ("sandstorm", "ACTN"), ("free_tp_action", "ACTS")):
        if key in eff and act not in p.used:
            out.append(s.data.made.get("action", (act,)))
    return out


def spade_moves(s: "TerraMysticaState", p: Player) -> list[Action]:
    """What the current spade follow-up allows (free spades, a ride, a sandstorm, ...)."""
    sp = s.spade
    data = s.data
    made = data.made
    free = data.map.land & ~s.occupied
    f = p.faction
    d_left = p.count("D") < data.rules["buildings"]["D"]
    dw, dc = f.costs["D"]
    out = []
    if sp.get("free_tp"):
        if p.count("TP") < data.rules["buildings"]["TP"]:
            out += [made.upgrade["TP"][h] for h in bits(p.b["D"])]
        return out
    if sp.get("ride"):
        if d_left:
            out += [made.build[h] for h in bits(free) if s.terrain[h] == f.home]
        return out
    if sp.get("sandstorm"):
        near = 0
        for h in bits(p.buildings):
            near |= data.map.neigh[h]
        for h in bits(near & free):
            if s.terrain[h] != f.home:
                out.append(made.transform_home[h])
                if d_left and afford(p, dw, dc):
                    out.append(made.build[h])
        return out
    if not sp["built"] and d_left and afford(p, dw, dc):
        out += [made.build[h] for h in bits(sp["mask"] & free)
                if s.terrain[h] == f.home]
    if sp["free"] <= 0:
        return out
    if sp.get("cult"):
        targets = s.direct_reach(p, bonus=False) & free
        jump = 0
    else:
        targets = s.direct_reach(p) & free
        # one tunnel or carpet flight a turn (the server's rule): a second hex out of direct
        # reach cannot follow the first
        jump = 0 if sp.get("jumped") else s.jump_reach(p) & free & ~targets
    home_only = sp.get("other", 0)
    for h in bits(targets | jump):
        jw, jp = s.jump_cost(p) if jump >> h & 1 else (0, 0)
        t = s.terrain[h]
        for dst in range(len(data.wheel)):
            if dst == t or home_only and dst != f.home:
                continue
            need = s.spades_needed(p, t, dst)
            if not sp.get("dig") and need > sp["free"]:
                continue
            w, pr = s.dig_cost(p, max(0, need - sp["free"]))
            if not afford(p, w + jw, 0, pr + jp):
                continue
            out.append(made.transform_home[h] if dst == f.home else made.transform[h][dst])
            if dst == f.home and not sp["built"] and d_left and afford(p, w + jw + dw, dc,
                                                                       pr + jp):
                out.append(made.build[h])
    return out
