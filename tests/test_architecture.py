"""The layering of docs/architecture.md, checked from the source: which package may import which,
no import cycles, and variants named in code only where the page says."""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "sixnimmt"

#: What each package may import of the project (docs/architecture.md, "The packages").
ALLOWED: dict[str, set[str]] = {
    "core": set(),
    "i18n": {"core"},
    "bots": {"core"},
    "protocol": {"core", "bots"},
    "seats": {"core", "bots", "protocol"},
    "competition": set(),
    "arena": {"core", "bots", "seats", "competition"},
    "rl": {"core", "bots", "seats"},
    "server": {"core", "i18n", "seats", "protocol", "competition"},
    "tui": {"core", "i18n", "bots", "seats"},
    "connect": {"core", "protocol", "seats"},
}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def load_time_imports(tree: ast.Module) -> list[ast.Import | ast.ImportFrom]:
    """The imports run when the module loads: module level, inside if/try, but not under
    ``if TYPE_CHECKING:`` (never run) nor inside functions (run when called)."""
    found: list[ast.Import | ast.ImportFrom] = []

    def visit(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, ast.Import | ast.ImportFrom):
                found.append(node)
            elif isinstance(node, ast.If):
                if "TYPE_CHECKING" not in ast.unparse(node.test):
                    visit(node.body)
                visit(node.orelse)
            elif isinstance(node, ast.Try):
                visit(node.body)
                visit(node.orelse)
                visit(node.finalbody)
                for handler in node.handlers:
                    visit(handler.body)

    visit(tree.body)
    return found


def every_import(tree: ast.Module) -> list[ast.Import | ast.ImportFrom]:
    """Every import of a module: at load time, type-only (``if TYPE_CHECKING:``) and in functions."""
    return [node for node in ast.walk(tree) if isinstance(node, ast.Import | ast.ImportFrom)]


def import_graph(type_only_too: bool = False) -> dict[str, set[str]]:
    """Module -> the project's modules it imports at load time (``type_only_too``: or anywhere,
    under ``if TYPE_CHECKING:`` and in functions included)."""
    paths = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = defaultdict(set)
    find = every_import if type_only_too else load_time_imports
    for name, path in paths.items():
        package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        for node in find(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - node.level + 1]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                candidates = [target, *(f"{target}.{alias.name}" for alias in node.names)]
            else:
                candidates = [alias.name for alias in node.names]
            graph[name].update(c for c in candidates if c in paths and c != name)
    return graph


def top_package(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def test_each_package_imports_only_what_the_architecture_allows() -> None:
    graph = import_graph()
    assert graph, "no modules found"
    wrong = sorted(
        f"{module} imports {target}"
        for module, targets in graph.items()
        for target in targets
        if top_package(module) in ALLOWED
        and top_package(target) != top_package(module)
        and top_package(target) not in ALLOWED[top_package(module)]
    )
    assert not wrong, "imports the architecture does not allow:\n" + "\n".join(wrong)


def test_core_imports_nothing_else_of_the_project_even_inside_functions() -> None:
    for path in (PACKAGE / "core").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level > 1:
                raise AssertionError(f"{path.name} imports from outside core: {ast.unparse(node)}")
            if isinstance(node, ast.ImportFrom | ast.Import) and "sixnimmt" in ast.unparse(node):
                raise AssertionError(f"{path.name} imports the project by name: {ast.unparse(node)}")


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle of ``graph``, if there is any (depth-first search)."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for target in sorted(graph.get(node, ())):
            if state.get(target) == 1:
                return [*path[path.index(target) :], target]
            if target not in state and (cycle := visit(target)):
                return cycle
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (cycle := visit(node)):
            return cycle
    return None


# ---------------------------------------------------------------------- the server's packages

SERVER = PACKAGE / "server"

#: What each part of the web server may import of the others (docs/architecture.md, "The server's
#: packages"): ``base`` is the modules directly in ``sixnimmt/server`` (settings, time, the browser
#: protocol, rate limits, the socket pump), each package a subsystem, lowest first.
SERVER_ALLOWED: dict[str, set[str]] = {
    "base": set(),
    "store": {"base"},
    "tables": {"base", "store"},
    "accounts": {"base", "store", "tables"},
    "cluster": {"base", "store", "tables"},
    "tournaments": {"base", "store", "tables", "accounts", "cluster"},
    "botapi": {"base", "store", "tables", "accounts", "cluster", "tournaments"},
    "notify": {"base", "store", "tables", "accounts"},
    "moderation": {"base", "store", "tables", "accounts", "cluster", "botapi"},
    "web": {"base", "store", "tables", "accounts", "cluster", "botapi", "tournaments", "notify", "moderation"},
}


def server_part(module: str) -> str | None:
    """The part of the server ``module`` belongs to (None: it is not the server's)."""
    parts = module.split(".")
    if parts[:2] != ["sixnimmt", "server"] or len(parts) < 3:
        return None
    return parts[2] if (SERVER / parts[2]).is_dir() else "base"


def server_graph() -> dict[str, set[str]]:
    """Server module -> the server modules it imports, type-only and function-level imports included."""
    return {
        module: {t for t in targets if server_part(t) is not None}
        for module, targets in import_graph(type_only_too=True).items()
        if server_part(module) is not None
    }


def test_every_server_package_is_in_the_layer_table_and_says_what_it_owns() -> None:
    packages = {p.name for p in SERVER.iterdir() if (p / "__init__.py").exists()}
    assert packages == set(SERVER_ALLOWED) - {"base"}
    for name in packages:
        docstring = ast.get_docstring(ast.parse((SERVER / name / "__init__.py").read_text(encoding="utf-8")))
        assert docstring and "May import" in docstring, f"server/{name}/__init__.py: what it owns and may import"


def test_each_server_package_imports_only_the_layers_below_it() -> None:
    graph = server_graph()
    assert any(server_part(m) == "tables" for m in graph), "no server modules found"
    wrong = sorted(
        f"{module} imports {target}"
        for module, targets in graph.items()
        for target in targets
        if (part := server_part(module)) != (other := server_part(target)) and other not in SERVER_ALLOWED[part or ""]
    )
    assert not wrong, "imports across the server's layers the architecture does not allow:\n" + "\n".join(wrong)


def test_no_import_cycle_among_server_modules_type_only_imports_included() -> None:
    cycle = find_cycle(server_graph())
    assert cycle is None, "server import cycle: " + " -> ".join(cycle or [])


#: The longest a server module may grow: past this a module holds more than one job and splits.
SERVER_MODULE_LINES = 450
#: The modules directly in ``sixnimmt/server``, besides its packages: the few that every part uses.
SERVER_TOP_MODULES = 7


def test_the_server_is_its_packages_and_a_handful_of_small_modules() -> None:
    top = sorted(p.name for p in SERVER.glob("*.py") if p.name != "__init__.py")
    assert len(top) <= SERVER_TOP_MODULES, f"modules directly in sixnimmt/server: {top}"
    long = {str(p.relative_to(ROOT)): n for p in SERVER.rglob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > SERVER_MODULE_LINES}
    assert long == {}, "server modules to split by job"


#: The objects only their own module writes: a table's session and a seat (each has methods for
#: every change; a field assigned from outside would be a change with no rule).
OWNERS = {"table": "sixnimmt/server/tables/table.py", "seat": "sixnimmt/server/tables/seat.py"}


def written_object(target: ast.expr) -> str | None:
    """"table" or "seat" if ``target`` is a field of one (``table.f``, ``room.table.f``, ``seat.f``,
    ``table.seats[i].f``), by the names the server gives them; None otherwise."""
    if not isinstance(target, ast.Attribute):
        return None
    value = target.value
    if isinstance(value, ast.Name) and value.id in OWNERS:
        return value.id
    if isinstance(value, ast.Attribute) and value.attr == "table":
        return "table"
    if isinstance(value, ast.Subscript) and ast.unparse(value.value).split(".")[-1] == "seats":
        return "seat"
    return None


def assigned_targets(tree: ast.AST) -> list[ast.expr]:
    targets: list[ast.expr] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            targets += node.targets
        elif isinstance(node, ast.AugAssign | ast.AnnAssign):
            targets.append(node.target)
    return [e for t in targets for e in (t.elts if isinstance(t, ast.Tuple) else [t])]


def test_written_object_sees_a_tables_and_a_seats_fields() -> None:
    code = "room.table.epoch = 1\nseat.kind, seat.bot = 'bot', 'easy'\ntable.seats[0].name = 'x'\nself.table = t\nrow.name = 'y'"
    assert [written_object(t) for t in assigned_targets(ast.parse(code))] == ["table", "seat", "seat", "seat", None, None]


def test_no_module_assigns_a_tables_or_a_seats_fields_but_its_own() -> None:
    found = []
    for path in SERVER.rglob("*.py"):
        where = str(path.relative_to(ROOT))
        for target in assigned_targets(ast.parse(path.read_text(encoding="utf-8"))):
            kind = written_object(target)
            if kind is not None and OWNERS[kind] != where:
                found.append(f"{where}:{target.lineno}: {ast.unparse(target)}")
    assert found == [], "ask the table or the seat (a method with its rule) instead"


#: Module names used in more than one package with the same meaning there: each front-end's
#: application and settings, the table as each front-end holds it, and the game (the engine's, and
#: the same game as OpenSpiel sees it), and the project's bots (``rl/openspiel/bots.py``: the same bots
#: as OpenSpiel bots). ``commands/`` is apart: its modules are named after the
#: command they declare.
SHARED_MODULE_NAMES = {"app", "config", "table", "game", "bots"}


def test_a_module_name_means_one_thing() -> None:
    packages = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists()}
    places: dict[str, list[str]] = defaultdict(list)
    for path in PACKAGE.rglob("*.py"):
        if path.stem != "__init__" and path.parent.name != "commands":
            places[path.stem].append(module_name(path))
    twice = {name: where for name, where in places.items() if len(where) > 1 and name not in SHARED_MODULE_NAMES}
    assert twice == {}, "one name, two meanings: rename one of them"
    named_like_a_package = {name: where for name, where in places.items()
                            if name in packages and name not in SHARED_MODULE_NAMES}
    assert named_like_a_package == {}, "a module named like one of the project's packages"


def test_no_module_imports_a_private_name_of_another() -> None:
    """A leading underscore says "only this module uses it": another module of the project that
    needs it needs a public name (and ``Game``'s insides stay ``Game``'s: no ``game._x`` anywhere else)."""
    found = []
    for path in PACKAGE.rglob("*.py"):
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.level > 0 or (node.module or "").startswith("sixnimmt")):
                found += [f"{module_name(path)} imports {alias.name}" for alias in node.names
                          if alias.name.startswith("_") and not alias.name.startswith("__")]
            elif (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "game"
                  and node.attr.startswith("_") and not node.attr.startswith("__")
                  and path.name != "game.py"):
                found.append(f"{module_name(path)} reads game.{node.attr}")
    assert found == []


def test_find_cycle_finds_one() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None


def test_no_import_cycles_between_modules_or_packages() -> None:
    graph = import_graph()
    cycle = find_cycle(graph)
    assert cycle is None, "module import cycle: " + " -> ".join(cycle or [])
    packages: dict[str, set[str]] = defaultdict(set)
    for module, targets in graph.items():
        for target in targets:
            if top_package(target) != top_package(module):
                packages[top_package(module)].add(top_package(target))
    cycle = find_cycle(packages)
    assert cycle is None, "package import cycle: " + " -> ".join(cycle or [])


# ---------------------------------------------------------------------- variants named in code

#: Variant names that are not also ordinary words of the code ("open" seats, a "hand" of cards, a
#: "standard" default...): as a string, each of these can only mean the variant.
DISTINCT_NAMES = {"tactics", "logic", "professional", "tournament", "nifty"}
MEMBERS = {"STANDARD", "TACTICS", "LOGIC", "PROFESSIONAL", "TOURNAMENT", "OPEN", "NIFTY", "HAND", "DOUBLE"}


def names_a_variant(tree: ast.Module) -> bool:
    slots = {
        id(element)
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__slots__" for t in node.targets)
        for element in ast.walk(node.value)
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and node.value in DISTINCT_NAMES and id(node) not in slots:
            return True
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "Variant"
            and node.attr in MEMBERS
        ):
            return True
    return False


def test_names_a_variant_sees_members_and_names_but_not_slots() -> None:
    assert names_a_variant(ast.parse("x = Variant.NIFTY"))
    assert names_a_variant(ast.parse("if v == 'tournament': pass"))
    assert not names_a_variant(ast.parse("__slots__ = ('professional',)\nseat = 'open'"))


def test_variants_are_named_in_code_only_in_the_files_the_architecture_lists() -> None:
    page = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = page.split("### Files that name variants in code", 1)[1]
    listed = set(re.findall(r"`(sixnimmt/[\w/]+\.py)`", section))
    assert listed, "docs/architecture.md lists no files"
    naming = {
        str(path.relative_to(ROOT))
        for path in PACKAGE.rglob("*.py")
        if names_a_variant(ast.parse(path.read_text(encoding="utf-8")))
    }
    assert "sixnimmt/core/variants.py" in naming
    assert not naming - listed, f"files that name variants, not in docs/architecture.md: {sorted(naming - listed)}"
