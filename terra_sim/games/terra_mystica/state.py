"""The Terra Mystica game state and the rules for changing it.

Every decision belongs to whoever `current_player()` names: the player on turn, or the player a
pending decision waits for (a power offer from a neighbour's build, a favour or town tile, a
cult step, free spades to use). A turn is any number of free actions (burn, convert, connect),
one action (two after the Chaos Magicians' double turn), their follow-ups, then `done`; the
power offers the turn's builds make are answered after it, in turn order from the builder.
"""

# terra-sim: compile

from typing import Any, Final

from terra_sim.core.hexmap import bits, components, count
from terra_sim.core.rng import stream
from terra_sim.games.terra_mystica import moves, scoring
from terra_sim.games.terra_mystica.actions import Action, ActionCodec
from terra_sim.games.terra_mystica.data import TerraMysticaData
from terra_sim.games.terra_mystica.player import CATEGORIES, Player

__all__ = ["CATEGORIES", "TerraMysticaState"]

UPGRADES: Final = {"D": ("TP",), "TP": ("TE", "SH"), "TE": ("SA",)}
# What a "spades" follow-up allows: `built` set = no dwelling may follow; `cult` = the round's
# cult-bonus spades (transform only, no shipping bonus, no tunnels); the specials replace
# transforming by one fixed move.
CULT_SPADES: Final = {"built": 1, "cult": 1, "dig": 0}
# `dig`: workers may buy the spades a hex still needs (power actions, BON1, the Giants' action:
# the rulebook's "Power action or Bonus card"); not the Halflings' stronghold spades
ACTION_SPADES: Final = {"built": 0, "cult": 0, "dig": 1}
STRONGHOLD_SPADES: Final = {"built": 0, "cult": 0, "dig": 0}
SPECIAL_FOLLOW_UP: Final = {
    "ACTW": {"built": 0, "cult": 0, "ride": 1},  # Witches' ride: a free dwelling on any forest
    "ACTN": {"built": 0, "cult": 0, "sandstorm": 1},  # Nomads: a neighbour hex turns desert
    "ACTS": {"built": 1, "cult": 0, "free_tp": 1},  # Swarmlings: a dwelling -> trading house
}
SPECIAL_MOVES: Final = ("ride", "sandstorm", "free_tp")
W2P: Final = ("W", "P")


class TerraMysticaState:
    def __init__(self, data: TerraMysticaData, codec: ActionCodec, seed: int,
                 options: dict[str, Any], players: list[Player], terrain: list[int],
                 adj: list[int], bridges: list[tuple[int, int]], occupied: int, round: int,
                 stage: str, queue: list[int], order: list[int], turn: int,
                 pass_order: list[int], pending: list[tuple], actions_left: int,
                 builds: list[tuple[int, int]], power_used: set[str],
                 cult_spots: list[list[int]], cult_top: list[int], bonus_supply: dict[str, int],
                 favor_supply: dict[str, int], town_supply: dict[str, int],
                 scoring_tiles: list[str], spade: dict[str, int], river_links: list[int]):
        self.data = data
        self.codec = codec
        self.seed = seed
        self.options = options
        self.players = players
        self.terrain = terrain  # hex -> wheel index (-1 river)
        self.adj = adj  # hex -> neighbour mask, bridges included (copied when one is built)
        self.bridges = bridges  # (site, owner seat)
        self.occupied = occupied
        self.round = round  # 0 during setup
        self.stage = stage  # setup-dwelling, setup-bonus, play, over
        self.queue = queue  # setup: seats still to choose, in order
        self.order = order  # this round's turn order
        self.turn = turn  # index into order of the player on turn
        self.pass_order = pass_order
        self.pending = pending  # decisions before play goes on: (kind, seat, ...)
        self.actions_left = actions_left  # actions still owed in this turn
        self.builds = builds  # (builder, hex) of this turn, for power offers at its end
        self.power_used = power_used
        self.cult_spots = cult_spots  # per track: seats on the priest spots, 3-step spot first
        self.cult_top = cult_top  # per track: the seat on space 10, or -1
        self.bonus_supply = bonus_supply  # tiles not held -> coins on them
        self.favor_supply = favor_supply
        self.town_supply = town_supply
        self.scoring_tiles = scoring_tiles
        self.spade = spade  # the current spade follow-up: free, mask transformed, built, cult
        self.river_links = river_links  # Mermaids: river hexes declared town links (mask), by seat

    # ----- setup ----------------------------------------------------------------------------
    @staticmethod
    def start(data: TerraMysticaData, codec: ActionCodec, factions: list[str], seed: int,
              options: dict[str, Any]) -> "TerraMysticaState":
        n = len(factions)
        rng = stream(seed, "setup")
        tiles = data.tiles
        opts = options
        bonus_pool = [t for t, v in tiles.bonus.items()
                      if not v["option"] or opts.get(v["option"]) == "yes"]
        if opts.get("bonus_tiles"):
            bonus = list(opts["bonus_tiles"])
        else:
            bonus = sorted(rng.sample(bonus_pool, n + data.rules["bonus_extra"]),
                           key=bonus_pool.index)
        if opts.get("scoring_tiles"):
            scoring_tiles = list(opts["scoring_tiles"])
        else:
            pool = [t for t, v in tiles.scoring.items()
                    if not v["option"] or opts.get(v["option"]) == "yes"]
            while True:
                scoring_tiles = rng.sample(pool, data.rules["rounds"])
                if all(r + 1 not in tiles.scoring[t]["not_rounds"]
                       for r, t in enumerate(scoring_tiles)):
                    break
        players = [Player.start(i, data.factions[f]) for i, f in enumerate(factions)]
        seats = list(range(n))
        first = [s for s in seats if players[s].faction.dwellings > 1]
        queue = first + first[::-1]
        queue += [s for s in seats if players[s].faction.dwellings > 2]
        queue += [s for s in seats if players[s].faction.dwellings == 1]
        favor = {t: v["copies"] for t, v in tiles.favor.items()}
        town = {t: v["copies"] for t, v in tiles.town.items()
                if not v["option"] or opts.get(v["option"]) == "yes"}
        return TerraMysticaState(
            data, codec, seed, dict(options), players, list(data.terrain_of),
            list(data.map.neigh), [], 0, 0, "setup-dwelling", queue, seats, 0, [], [], 1, [],
            set(), [[-1] * len(data.cult_spots) for _ in data.cults], [-1] * len(data.cults),
            {t: 0 for t in bonus}, favor, town, scoring_tiles, {}, [0] * n)

    def setup_info(self) -> dict[str, Any]:
        return {"bonus_tiles": sorted(self.bonus_supply, key=lambda t: int(t[3:])),
                "scoring_tiles": list(self.scoring_tiles)}

    def clone(self) -> "TerraMysticaState":
        return TerraMysticaState(
            self.data, self.codec, self.seed, self.options, [p.copy() for p in self.players],
            self.terrain[:], self.adj, self.bridges[:], self.occupied, self.round, self.stage,
            self.queue[:], self.order[:], self.turn, self.pass_order[:], self.pending[:],
            self.actions_left, self.builds[:], set(self.power_used),
            [s[:] for s in self.cult_spots], self.cult_top[:], dict(self.bonus_supply),
            dict(self.favor_supply), dict(self.town_supply), self.scoring_tiles,
            dict(self.spade), self.river_links[:])

    # ----- protocol ---------------------------------------------------------------------------
    def current_player(self) -> int:
        if self.pending:
            return self.pending[0][1]
        if self.stage in ("setup-dwelling", "setup-bonus"):
            return self.queue[0]
        if self.stage == "play":
            return self.order[self.turn]
        return -1

    def is_over(self) -> bool:
        return self.stage == "over"

    def vp(self) -> list[int]:
        return [p.total_vp for p in self.players]

    def breakdown(self) -> list[dict[str, int]]:
        return [dict(zip(CATEGORIES, p.vp, strict=True)) for p in self.players]

    def legal_actions(self) -> list[Action]:
        return moves.legal_actions(self)

    def action_text(self, a: Action) -> str:
        return self.codec.text(a)

    def parse_action(self, text: str) -> Action:
        return self.codec.parse(text)

    def render(self) -> str:
        lines = [f"round {self.round} ({self.stage}), scoring tiles {' '.join(self.scoring_tiles)}"]
        for p in self.players:
            built = " ".join(f"{k}:{','.join(self.data.map.mask_names(m))}"
                             for k, m in p.b.items() if m)
            lines.append(
                f"{p.faction.slug:16} {p.total_vp:3} VP  {p.coins}C {p.workers}W {p.priests}P "
                f"{p.p1}/{p.p2}/{p.p3}PW  cults {p.cults} keys {p.keys} ship {p.ship} "
                f"dig {p.dig} bonus {p.bonus or '-'} favors {','.join(p.favors) or '-'}  {built}")
        return "\n".join(lines)

    def is_legal(self, a: Action) -> bool:
        if a.kind == "adjust":  # a manual fix in an imported log, never a bot's move
            return self.options.get("log_fixes") == "yes"
        return a in self.legal_actions()

    def apply(self, a: Action) -> None:
        """Play a legal action (the caller checks: is_legal)."""
        if a.kind == "adjust":
            self._adjust(*a.args)
            return
        self.do(a)

    def _adjust(self, seat: int, res: str, n: int) -> None:
        p = self.players[seat]
        if res == "VP":
            p.add_vp("adjust", n)
        elif res == "PW":
            p.gain(n)  # an answer to a power offer the engine never made
        elif n > 0:
            self.give(p, res, n)
        else:
            self.pay(p, res, -n)

    # ----- queries ----------------------------------------------------------------------------
    def scoring_tile(self) -> dict[str, Any] | None:
        if 1 <= self.round <= len(self.scoring_tiles):
            return self.data.tiles.scoring[self.scoring_tiles[self.round - 1]]
        return None

    def ship_range(self, p: Player, bonus: bool = True) -> int:
        if not p.faction.ship_max:
            return 0
        extra = self.data.tiles.bonus[p.bonus]["ship"] if bonus and p.bonus else 0
        return p.ship + extra

    def direct_reach(self, p: Player, bonus: bool = True) -> int:
        """Land hexes adjacent to p's buildings (bridges count) or within shipping range."""
        ship = self.data.map.sail[self.ship_range(p, bonus)]
        adj = self.adj
        r = 0
        for h in bits(p.buildings):
            r |= adj[h] | ship[h]
        return r & self.data.map.land

    def jump_range(self, p: Player) -> int:
        """Hexes a tunnel or carpet flight may skip (0 for everyone else)."""
        if "tunnel_workers" in p.eff:
            return 1
        if "carpet_priests" in p.eff:
            return p.eff["carpet_range"] + p.carpet_bonus
        return 0

    def jump_reach(self, p: Player) -> int:
        k = self.jump_range(p)
        if not k:
            return 0
        within = self.data.within[k + 1]
        r = 0
        for h in bits(p.buildings):
            r |= within[h]
        return r

    def jump_cost(self, p: Player) -> tuple[int, int]:
        """(workers, priests) of one tunnel or carpet flight."""
        if "tunnel_workers" in p.eff:
            return p.eff["tunnel_workers"], 0
        return 0, p.eff.get("carpet_priests", 0)

    def spades_needed(self, p: Player, src: int, dst: int) -> int:
        return self.data.spades[p.faction.slug][src][dst]

    def dig_cost(self, p: Player, spades: int) -> tuple[int, int]:
        """(workers, priests) to dig `spades` spades."""
        if "priest_spades" in p.eff:
            return 0, spades
        return spades * p.faction.spade_workers[p.dig], 0

    def tp_price(self, p: Player, h: int) -> tuple[int, int]:
        w, c = p.faction.costs["TP"]
        if not self.adj[h] & self.occupied & ~p.buildings:
            c *= 2
        return w, c

    # ----- changes ----------------------------------------------------------------------------
    def do(self, a: Action) -> None:
        kind, args = a
        seat = self.current_player()
        p = self.players[seat]
        if p.w2p and (kind, args) != ("convert", W2P) and (
                kind == "convert" or p.w2p < p.eff["workers_to_priests"]):
            # the Darklings' workers-to-priests is one conversion, as on the server: its units
            # follow one another, and any other conversion ends it
            p.w2p = 0
        if self.pending and kind in ("burn", "convert", "connect"):
            self._free(p, kind, args)  # during the player's own follow-up
        elif self.pending:
            self._answer(p, kind, args)
        elif self.stage == "setup-dwelling":
            self._place(p, args[0])
            self.queue.pop(0)
            if not self.queue:
                self.stage = "setup-bonus"
                self.queue = list(range(len(self.players)))[::-1]
        elif self.stage == "setup-bonus":
            p.bonus = args[0]
            del self.bonus_supply[args[0]]
            self.queue.pop(0)
            if not self.queue:
                self._start_round(1)
        elif kind in ("burn", "convert", "connect"):
            self._free(p, kind, args)
        elif kind == "done":
            self._end_turn()
        else:
            self.actions_left -= 1
            self._main(p, kind, args)
        self._settle()

    def _settle(self) -> None:
        """Resolve pending entries that need no decision."""
        while self.pending:
            entry = self.pending[0]
            kind, seat = entry[0], entry[1]
            p = self.players[seat]
            if kind == "leech":
                amount = min(entry[2], p.room(), p.total_vp + 1)
                if amount <= 0:
                    self.pending.pop(0)
                    continue
                return
            if kind == "cultist-check":
                self.pending.pop(0)
                _, builder, took, offered = entry
                if took:
                    self.pending.insert(0, ("cult", builder, 1))
                elif offered and self.options.get("errata_cultists", "yes") == "yes":
                    self.players[builder].gain(1)
                continue
            if kind == "favor" and not moves.favor_choices(self, p):
                self.pending.pop(0)
                continue
            if kind == "town" and not any(self.town_supply.values()):
                self.pending.pop(0)
                continue
            if kind == "bridge" and not moves.bridge_sites(self, p):
                self.pending.pop(0)
                continue
            if kind == "spades":
                if not self.spade:
                    self.spade = {**entry[3], "free": entry[2], "mask": 0}
                # spades or a special left with nowhere to go wait for the player's `done`,
                # which gives them up (the server's `-spade`, `-free_d`, ...): nothing granted
                # is dropped unseen
                if not moves.spade_moves(self, p) and not self.follow_up_open():
                    self.pending.pop(0)
                    self.spade = {}
                    continue
            if kind == "next-turn":
                self.pending.pop(0)
                self._next_turn()
                continue
            return

    def follow_up_open(self) -> bool:
        """Whether the spade follow-up still holds something granted: spades, or a special's
        one move (the ride, the sandstorm, the free trading house)."""
        sp = self.spade
        return sp["free"] > 0 or any(sp.get(k, 0) for k in SPECIAL_MOVES)

    def _answer(self, p: Player, kind: str, args: tuple) -> None:
        if kind in ("favor", "town"):
            i = next(i for i, e in enumerate(self.pending) if e[0] == kind)
            self.pending.insert(0, self.pending.pop(i))
        entry = self.pending.pop(0)
        pk = entry[0]
        if pk == "leech":
            amount = min(entry[2], p.room(), p.total_vp + 1)
            if kind == "leech":
                got = p.gain(amount)
                p.add_vp("leech", -(got - 1) if got else 0)
                self._mark_taken(entry[3])
        elif pk == "cult":
            self.advance_cult(p, self.data.cults.index(args[0]), entry[2])
        elif pk == "favor":
            self.take_favor(p, args[0])
            if entry[2] > 1:
                self.pending.insert(0, ("favor", p.seat, entry[2] - 1))
        elif pk == "town":
            self.take_town(p, args[0])
        elif pk == "bridge":
            self.build_bridge(p, args[0])
        elif pk == "spades":
            if kind == "done":
                self.spade = {}
            else:
                self._use_spades(p, kind, args)
                self.pending.insert(0, entry)  # _settle ends it once nothing is left to do

    def _mark_taken(self, builder: int) -> None:
        for i, e in enumerate(self.pending):
            if e[0] == "cultist-check" and e[1] == builder:
                self.pending[i] = (e[0], e[1], True, e[3])
                return

    # ----- setup and rounds -------------------------------------------------------------------
    def _place(self, p: Player, h: int) -> None:
        p.b["D"] |= 1 << h
        self.occupied |= 1 << h

    def _start_round(self, r: int) -> None:
        self.round = r
        self.stage = "play"
        self.power_used = set()
        for p in self.players:
            p.used = set()
            p.passed = False
            self.income(p)
        for t in self.bonus_supply:  # every round, the first too, after income
            self.bonus_supply[t] += 1
        self.turn = 0
        self.actions_left = 1
        self.pass_order = []

    def income(self, p: Player) -> None:
        f = p.faction
        got = {"C": 0, "W": 0, "P": 0, "PW": 0}
        for b, rows in f.income.items():
            n = p.count(b)
            for r, arr in rows.items():
                got[r] += arr[n]
        for t in p.favors:
            for r, v in self.data.tiles.favor[t]["income"].items():
                got[r] += v
        if p.bonus:
            for r, v in self.data.tiles.bonus[p.bonus]["income"].items():
                got[r] += v
        p.coins += got["C"]
        p.workers += got["W"]
        self.gain_priests(p, got["P"])
        p.gain(got["PW"])

    def gain_priests(self, p: Player, n: int) -> None:
        p.priests = min(p.priests + n, self.data.rules["max_priests"] - p.cult_priests)

    def _end_round(self) -> None:
        r = self.round
        tile = self.scoring_tile()
        order = self._next_order()
        if r >= self.data.rules["rounds"]:
            scoring.final_scoring(self)
            self.stage = "over"
            return
        self.order = order
        self._start_round(r + 1)
        if tile is not None:
            track = self.data.cults.index(tile["cult"]) if tile["cult"] in self.data.cults else -1
            for seat in order:
                p = self.players[seat]
                if track < 0:
                    k = p.cult_priests
                else:
                    k = p.cults[track] // tile["per"]
                if not k:
                    continue
                for res, v in tile["reward"].items():
                    if res == "spade":
                        self._spades(p, v * k, CULT_SPADES)
                    else:
                        self.give(p, res, v * k)

    def _next_order(self) -> list[int]:
        if self.options.get("turn_order", "fixed") == "variable":
            return self.pass_order[:]
        first = self.pass_order[0]
        n = len(self.players)
        return [(first + i) % n for i in range(n)]

    def give(self, p: Player, res: str, n: int) -> None:
        if res == "C":
            p.coins += n
        elif res == "W":
            p.workers += n
        elif res == "P":
            self.gain_priests(p, n)
        elif res == "PW":
            p.gain(n)
        elif res == "VP":
            p.add_vp("round", n)

    # ----- turns ------------------------------------------------------------------------------
    def _end_turn(self) -> None:
        """Offer power for the turn's builds, then (through a marker) pass the turn on."""
        for builder, h in self.builds:
            offered = False
            for seat, amount in self.power_offers(builder, h):
                if self.players[seat].room() > 0:  # full bowls could gain nothing
                    self.pending.append(("leech", seat, amount, builder))
                    offered = True
            if "cult_leech" in self.players[builder].eff:
                self.pending.append(("cultist-check", builder, False, offered))
        self.builds = []
        self.players[self.order[self.turn]].w2p = 0
        self.pending.append(("next-turn", -1))

    def power_offers(self, builder: int, h: int) -> list[tuple[int, int]]:
        """(seat, amount) of the power a build or upgrade on h offers each other player with
        buildings next to it, in seat order from the builder (full bowls included)."""
        n = len(self.players)
        out = []
        for i in range(1, n):
            seat = (builder + i) % n
            amount = self.neighbour_power(self.players[seat], h)
            if amount:
                out.append((seat, amount))
        return out

    def neighbour_power(self, q: Player, h: int) -> int:
        near = self.adj[h]
        values = self.data.rules["building_power"]
        return sum(values[k] * count(m & near) for k, m in q.b.items())

    def _next_turn(self) -> None:
        n = len(self.order)
        if all(p.passed for p in self.players):
            self._end_round()
            return
        for i in range(1, n + 1):
            t = (self.turn + i) % n
            if not self.players[self.order[t]].passed:
                self.turn = t
                break
        self.actions_left = 1

    def _free(self, p: Player, kind: str, args: tuple) -> None:
        if kind == "burn":
            p.p2 -= 2
            p.p3 += 1
        elif kind == "connect":
            self.river_links[p.seat] |= 1 << args[0]
            self.check_towns(p)
        else:
            src, dst = args
            if (src, dst) == ("W", "P"):
                p.w2p -= 1
                p.workers -= 1
                self.gain_priests(p, 1)
                return
            n, m = moves.conversion_rate(self, p, src, dst)
            self.pay(p, src, n)
            if dst == "VP":
                p.add_vp("faction", m)
            else:
                self.give(p, dst, m)

    def pay(self, p: Player, res: str, n: int) -> None:
        if res == "C":
            p.coins -= n
        elif res == "W":
            p.workers -= n
        elif res == "P":
            p.priests -= n
        elif res == "PW":
            p.p3 -= n
            p.p1 += n
        elif res == "VP":
            p.add_vp("faction", -n)

    def spend_power(self, p: Player, n: int) -> None:
        p.p3 -= n
        p.p1 += n

    def _main(self, p: Player, kind: str, args: tuple) -> None:
        if kind == "build":
            self.transform_and_build(p, args[0], build=True)
        elif kind == "transform":
            dst = self.data.wheel.index(args[1]) if len(args) > 1 else p.faction.home
            self.transform_and_build(p, args[0], build=False, dst=dst)
        elif kind == "upgrade":
            self.upgrade(p, args[0], args[1])
        elif kind == "send":
            self.send_priest(p, self.data.cults.index(args[0]), args[1])
        elif kind == "advance":
            self.advance(p, args[0])
        elif kind == "action":
            self.special(p, args[0])
        elif kind == "pass":
            self.pass_(p, args[0] if args else "")

    # ----- building -----------------------------------------------------------------------------
    def transform_and_build(self, p: Player, h: int, build: bool, dst: int = -1,
                            free: int = 0) -> int:
        """Transform h (to home terrain unless dst says otherwise), digging what free spades do
        not cover, paying a tunnel or carpet flight if h is out of direct reach; then build a
        dwelling there if asked. Returns the free spades used."""
        if dst < 0:
            dst = p.faction.home
        need = self.spades_needed(p, self.terrain[h], dst)
        used_free = min(free, need)
        dug = need - used_free
        w, pr = self.dig_cost(p, dug)
        p.workers -= w
        p.priests -= pr
        if not self.spade.get("cult") and not self.direct_reach(p) >> h & 1:
            jw, jp = self.jump_cost(p)
            p.workers -= jw
            p.priests -= jp
            p.add_vp("faction", p.eff.get("tunnel_vp", p.eff.get("carpet_vp", 0)))
            if self.spade:
                self.spade["jumped"] = 1  # one tunnel or carpet flight a turn
        if need:
            self.terrain[h] = dst
            self.spades_gained(p, dug, priest_paid=dug if "priest_spades" in p.eff else 0)
        if build:
            self.build_dwelling(p, h)
        return used_free

    def spades_gained(self, p: Player, n: int, priest_paid: int = 0, cult: bool = False) -> None:
        """Spades score when gained, as on the server: dug ones when dug, free ones when given
        (one given up still scored). Cult-bonus spades belong to the round that gave them,
        not to the new round's tile."""
        tile = self.scoring_tile()
        if tile is not None and tile["event"] == "spade" and not cult:
            p.add_vp("round", tile["vp"] * n)
        if "spade_vp" in p.eff:
            p.add_vp("faction", p.eff["spade_vp"] * n)
        if priest_paid:
            p.add_vp("faction", p.eff["priest_spades"] * priest_paid)
        if "spade_power" in p.eff:
            p.gain(p.eff["spade_power"] * n)

    def build_dwelling(self, p: Player, h: int, pay: bool = True) -> None:
        if pay:
            w, c = p.faction.costs["D"]
            p.workers -= w
            p.coins -= c
        p.b["D"] |= 1 << h
        self.occupied |= 1 << h
        self.built(p, h, "D")

    def built(self, p: Player, h: int, kind: str) -> None:
        """VP for a new building, its power offers (at the turn's end) and towns."""
        tile = self.scoring_tile()
        event = "SHSA" if kind in ("SH", "SA") else kind
        if tile is not None and tile["event"] == event:
            p.add_vp("round", tile["vp"])
        for t in p.favors:
            v = self.data.tiles.favor[t]["build_vp"].get(kind, 0)
            if v:
                p.add_vp("build", v)
        self.builds.append((p.seat, h))
        self.check_towns(p)

    def upgrade(self, p: Player, h: int, kind: str, free: bool = False) -> None:
        old = p.building_at(h)
        if not free:
            w, c = self.tp_price(p, h) if kind == "TP" else p.faction.costs[kind]
            p.workers -= w
            p.coins -= c
        p.b[old] &= ~(1 << h)
        p.b[kind] |= 1 << h
        if kind in ("TE", "SA"):
            n = p.eff.get("favors_per_building", self.data.rules["favors_per_building"])
            self.pending.append(("favor", p.seat, n))
        if kind == "SH":
            self.stronghold(p)
        self.built(p, h, kind)

    def stronghold(self, p: Player) -> None:
        sh = p.faction.stronghold
        p.eff = {**p.eff, **sh}
        if "favor" in sh:
            self.pending.append(("favor", p.seat, sh["favor"]))
        if "vp" in sh:
            p.add_vp("faction", sh["vp"])
        if "power" in sh:
            p.gain(sh["power"])
        if "workers_to_priests" in sh:
            p.w2p = sh["workers_to_priests"]
        if "ship" in sh:
            for _ in range(sh["ship"]):
                if p.ship < p.faction.ship_max:
                    p.ship += 1
                    p.add_vp("advance", p.faction.ship_vp[p.ship])
        if "spades" in sh:
            self._spades(p, sh["spades"], STRONGHOLD_SPADES)

    def _use_spades(self, p: Player, kind: str, args: tuple) -> None:
        sp = self.spade
        h = args[0]
        if kind == "upgrade":  # Swarmlings' free trading house
            self.upgrade(p, h, "TP", free=True)
            sp["free_tp"] = 0
            return
        if kind == "build" and (sp["mask"] >> h & 1 or sp.get("ride")):
            self.build_dwelling(p, h, pay=not sp.get("ride"))
            sp["built"] = 1
            sp["ride"] = 0
            sp["free"] = 0  # as below: spades left are given up once the dwelling stands
            return
        if sp.get("sandstorm"):
            self.terrain[h] = p.faction.home
            sp["sandstorm"] = 0
            sp["mask"] |= 1 << h
            if kind == "build":
                self.build_dwelling(p, h)
                sp["built"] = 1
            return
        dst = self.data.wheel.index(args[1]) if kind == "transform" and len(args) > 1 else -1
        used = self.transform_and_build(p, h, build=kind == "build", dst=dst, free=sp["free"])
        sp["free"] -= used
        sp["mask"] |= 1 << h
        if dst >= 0 and dst != p.faction.home and not sp["cult"]:
            sp["other"] = 1  # one hex a turn may become other than home (the server's rule)
        if kind == "build":
            # the dwelling ends the follow-up: spades not used by then are given up (the
            # server settles every spade before the dwelling goes up)
            sp["built"] = 1
            sp["free"] = 0

    def build_bridge(self, p: Player, site: int) -> None:
        a, b = self.data.map.bridge_sites[site]
        self.adj = self.adj[:]
        self.adj[a] |= 1 << b
        self.adj[b] |= 1 << a
        self.bridges.append((site, p.seat))
        p.bridges += 1
        self.check_towns(p)  # as the server does: the owner's towns only

    # ----- towns ------------------------------------------------------------------------------
    def town_groups(self, p: Player, links: int) -> list[int]:
        """p's groups of buildings, adjacent, bridged or across the river hexes `links`."""
        adj = self.adj
        if links:
            adj = adj[:]
            for r in bits(links):
                banks = self.data.map.neigh[r] & self.data.map.land
                for x in bits(banks):
                    adj[x] |= banks & ~(1 << x)
        return components(p.buildings, adj)

    def towns_from(self, p: Player, links: int) -> tuple[int, list[int]]:
        """With river links `links`: the buildings that join p's towns, and the groups that
        would found new ones (changes nothing)."""
        rules = self.data.rules
        need = rules["town_power"]
        for t in p.favors:
            tp = self.data.tiles.favor[t]["town_power"]
            if tp:
                need = min(need, tp)
        values = rules["building_power"]
        joined = 0
        founded = []
        for g in self.town_groups(p, links):
            if g & p.town_mask:
                joined |= g
                continue
            power = sum(values[k] * count(m & g) for k, m in p.b.items())
            n = count(g) + (rules["sa_town_buildings"] - 1) * count(p.b["SA"] & g)
            if power >= need and n >= rules["town_buildings"]:
                founded.append(g)
        return joined, founded

    def check_towns(self, p: Player) -> None:
        joined, founded = self.towns_from(p, self.river_links[p.seat])
        p.town_mask |= joined
        for g in founded:
            p.town_mask |= g
            self.pending.append(("town", p.seat))

    def take_town(self, p: Player, tile: str) -> None:
        t = self.data.tiles.town[tile]
        self.town_supply[tile] -= 1
        p.town_tiles.append(tile)
        p.add_vp("town", t["vp"])
        p.coins += t["C"]
        p.workers += t["W"]
        self.gain_priests(p, t["P"])
        p.gain(t["PW"])
        p.keys += t["keys"]
        if t["cult"]:
            for i in range(len(self.data.cults)):
                self.advance_cult(p, i, t["cult"])
        if t["ship"]:
            if "carpet_priests" in p.eff:
                p.carpet_bonus += t["ship"]
            elif p.faction.ship_max and p.ship < p.faction.ship_max:
                p.ship += 1
                p.add_vp("advance", p.faction.ship_vp[p.ship])
        if "town_vp" in p.eff:
            p.add_vp("faction", p.eff["town_vp"])
        if "town_workers" in p.eff:
            p.workers += p.eff["town_workers"]
        tile_now = self.scoring_tile()
        if tile_now is not None and tile_now["event"] == "town":
            p.add_vp("round", tile_now["vp"])

    # ----- cults and favours --------------------------------------------------------------------
    def cult_target(self, p: Player, track: int, steps: int) -> int:
        """Where `steps` on a track would take p: space 10 needs a key and a free space."""
        top = 10
        target = min(p.cults[track] + steps, top)
        if target == top:
            at_top = sum(1 for c in p.cults if c >= top)
            if self.cult_top[track] not in (-1, p.seat) or p.keys <= at_top:
                target = top - 1
        return target

    def advance_cult(self, p: Player, track: int, steps: int) -> int:
        pos = p.cults[track]
        top = 10
        target = self.cult_target(p, track, steps)
        if target <= pos:
            return 0
        for th, pw in self.data.cult_power.items():
            if pos < th <= target:
                p.gain(pw)
        p.cults[track] = target
        if target == top:
            self.cult_top[track] = p.seat
        return target - pos

    def send_priest(self, p: Player, track: int, spot: int) -> None:
        """A priest to the spot giving `spot` steps (it stays there), or 1 step (it returns)."""
        p.priests -= 1
        if spot > 1:
            slots = self.cult_spots[track]
            slots[moves.free_spot(self, track, spot)] = p.seat
            p.cult_priests += 1
        self.advance_cult(p, track, spot)

    def take_favor(self, p: Player, tile: str) -> None:
        t = self.data.tiles.favor[tile]
        self.favor_supply[tile] -= 1
        p.favors.append(tile)
        self.advance_cult(p, self.data.cults.index(t["cult"]), t["steps"])
        if t["town_power"]:
            self.check_towns(p)

    # ----- other actions ------------------------------------------------------------------------
    def advance(self, p: Player, what: str) -> None:
        f = p.faction
        if what == "ship":
            c, pr = f.ship_cost
            p.coins -= c
            p.priests -= pr
            p.ship += 1
            p.add_vp("advance", f.ship_vp[p.ship])
        else:
            w, c, pr = f.dig_cost
            p.workers -= w
            p.coins -= c
            p.priests -= pr
            p.dig += 1
            p.add_vp("advance", f.dig_vp)

    def special(self, p: Player, act: str) -> None:
        tiles = self.data.tiles
        if act in tiles.power_actions:
            cost, effect, amount = tiles.power_actions[act]
            self.spend_power(p, cost)
            self.power_used.add(act)
            if effect == "bridge":
                self.pending.append(("bridge", p.seat))
            elif effect == "priests":
                self.gain_priests(p, amount)
            elif effect == "workers":
                p.workers += amount
            elif effect == "coins":
                p.coins += amount
            elif effect == "spades":
                self._spades(p, amount)
            return
        if act != "ACTE":
            p.used.add(act)
        if act in tiles.bonus:
            if tiles.bonus[act]["action"] == "spade":
                self._spades(p, 1)
            else:
                self.pending.append(("cult", p.seat, 1))
        elif act in tiles.favor:
            self.pending.append(("cult", p.seat, 1))
        elif act == "ACTE":
            p.workers -= p.eff["bridge_workers"]
            self.pending.append(("bridge", p.seat))
        elif act == "ACTA":
            self.pending.append(("cult", p.seat, p.eff["cult_action"]))
        elif act == "ACTC":
            self.actions_left = 2
        elif act == "ACTG":
            self._spades(p, p.eff["spade_action"])
        elif act in ("ACTW", "ACTN", "ACTS"):
            self.pending.append(("spades", p.seat, 0, SPECIAL_FOLLOW_UP[act]))

    def _spades(self, p: Player, n: int, follow_up: dict[str, int] = ACTION_SPADES) -> None:
        self.pending.append(("spades", p.seat, n, follow_up))
        self.spades_gained(p, n, cult=bool(follow_up["cult"]))

    def tile_pass_vp(self, p: Player) -> int:
        """VP p's bonus tile pays if p passes now, for what p has built (or shipping)."""
        if not p.bonus:
            return 0
        vp = 0
        for what, v in self.data.tiles.bonus[p.bonus]["pass_vp"].items():
            vp += v * (p.ship if what == "ship" else p.count(what))
        return vp

    def standing_pass_vp(self, p: Player) -> int:
        """VP every pass pays p for what stands: favour tiles' trading-house rows and the
        Engineers' bridges with their own buildings at both ends."""
        vp = 0
        for t in p.favors:
            table = self.data.tiles.favor[t]["pass_tp_vp"]
            if len(table) > 1:
                vp += table[min(p.count("TP"), len(table) - 1)]
        if "pass_bridge_vp" in p.eff:
            own = p.buildings
            n = sum(1 for site, seat in self.bridges if seat == p.seat
                    and all(own >> h & 1 for h in self.data.map.bridge_sites[site]))
            vp += p.eff["pass_bridge_vp"] * n
        return vp

    def pass_(self, p: Player, tile: str) -> None:
        p.add_vp("pass", self.tile_pass_vp(p) + self.standing_pass_vp(p))
        if p.bonus:
            self.bonus_supply[p.bonus] = 0
        if tile:
            p.coins += self.bonus_supply.pop(tile)
        p.bonus = tile
        p.passed = True
        self.pass_order.append(p.seat)
        self.actions_left = 0
        self._end_turn()  # passing ends the turn: no free actions after it
