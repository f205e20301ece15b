"""The report layer's shape: one Wilson interval (Python and SQL agree), one formatter family,
imports one way (report code never reaches the pipeline), small functions and modules."""

from __future__ import annotations

import ast
from pathlib import Path

import duckdb
import pyarrow as pa
import pytest

from engines.core import fmt
from engines.core.stats import wilson, wilson_upper
from engines.registry import engine

ENGINES = Path(__file__).resolve().parent.parent / "engines"
REPORT_CODE = sorted([*(ENGINES / "report").glob("*.py"), *ENGINES.glob("*/report.py"), *ENGINES.glob("*/report/*.py")])


@pytest.mark.parametrize(("hits", "n"), [(0, 1), (0, 300), (1, 3), (17, 1000), (4321, 10_000), (999, 1000)])
def test_python_wilson_is_the_narcotic_views_wilson(hits, n):
    """The narcotic_summary view's win_lo95 / win_hi95 and core.stats.wilson are one interval."""
    con = duckdb.connect()
    games = pa.table(
        {
            "experiment": ["e"] * n,
            "variant": ["v"] * n,
            "matching": ["deal"] * n,
            "gather": ["top-right"] * n,
            "pile_four": ["keep"] * n,
            "won": [i < hits for i in range(n)],
            "passes": [3] * n,
            "time_s": [60] * n,
            "cycle_length": [2] * n,
        }
    )
    con.register("narcotic_games", games)
    for name, table in engine("narcotic").warehouse_tables().items():
        con.register(name, table)
    for stmt in engine("narcotic").views_sql():
        con.execute(stmt)
    lo, hi = con.execute("SELECT win_lo95, win_hi95 FROM narcotic_summary").fetchone()
    assert wilson(hits, n) == pytest.approx((lo, hi), rel=1e-12, abs=1e-15)
    assert wilson_upper(hits, n) == wilson(hits, n)[1]
    assert -1e-15 <= lo <= hits / n <= hi <= 1 + 1e-15


def test_wilson_upper_bound_of_no_hits():
    # the rule of three: with none in n, the 95 % bound is about 3.84 / n
    assert wilson(0, 1_000_000)[0] == pytest.approx(0, abs=1e-15)
    assert wilson_upper(0, 1_000_000) == pytest.approx(1.959963984540054**2 / 1_000_000, rel=1e-5)


def test_one_formatter_family():
    assert [fmt.value(v) for v in (None, float("nan"), True, 1234567, 0.0123456, 12345.6, "x")] == [
        fmt.MISSING,
        fmt.MISSING,
        "yes",
        "1,234,567",
        "0.01235",
        "12,346",
        "x",
    ]
    assert fmt.pct(None) == fmt.fixed(None) == fmt.identifier(None) == fmt.MISSING
    assert fmt.identifier(20260101) == "20260101" and fmt.fixed(1234.56) == "1,234.6"
    assert fmt.plural(1, "deal") == "1 deal" and fmt.plural(2000, "round") == "2,000 rounds"
    assert fmt.small_pct(4e-7) == "0.000040 %" and fmt.pct_pm(0.5, 0.49, 0.51) == "50.0 % ± 1.0 %"


def imports_of(path: Path) -> set[str]:
    """Every engines module a file imports, at top level or inside a function."""
    package = ".".join(path.relative_to(ENGINES.parent).with_suffix("").parts)
    if path.name == "__init__.py":
        package += ".__init__"
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            base = package.split(".")[: -node.level] if node.level else []
            name = ".".join([*base, node.module] if node.module else base)
            out |= {name} | {f"{name}.{a.name}" for a in node.names}
        elif isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
    return {m for m in out if m.startswith("engines.")}


def module_name(path: Path) -> str:
    parts = path.relative_to(ENGINES.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def test_report_code_never_imports_the_pipeline():
    assert REPORT_CODE and len(REPORT_CODE) >= 10
    for path in REPORT_CODE:
        reached = [m for m in imports_of(path) if m.startswith("engines.pipeline")]
        assert not reached, f"{path.relative_to(ENGINES)} imports {reached}"


def test_report_imports_run_one_way():
    """No import circle among the report modules, function-level imports included."""
    modules = {module_name(p): p for p in REPORT_CODE}
    graph = {m: {i for i in imports_of(p) if i in modules and i != m} for m, p in modules.items()}
    done: set[str] = set()

    def visit(m: str, stack: tuple[str, ...]) -> None:
        assert m not in stack, "import circle: " + " -> ".join((*stack[stack.index(m) :], m))
        if m not in done:
            for n in graph[m]:
                visit(n, (*stack, m))
            done.add(m)

    for m in graph:
        visit(m, ())
    assert "engines.report.index" in graph and "engines.report.page" in graph["engines.report.markdown"]


def test_report_functions_and_modules_are_small():
    for path in REPORT_CODE:
        lines = path.read_text().splitlines()
        assert len(lines) <= 500, f"{path.relative_to(ENGINES)}: {len(lines)} lines"
        for node in ast.walk(ast.parse("\n".join(lines))):
            if isinstance(node, ast.FunctionDef):
                length = node.end_lineno - node.lineno + 1
                assert length <= 80, f"{path.relative_to(ENGINES)}:{node.name} has {length} lines"


def test_the_html_page_shell_lives_once():
    shells = [p for p in REPORT_CODE if "<!doctype html>" in p.read_text()]
    assert [p.name for p in shells] == ["page.py"]
