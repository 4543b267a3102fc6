"""Terramara positions and checks for the tests.

`position(factions, seed)` plays setup (every setup decision by its first legal answer) and
returns the state at round 1 with nothing queued; tests then write the fields a rule needs
straight onto the state and its Player objects. `do(state, "explorer R1-2")` applies one
action after checking that it is legal; `texts(state)` is the set of legal action texts;
`check_invariants(state)` asserts what must hold after every action.
"""

from terra_sim.games.terramara.board import SPECIAL, TERRITORY, round_of_row
from terra_sim.games.terramara.game import Terramara
from terra_sim.games.terramara.placement import CHIEF

GAME = Terramara()
DATA = GAME.data
FOUR = ["trader+card01", "sage+card02", "warlord+card03", "artisan+card04"]


def texts(state) -> set[str]:
    return {state.action_text(a) for a in state.legal_actions()}


def do(state, text: str) -> None:
    a = state.parse_action(text)
    assert a in state.legal_actions(), f"{text!r} is not legal; legal: {sorted(texts(state))}"
    state.apply(a)


def position(factions=None, seed: int = 1):
    s = GAME.new_state(list(factions or FOUR), seed)
    while s.pending:
        s.apply(s.legal_actions()[0])
    assert s.round == 1 and s.stage == "play"
    return s


def clear_resources(state) -> None:
    for p in state.players:
        p.raw = [0] * 4
        p.ref = [0] * 4


def space(state, name: str) -> int:
    return state.board.index[name]


def check_invariants(state) -> None:
    rules = DATA.rules
    n = len(state.players)
    on_board = [0] * n
    chiefs = [0] * n
    for i, sp in enumerate(state.board.spaces):
        codes = [c for c in state.occ[2 * i:2 * i + 2] if c >= 0]
        assert state.occ[2 * i] >= 0 or state.occ[2 * i + 1] < 0, "second slot without first"
        assert len(codes) <= sp.holds, f"{sp.name} holds {codes}"
        owners = [c >> 1 for c in codes]
        assert len(set(owners)) == len(owners), f"{sp.name}: one colour twice"
        assert not codes or not sp.fire, f"{sp.name} is under a Fire tile"
        if len(codes) == 2:
            assert codes[0] & 1 != CHIEF, f"{sp.name}: someone joined a Chieftain"
        for c in codes:
            if c >> 1 < n:
                if c & 1 == CHIEF:
                    chiefs[c >> 1] += 1
                    assert not (sp.kind in (TERRITORY, SPECIAL)
                                and round_of_row(sp.row) > state.round), "Chieftain in future"
                else:
                    on_board[c >> 1] += 1
    supply = list(state.worker_supply)
    for p in state.players:
        assert min(p.raw) >= 0 and min(p.ref) >= 0, f"negative resources {p.raw} {p.ref}"
        assert 0 <= p.military <= rules["military_max"]
        assert 0 <= p.river <= rules["river_end"]
        assert p.avail >= 0 and p.avail + p.hut + on_board[p.seat] == p.explorers, \
            "explorers not conserved"
        assert p.explorers <= rules["max_explorers"]
        assert chiefs[p.seat] == (p.chief_at >= 0)
        assert len(p.flags) <= rules["flags"] and len(set(p.flags)) == len(p.flags)
        for lv in p.workers:
            supply[lv - 1] += 1
        assert sum(p.vp) == sum(state.breakdown()[p.seat].values()) == state.vp()[p.seat]
    assert supply == list(rules["worker_supply"]), "workers not conserved"
    for m in state.neutral_mil:
        assert 0 <= m <= rules["military_max"]
