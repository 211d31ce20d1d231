"""The import structure (docs/architecture.md): every import of the project, at module level or inside a
function, goes down the layers, never up or sideways, and no modules import each other in a cycle; and the
layers above store/ run no SQL themselves."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGE = "agent_signals"
OFFLINE = "agent_signals_offline"
# lower first; a module may import its own layer and the ones below it
LAYERS = ("base", "core", "store", "adapters", "stages", "mcp", "flows", "evaluation", "cli")
BASE = {
    f"{PACKAGE}",
    f"{PACKAGE}.config",
    f"{PACKAGE}.errors",
    f"{PACKAGE}.limits",
    f"{PACKAGE}.model_names",
    f"{PACKAGE}.setting_checks",
}
# store/ holds every SQL call: these layers call its functions and never run a statement themselves
NO_SQL = ("core", "stages", "mcp", "flows", "evaluation", "cli")
SQL_METHODS = {"execute", "executemany", "copy", "fetchone", "fetchall"}
SQLFILES = f"{PACKAGE}.store.sqlfiles"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(SRC.rglob("*.py"))}


def imports_of(path: Path, name: str, known: set[str]) -> set[str]:
    """The project's modules `path` imports anywhere in its body (a `from package import module` counts
    as the module)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            targets = [
                f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names
            ]
        else:
            continue
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def layer(name: str) -> str:
    if name.startswith(OFFLINE):
        return "offline"
    if name in BASE:
        return "base"
    if name == f"{PACKAGE}.__main__":
        return "cli"
    return name.split(".")[1]


def graph() -> dict[str, set[str]]:
    found = modules()
    known = set(found)
    return {name: imports_of(path, name, known) for name, path in found.items()}


def test_every_module_sits_in_a_layer():
    strays = [name for name in modules() if layer(name) not in (*LAYERS, "offline")]
    assert not strays, f"modules outside the layers {LAYERS}: {strays}"


def test_imports_go_down_the_layers():
    wrong = []
    for name, targets in graph().items():
        own = layer(name)
        for target in targets:
            theirs = layer(target)
            if own == "offline":
                allowed = theirs in ("offline", "base", "core")
            elif theirs == "offline":
                allowed = (
                    False  # registered by adapters/providers.py through importlib, only when a model names it
                )
            else:
                allowed = LAYERS.index(theirs) <= LAYERS.index(own)
            if not allowed:
                wrong.append(f"{name} ({own}) imports {target} ({theirs})")
    assert not wrong, "imports against the layers:\n" + "\n".join(sorted(wrong))


def test_only_the_entry_points_import_the_flows():
    wrong = [
        f"{name} imports {target}"
        for name, targets in graph().items()
        for target in targets
        if layer(target) == "flows" and layer(name) not in ("flows", "evaluation", "cli")
    ]
    assert not wrong, wrong


def test_no_import_cycles():
    edges = graph()
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[list[str]] = []

    def visit(node: str) -> None:  # Tarjan's strongly connected components
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in edges[node]:
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for node in edges:
        if node not in index:
            visit(node)
    assert not cycles, f"modules importing each other: {cycles}"


def test_no_folder_holds_more_than_15_modules():
    """Folders by concern (docs/architecture.md): a package that grows past 15 modules is split."""
    crowded = {
        folder.relative_to(SRC).as_posix(): count
        for folder in sorted({p.parent for p in SRC.rglob("*.py")})
        if (count := len(list(folder.glob("*.py")))) > 15
    }
    assert not crowded, f"folders of more than 15 modules: {crowded}"


def test_the_check_sees_a_wrong_import(tmp_path):
    """The checker itself: an upward import in a module is found."""
    module = tmp_path / "probe.py"
    module.write_text(
        "from agent_signals.stages import scan\n\ndef f():\n    from agent_signals.cli import main\n"
    )
    found = imports_of(module, "agent_signals.core.probe", set(modules()))
    assert {"agent_signals.stages.scan", "agent_signals.cli"} <= found


def sql_calls(path: Path) -> list[str]:
    """The SQL a module runs itself: calls of a connection's or cursor's execute, executemany, copy,
    fetchone or fetchall, and of store/sqlfiles.py's query (however it was imported); as `line: call`."""
    tree = ast.parse(path.read_text(), str(path))
    query_names: set[str] = set()  # `query` imported from sqlfiles, under its name or an alias
    module_names: set[str] = set()  # the sqlfiles module itself, under its name or an alias
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == SQLFILES:
            query_names |= {alias.asname or alias.name for alias in node.names if alias.name == "query"}
        elif isinstance(node, ast.ImportFrom) and node.module == f"{PACKAGE}.store":
            module_names |= {alias.asname or alias.name for alias in node.names if alias.name == "sqlfiles"}
        elif isinstance(node, ast.Import):
            module_names |= {alias.asname or alias.name for alias in node.names if alias.name == SQLFILES}
    found: list[tuple[int, int, str]] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Attribute) and (
            func.attr in SQL_METHODS or (func.attr == "query" and ast.unparse(func.value) in module_names)
        ):
            found.append((node.lineno, node.col_offset, f".{func.attr}("))
        elif isinstance(func, ast.Name) and func.id in query_names:
            found.append((node.lineno, node.col_offset, f"{func.id}("))
    return [f"{line}: {call}" for line, _, call in sorted(found)]


def test_no_sql_above_the_store():
    wrong = [
        f"{name}:{call}"
        for name, path in modules().items()
        if layer(name) in NO_SQL
        for call in sql_calls(path)
    ]
    assert not wrong, "SQL run outside store/ (move it into a store/ function):\n" + "\n".join(wrong)


def test_the_check_sees_sql_run_above_the_store(tmp_path):
    """The checker itself: each way of running SQL is found, and a call that is not SQL is not."""
    module = tmp_path / "probe.py"
    module.write_text(
        "import agent_signals.store.sqlfiles as files\n"
        "from agent_signals.store import sqlfiles\n"
        "from agent_signals.store.sqlfiles import query as q\n\n"
        "def f(conn, cur, settings):\n"
        "    conn.execute(q(settings, 'a'))\n"
        "    cur.executemany(sqlfiles.query(settings, 'b'), [])\n"
        "    cur.copy(files.query(settings, 'c'))\n"
        "    return cur.fetchone(), cur.fetchall()\n\n"
        "def g(settings, rows):\n"
        "    return settings.model_copy(), query(settings), rows.fetch()\n"
    )
    assert sql_calls(module) == [
        "6: .execute(", "6: q(", "7: .executemany(", "7: .query(", "8: .copy(", "8: .query(",
        "9: .fetchone(", "9: .fetchall(",
    ]  # fmt: skip


QUERIES = SRC / PACKAGE / "sql" / "queries"
QUERY_NAME = re.compile(r"[\"']([a-z_]+/[a-z0-9_]+)[\"']")


def test_each_query_file_is_in_the_folder_of_the_module_that_runs_it_and_is_run():
    """sql/queries/<module>/<name>.sql is named (as "module/name") only in the store or adapters module of
    that name (store/<module>.py, or in a folder of store/ such as store/ledger/<module>.py, or
    adapters/<module>.py); a file of shared/ in two modules or more; and every file is named somewhere."""
    files = {p.relative_to(QUERIES).with_suffix("").as_posix() for p in QUERIES.rglob("*.sql")}
    folders = {name.partition("/")[0] for name in files}
    named_in: dict[str, set[str]] = {}
    for path in sorted((SRC / PACKAGE).rglob("*.py")):
        for name in QUERY_NAME.findall(path.read_text()):
            if name.partition("/")[0] in folders:
                named_in.setdefault(name, set()).add(path.stem)
    assert sorted(set(named_in) - files) == [], "queries named that have no file"
    assert sorted(files - set(named_in)) == [], "query files nothing runs"
    misplaced = {
        name: sorted(where)
        for name, where in named_in.items()
        if (name.startswith("shared/") and len(where) < 2)
        or (not name.startswith("shared/") and where != {name.partition("/")[0]})
    }
    assert not misplaced, f"query files outside the folder of the module that runs them: {misplaced}"
