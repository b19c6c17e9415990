"""The Spark lines of docs/python.md, run as written on a local Spark
(pyspark, two threads), give for a directory made from the corpus exactly
`chunktui chunk`'s chunks of each file. Needs a Java runtime
(scripts/test.sh installs Debian's openjdk-17-jre-headless when there is
none)."""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
import warnings
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import pytest

import chunktui.rows
from pkgtest import REPO, cli_records, corpus_pieces_dir


def documented_spark_lines() -> str:
    """The Python block under the **Spark** paragraph of docs/python.md."""
    doc = (REPO / "docs" / "python.md").read_text(encoding="utf-8")
    found = re.search(r"\*\*Spark\*\*.*?```python\n(.*?)```", doc, re.S)
    assert found, "docs/python.md has no **Spark** paragraph with a ```python block"
    return found.group(1)


@contextmanager
def local_spark() -> Iterator[Any]:
    """A local Spark on two threads. Its JVM starts in the current directory
    and resolves relative paths from there, so create it after a chdir."""
    if shutil.which("java") is None:
        pytest.fail("Spark needs a Java runtime: apt-get install openjdk-17-jre-headless (scripts/test.sh does)")
    # Spark's Python workers run this Python, which has chunktui installed.
    os.environ["PYSPARK_PYTHON"] = sys.executable
    from pyspark.sql import SparkSession

    session = (
        SparkSession.builder.master("local[2]")
        .appName("chunktui-test")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .getOrCreate()
    )
    try:
        yield session
    finally:
        session.stop()


def test_the_documented_spark_lines_give_the_clis_chunks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = corpus_pieces_dir(tmp_path)
    monkeypatch.chdir(tmp_path)  # the lines read docs/ and chunktui.toml

    with ExitStack() as stack, warnings.catch_warnings():
        # pyspark 4.3 warns that its pandas 3 support is not complete;
        # mapInPandas on these columns is what this test checks.
        warnings.filterwarnings("ignore", message="PySpark does not yet fully support pandas", category=FutureWarning)
        spark = stack.enter_context(local_spark())
        scope: dict[str, Any] = {"spark": spark}
        exec(documented_spark_lines(), scope)  # noqa: S102  # the documented lines, as a user runs them
        rows = [r.asDict() for r in scope["chunks"].collect()]

    assert set(rows[0]) == set(chunktui.rows.COLUMNS)
    by_file: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        by_file.setdefault(Path(row["id"].removeprefix("file:")).name, []).append(row)
    assert sorted(by_file) == [f.name for f in files]
    columns = [k for k in chunktui.rows.COLUMNS if k != "id"]
    for f in files:
        got = sorted(by_file[f.name], key=lambda r: int(r["index"]))
        want = cli_records(f, "--config", str(tmp_path / "chunktui.toml"))
        assert [{k: (json.loads(r[k]) if k == "meta" else r[k]) for k in columns} for r in got] == [
            {k: e[k] for k in columns} for e in want
        ], f.name
