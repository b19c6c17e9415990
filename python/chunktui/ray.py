"""Ray Data: `chunk_dataset` turns a dataset of documents into one of
chunks, one row per chunk, cut in the workers with `map_batches`.

    import ray, chunktui.ray
    ds = ray.data.read_binary_files("docs/", include_paths=True)
    chunks = chunktui.ray.chunk_dataset(ds, "chunktui.toml", text_column="bytes", id_column="path")

Needs `ray[data]` (imported with this module, never by `import chunktui`).
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Any, Union, cast

try:
    import ray.data  # noqa: F401  (the dependency this module is for)
except ModuleNotFoundError as err:  # say what to install, not only what is missing
    raise ModuleNotFoundError(f"chunktui.ray needs Ray Data ({err}): pip install 'ray[data]'", name=err.name) from err

from . import Chunker
from ._chunktui import _chunker_from_json
from .rows import COLUMNS, chunk_rows

if TYPE_CHECKING:
    from ray.data import Dataset

__all__ = ["COLUMNS", "chunk_dataset", "chunk_rows"]

Config = Union[str, "os.PathLike[str]", Chunker, dict[str, Any]]

# One chunker per config in each worker process: Ray reuses its workers, so
# the tokenizer is loaded once per process, not once per batch.
_CHUNKERS: dict[str, Chunker] = {}


def _chunker(config_json: str) -> Chunker:
    chunker = _CHUNKERS.get(config_json)
    if chunker is None:
        chunker = _CHUNKERS[config_json] = _chunker_from_json(config_json)
    return chunker


def _chunk_batch(
    batch: dict[str, Any], config_json: str, text_column: str, id_column: str | None, threads: int
) -> dict[str, list[Any]]:
    ids = batch[id_column] if id_column is not None else None
    return chunk_rows(_chunker(config_json), batch[text_column], ids, threads=threads)


def chunk_dataset(
    ds: Dataset,
    config: Config,
    text_column: str = "text",
    id_column: str | None = None,
    *,
    batch_size: int = 16,
    threads: int = 1,
    **map_batches_args: Any,
) -> Dataset:
    """One row per chunk: `id` (the document's `id_column`, else a digest of
    its text), `index`, `start`, `end` (bytes), `char_start`, `char_end`,
    `size`, `text`, `meta` (JSON). `config` is a config file (read here, on
    the driver), a dict of config keywords or a `Chunker`. Each Ray task
    chunks on `threads` threads (Ray gives a task one CPU by default); other
    keywords go to `Dataset.map_batches`."""
    if isinstance(config, Chunker):
        chunker = config
    elif isinstance(config, dict):
        chunker = Chunker(**config)
    else:
        chunker = Chunker.from_config(config)
    fn_kwargs = {
        "config_json": json.dumps(chunker.config),
        "text_column": text_column,
        "id_column": id_column,
        "threads": threads,
    }
    # map_batches's types know no fn_kwargs: the function takes more than a batch.
    return ds.map_batches(
        cast(Any, _chunk_batch), batch_format="numpy", batch_size=batch_size, fn_kwargs=fn_kwargs, **map_batches_args
    )
