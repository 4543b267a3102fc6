"""Sending clan members to action spaces.

A space holds at most two members, of different colours (some spaces one). An Explorer may join
another player's Explorer only with strictly higher Military, and then loses 1 Military; the
Chieftain may join any other player's Explorer freely, but nobody joins a Chieftain; the
Chieftain never goes to a future round's space. Explorers on a future round's spaces stay there
until that round ends. Occupants are codes `owner * 2 + piece` (neutral players are owners
`players..3`), two slots per space in `state.occ`.
"""

# terra-sim: compile

from typing import TYPE_CHECKING, Final

from terra_sim.games.terramara import effects
from terra_sim.games.terramara.board import (
    CROSSROADS,
    HOME,
    HUT,
    PERSONAL,
    SPECIAL,
    TERRITORY,
    Space,
    round_of_row,
)
from terra_sim.games.terramara.player import FREE, IN_HUT, Player

if TYPE_CHECKING:
    from terra_sim.games.terramara.state import TerramaraState

EXPLORER: Final = 0
CHIEF: Final = 1


def military_of(s: "TerramaraState", owner: int) -> int:
    n = len(s.players)
    return s.players[owner].military if owner < n else s.neutral_mil[owner - n]


def space_open(s: "TerramaraState", sp: Space, p: Player) -> bool:
    """Whether the space is on the board for `p` this round, whoever stands there."""
    r = s.round
    if sp.kind == HOME:
        return True
    if sp.kind == TERRITORY:
        return sp.row >= r and not sp.fire
    if sp.kind == SPECIAL:
        return r == 5 and not sp.fire and requirement_met(s, p, sp.require, sp.at)
    if sp.kind == CROSSROADS:
        return r > sp.row and requirement_met(s, p, "road", sp.row)
    if sp.kind == PERSONAL:
        return bool(p.eff("personal_crossroads")) and p.cross_tile != ""
    return False


def requirement_met(s: "TerramaraState", p: Player, require: str, at: int) -> bool:
    if require == "workers":
        return sum(p.workers) >= at
    if require == "river":
        return p.river >= at
    if require == "road":  # both Caravans reached or passed Crossroads `at`
        return min(p.caravans) >= 3 * at
    if require == "military":
        return p.military >= at
    return True


def join_cost(s: "TerramaraState", i: int, seat: int, piece: int) -> int:
    """-1 if `piece` of `seat` may not go to space `i` by its occupants, else the Military it
    loses (1 for an Explorer joining another player's Explorer)."""
    a, b = s.occ[2 * i], s.occ[2 * i + 1]
    if a < 0:
        return 0
    if b >= 0 or s.board.spaces[i].holds == 1 or a >> 1 == seat or a & 1 == CHIEF:
        return -1
    if piece == CHIEF:
        return 0
    return 1 if s.players[seat].military > military_of(s, a >> 1) else -1


def legal_placements(s: "TerramaraState", seat: int) -> list[tuple[int, int]]:
    """(piece, space index or HUT) the player may send now."""
    p = s.players[seat]
    pieces = [pc for pc, ok in ((EXPLORER, p.avail > 0), (CHIEF, p.chief_at == FREE)) if ok]
    out: list[tuple[int, int]] = []
    for i, sp in enumerate(s.board.spaces):
        if not space_open(s, sp, p):
            continue
        future = sp.kind in (TERRITORY, SPECIAL) and round_of_row(sp.row) > s.round
        for pc in pieces:
            if pc == CHIEF and future:
                continue
            if join_cost(s, i, seat, pc) >= 0:
                out.append((pc, i))
    out += [(pc, HUT) for pc in pieces]
    return out


def place(s: "TerramaraState", seat: int, piece: int, i: int) -> None:
    p = s.players[seat]
    p.placed += 1
    if piece == EXPLORER:
        p.avail -= 1
    if i == HUT:
        if piece == EXPLORER:
            p.hut += 1
        else:
            p.chief_at = IN_HUT
        effects.gain(s, seat, s.data.rules["hut"])
        return
    sp = s.board.spaces[i]
    joined = s.occ[2 * i] >= 0
    if join_cost(s, i, seat, piece) == 1:
        effects.lose_military(p)
    s.occ[2 * i + joined] = seat * 2 + piece
    if piece == CHIEF:
        p.chief_at = i
        p.add_vp("play", p.eff("chieftain_join_vp") if joined else p.eff("chieftain_empty_vp"))
    if sp.kind == CROSSROADS:
        p.add_vp("play", p.eff("crossroads_space_vp"))
    if sp.kind == HOME:
        if len(sp.actions) == 1:
            homeland(s, seat, sp.actions[0])
        else:  # the 2-player grouped space: its actions in the order the player picks
            s.push(("resolve", seat, (1 << len(sp.actions)) - 1, i))
        return
    if sp.kind == PERSONAL:
        effects.gain(s, seat, s.data.tiles[p.cross_tile].crossroads)
        return
    effects.gain(s, seat, sp.effects)
    if sp.bonus:
        effects.gain(s, seat, s.data.bonus[sp.bonus].effects)


def homeland(s: "TerramaraState", seat: int, action: str) -> None:
    rules = s.data.rules
    p = s.players[seat]
    if action == "worker":
        effects.take_worker(s, p, rules["worker_level_by_round"][s.round - 1])
    elif action == "develop":
        effects.gain(s, seat, rules["develop"])
    elif action == "travel":
        effects.gain(s, seat, rules["travel_space"])
    elif action == "raid":
        effects.raid(s, seat)
    elif s.round == rules["rounds"]:  # the First Player card's back in the last round
        s.push(("final", seat, 0, 0))
    else:
        first_player(s, seat)


def first_player(s: "TerramaraState", seat: int) -> None:
    """The taker plays first next round and gains 1 Travel; in the new order (clockwise from
    the taker) the third player gains 1 Culture and the fourth 2 Military, at once."""
    rules = s.data.rules
    s.next_first = seat
    n = len(s.players)
    effects.add_travel(s, s.players[seat], rules["first_player_travel"])
    if n >= 3:
        effects.add_culture(s, s.players[(seat + 2) % n], rules["first_player_order_culture"])
    if n >= 4:
        effects.add_military(s, s.players[(seat + 3) % n], rules["first_player_order_military"])


def return_members(s: "TerramaraState") -> None:
    """End of round: members come home from every space but a future round's."""
    n = len(s.players)
    for i, sp in enumerate(s.board.spaces):
        if sp.kind in (TERRITORY, SPECIAL) and round_of_row(sp.row) > s.round:
            continue
        for slot in (2 * i, 2 * i + 1):
            code = s.occ[slot]
            if code >= 0:
                owner = code >> 1
                if owner < n:
                    if code & 1 == CHIEF:
                        s.players[owner].chief_at = FREE
                    else:
                        s.players[owner].avail += 1
                s.occ[slot] = -1
    for p in s.players:
        p.avail += p.hut
        p.hut = 0
        p.chief_at = FREE
