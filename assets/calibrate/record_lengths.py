"""Per-request token lengths as the fit reads them: each level's records summarised to at most
RECORD_LENGTHS_PER_LEVEL order statistics, read for every config at once or, where the stored fits spare the rest,
only for the configs fitted now (`level_lengths` of their runs, then `with_record_lengths`); and what cheaply
identifies a level's records without reading them (`records_keys`: their sources, for the evidence fingerprint of
assets/calibrate/fit_store.py)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING

import duckdb
import numpy as np

from assets.calibrate.traffic import Lengths

if TYPE_CHECKING:  # levels.py reads the lengths through this module
    from assets.calibrate.levels import Config

LevelKey = tuple[str, int]  # (run_id, load_index)
OK_RECORDS = "status = 'ok' AND phase = 'measure' AND input_tokens > 0 AND output_tokens > 0"
EMPIRICAL_FROM = 10  # lengths a level needs to be resampled from (else its means stand)


RECORD_LENGTHS_PER_LEVEL = 1000  # a level's per-request token lengths, as the fit resamples them


def summarised_lengths(values: list[int]) -> np.ndarray:
    """A level's per-request lengths as the fit needs them: all of them up to RECORD_LENGTHS_PER_LEVEL, else that
    many evenly spaced order statistics (the midpoints of equal shares of the sorted lengths: the same distribution
    within 1/1000 in rank, deterministic), so a level of a million records costs the fit what a small one does."""
    lengths = np.asarray(values)
    if len(lengths) <= RECORD_LENGTHS_PER_LEVEL:
        return lengths
    shares = (np.arange(RECORD_LENGTHS_PER_LEVEL) + 0.5) * len(lengths) / RECORD_LENGTHS_PER_LEVEL
    return np.sort(lengths)[shares.astype(np.int64)]


def level_lengths(
    conn: duckdb.DuckDBPyConnection, run_ids: Sequence[str] | None = None
) -> dict[LevelKey, tuple[list[int], list[int]]]:
    """Each level's input and output lengths of its completed, measured requests (of `run_ids`, default every run)."""
    where = OK_RECORDS
    params: list[object] = []
    if run_ids is not None:
        where += " AND list_contains(?, run_id)"
        params.append(list(run_ids))
    records = conn.execute(
        "SELECT run_id, load_index, list(input_tokens) AS inp, list(output_tokens) AS out FROM observed.requests "
        f"WHERE {where} GROUP BY ALL",
        params,
    ).pl()
    return {(r["run_id"], r["load_index"]): (r["inp"], r["out"]) for r in records.iter_rows(named=True)}


def records_keys(conn: duckdb.DuckDBPyConnection) -> dict[LevelKey, str]:
    """What each level's per-request records are, in one string: every repeat's source file, its checksum, where
    observed.requests reads it (a records file is named by its content and the code that read it), which part of it
    and how many rows were kept (observed.request_sources); none is read."""
    rows = conn.sql(
        "SELECT run_id, load_index, to_json(list([repeat_index::VARCHAR, source, source_sha256, reader, location, "
        "source_key, requests::VARCHAR, rows_quarantined::VARCHAR] ORDER BY repeat_index, source_key)) AS sources "
        "FROM observed.request_sources GROUP BY ALL"
    ).fetchall()
    return {(run_id, load_index): str(sources) for run_id, load_index, sources in rows}


def with_record_lengths(cfg: Config, lengths: dict[LevelKey, tuple[list[int], list[int]]]) -> Config:
    """The config with its levels' lengths from `lengths` (`level_lengths` of its runs: a config read without them,
    `read_configs(conn, record_lengths=False)`, summarised here); the same config when none of its levels has
    records."""
    if not any(lv.records_key for lv in cfg.levels):
        return cfg
    levels = []
    for lv in cfg.levels:
        found = lengths.get((lv.run_id, lv.load_index))
        if found is not None:
            inp, out = summarised_lengths(found[0]), summarised_lengths(found[1])
            lv = dataclasses.replace(
                lv,
                inp=Lengths.empirical(inp) if len(inp) >= EMPIRICAL_FROM else lv.inp,
                out=Lengths.empirical(out) if len(out) >= EMPIRICAL_FROM else lv.out,
            )
        levels.append(lv)
    return dataclasses.replace(cfg, levels=levels)
