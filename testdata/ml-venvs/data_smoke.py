import os
import tempfile

import duckdb
import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

failed = []


def step(name, fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 (each step's failure is reported, then the next runs)
        failed.append(f"{name}: {type(e).__name__}: {e}")


df = pd.DataFrame({"k": np.arange(100) % 7, "v": np.linspace(0.0, 1.0, 100)})
path = os.path.join(tempfile.mkdtemp(), "t.parquet")


def parquet_roundtrip():
    pq.write_table(pa.Table.from_pandas(df), path)
    assert pq.read_table(path).to_pandas().equals(df)


def duckdb_on_parquet():
    got = (
        duckdb.connect()
        .execute(
            f"select k, sum(v) s from read_parquet('{path}') group by k order by k"
        )
        .df()
    )
    assert len(got) == 7 and abs(float(got["s"].sum()) - 50.0) < 1e-9


named = pd.DataFrame({"name": ["a", "b", "c"], "n": [1, 2, 3]})


def duckdb_on_pandas():
    assert duckdb.connect().execute("select count(*) from df").fetchone()[0] == 100
    row = duckdb.connect().execute("select name, n from named where n = 2").fetchone()
    assert row == ("b", 2)


def duckdb_to_arrow_table():
    # The pyarrow.Table a duckdb 1.1 user gets from `.arrow()`.
    table = duckdb.connect().execute("select avg(v) a from df").arrow()
    assert table.num_rows == 1


step("parquet round trip (pandas -> pyarrow -> pandas)", parquet_roundtrip)
step("duckdb query over parquet to pandas", duckdb_on_parquet)
step("duckdb query over pandas frames (numbers, strings)", duckdb_on_pandas)
step("duckdb result as a pyarrow Table (.arrow())", duckdb_to_arrow_table)
versions = f"pandas {pd.__version__} numpy {np.__version__} pyarrow {pa.__version__} duckdb {duckdb.__version__}"
if failed:
    print("FAILED", versions)
    for f in failed:
        print("  " + f)
    raise SystemExit(1)
print("ok data", versions)
