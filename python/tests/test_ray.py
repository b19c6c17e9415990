"""`chunktui.ray.chunk_dataset` on a local Ray cluster of two worker nodes
gives, for a directory made from the corpus, exactly `chunktui chunk`'s
chunks of each file."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import chunktui

# No usage reports, no dashboard: the cluster stays on this machine.
os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
os.environ.setdefault("RAY_ENABLE_UV_RUN_RUNTIME_ENV", "0")

import ray  # noqa: E402
from ray.cluster_utils import Cluster  # noqa: E402

import chunktui.ray  # noqa: E402
from pkgtest import cli_records, corpus_pieces_dir  # noqa: E402


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    nodes = Cluster(
        initialize_head=True,
        head_node_args={"num_cpus": 0, "include_dashboard": False},
    )
    for _ in range(2):
        nodes.add_node(num_cpus=1)
    ray.init(address=nodes.address, include_dashboard=False, log_to_driver=False)
    try:
        yield nodes
    finally:
        ray.shutdown()
        nodes.shutdown()  # type: ignore[no-untyped-call]


def test_chunk_dataset_gives_the_clis_chunks(cluster: Cluster, tmp_path: Path) -> None:
    files = corpus_pieces_dir(tmp_path)
    config = tmp_path / "chunktui.toml"

    ds = ray.data.read_binary_files(str(tmp_path / "docs"), include_paths=True)
    rows = chunktui.ray.chunk_dataset(ds, config, text_column="bytes", id_column="path").take_all()

    assert set(rows[0]) == set(chunktui.ray.COLUMNS)
    by_file: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        by_file.setdefault(Path(row["id"]).name, []).append(row)
    assert sorted(by_file) == [f.name for f in files]
    # The work ran on the two one-CPU worker nodes (the head has no CPU).
    workers = [n for n in ray.nodes() if n["Alive"] and n["Resources"].get("CPU")]  # type: ignore[no-untyped-call]
    assert len(workers) == 2
    for f in files:
        got = sorted(by_file[f.name], key=lambda r: int(r["index"]))
        want = cli_records(f, "--config", str(config))
        assert [
            {k: (json.loads(r[k]) if k == "meta" else r[k]) for k in chunktui.ray.COLUMNS if k != "id"} for r in got
        ] == [{k: e[k] for k in chunktui.ray.COLUMNS if k != "id"} for e in want], f.name


def test_ids_default_to_a_digest_of_the_text(cluster: Cluster) -> None:
    texts = ["第一段。\n\n第二段。", "Another document.\n\nIts second paragraph."]
    ds = ray.data.from_items([{"text": t} for t in texts])
    rows = chunktui.ray.chunk_dataset(ds, {"size": 5, "overlap": 0}).take_all()
    assert {r["id"] for r in rows} == {chunktui.rows.text_id(t) for t in texts}
    assert all(json.loads(r["meta"]) == {} for r in rows)
