"""Layers one way (issue 38 item 4): the package graph of solver/, counting imports at
module level and inside functions alike, has no cycle, and no package imports one of a
higher layer (LAYERS, the order docs/design.md gives).

`python tests/test_layers.py [ROOT]` prints a checkout's package graph (default: this
one), its cycles, its upward imports, the number of project imports inside functions and
the reads of an engine state's `_s` outside spiel_game/: the figures docs/design.md gives.
"""

from __future__ import annotations

import ast
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# The layers of solver/'s packages (solver.<first level>; a top-level module such as
# provenance.py is one of its own), lowest first, as docs/design.md "Layers of solver/"
# gives them. A package imports packages of its own layer or lower ones only; within a
# layer, one way only (no cycle). Below them all spiel_game/ (which imports nothing of
# solver/ or cli/), above them cli/ (which nothing imports).
LAYERS: list[set[str]] = [
    {"abstraction", "games", "provenance", "reports"},  # keys, the game registry, files
    {"sim"},  # random streams, the sampler, deals and play-outs, round utilities
    {"policies"},  # heuristics, the compiled bank and chain, policy files
    {"belief", "exact"},  # the posterior over hidden cards; whole trees, CFR, BR
    {"mccfr"},  # sampled CFR over any engine
    {"evaluation"},  # tournaments, LBR, the evaluation report
    {"search"},  # decision-time search
    {"match", "play"},  # match values and duels; sessions, opponents, logs
    {"opponent_model"},  # models fitted to play logs
    {"hint"},  # the hint and its coach
    {"han_solo", "sarlaccs_pit"},  # each game solved on the shared layer, every layer of it
    {"game_hooks", "studies"},  # each game's adapter hooks; the studies behind tables
]

# Edges against LAYERS left for now, each with its reason: (importer, imported): the file
# that imports upward. The test fails when one is no longer there, so the list shrinks.
ALLOWED: dict[tuple[str, str], str] = {}


def _sources(root: Path) -> list[Path]:
    return sorted((root / "solver").rglob("*.py"))


def _module_name(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _package(module: str) -> str | None:
    """solver.<first level> of a module under solver/, None for others."""
    parts = module.split(".")
    if parts[0] != "solver" or len(parts) < 2:
        return None
    return parts[1]


def _imports(root: Path, path: Path):
    """Each project import of a module (`import solver.x`, `from solver.x import y`,
    relative ones; at module level, under `if TYPE_CHECKING`, or inside a function):
    (imported module, line, inside a function?). `from p import a, b` gives p.a and p.b
    (either may be a module)."""
    module = _module_name(root, path)
    is_package = path.name == "__init__.py"
    tree = ast.parse(path.read_text(), str(path))
    found = []

    def visit(node, in_function: bool):
        for child in ast.iter_child_nodes(node):
            inner = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                       ast.Lambda))
            if isinstance(child, ast.Import):
                for alias in child.names:
                    found.append((alias.name, child.lineno, in_function))
            elif isinstance(child, ast.ImportFrom):
                target = child.module or ""
                if child.level:
                    base = module.split(".")
                    # In a package's __init__ the first level up is the package itself.
                    base = base[:len(base) - child.level + (1 if is_package else 0)]
                    target = ".".join(base + ([child.module] if child.module else []))
                for alias in child.names:
                    # `from solver import provenance`: the name may be a module.
                    found.append((f"{target}.{alias.name}", child.lineno, in_function))
            visit(child, inner)

    visit(tree, False)
    return [(name, line, inner) for name, line, inner in found
            if name.split(".")[0] in ("solver", "spiel_game", "cli")]


def package_graph(root: Path = ROOT):
    """({(importer, imported): {(file, line, inside a function?)}} over solver/'s
    packages, [every project import statement of solver/ as (file, line, inside a
    function?, imported modules)])."""
    edges: dict[tuple[str, str], set] = defaultdict(set)
    statements: dict[tuple[str, int, bool], list[str]] = defaultdict(list)
    for path in _sources(root):
        source = _package(_module_name(root, path))
        rel = path.relative_to(root).as_posix()
        for name, line, inner in _imports(root, path):
            statements[(rel, line, inner)].append(name)
            target = _package(name)
            if source and target and target != source:
                edges[(source, target)].add((rel, line, inner))
    return dict(edges), [(*k, v) for k, v in statements.items()]


def layer_of(package: str) -> int:
    found = [i for i, layer in enumerate(LAYERS) if package in layer]
    assert found, f"solver/{package}: in no layer of tests/test_layers.py LAYERS"
    return found[0]


def upward(edges) -> dict[tuple[str, str], set]:
    """The edges from a package to one of a higher layer."""
    return {e: sites for e, sites in edges.items() if layer_of(e[1]) > layer_of(e[0])}


def cycles(edges) -> list[list[str]]:
    """The strongly connected components of more than one package, each as one cycle
    through all of them where there is one (else the component, sorted)."""
    graph = defaultdict(set)
    for a, b in edges:
        graph[a].add(b)
    index, low, stack, on, out = {}, {}, [], set(), []

    def strong(v):  # Tarjan
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(set(graph) | {b for _, b in edges}):
        if v not in index:
            strong(v)
    return [_shortest_cycles(graph, c) for c in out]


def _shortest_cycles(graph, component: list[str]) -> list[list[str]]:
    """A shortest cycle through each package of a component, each once."""
    inside, found = set(component), []
    for start in component:
        previous, frontier, cycle = {start: None}, [start], None
        while frontier and cycle is None:
            following = []
            for v in frontier:
                for w in sorted(graph[v] & inside):
                    if w == start and cycle is None:
                        cycle = [v]
                        while previous[cycle[-1]] is not None:
                            cycle.append(previous[cycle[-1]])
                        cycle.reverse()
                    elif w not in previous:
                        previous[w] = v
                        following.append(w)
            frontier = following
        turn = cycle.index(min(cycle))
        cycle = cycle[turn:] + cycle[:turn]
        if cycle not in found:
            found.append(cycle)
    return found


def state_reads(root: Path = ROOT) -> list[tuple[str, int]]:
    """Reads of an engine state's flat array (`x._s`, `x._s[...]`) in solver/ and cli/."""
    reads = []
    for folder in ("solver", "cli"):
        for path in sorted((root / folder).rglob("*.py")):
            tree = ast.parse(path.read_text(), str(path))
            reads += [(path.relative_to(root).as_posix(), node.lineno)
                      for node in ast.walk(tree)
                      if isinstance(node, ast.Attribute) and node.attr == "_s"]
    return reads


def layout_reads(root: Path = ROOT) -> list[tuple[str, int]]:
    """Reads of a state's field by the engine's layout offsets (`state.array[L.S_...]`,
    `state._s[L.S_...]`) in solver/ and cli/: what a public state method could say."""
    reads = []
    for folder in ("solver", "cli"):
        for path in sorted((root / folder).rglob("*.py")):
            tree = ast.parse(path.read_text(), str(path))
            reads += [(path.relative_to(root).as_posix(), node.lineno)
                      for node in ast.walk(tree)
                      if isinstance(node, ast.Subscript)
                      and isinstance(node.value, ast.Attribute)
                      and node.value.attr in ("_s", "array")
                      and any(isinstance(n, ast.Name) and n.id == "L"
                              for n in ast.walk(node.slice))]
    return reads


def _outside(root: Path, folder: str, prefixes: tuple[str, ...]) -> list[str]:
    """Imports of `prefixes` by the modules of `folder`, as file:line."""
    found = []
    for path in sorted((root / folder).rglob("*.py")):
        found += [f"{path.relative_to(root).as_posix()}:{line}"
                  for name, line, _ in _imports(root, path)
                  if name.split(".")[0] in prefixes]
    return found


def report(root: Path = ROOT) -> None:
    edges, statements = package_graph(root)
    print("package graph (importer -> imported: import statements, of them inside "
          "functions):")
    for (a, b), sites in sorted(edges.items()):
        inner = sum(1 for *_, i in sites if i)
        print(f"  {a} -> {b}: {len(sites)}, {inner}")
    found = cycles(edges)
    print(f"cycles ({len(found)} strongly connected component(s); a shortest cycle "
          "through each package of one):")
    for component in found:
        for cycle in component:
            print("  " + " -> ".join(cycle + cycle[:1]))
    try:
        up = upward(edges)
    except AssertionError as err:  # another checkout's packages
        up, _ = {}, print(f"upward imports: not counted ({err})")
    print(f"upward imports (against LAYERS): {len(up)}")
    for (a, b), sites in sorted(up.items()):
        where = ", ".join(f"{f}:{line}" for f, line, _ in sorted(sites))
        print(f"  {a} -> {b}{' (allowed)' if (a, b) in ALLOWED else ''}: {where}")
    inner = [x for x in statements if x[2]]
    own = [x for x in inner if any(n.startswith("solver.") for n in x[3])]
    print(f"project import statements inside functions in solver/: {len(inner)} "
          f"({len(own)} of solver, {len(inner) - len(own)} of spiel_game)")
    reads = state_reads(root)
    print(f"reads of a state's _s outside spiel_game/ (solver/, cli/): {len(reads)}")
    for rel, line in sorted(reads):
        print(f"  {rel}:{line}")
    fields = layout_reads(root)
    print(f"of a state's fields by layout offset (state.array[L....] or state._s[L....]) "
          f"in solver/, cli/: {len(fields)}")
    for rel, line in sorted(fields):
        print(f"  {rel}:{line}")


def test_no_package_cycle():
    edges, _ = package_graph()
    found = cycles({e: s for e, s in edges.items() if e not in ALLOWED})
    assert not found, "package cycles in solver/ (python tests/test_layers.py):\n" + \
        "\n".join(" -> ".join(c + c[:1]) for component in found for c in component)


def test_every_package_has_a_layer():
    packages = {_package(_module_name(ROOT, p)) for p in _sources(ROOT)} - {None}
    assert packages == set().union(*LAYERS), "tests/test_layers.py LAYERS against solver/"


def test_lower_layers_import_no_higher_one():
    edges, _ = package_graph()
    up = {e: sites for e, sites in upward(edges).items() if e not in ALLOWED}
    assert not up, "imports of a higher layer (docs/design.md \"Layers\"):\n" + "\n".join(
        f"  {a} -> {b}: " + ", ".join(f"{f}:{line}" for f, line, _ in sorted(sites))
        for (a, b), sites in sorted(up.items()))


def test_the_allowed_exceptions_are_still_needed():
    """An exception fixed is taken off ALLOWED, so the list only shrinks."""
    edges, _ = package_graph()
    up = upward(edges)
    for (a, b), where in ALLOWED.items():
        sites = {f for f, _, _ in up.get((a, b), ())}
        assert where in sites, f"{a} -> {b} ({where}) no longer imports upward: " \
            "take it off tests/test_layers.py ALLOWED"


def test_the_outer_layers():
    """spiel_game/ imports nothing of solver/ or cli/; solver/ nothing of cli/."""
    assert not _outside(ROOT, "spiel_game", ("solver", "cli"))
    assert not _outside(ROOT, "solver", ("cli",))


def test_the_game_hooks_are_at_the_top():
    """The registry names each game's hook module (imported on use, not by an import
    statement): it must be of the top layer, where everything may be imported."""
    from solver import games

    for adapter in games.ADAPTERS.values():
        assert layer_of(_package(adapter.hooks)) == len(LAYERS) - 1, adapter.hooks


if __name__ == "__main__":
    report(Path(sys.argv[1]).resolve() if len(sys.argv) > 1 else ROOT)
