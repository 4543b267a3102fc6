"""The state guard: finds what a bot changed in the game state it was handed for one decision.

Bots are handed the real state, not a copy: a bot may hold the state it planned on across its
decisions (Terra Mystica's greedy checks `state is self.queued_state`), and a copy per decision
would change such a bot's games. So the play loop takes `state.clone()` before the bot thinks
and compares the state with it afterwards. The comparison knows no game: it learns each state
class's attributes once, from a state and its clone:

- an attribute that `clone()` copies (a list, a player) is compared with the clone's copy;
- a mutable container that `clone()` shares (a map's neighbour list, a player's ability table)
  is never changed in place by the engine (clones would see it), so a frozen copy taken before
  the bot thinks is compared with it afterwards;
- any other object `clone()` shares (the game's rules data, the action codec, a faction sheet)
  is constant for the game and not compared: checking it would cost a walk through the rules.

Most of the work is C-speed: the clone is the engine's own (compiled) copy, attributes are read
by one attrgetter per object, and lists compare with `==`.
"""

from collections.abc import Callable
from dataclasses import dataclass
from operator import attrgetter
from typing import Any

_IMMUTABLE = (int, float, complex, str, bytes, bool, type(None), tuple, frozenset, range)
_MUTABLE = (list, dict, set, bytearray)
_BUILTIN = _IMMUTABLE + _MUTABLE


def _attributes(obj: Any) -> list[str]:
    cls = type(obj)
    names = list(getattr(cls, "__mypyc_attrs__", ()))  # a class compiled by mypyc
    for klass in cls.__mro__:
        slots = klass.__dict__.get("__slots__", ())
        names += [slots] if isinstance(slots, str) else list(slots)
    names += list(getattr(obj, "__dict__", {}))
    return [n for n in dict.fromkeys(names) if n not in ("__dict__", "__weakref__")]


def _holds_objects(value: Any) -> bool:
    """Whether `value` is, or directly holds, an instance of a class of its own (a player)."""
    if isinstance(value, list | tuple):
        return any(not isinstance(v, _BUILTIN) for v in value)
    if isinstance(value, dict):
        return any(not isinstance(v, _BUILTIN) for v in value.values())
    return not isinstance(value, _BUILTIN)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


@dataclass(frozen=True)
class _Plan:
    """How one class's instances are compared (see the module docstring)."""

    flat: tuple[str, ...]  # compared with == on one attrgetter tuple
    nested: tuple[str, ...]  # hold objects of their own: compared item by item
    shared: tuple[str, ...]  # mutable containers clone() shares: frozen before the bot thinks
    get_flat: Callable[[Any], Any]


def _learn(obj: Any, twin: Any) -> _Plan:
    flat, nested, shared = [], [], []
    for name in _attributes(obj):
        try:
            mine, theirs = getattr(obj, name), getattr(twin, name)
        except AttributeError:
            continue
        if callable(mine) and not isinstance(mine, _BUILTIN):
            continue
        if mine is theirs:
            if isinstance(mine, _MUTABLE):
                shared.append(name)
            elif isinstance(mine, _IMMUTABLE):
                flat.append(name)  # a replacement shows
            # else: the game's constant data, shared by every clone
        elif _holds_objects(mine):
            nested.append(name)
        else:
            flat.append(name)
    getter = attrgetter(*flat) if len(flat) > 1 else (
        (lambda o, g=attrgetter(flat[0]): (g(o),)) if flat else (lambda o: ()))
    return _Plan(tuple(flat), tuple(nested), tuple(shared), getter)


class StateGuard:
    """Take `before(state)` when a bot is about to decide and `changes(state, token)` after it:
    the paths of what it changed (e.g. "players[1].money: 15 -> 35"), empty when nothing.

    The fast path looks one level down (the state and the objects in its lists, the players);
    only when it finds a difference does the slow path walk everything to name it, and an
    object the clone merely copied is not taken for a change there."""

    def __init__(self) -> None:
        self._plans: dict[type, _Plan] = {}

    def _plan(self, obj: Any, twin: Any) -> _Plan:
        plan = self._plans.get(type(obj))
        if plan is None:
            plan = self._plans[type(obj)] = _learn(obj, twin)
        return plan

    def _owners(self, state: Any, plan: _Plan) -> list[Any]:
        """The state and the objects its nested attributes hold (its players)."""
        owners = [state]
        for name in plan.nested:
            value = getattr(state, name)
            if isinstance(value, list | tuple):
                owners += value
            elif not isinstance(value, _BUILTIN):
                owners.append(value)
        return owners

    def before(self, state: Any) -> tuple[Any, list[Any]]:
        twin = state.clone()
        plans = self._plans
        plan = plans.get(type(state)) or self._learn_all(state, twin)
        frozen = [getattr(state, name).copy() for name in plan.shared]
        for owner in self._owners(state, plan)[1:]:
            p = plans.get(type(owner))
            if p is not None and p.shared:
                frozen += [getattr(owner, name).copy() for name in p.shared]
        return twin, frozen

    def _learn_all(self, state: Any, twin: Any) -> _Plan:
        plan = self._plan(state, twin)
        for name in plan.nested:
            mine, theirs = getattr(state, name), getattr(twin, name)
            pairs = (zip(mine, theirs, strict=False) if isinstance(mine, list | tuple)
                     and isinstance(theirs, list | tuple) else [(mine, theirs)])
            for m, t in pairs:
                if not isinstance(m, _BUILTIN) and type(m) is type(t):
                    self._plan(m, t)
        return plan

    def changes(self, state: Any, token: tuple[Any, list[Any]]) -> list[str]:
        twin, frozen = token
        plans = self._plans
        plan = plans[type(state)]
        if plan.get_flat(state) != plan.get_flat(twin):
            return self._describe(state, twin, frozen)
        now = [getattr(state, name) for name in plan.shared]
        mine, theirs = self._owners(state, plan)[1:], self._owners(twin, plan)[1:]
        if len(mine) != len(theirs):
            return self._describe(state, twin, frozen)
        for a, b in zip(mine, theirs, strict=True):
            p = plans.get(type(a))
            if p is None or type(b) is not type(a) or p.get_flat(a) != p.get_flat(b):
                return self._describe(state, twin, frozen)
            if p.shared:
                now += [getattr(a, name) for name in p.shared]
        # Containers compare by value in C; a list of one class's objects (the players)
        # compared above attribute by attribute.
        return [] if now == frozen else self._describe(state, twin, frozen)

    def _describe(self, state: Any, twin: Any, frozen: list[Any]) -> list[str]:
        """Name every difference: the slow path, taken only when the fast one found one."""
        found: list[str] = []
        self._diff_object(state, twin, "", found)
        plan = self._plans[type(state)]
        k = 0
        for i, owner in enumerate(self._owners(state, plan)):
            p = self._plans.get(type(owner))
            path = "" if i == 0 else f"{plan.nested[0]}[{i - 1}]." if len(plan.nested) == 1 \
                else f"<object {i}>."
            for name in p.shared if p is not None else ():
                now = getattr(owner, name)
                if k < len(frozen) and now != frozen[k]:
                    found.append(f"{path}{name} (changed in place)")
                k += 1
        return found

    def _diff_object(self, a: Any, b: Any, path: str, out: list[str]) -> None:
        plan = self._plan(a, b)
        if plan.get_flat(a) != plan.get_flat(b):
            for name in plan.flat:
                x, y = getattr(a, name), getattr(b, name)
                if not self._same(x, y):
                    out.append(f"{path}{name}: {_short(y)} -> {_short(x)}")
        for name in plan.nested + plan.shared:
            x, y = getattr(a, name), getattr(b, name)
            if name in plan.shared and x is y:
                continue  # compared with its copy taken before the bot thought
            self._diff_value(x, y, f"{path}{name}", out)

    def _diff_value(self, x: Any, y: Any, path: str, out: list[str]) -> None:
        if type(x) is not type(y):
            out.append(f"{path}: {_short(y)} -> {_short(x)}")
        elif isinstance(x, list | tuple):
            if len(x) != len(y):
                out.append(f"{path}: {_short(y)} -> {_short(x)}")
                return
            for i, (u, v) in enumerate(zip(x, y, strict=True)):
                self._diff_value(u, v, f"{path}[{i}]", out)
        elif isinstance(x, dict):
            if x.keys() != y.keys():
                out.append(f"{path}: {_short(y)} -> {_short(x)}")
                return
            for k in x:
                self._diff_value(x[k], y[k], f"{path}[{k!r}]", out)
        elif isinstance(x, _BUILTIN):
            if x != y:
                out.append(f"{path}: {_short(y)} -> {_short(x)}")
        else:
            self._diff_object(x, y, f"{path}.", out)

    def _same(self, x: Any, y: Any) -> bool:
        """Equal in value; objects of their own (which compare by identity) attribute by
        attribute, so that one the clone copied is not taken for a change."""
        try:
            if x == y:
                return True
        except Exception:  # an == that does not answer True/False (arrays): go by parts
            pass
        if type(x) is not type(y) or isinstance(x, _IMMUTABLE) and not isinstance(x, tuple):
            return False
        found: list[str] = []
        self._diff_value(x, y, "", found)
        return not found
