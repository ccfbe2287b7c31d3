# Smoke test: duckdb scans a pandas DataFrame (numpy and, when pyarrow is installed, Arrow-backed
# columns) and hands the result back as a DataFrame. duckdb 0.8.1 under pandas 2.3.3 imports
# fine and fails here: its compiled extension imports `pandas.core.arrays.arrow.dtype`, which
# pandas 2.1 moved ("Required module pandas.core.arrays.arrow.dtype failed to import").
# Skipped (exit 77) where duckdb or pandas is not installed.
import importlib.util
import sys
from importlib.metadata import version

if (
    importlib.util.find_spec("duckdb") is None
    or importlib.util.find_spec("pandas") is None
):
    print("needs both duckdb and pandas")
    sys.exit(77)

import duckdb
import pandas as pd

df = pd.DataFrame({"k": ["a", "b", "a"], "v": [1, 2, 3]})
con = duckdb.connect()
con.register("planner_smoke", df)
rows = con.execute(
    "SELECT k, SUM(v) AS s FROM planner_smoke GROUP BY k ORDER BY k"
).fetchall()
assert rows == [("a", 4), ("b", 2)], "the scan gave %r" % (rows,)
back = con.execute("SELECT * FROM planner_smoke WHERE v > 1").df()
assert list(back["v"]) == [2, 3], "the DataFrame read back is %r" % (back,)
arrow = ""
if importlib.util.find_spec("pyarrow") is not None:
    typed = df.astype({"v": "int64[pyarrow]", "k": "string[pyarrow]"})
    total = duckdb.query_df(typed, "t", "SELECT SUM(v) FROM t").fetchall()[0][0]
    assert total == 6, "the Arrow-backed scan gave %r" % (total,)
    arrow = ", pyarrow %s (Arrow-backed columns)" % version("pyarrow")
print(
    "duckdb %s scanned a pandas %s DataFrame%s"
    % (version("duckdb"), version("pandas"), arrow)
)
