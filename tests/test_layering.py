"""The house's layering, checked on the source: the core imports nothing above it, and no library
file outside terra_sim/games/<g>/ and strategies/<g>/ imports or names game <g>; the game
registry line in terra_sim/games/__init__.py is the one place that does. No two modules import
each other, directly or round a circle (every import counts: at the top, inside a function, for
type checking only), except inside one game's folder, where an engine's state and its rules
modules may (terra_sim/games/README.md says why); and no module imports another's private
(underscore) names."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REGISTRY_FILE = Path("terra_sim/games/__init__.py")


def _packages(folder: Path) -> set[str]:
    return {d.name for d in folder.iterdir() if (d / "__init__.py").is_file()}


def _module_of(path: Path) -> str:
    return ".".join(path.with_suffix("").parts).removesuffix(".__init__")


def _imports(tree: ast.AST, module: str) -> list[tuple[int, list[str]]]:
    """Each import statement's line and the modules (or module.name) it brings in."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.append((node.lineno, [a.name for a in node.names]))
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # a relative import: resolve it against this module
                parent = module.split(".")[: -node.level]
                base = ".".join([*parent, base] if base else parent)
            found.append((node.lineno, [f"{base}.{a.name}" for a in node.names]))
    return found


def _breaches(name: str, parts: tuple[str, ...], home: str | None, engines: set[str],
              kits: set[str]) -> list[str]:
    """What importing module `name` breaks, from the file whose path parts are `parts`."""
    bits = name.split(".")
    out = []
    if parts[:2] == ("terra_sim", "core") and (
            bits[0] == "strategies" or bits[0] == "terra_sim" and bits[1:2] != ["core"]):
        out.append(f"the core imports {name}, which sits above it")
    if bits[:2] == ["terra_sim", "games"] and bits[2:3] and bits[2] in engines \
            and bits[2] != home:
        out.append(f"imports game {bits[2]} from outside its folders")
    if bits[0] == "strategies" and bits[1:2] and bits[1] in kits and (
            bits[1] != home or parts[0] != "strategies"):
        out.append(f"imports {bits[1]}'s bots from outside them")
    if parts[:2] == ("terra_sim", "games") and home and bits[0] == "strategies":
        out.append("a game engine imports bots")
    return out


def violations(root: Path, slugs: list[str]) -> list[str]:
    """What breaks the layering in the tree at `root` (terra_sim/ and strategies/ under it);
    `slugs` are the games' names, which only their own folders and the registry may use."""
    engines = _packages(root / "terra_sim" / "games")
    kits = _packages(root / "strategies")
    out = []
    for path in sorted([*(root / "terra_sim").rglob("*.py"), *(root / "strategies").rglob("*.py")]):
        rel = path.relative_to(root)
        parts = rel.parts
        home = (parts[2] if parts[:2] == ("terra_sim", "games") and len(parts) > 3 else
                parts[1] if parts[0] == "strategies" and len(parts) > 2 else None)
        tree = ast.parse(path.read_text(), str(rel))
        for line, names in _imports(tree, _module_of(rel)):
            found = dict.fromkeys(b for n in names
                                  for b in _breaches(n, parts, home, engines, kits))
            out += [f"{rel}:{line}: {b}" for b in found]
        if rel == REGISTRY_FILE or home is not None:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                text = node.value
                named = [s for s in slugs if text == s] + [
                    g for g in engines | kits
                    if f"terra_sim.games.{g}" in text or f"strategies.{g}" in text]
                out += [f"{rel}:{node.lineno}: names game {g!r}" for g in named]
    return out


def _library(root: Path) -> dict[str, Path]:
    files = [*(root / "terra_sim").rglob("*.py"), *(root / "strategies").rglob("*.py")]
    return {_module_of(p.relative_to(root)): p for p in sorted(files)}


def _target(name: str, modules: dict[str, Path]) -> str | None:
    """The library module an imported name lives in (`a.b.c` a module, or `c` a name in a.b)."""
    if name in modules:
        return name
    parent = name.rpartition(".")[0]
    return parent if parent in modules else None


def _game_folder(module: str) -> str | None:
    bits = module.split(".")
    if bits[:2] == ["terra_sim", "games"] and len(bits) > 3:
        return "terra_sim.games." + bits[2]
    if bits[0] == "strategies" and len(bits) > 2:
        return "strategies." + bits[1]
    return None


def circles(root: Path) -> list[list[str]]:
    """Groups of modules that import each other round a circle, but those inside one game's
    folder (strongly connected components of the import graph, Tarjan's algorithm)."""
    modules = _library(root)
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for m, path in modules.items():
        for _, names in _imports(ast.parse(path.read_text()), m):
            graph[m] |= {t for n in names if (t := _target(n, modules)) not in (None, m)}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = [stack.pop()]
            while group[-1] != v:
                group.append(stack.pop())
            folders = {_game_folder(m) for m in group}
            if len(group) > 1 and not (len(folders) == 1 and None not in folders):
                found.append(sorted(group))

    for v in graph:
        if v not in index:
            visit(v)
    return sorted(found)


def private_imports(root: Path) -> list[str]:
    """`from module import _name` between two library modules."""
    modules = _library(root)
    out = []
    for m, path in modules.items():
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.ImportFrom):
                continue
            base = node.module or ""
            if node.level:
                parent = m.split(".")[: -node.level]
                base = ".".join([*parent, base] if base else parent)
            if base not in modules or base == m:
                continue
            out += [f"{path.relative_to(root)}:{node.lineno}: imports {base}.{a.name}"
                    for a in node.names if a.name.startswith("_") and not a.name.endswith("__")]
    return out


def test_no_modules_import_each_other_round_a_circle():
    assert circles(ROOT) == []


def test_no_module_imports_another_modules_private_names():
    assert private_imports(ROOT) == []


def test_the_checks_find_a_planted_circle_and_a_private_import(tmp_path):
    files = {
        "terra_sim/__init__.py": "",
        "terra_sim/run/__init__.py": "",
        "terra_sim/run/a.py": "from terra_sim.run.b import thing\n",
        "terra_sim/run/b.py": "def f():\n    from terra_sim.run import c\n",
        "terra_sim/run/c.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                              "    from terra_sim.run.a import A\n",
        "terra_sim/store.py": "from terra_sim.run.a import _helper, __version__\n",
        "terra_sim/games/__init__.py": "",
        "terra_sim/games/chess/__init__.py": "",
        "terra_sim/games/chess/state.py": "from terra_sim.games.chess import moves\n",
        "terra_sim/games/chess/moves.py": "from terra_sim.games.chess.state import State\n",
        "strategies/__init__.py": "",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    assert circles(tmp_path) == [["terra_sim.run.a", "terra_sim.run.b", "terra_sim.run.c"]]
    assert private_imports(tmp_path) == ["terra_sim/store.py:1: imports terra_sim.run.a._helper"]


def test_the_tree_keeps_its_layers():
    from terra_sim.games import GAMES

    assert violations(ROOT, list(GAMES)) == []


def test_the_check_finds_each_kind_of_breach(tmp_path):
    files = {
        "terra_sim/__init__.py": "",
        "terra_sim/core/__init__.py": "",
        "terra_sim/core/loop.py": "from terra_sim.run.runner import x\nimport strategies\n",
        "terra_sim/games/__init__.py": 'GAMES = {"chess": "terra_sim.games.chess.game:Chess"}\n',
        "terra_sim/games/chess/__init__.py": "",
        "terra_sim/games/chess/game.py": "from strategies.chess import bots\n",
        "terra_sim/games/go/__init__.py": "",
        "terra_sim/games/go/rules.py": "from terra_sim.games.chess import game\n",
        "terra_sim/runner.py": "from terra_sim.games.chess.game import Chess\n"
                               "DEFAULT = 'chess'\n",
        "strategies/__init__.py": "",
        "strategies/registry.py": "from .chess import greedy\n",
        "strategies/chess/__init__.py": "from strategies.chess.greedy import Greedy\n"
                                        "from terra_sim.games.chess.game import Chess\n",
        "strategies/go/__init__.py": "from strategies.chess import greedy\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    found = violations(tmp_path, ["chess", "go"])
    assert sorted(found) == sorted([
        "terra_sim/core/loop.py:1: the core imports terra_sim.run.runner.x, which sits above it",
        "terra_sim/core/loop.py:2: the core imports strategies, which sits above it",
        "terra_sim/games/chess/game.py:1: imports chess's bots from outside them",
        "terra_sim/games/chess/game.py:1: a game engine imports bots",
        "terra_sim/games/go/rules.py:1: imports game chess from outside its folders",
        "terra_sim/runner.py:1: imports game chess from outside its folders",
        "terra_sim/runner.py:2: names game 'chess'",
        "strategies/registry.py:1: imports chess's bots from outside them",
        "strategies/go/__init__.py:1: imports chess's bots from outside them",
    ])
