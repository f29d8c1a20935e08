"""write_select (assets/warehouse/parquet.py): a SELECT streamed into one Parquet file by pyarrow's writer, in order,
a withheld column returned instead of stored, and a DuckDB failure part-way through the stream raised as the
duckdb.Error it is (the request pass's tolerant re-read depends on it)."""

import duckdb
import pyarrow.parquet as pq
import pytest

from assets.warehouse.parquet import ROWS_PER_BATCH, write_select

ROWS = ROWS_PER_BATCH * 2 + 5  # more than two batches: the last ones stream after the first was written


def test_rows_are_written_in_order_and_the_withheld_column_is_returned_not_stored(tmp_path):
    conn = duckdb.connect()
    conn.execute("SET preserve_insertion_order = true")
    target = tmp_path / "rows.parquet"
    kept = write_select(
        conn,
        f"SELECT i AS ordinal, CASE WHEN i % 2 = 0 THEN 'ok' ELSE 'error' END AS status, i * 7 AS secret "
        f"FROM range({ROWS}) AS t(i)",
        target,
        dictionary=["status", "not_a_column"],
        withhold="secret",
    )
    table = pq.read_table(target)
    assert table.column("ordinal").to_pylist() == list(range(ROWS))
    assert table.column("secret").null_count == ROWS  # written as nulls: the schema stays whole
    assert [v for chunk in kept for v in chunk.to_pylist()] == [i * 7 for i in range(ROWS)]
    metadata = pq.ParquetFile(target).metadata.row_group(0)
    encodings = {metadata.column(c).path_in_schema: metadata.column(c).encodings for c in range(metadata.num_columns)}
    assert "RLE_DICTIONARY" in encodings["status"] and "RLE_DICTIONARY" not in encodings["ordinal"]


def test_a_failure_late_in_the_stream_is_raised_as_a_duckdb_error(tmp_path):
    source = tmp_path / "late.csv"
    source.write_text("n\n" + "1\n" * ROWS + "x\n")  # the bad value comes after more than two batches
    conn = duckdb.connect()
    conn.execute("SET preserve_insertion_order = true")
    with pytest.raises(duckdb.Error, match="Could not convert string 'x'"):
        write_select(
            conn, f"SELECT n::INTEGER AS n FROM read_csv('{source}', all_varchar = true)", tmp_path / "o.parquet", []
        )
