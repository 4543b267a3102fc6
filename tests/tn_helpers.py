"""Fixed Terra Nova positions for rules tests.

Two ways to get a position:

* `setup_game(factions, places, picks)` plays the real setup with legal `place`/`pick` actions
  (snake order for houses, reverse order for bonus tiles) and returns the state at the first
  action of round 1 (round 1 income already paid).
* `position(factions, houses=..., tps=..., ...)` writes the pieces straight onto the Player
  objects of a fresh state and puts it at round 1, stage "actions", with a chosen seat to move.
  No income is paid: money and power are what the faction starts with unless given. Every hex
  that gets a building has its terrain set to the owner's home terrain and `state.occupied` is
  kept in sync, as the engine's invariants require.

`do(state, "build E5")` applies one action after checking that it is legal; `texts(state)` is
the set of legal action texts.
"""

from terra_sim import get_game
from terra_sim.games.terra_nova.state import CAT, replaced

GAME = get_game("terra-nova")
DATA = GAME.data
MAP = DATA.map


def hx(name: str) -> int:
    return MAP.hex(name)


def mask(names) -> int:
    return sum(1 << hx(n) for n in names)


def texts(state) -> set[str]:
    return {state.action_text(a) for a in state.legal_actions()}


def do(state, text: str) -> None:
    """Apply the action `text`, which must be among the legal actions."""
    action = state.parse_action(text)
    legal = state.legal_actions()
    assert action in legal, f"{text!r} is not legal; legal: {sorted(texts(state))[:40]}"
    state.apply(action)


def vp(state, seat: int, category: str) -> int:
    return state.players[seat].vp[CAT[category]]


def bowls(state, seat: int) -> tuple[int, int, int]:
    p = state.players[seat]
    return p.p1, p.p2, p.p3


def setup_game(factions, places, picks, seed: int = 1, **options):
    """Play setup: `places` in snake order (extra houses last), `picks` in reverse seat order."""
    s = GAME.new_state(list(factions), seed, **options)
    for name in places:
        assert s.stage == "setup-house"
        do(s, f"place {name}")
    for tile in picks:
        assert s.stage == "setup-bonus"
        do(s, f"pick {tile}")
    assert s.stage == "actions" and s.round == 1
    return s


def _build(s, seat: int, names, attr: str) -> None:
    p = s.players[seat]
    for n in names:
        h = hx(n)
        assert not s.occupied >> h & 1, f"{n} is occupied twice"
        assert MAP.land >> h & 1, f"{n} is a river hex"
        s.terrain = replaced(s.terrain, h, p.faction.home)
        setattr(p, attr, getattr(p, attr) | 1 << h)
        s.occupied |= 1 << h


def position(factions, *, houses=None, tps=None, palaces=None, bonus=None, supply=None,
             money=None, power=None, sail=None, terrain=None, round_tile=None, to_move=0,
             seed: int = 1):
    """A round-1 action position.

    houses / tps: {seat: ["E5", ...]}; palaces: {seat: {"left": "E5"}} (the palace's ability is
    switched on, its once-when-built effect is not applied); bonus: {seat: "D"} (a seat not named
    gets the first tile neither held nor in supply); supply: bonus tiles next to the board,
    {tile: coins} (default: the first 3 tiles nobody holds, 0 coins); money: {seat:
    int}; power: {seat: (bowl I, bowl II, bowl III)}; sail: {seat: level}; terrain: {"E4":
    "lake"}; round_tile: the round-1 scoring tile id ("shovel", "town", ...).
    """
    s = GAME.new_state(list(factions), seed)
    for name, t in (terrain or {}).items():
        s.terrain = replaced(s.terrain, hx(name), DATA.ring.index(t))
    for seat, names in (houses or {}).items():
        _build(s, seat, names, "houses")
    for seat, names in (tps or {}).items():
        _build(s, seat, names, "tps")
    for seat, sides in (palaces or {}).items():
        for side, name in sides.items():
            _build(s, seat, [name], f"palace_{side}")
            p = s.players[seat]
            p.activate(getattr(p.faction, f"{side}_palace"))
    held = {seat: t for seat, t in (bonus or {}).items()}
    if supply is None:
        free = [t for t in sorted(DATA.bonus_tiles) if t not in held.values()]
        supply = {t: 0 for t in free[:3]}
    rest = [t for t in sorted(DATA.bonus_tiles) if t not in held.values() and t not in supply]
    for seat in range(s.n):
        if seat not in held:
            held[seat] = rest.pop(0)
    for seat, t in held.items():
        s.players[seat].bonus = t
    s.supply = dict(supply)
    s.bonus_tiles = sorted([*held.values(), *supply])
    for seat, m in (money or {}).items():
        s.players[seat].money = m
    for seat, b in (power or {}).items():
        p = s.players[seat]
        assert sum(b) == sum(DATA.start_power)
        p.p1, p.p2, p.p3 = b
    for seat, level in (sail or {}).items():
        s.players[seat].sail = level
    if round_tile is not None:
        s.round_tiles = [round_tile] + [t for t in s.round_tiles if t != round_tile][:4]
    s.queue = ()
    s.round = 1
    s.stage = "actions"
    s.turn = s.order.index(to_move)
    return s


def finish_round(state) -> None:
    """Everyone still in drops out (taking the lowest tile in supply), and every exchange is
    declined with `done`; stops at the next round's first action (or at the game's end)."""
    start = state.round
    while state.stage == "actions" and state.round == start:
        if state.window == 1:  # an exchange after the previous action
            do(state, "done")
            continue
        tiles = sorted(state.supply)
        do(state, f"pass {tiles[0]}")
    while state.stage in ("exchange", "final-exchange"):
        do(state, "done")
