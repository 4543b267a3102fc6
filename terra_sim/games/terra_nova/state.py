"""Terra Nova game state: players, board, the phase machine, and applying actions.

Legal move generation lives in moves.py, towns in towns.py, scoring in scoring.py; this file
holds what changes and the rules for changing it.
"""

# terra-sim: compile

from collections.abc import Mapping
from typing import Any, Final

from terra_sim.core.errors import IllegalAction
from terra_sim.core.hexmap import bits, count
from terra_sim.core.power import gain_power, spend_power
from terra_sim.core.rng import stream
from terra_sim.games.terra_nova import moves, scoring, towns
from terra_sim.games.terra_nova.actions import Action, ActionCodec
from terra_sim.games.terra_nova.data import Faction, TerraNovaData

CATEGORIES: Final[tuple[str, ...]] = (
    "start", "round", "town", "sailing", "dropout", "faction", "money", "territory")
CAT: Final = {c: i for i, c in enumerate(CATEGORIES)}
INCOME_KEYS: Final[tuple[str, ...]] = ("income_power", "income_coins")


def replaced(items: tuple[int, ...], i: int, value: int) -> tuple[int, ...]:
    """`items` with item i set to `value`: the state's sequences are tuples, replaced and never
    changed in place, so that a clone shares them instead of copying each one."""
    out = list(items)
    out[i] = value
    return tuple(out)


def shovel_row(ring_row: tuple[int, ...], eff: dict[str, Any]) -> tuple[int, ...]:
    """Shovels to make each terrain (ring index) home: the ring distances `ring_row`, capped
    by a max_shovels ability."""
    cap: int = eff.get("max_shovels", 0)
    return tuple(min(need, cap) if cap and need else need for need in ring_row)


class Player:
    """One seat's pieces and resources. Plain ints and bitmasks, so copying is cheap."""

    __slots__ = (
        "faction", "eff", "money", "p1", "p2", "p3", "houses", "tps", "palace_left",
        "palace_right", "sail", "bridges", "towns", "tiles_used", "bonus", "vp", "passed",
        "used", "placed", "ring_row", "shovel_row",
    )

    def __init__(self, faction: Faction, eff: dict[str, Any], money: int, p1: int, p2: int,
                 p3: int, houses: int, tps: int, palace_left: int, palace_right: int, sail: int,
                 bridges: int, towns: int, tiles_used: tuple[int, ...], bonus: str,
                 vp: tuple[int, ...], passed: bool, used: frozenset[str],
                 placed: tuple[int, ...], ring_row: tuple[int, ...],
                 shovel_row: tuple[int, ...]):
        # Every field as an argument: the one constructor serves a new seat and a copy alike,
        # as compiled classes (mypyc) have no other way to make an instance.
        self.faction = faction
        self.eff = eff  # ability + built palaces; replaced, never changed in place
        self.money = money
        self.p1, self.p2, self.p3 = p1, p2, p3
        self.houses, self.tps = houses, tps  # masks
        self.palace_left, self.palace_right = palace_left, palace_right
        self.sail = sail
        self.bridges = bridges  # bridges left in supply
        self.towns = towns  # buildings that belong to a town
        self.tiles_used = tiles_used
        self.bonus = bonus  # bonus tile held
        self.vp = vp  # by category (CATEGORIES); replaced, never changed in place
        self.passed = passed
        self.used = used  # special/personal actions used this round
        self.placed = placed  # hexes built on in the current action (town expansion)
        # ring distance from each terrain to home, and the shovels that takes (set with eff):
        # every move scan and valuation asks what a hex costs to dig
        self.ring_row = ring_row
        self.shovel_row = shovel_row

    @staticmethod
    def start(faction: Faction, data: TerraNovaData) -> "Player":
        p1, p2, p3 = data.start_power
        eff = dict(faction.ability)
        ring_row = tuple(row[faction.home] for row in data.ring_table)
        return Player(faction, eff, faction.start_money, p1, p2, p3, 0, 0, 0,
                      0, 0, data.bridges, 0, (), "",
                      (faction.start_vp,) + (0,) * (len(CATEGORIES) - 1), False, frozenset(), (),
                      ring_row, shovel_row(ring_row, eff))

    def copy(self) -> "Player":
        # Bots copy players thousands of times per game: every field is an int or shared.
        return Player(self.faction, self.eff, self.money, self.p1, self.p2, self.p3,
                      self.houses, self.tps, self.palace_left, self.palace_right, self.sail,
                      self.bridges, self.towns, self.tiles_used, self.bonus, self.vp,
                      self.passed, self.used, self.placed, self.ring_row, self.shovel_row)

    @property
    def palaces(self) -> int:
        return self.palace_left | self.palace_right

    @property
    def buildings(self) -> int:
        return self.houses | self.tps | self.palace_left | self.palace_right

    @property
    def total_vp(self) -> int:
        total = 0
        for v in self.vp:  # a loop: sum() of a tuple is a call to Python's builtin
            total += v
        return total

    def score(self, category: int, vp: int) -> None:
        if vp:
            self.vp = replaced(self.vp, category, self.vp[category] + vp)

    def gain(self, amount: int) -> None:
        if amount > 0:
            self.p1, self.p2, self.p3 = gain_power(self.p1, self.p2, self.p3, amount)

    def spend(self, amount: int) -> None:
        self.p1, self.p2, self.p3 = spend_power(self.p1, self.p2, self.p3, amount)

    def activate(self, palace: dict[str, Any]) -> None:
        eff = dict(self.eff)
        for k, v in palace.items():
            eff[k] = eff.get(k, 0) + v if k in INCOME_KEYS else v
        self.eff = eff
        self.shovel_row = shovel_row(self.ring_row, eff)


class TerraNovaState:
    """Everything that changes during a game. Implements terra_sim.core.protocol.State."""

    def __init__(self, data: TerraNovaData, codec: ActionCodec, seed: int, variant: str,
                 turn_order: str, players: list[Player], terrain: tuple[int, ...],
                 adj: list[int], bridge_owner: tuple[int, ...], neutral: int, occupied: int,
                 round: int, used_power: frozenset[str], pending: tuple[tuple[str, int], ...],
                 stage: str, queue: tuple[tuple[int, int], ...], order: tuple[int, ...],
                 turn: int, turn_done: bool, pass_order: tuple[int, ...], round_tiles: list[str],
                 bonus_tiles: list[str], supply: Mapping[str, int], neutral_terrain: int,
                 window: int):
        # Every field as an argument, like Player's: `start` sets up a game, `clone` copies one.
        # Besides the players, every field is a number or shared with the clones: the sequences
        # are tuples and the supply is replaced, never changed in place.
        self.data = data
        self.codec = codec
        self.seed = seed
        self.variant = variant
        self.turn_order = turn_order
        self.n = len(players)
        self.players = players
        self.terrain = terrain
        # the map's land neighbours (masks of land hexes stay native ints); replaced by a copy
        # when a bridge is built
        self.adj = adj
        self.bridge_owner = bridge_owner
        self.neutral = neutral
        self.occupied = occupied
        self.round = round
        self.used_power = used_power
        self.pending = pending  # (decision, seat) resolved before anything else
        self.stage = stage
        self.queue = queue  # (seat, detail) for setup/exchange stages
        self.order = order
        self.turn = turn
        self._turn_done = turn_done  # the seat in turn has taken its action
        self.pass_order = pass_order
        self.round_tiles = round_tiles
        self.bonus_tiles = bonus_tiles
        self.supply = supply  # bonus tiles nobody holds -> coins on them
        self.neutral_terrain = neutral_terrain
        # The exchange right after the turn's action: 0 nothing to offer, 3 the action charged
        # the actor's power (offer it if power can still go to waste), 1 open (the seat in turn
        # decides), 2 over for this turn.
        self.window = window

    @staticmethod
    def start(data: TerraNovaData, codec: ActionCodec, factions: list[str], seed: int,
              variant: str = "standard", turn_order: str = "clockwise") -> "TerraNovaState":
        """A new game: round and bonus tiles drawn from the seed, setup about to begin."""
        n = len(factions)
        rng = stream(seed, "setup")
        round_tiles = rng.sample(sorted(data.round_tiles), data.rounds)
        bonus_tiles = sorted(rng.sample(sorted(data.bonus_tiles), n + 3))
        m = data.map
        s = TerraNovaState(
            data, codec, seed, variant, turn_order,
            [Player.start(data.factions[f], data) for f in factions], tuple(data.terrain_of),
            m.land_neigh, (-1,) * len(m.bridge_sites), 0, 0, 0, frozenset(), (), "setup-house",
            (), tuple(range(n)), 0, False, (), round_tiles, bonus_tiles,
            {t: 0 for t in bonus_tiles}, -1, 0)
        if variant == "planner":
            used = {data.factions[f].color for f in factions}
            free_colors = sorted({fa.color: fa.home for fa in data.factions.values()
                                  if fa.color not in used}.items())
            s.neutral_terrain = rng.choice(free_colors)[1]
            s.stage = "setup-neutral"
            s.queue = tuple((i, s.neutral_terrain) for i in range(n))
        else:
            s.queue = s._house_queue()
        return s

    # ----- protocol -----------------------------------------------------------------------
    def current_player(self) -> int:
        if self.pending:
            return self.pending[0][1]
        if self.stage == "over":
            return -1
        if self.stage == "actions":
            return self.order[self.turn]
        return self.queue[0][0]

    def legal_actions(self) -> list[Action]:
        return moves.legal_actions(self)

    def is_over(self) -> bool:
        return self.stage == "over"

    def vp(self) -> list[int]:
        return [p.total_vp for p in self.players]

    def breakdown(self) -> list[dict[str, int]]:
        return [dict(zip(CATEGORIES, p.vp, strict=True)) for p in self.players]

    def action_text(self, action: Action) -> str:
        return self.codec.text(action)

    def parse_action(self, text: str) -> Action:
        return self.codec.parse(text)

    def setup_info(self) -> dict[str, Any]:
        info: dict[str, Any] = {"round_tiles": list(self.round_tiles),
                                "bonus_tiles": list(self.bonus_tiles)}
        if self.neutral_terrain >= 0:
            info["neutral_terrain"] = self.data.ring[self.neutral_terrain]
        return info

    def clone(self) -> "TerraNovaState":
        return TerraNovaState(
            self.data, self.codec, self.seed, self.variant, self.turn_order,
            [p.copy() for p in self.players], self.terrain, self.adj, self.bridge_owner,
            self.neutral, self.occupied, self.round, self.used_power, self.pending,
            self.stage, self.queue, self.order, self.turn, self._turn_done,
            self.pass_order, self.round_tiles, self.bonus_tiles, self.supply,
            self.neutral_terrain, self.window)

    def render(self) -> str:
        from terra_sim.games.terra_nova.render import render_state

        return render_state(self)

    # ----- queries used by moves, towns and scoring --------------------------------------------
    def sailing(self, p: Player, final: bool = False) -> int:
        bonus = 0 if final or not p.bonus else self.data.bonus_tiles[p.bonus]["sail_bonus"]
        return min(p.sail + bonus, self.data.map.max_sail)

    def reach(self, p: Player, final: bool = False) -> int:
        """Land hexes in reach of p's buildings: adjacent (bridges count) or within sailing."""
        sail = self.data.map.sail[self.sailing(p, final)]
        adj = self.adj
        r = 0
        for h in bits(p.buildings):
            r |= adj[h] | sail[h]
        return r & self.data.map.land

    def shovels(self, p: Player, h: int) -> int:
        return self.shovels_for(p, self.terrain[h])

    def shovels_for(self, p: Player, terrain: int) -> int:
        """Shovels p needs to make `terrain` (ring index) its home terrain."""
        return p.shovel_row[terrain]

    def tp_cost(self, p: Player, h: int) -> int:
        others = self.occupied & ~p.buildings
        near = bool(self.adj[h] & others)
        c = self.data.costs
        if near:
            return p.eff.get("tp_cost_adjacent", c["tp_adjacent"])
        return p.eff.get("tp_cost_alone", c["tp_alone"])

    def power_cost(self, p: Player, cost: int) -> int:
        return max(0, cost - p.eff.get("power_action_discount", 0))

    def max_sail(self) -> int:
        return len(self.data.sailing_vp) - 1

    def round_event(self, p: Player, event: str, times: int = 1) -> None:
        """Score the current round tile if it rewards `event` (done `times` times)."""
        if self.round < 1 or times <= 0:
            return
        tile_event, vp = self.data.round_tiles[self.round_tiles[self.round - 1]]
        if tile_event == event:
            p.score(CAT["round"], vp * times)

    # ----- applying actions ----------------------------------------------------------------------
    def apply(self, action: Action) -> None:
        seat = self.current_player()
        p = self.players[seat]
        kind, args = action
        if self.pending:
            decision = self.pending[0][0]
            self.pending = self.pending[1:]
            if decision == "town":
                towns.take_tile(self, p, args[0])
            elif decision == "river":
                towns.resolve(self, seat, kind == "river-link")
            elif kind == "edge-house":
                self._transform(p, args[0])
                self._build_house(p, args[0], 0)
                towns.check(self, seat)
            self._after_turn_step()
            return
        if self.stage in ("setup-neutral", "lucky"):
            self.queue = self.queue[1:]
            self.neutral |= 1 << args[0]
            self.occupied |= 1 << args[0]
        elif self.stage == "setup-house":
            self.queue = self.queue[1:]
            p.houses |= 1 << args[0]
            self.occupied |= 1 << args[0]
        elif self.stage == "setup-bonus":
            self.queue = self.queue[1:]
            p.bonus = args[0]
            self.supply = {t: c for t, c in self.supply.items() if t != args[0]}
        elif self.stage in ("exchange", "final-exchange"):
            if kind == "done":
                self.queue = self.queue[1:]
            else:
                self._free_action(p, kind, args)
                if not self._can_exchange(p, self.stage == "final-exchange"):
                    self.queue = self.queue[1:]
        elif self.window == 1:  # the exchange after the turn's action
            if kind == "done":
                self.window = 2
            else:
                self._free_action(p, kind, args)
                if not moves.exchange_after_matters(self, seat):
                    self.window = 2  # no more power can go to waste: the turn ends
            if self.window == 1:
                return
        elif kind in ("exchange", "druid-vp"):
            self._free_action(p, kind, args)
            return  # the turn goes on
        else:
            self._turn_action(seat, p, kind, args)
            self._turn_done = True
        self._advance()

    def _free_action(self, p: Player, kind: str, args: tuple) -> None:
        if kind == "exchange":
            p.spend(args[0])
            p.money += args[0]
        else:
            power, vp = p.eff["power_to_vp"]
            p.spend(power)
            p.score(CAT["faction"], vp)

    def _can_exchange(self, p: Player, final: bool) -> bool:
        ptv = p.eff.get("power_to_vp")
        if final:  # everything left is exchanged for money at the end anyway
            return p.p3 >= ptv[0] if ptv else False
        return p.p3 > 0

    def _turn_action(self, seat: int, p: Player, kind: str, args: tuple) -> None:
        p.placed = ()
        data = self.data
        if kind == "pass":
            scoring.drop_out(self, seat, p, args[0])
            return
        if kind == "upgrade":
            h = args[0]
            p.money -= self.tp_cost(p, h)
            self._place_tp(p, h, upgrade=True)
        elif kind == "free-tp":
            p.used = p.used | {"free-tp"}
            self._place_tp(p, args[0], upgrade=True)
        elif kind == "palace":
            self._build_palace(seat, p, args[0], args[1])
        elif kind == "inventor-tp":
            p.spend(p.eff["tp_action_power"])
            self._transform(p, args[0])
            self._place_tp(p, args[0], upgrade=False)
        elif kind == "lake-house":
            p.used = p.used | {"lake-house"}
            self._build_house(p, args[0], 0)
        elif kind == "sail":
            p.money -= data.costs["sail"]
            self.advance_sail(p)
        elif kind == "bridge":
            p.money -= data.costs["bridge"]
            self._build_bridge(seat, p, args[0])
        elif kind.startswith("pw-"):
            pa = self.codec.power_of[kind]
            self.used_power = self.used_power | {pa.id}
            p.spend(self.power_cost(p, pa.cost))
            if pa.effect == "bridge":
                self._build_bridge(seat, p, args[0])
            elif pa.effect == "sail":
                self.advance_sail(p)
            elif pa.effect == "coins":
                p.money += pa.amount
            else:
                free = 1 if pa.effect == "spade1" else 2
                self._make_habitable(p, kind[len(f"pw-{pa.id}"):], args, free)
        else:  # make habitable: build/dig with an optional source prefix
            source, _, mode = kind.rpartition("-") if kind.count("-") else ("", "", kind)
            if source == "bonus":
                p.used = p.used | {"bonus"}
                self._make_habitable(p, "-" + mode, args, 1)
            elif source == "fairy":
                p.used = p.used | {"fairy"}
                p.spend(p.eff["spade_action_power"])
                self._make_habitable(p, "-" + mode, args, 1)
            elif source == "sun":
                p.used = p.used | {"sun"}
                self._transform(p, args[0])
                if mode == "build":
                    self._build_house(p, args[0], data.costs["house"])
            elif source == "":
                self._make_habitable(p, "-" + mode, args, 0)
            else:
                raise IllegalAction(f"unknown action kind {kind!r}")
        towns.check(self, seat)

    def _make_habitable(self, p: Player, mode: str, args: tuple, free: int) -> None:
        """mode: -build, -dig, -dig2 or -build-dig; `free` shovels, the rest paid in money."""
        targets = args
        house = args[0] if mode in ("-build", "-build-dig") else -1
        used = 0
        for h in targets:
            need = self.shovels(p, h)
            paid = max(0, need - free)
            free = max(0, free - need)
            p.money -= paid * self.data.costs["shovel"]
            used += need
            self._transform(p, h)
        self.own_gain(p, p.eff.get("shovel_power", 0) * used)
        self.round_event(p, "shovel", used)
        if house >= 0:
            self._build_house(p, house, self.data.costs["house"])

    def _transform(self, p: Player, h: int) -> None:
        self.terrain = replaced(self.terrain, h, p.faction.home)

    def own_gain(self, p: Player, amount: int) -> None:
        """Power the actor's own action (or its town tile, or its drop-out) gives it.

        Only such a gain makes an exchange after the action differ from the same exchange before
        it (exchanging and spending power commute), so only then is the later one offered.
        """
        if amount > 0:
            p.gain(amount)
            if self.stage == "actions":
                self.window = 3

    def _others_gain(self, p: Player, h: int) -> None:
        """Power thanks to others: 1 per adjacent building of each other player."""
        near = self.adj[h]
        for q in self.players:
            if q is not p:
                q.gain(count(near & q.buildings))

    def _build_house(self, p: Player, h: int, cost: int) -> None:
        p.money -= cost
        p.houses |= 1 << h
        self.occupied |= 1 << h
        p.placed += (h,)
        self.round_event(p, "house")
        p.score(CAT["faction"], p.eff.get("house_vp", 0))
        self._others_gain(p, h)
        for q in self.players:
            if q is not p and "others_house_power" in q.eff:
                q.gain(q.eff["others_house_power"][self.n])

    def _upgraded(self, p: Player, h: int) -> None:
        p.placed += (h,)
        self._others_gain(p, h)
        for q in self.players:
            if q is not p and "others_upgrade_money" in q.eff:
                q.money += q.eff["others_upgrade_money"][self.n]

    def _place_tp(self, p: Player, h: int, upgrade: bool) -> None:
        if upgrade:
            p.houses &= ~(1 << h)
            p.score(CAT["faction"], p.eff.get("tp_upgrade_vp", 0))
        p.tps |= 1 << h
        self.occupied |= 1 << h
        self.round_event(p, "tp")
        self._upgraded(p, h)

    def _build_palace(self, seat: int, p: Player, h: int, side: str) -> None:
        p.money -= self.data.costs["palace"]
        p.tps &= ~(1 << h)
        palace = getattr(p.faction, f"{side}_palace")
        if side == "left":
            p.palace_left = 1 << h
        else:
            p.palace_right = 1 << h
        p.activate(palace)
        self.round_event(p, "palace")
        self._upgraded(p, h)
        for _ in range(palace.get("on_build_sail", 0)):
            self.advance_sail(p)
        self.own_gain(p, palace.get("on_build_power", 0))
        if palace.get("on_build_edge_house"):
            self.pending += (("edge", seat),)

    def advance_sail(self, p: Player) -> None:
        if p.sail < self.max_sail():
            p.sail += 1
            p.score(CAT["sailing"], self.data.sailing_vp[p.sail])
            self.round_event(p, "sail")

    def _build_bridge(self, seat: int, p: Player, site: int) -> None:
        p.bridges -= 1
        self.bridge_owner = replaced(self.bridge_owner, site, seat)
        a, b = self.data.map.bridge_sites[site]
        adj = self.adj[:]
        adj[a] |= 1 << b
        adj[b] |= 1 << a
        self.adj = adj

    # ----- flow ---------------------------------------------------------------------------------
    def _house_queue(self) -> tuple[tuple[int, int], ...]:
        n = self.n
        q = [(s, 0) for s in range(n)] + [(s, 0) for s in reversed(range(n))]
        for s, p in enumerate(self.players):
            q += [(s, 0)] * p.eff.get("extra_start_houses", 0)
        return tuple(q)

    def _after_turn_step(self) -> None:
        if not self.pending:
            self._advance()

    def _advance(self) -> None:
        """Move the phase machine on until someone has a decision to make (or the game ends)."""
        while not self.pending:
            if self.stage == "actions":
                if all(p.passed for p in self.players):
                    self._end_actions()
                    continue
                self._next_turn()
                return
            if self.queue:
                if self.stage == "lucky" and not moves.neutral_targets(self, self.queue[0][1]):
                    self.queue = self.queue[1:]  # no free marked hex: the house is discarded
                    continue
                return
            self._next_stage()
            if self.stage == "over":
                return

    def _next_turn(self) -> None:
        """After a turn action (and the exchange after it, where that can matter): the next seat
        in order that has not dropped out."""
        if self._turn_done:
            if self.window == 3 and moves.exchange_after_matters(self, self.order[self.turn]):
                self.window = 1
                return
            self.window = 0
            self._turn_done = False
            for _ in range(self.n):
                self.turn = (self.turn + 1) % self.n
                if not self.players[self.order[self.turn]].passed:
                    return

    def _next_stage(self) -> None:
        if self.stage == "setup-neutral":
            self.stage = "setup-house"
            self.queue = self._house_queue()
        elif self.stage == "setup-house":
            self.stage = "setup-bonus"
            self.queue = tuple((s, 0) for s in reversed(range(self.n)))
        elif self.stage == "setup-bonus":
            self.supply = {t: c + 1 for t, c in self.supply.items()}
            self._start_round()
        elif self.stage == "lucky":
            self._income_and_actions()
        elif self.stage == "exchange":
            self._cleanup()
            self._start_round()
        elif self.stage == "final-exchange":
            scoring.final_scoring(self)
            self.stage = "over"

    def _start_round(self) -> None:
        self.round += 1
        if self.variant == "lucky-digger":
            self.stage = "lucky"
            rng = stream(self.seed, "lucky-digger", self.round)
            chosen = {p.faction.color for p in self.players}
            homes = sorted({fa.color: fa.home for fa in self.data.factions.values()
                            if fa.color not in chosen}.items())
            drawn = rng.sample(homes, 2)
            start = self.order[0]
            self.queue = ((start, drawn[0][1]), ((start + 1) % self.n, drawn[1][1]))
            return
        self._income_and_actions()

    def _income_and_actions(self) -> None:
        for p in self.players:
            coins, power = scoring.income(self, p)
            p.money += coins
            p.gain(power)
        self.stage = "actions"
        self.turn = 0
        self._turn_done = False
        self.pass_order = ()

    def _end_actions(self) -> None:
        self.window = 0
        if self.turn_order == "dropout":
            self.order = self.pass_order
        else:
            start = self.pass_order[0]
            self.order = tuple((start + i) % self.n for i in range(self.n))
        final = self.round == self.data.rounds
        self.stage = "final-exchange" if final else "exchange"
        self.queue = tuple((s, 0) for s in self.order
                           if self._can_exchange(self.players[s], final))

    def _cleanup(self) -> None:
        """Phase 3: clear X-tokens, a coin on every unclaimed bonus tile, planner neutrals."""
        self.used_power = frozenset()
        for p in self.players:
            p.used = frozenset()
            p.passed = False
        self.supply = {t: c + 1 for t, c in self.supply.items()}
        if self.variant == "planner" and self.round == 3:
            marked = sum(1 << h for h in self.data.neutral_spaces[self.neutral_terrain])
            free = marked & ~self.occupied
            self.neutral |= free
            self.occupied |= free
