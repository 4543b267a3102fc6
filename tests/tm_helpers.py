"""Fixed Terra Mystica positions for rules tests.

Two ways to get a position:

* `setup_game(factions, places, picks)` plays the real setup with legal `place`/`pick` actions
  (seat order, reverse, Nomads' third, Chaos Magicians last; bonus tiles in reverse seat order)
  and returns the state at the first action of round 1 (round 1 income already paid).
* `position(factions, d=..., tp=..., ...)` writes the pieces straight onto the Player objects
  of a fresh state and puts it at round 1, stage "play", with a chosen seat to move. No income
  is paid: resources are what the faction starts with unless given. Every hex that gets a
  building has its terrain set to the owner's home terrain and `state.occupied` is kept in sync,
  as the engine's invariants require. A stronghold written this way switches its ability on
  without its once-when-built effect.

`do(state, "build E5")` applies one action after checking that it is legal; `texts(state)` is
the set of legal action texts.
"""

from terra_sim.games.terra_mystica.game import TerraMystica
from terra_sim.games.terra_mystica.player import CAT

GAME = TerraMystica()
DATA = GAME.data
MAP = DATA.map
WHEEL = DATA.wheel
BONUS = ["BON1", "BON2", "BON3", "BON4", "BON5", "BON6", "BON7", "BON8", "BON9"]
SCORING = ["SCORE2", "SCORE3", "SCORE4", "SCORE5", "SCORE6", "SCORE7"]


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
    assert action in legal, f"{text!r} is not legal; legal: {sorted(texts(state))[:60]}"
    state.apply(action)


def do_all(state, *actions: str) -> None:
    for t in actions:
        do(state, t)


def vp(state, seat: int, category: str) -> int:
    return state.players[seat].vp[CAT[category]]


def bowls(state, seat: int) -> tuple[int, int, int]:
    p = state.players[seat]
    return p.p1, p.p2, p.p3


def terrain(state, name: str) -> str:
    return WHEEL[state.terrain[hx(name)]]


def new_state(factions, seed: int = 1, bonus=None, scoring=None, **options):
    n = len(factions)
    return GAME.new_state(list(factions), seed, bonus_tiles=bonus or BONUS[:n + 3],
                          scoring_tiles=scoring or SCORING, **options)


def setup_game(factions, places, picks, seed: int = 1, bonus=None, scoring=None, **options):
    s = new_state(factions, seed, bonus, scoring, **options)
    for name in places:
        assert s.stage == "setup-dwelling"
        do(s, f"place {name}")
    for tile in picks:
        assert s.stage == "setup-bonus"
        do(s, f"pick {tile}")
    assert s.stage == "play" and s.round == 1
    return s


def put(s, seat: int, kind: str, names) -> None:
    p = s.players[seat]
    for n in names:
        h = hx(n)
        assert not s.occupied >> h & 1, f"{n} is occupied twice"
        assert MAP.land >> h & 1, f"{n} is a river hex"
        s.terrain[h] = p.faction.home
        p.b[kind] |= 1 << h
        s.occupied |= 1 << h
        if kind == "SH":
            p.eff = {**p.eff, **p.faction.stronghold}


def position(factions, *, d=None, tp=None, te=None, sh=None, sa=None, res=None, power=None,
             cults=None, bonus=None, scoring=None, land=None, vp_start=None, to_move=0,
             seed: int = 1, **options):
    """A round-1 action position.

    d / tp / te / sh / sa: {seat: ["E5", ...]}; res: {seat: {"coins": 5, "workers": 2, ...}}
    (any Player attribute); power: {seat: (bowl I, bowl II, bowl III)}; cults: {seat:
    [f, w, e, a]}; bonus: the tiles in play, the first n held by seats 0..n-1 (default BON1..);
    scoring: the six scoring tiles (round 1 first); land: {"E4": "lakes"}; vp_start: {seat: vp}.
    """
    n = len(factions)
    tiles = bonus or BONUS[:n + 3]
    s = new_state(factions, seed, tiles, scoring, **options)
    for name, t in (land or {}).items():
        s.terrain[hx(name)] = WHEEL.index(t)
    for kind, where in (("D", d), ("TP", tp), ("TE", te), ("SH", sh), ("SA", sa)):
        for seat, names in (where or {}).items():
            put(s, seat, kind, names)
    for seat in range(n):
        p = s.players[seat]
        p.bonus = tiles[seat]
        del s.bonus_supply[tiles[seat]]
    for seat, values in (res or {}).items():
        for k, v in values.items():
            setattr(s.players[seat], k, v)
    for seat, b in (power or {}).items():
        p = s.players[seat]
        p.p1, p.p2, p.p3 = b
    for seat, c in (cults or {}).items():
        s.players[seat].cults = list(c)
    for seat, v in (vp_start or {}).items():
        s.players[seat].vp[CAT["start"]] = v
    s.queue = []
    s.round = 1
    s.stage = "play"
    s.turn = s.order.index(to_move)
    s.actions_left = 1
    return s


def pass_all(state) -> None:
    """Everyone still in passes (taking the first tile in supply); offers are declined and any
    cult-bonus spades are given up; stops at the next round's first action or the game's end."""
    start = state.round
    while not state.is_over() and state.round == start:
        settle(state)
        if state.is_over() or state.round != start:
            break
        legal = state.legal_actions()
        if any(a.kind == "done" for a in legal):
            do(state, "done")
            continue
        passes = sorted((a for a in legal if a.kind == "pass"),
                        key=lambda a: int(a.args[0][3:]) if a.args else 0)
        state.apply(passes[0])
    settle(state)


def settle(state) -> None:
    """Answer pending decisions no test cares about: decline offers, stop spade follow-ups."""
    while state.pending and not state.is_over():
        legal = state.legal_actions()
        kinds = {a.kind for a in legal}
        if "decline" in kinds:
            do(state, "decline")
        elif "done" in kinds and state.pending[0][0] == "spades":
            do(state, "done")
        else:
            return
