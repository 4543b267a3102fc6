"""The Artifact deck, the 8-card display along the River, and creating or reserving.

The deck holds the level-1 cards on top of the level-2 ones on top of the level-3 ones, each
level shuffled. A card taken from the display lets the cards to its right slide left and the
deck fills the last place. How far the Canoe travelled decides how many of the leftmost cards
a player may take (rules `river_access`).
"""

# terra-sim: compile

from typing import TYPE_CHECKING

from terra_sim.core.rng import stream
from terra_sim.games.terramara import effects
from terra_sim.games.terramara.player import PERM, Player

if TYPE_CHECKING:
    from terra_sim.games.terramara.data import TerramaraData
    from terra_sim.games.terramara.state import TerramaraState


def make_deck(data: "TerramaraData", seed: int) -> list[int]:
    rng = stream(seed, "deck")
    deck: list[int] = []
    for level in (1, 2, 3):
        pile = [i for i, a in enumerate(data.artifact_ids) if data.artifacts[a].level == level]
        rng.shuffle(pile)
        deck += pile
    return deck


def refill(s: "TerramaraState") -> None:
    while len(s.display) < s.data.rules["display"] and s.deck:
        s.display.append(s.deck.pop(0))


def level_of(s: "TerramaraState", i: int) -> int:
    return s.data.artifacts[s.data.artifact_ids[i]].level


def remove_level(s: "TerramaraState", level: int, from_display: bool) -> None:
    """Round setup: a level's cards leave the deck (rounds 2 and 4) or the display, which is
    then filled again (rounds 3 and 5)."""
    if from_display:
        s.display = [i for i in s.display if level_of(s, i) != level]
        refill(s)
    else:
        s.deck = [i for i in s.deck if level_of(s, i) != level]


def reachable(s: "TerramaraState", p: Player) -> list[int]:
    access = s.data.rules["river_access"]
    return s.display[:access[min(p.river, len(access) - 1)]]


def payment(s: "TerramaraState", p: Player, i: int, reserved: bool) -> list[int] | None:
    """What creating artifact `i` costs `p`, as refined then raw amounts (8 ints), or None if
    `p` cannot pay. Refined resources pay first; raw ones stand in for missing refined ones up
    to the substitution allowed (a Character, Artifacts); from River space 12 a reserved
    Artifact costs one resource less, taken where the player falls short (the first resource
    of the cost otherwise)."""
    cost = list(s.data.artifacts[s.data.artifact_ids[i]].cost)
    if reserved and p.river >= s.data.rules["reserve_discount_at"]:
        short = [c - min(c, r) for c, r in zip(cost, p.ref, strict=True)]
        k = max(range(4), key=lambda t: (short[t], cost[t] > 0, -t))
        if cost[k] > 0:
            cost[k] -= 1
    subst = p.eff("raw_substitute") + p.perm[PERM["raw_substitute"]]
    pay = [0] * 8
    for t in range(4):
        use = min(cost[t], p.ref[t])
        need = cost[t] - use
        if need > p.raw[t] or need > subst:
            return None
        subst -= need
        pay[t] = use
        pay[4 + t] = need
    return pay


def craft_options(s: "TerramaraState", p: Player) -> list[tuple[str, int]]:
    out = [("craft", i) for i in reachable(s, p) if payment(s, p, i, False) is not None]
    if p.reserved >= 0 and payment(s, p, p.reserved, True) is not None:
        out.append(("craft", p.reserved))
    if p.reserved < 0 and p.river >= s.data.rules["reserve_at"]:
        out += [("reserve", i) for i in reachable(s, p)]
    return out


def take(s: "TerramaraState", i: int) -> None:
    s.display.remove(i)
    refill(s)


def craft(s: "TerramaraState", seat: int, i: int) -> None:
    p = s.players[seat]
    reserved = i == p.reserved
    pay = payment(s, p, i, reserved)
    assert pay is not None
    for t in range(4):
        p.ref[t] -= pay[t]
        p.raw[t] -= pay[4 + t]
    if reserved:
        p.reserved = -1
    else:
        take(s, i)
    p.artifacts.append(i)
    a = s.data.artifacts[s.data.artifact_ids[i]]
    # Permanent effects work from the next trigger on: this creation is not one.
    p.add_vp("play", p.perm[PERM["craft_vp"]]
             + (p.eff("craft_vp_high") if a.level == 3 else p.eff("craft_vp_low")))
    for key, v in a.permanent.items():
        p.perm[PERM[key]] += v
    effects.gain(s, seat, a.instant)


def reserve(s: "TerramaraState", seat: int, i: int) -> None:
    s.players[seat].reserved = i
    take(s, i)
