"""Versions change when results can: comments, docstrings and layout leave every version (and shard) as it was."""

from __future__ import annotations

import ast
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import env_of
from wfhelp import built_once, planned_jobs, snakemake

from engines.core.neutral import GAME, NEUTRAL_FILES, neutral_files
from engines.core.provenance import CORE_FILES, SCHEDULING_HOOKS, python_code, sql_code
from engines.interface import game_directory, report_sources, result_files
from engines.registry import GAMES, engine

MODULE = '''"""A module."""

import math

X = 1  # why one
"""X's attribute docstring."""


def area(r: float) -> float:
    """The area of a disc."""
    return math.pi * pow(r, 2)
'''


def test_python_code_ignores_comments_docstrings_and_layout():
    edited = (
        MODULE.replace('"""A module."""', '"""A module, edited."""\n# a comment')
        .replace("# why one", "# why one: a longer reason")
        .replace("attribute docstring", "attribute docstring, edited")
        .replace("pow(r, 2)", "pow(\n        r, 2  # squared\n    )")
    )
    assert edited != MODULE
    assert python_code(edited) == python_code(MODULE)


@pytest.mark.parametrize(
    "edit",
    [
        ("X = 1", "X = 2"),
        ("pow(r, 2)", "pow(r, 3)"),
        ("import math", "import cmath as math"),
        ('"""A module."""', "A = 1"),
    ],
)
def test_python_code_sees_every_code_edit(edit):
    assert python_code(MODULE.replace(*edit)) != python_code(MODULE)


def test_python_code_keeps_strings_that_are_values():
    code = 'def f():\n    """Doc."""\n    return "a value"\n'
    assert python_code(code.replace("a value", "another")) != python_code(code)
    assert python_code(code.replace("Doc.", "Other doc.")) == python_code(code)


KIND = """
LIMIT = 10


class Window(ShardKind):
    name = "window"

    @staticmethod
    def schedule(section, spec):
        return Schedule(price="redblack/cost_window", units=spec["work"], kernels="owner")

    def run(self, spec, progress, inputs, backend):
        return min(spec["work"], LIMIT)
"""


@pytest.mark.parametrize(
    "edit",
    [
        ('kernels="owner"', 'kernels="brute"'),  # the kernels it loads
        ('units=spec["work"]', 'units=2 * spec["work"]'),  # a better estimate
        # the hook down to the default (a method removed whole leaves one DEDENT fewer: a rerun)
        ('Schedule(price="redblack/cost_window", units=spec["work"], kernels="owner")', "Schedule()"),
    ],
)
def test_a_kind_s_scheduling_hooks_are_no_part_of_its_version(edit):
    """What schedules a job (SCHEDULING_HOOKS) changes no result: an edit of it reruns nothing; an edit of
    what the kind computes still does.  Its prices are data in engines/prices.yaml, which no version covers."""
    assert KIND.replace(*edit) != KIND and python_code(KIND.replace(*edit)) == python_code(KIND)
    assert python_code(KIND.replace("LIMIT = 10", "LIMIT = 11")) != python_code(KIND)
    assert python_code(KIND.replace("min(", "max(")) != python_code(KIND)


def test_the_scheduling_hooks_are_a_kind_s_methods():
    from engines.kinds import ShardKind

    assert all(callable(getattr(ShardKind, name, None)) for name in SCHEDULING_HOOKS)


def test_sql_code_drops_comments_but_not_strings():
    sql = "-- a view\nCREATE VIEW v AS SELECT 1 AS a, '-- not a comment' AS b /* why */ FROM t; -- end\n"
    assert sql_code(sql) == "CREATE VIEW v AS SELECT 1 AS a , '-- not a comment' AS b FROM t ;"
    assert sql_code(sql.replace("SELECT 1", "SELECT\n    1")) == sql_code(sql)
    assert sql_code(sql.replace("not a comment", "a string")) != sql_code(sql)


@pytest.mark.parametrize("game", GAMES)
def test_reference_report_and_cli_are_not_in_a_shard_version(game):
    files = result_files(engine(game))
    assert "engine.py" in files
    assert not {"reference.py", "report.py", "cli.py", "__init__.py"} & set(files)


SHARD_JOB_IMPORTS = """
import json, sys
from pathlib import Path
from engines.pipeline.compute.jobs import run_shard
from engines.registry import engine

game, out = sys.argv[1], Path(sys.argv[2])
eng = engine(game)
plan, written = eng.plan(eng.tiny_config()), {}


def key(table, spec):
    return table, spec["kind"], spec["experiment"], spec["variant"], spec["shard"]


def run(spec):  # a shard, after the shards it reads
    kind = eng.kind_of(spec)
    inputs = [written.get(key(t, s)) or run(s)[t] for t, s in kind.inputs(spec, plan)]
    files = {t: str(out / "-".join(map(str, key(t, spec))).replace("/", "_")) + ".parquet" for t in kind.tables}
    run_shard(game, spec, files, inputs=inputs)
    written.update({key(t, spec): f for t, f in files.items()})
    return files


for first in {spec["kind"]: spec for spec in reversed(plan)}.values():  # the first shard of every kind
    if key(eng.kind_of(first).tables[0], first) not in written:
        run(first)
engines = Path(sys.modules["engines"].__file__).parent
files = {str(Path(m.__file__).relative_to(engines)) for n, m in list(sys.modules.items()) if n.split(".")[0] == "engines"}
print(json.dumps(sorted(files)))
"""


def run_shard_jobs(root: Path) -> None:
    """Under ``root``: one folder a game with a tiny shard job of each of its kinds, and imported.json,
    the engines files its process imported (one process a game: each game's imports alone)."""
    for game in GAMES:
        where = root / game
        where.mkdir(parents=True)
        done = subprocess.run(
            [sys.executable, "-c", SHARD_JOB_IMPORTS, game, str(where)], capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
        (where / "imported.json").write_text(done.stdout.splitlines()[-1])


@pytest.fixture(scope="module")
def shard_job_files() -> dict[str, set[str]]:
    """Game -> the engines files a tiny shard job of each of its kinds imported, run once per test
    session (every xdist worker reads the same runs)."""
    root = built_once("shard-job-imports", run_shard_jobs)
    out = {}
    for game in GAMES:
        assert len(list((root / game).glob("*.parquet"))) >= len(engine(game).kinds)  # every kind's shard ran
        out[game] = set(json.loads((root / game / "imported.json").read_text()))
    return out


def shard_version_files(game: str) -> set[str]:
    """The files under engines/ that a shard's source-hash version of ``game`` covers."""
    return {*CORE_FILES, *(f"{game}/{f}" for f in result_files(engine(game)))}


@pytest.mark.parametrize("game", GAMES)
def test_a_shard_job_imports_no_tooling_module(game, shard_job_files):
    """What keeps the tooling modules out of the results' version safe: no shard job runs them."""
    assert f"{game}/engine.py" in shard_job_files[game]
    tooling = {f"{game}/{m}" for m in engine(game).tooling_modules}
    assert not tooling & shard_job_files[game], tooling & shard_job_files[game]


@pytest.mark.parametrize("game", GAMES)
def test_every_module_a_shard_job_imports_is_hashed_or_declared_neutral(game, shard_job_files):
    """An edit of a module a shard job imports changes its version, unless the module is declared
    neutral (engines/core/neutral.py) with the reason it cannot change a result value."""
    hashed, neutral = shard_version_files(game), neutral_files(game)
    unknown = sorted(shard_job_files[game] - hashed - set(neutral))
    assert not unknown, (
        f"a {game} shard job imports {unknown}: hash them (CORE_FILES or the game's result_files) "
        "or declare them in engines/core/neutral.py with why they change no result"
    )
    assert not hashed & set(neutral), f"both hashed and declared neutral: {sorted(hashed & set(neutral))}"


def test_every_neutral_module_is_imported_by_some_shard_job(shard_job_files):
    """The neutral list holds no module that no shard job imports any more (a moved or deleted file)."""
    imported = set().union(*shard_job_files.values())
    stale = [p for p in NEUTRAL_FILES if not any(f in imported for f in (p.replace(GAME, f"{g}/") for g in GAMES))]
    assert not stale, f"engines/core/neutral.py lists modules no shard job imports: {stale}"


# ----------------------------------------------------------------------------- the workflow


def hashed_files(root: Path) -> list[Path]:
    """Every file a shard, warehouse or report version hashes, in the copy under ``root``."""
    names = list(CORE_FILES)
    for game in GAMES:
        eng = engine(game)
        names += [f"{game}/{f}" for f in result_files(eng)]
        names += [f"{game}/{f}" for f in report_sources(eng)]  # every module of the declared report
        names += [f"{game}/views.sql"] if (game_directory(eng) / "views.sql").exists() else []
    return [root / "engines" / n for n in names]


def with_comments(text: str, suffix: str) -> str:
    mark = "--" if suffix == ".sql" else "#"
    return f"{mark} a comment edit\n{text}\n{mark} and another one\n"


def with_docstrings_edited(text: str) -> str:
    """Every module, class and function docstring with a few words more, before its closing quotes."""
    lines = [ln.encode() for ln in text.split("\n")]
    ends = []
    for node in ast.walk(ast.parse(text)):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            doc = body[0].value
            if isinstance(doc, ast.Constant) and isinstance(doc.value, str):
                ends.append((doc.end_lineno, doc.end_col_offset))
    for line, col in sorted(ends, reverse=True):
        raw = lines[line - 1]
        quote = 3 if raw[:col].endswith((b'"""', b"'''")) else 1
        lines[line - 1] = raw[: col - quote] + b" (edited)" + raw[col - quote :]
    assert ends, "no docstring to edit"
    return b"\n".join(lines).decode()


@pytest.fixture(scope="module")
def copied_run(tiny_pipeline, tmp_path_factory) -> Path:
    """A copy of the finished tiny run with its own engines/, to edit (mtimes kept: nothing to do)."""
    wd = tmp_path_factory.mktemp("versions") / "wd"
    shutil.copytree(tiny_pipeline, wd, symlinks=True)
    return wd


def dry_run_after(wd: Path, edits: dict[Path, str]) -> str:
    """``snakemake -n`` output with ``edits`` (path -> new text) in place; the files are put back after."""
    originals = {p: p.read_text() for p in edits}
    try:
        for path, text in edits.items():
            path.write_text(text)
        return snakemake(wd, "-n", "--cores", "1", env_extra=env_of(wd)).stdout
    finally:
        for path, text in originals.items():
            path.write_text(text)


def test_comment_and_docstring_edits_schedule_nothing(copied_run):
    wd = copied_run
    files = hashed_files(wd)
    assert "Nothing to be done" in dry_run_after(wd, {})
    comments = {p: with_comments(p.read_text(), p.suffix) for p in files}
    assert "Nothing to be done" in dry_run_after(wd, comments)
    docstrings = {p: with_docstrings_edited(p.read_text()) for p in files if p.suffix == ".py"}
    assert "Nothing to be done" in dry_run_after(wd, docstrings)
    # the test-only references and the CLIs are in no version at all
    outside = [wd / "engines" / g / f for g in GAMES for f in ("reference.py", "cli.py", *engine(g).tooling_modules)]
    code = {p: p.read_text() + "\n_A_CODE_EDIT = 1\n" for p in outside if p.exists()}
    assert "Nothing to be done" in dry_run_after(wd, code)


def test_a_code_edit_in_the_core_reruns_every_game(copied_run):
    wd = copied_run
    rng = wd / "engines" / "core" / "rng.py"
    jobs = planned_jobs(dry_run_after(wd, {rng: rng.read_text() + "\n_A_CODE_EDIT = 1\n"}))
    # RedBlack's search shards carry an explicit result version (tests/redblack/test_result_version.py)
    for game in GAMES:
        assert any(r.startswith(f"{game}_") and r != "redblack_shard" and r != f"{game}_report" for r in jobs), jobs
    assert jobs.get("warehouse") == 1
