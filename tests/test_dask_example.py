"""examples/dask: alpha over a partitioned Parquet dataset on a local cluster equals one machine."""

import importlib.util
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from iaa_gate.metrics import category_agreement, krippendorff_alpha, specific_agreement

pytest.importorskip("dask.dataframe", reason="the dask extra is not installed")
pytest.importorskip("distributed", reason="the dask extra is not installed")

SCRIPT = Path(__file__).parents[1] / "examples" / "dask" / "agreement.py"
spec = importlib.util.spec_from_file_location("dask_agreement_example", SCRIPT)
assert spec is not None and spec.loader is not None
example = importlib.util.module_from_spec(spec)
spec.loader.exec_module(example)


@pytest.mark.slow
def test_runs_on_a_local_cluster_and_equals_one_machine(tmp_path: Path) -> None:
    """The script as a user runs it: 2 worker processes, a unit's ratings in 5 partitions."""
    data = tmp_path / "ratings"
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), str(data), "--generate", "3000", "--check"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "equal to the single-machine result: yes" in proc.stdout
    assert len(list(data.glob("*.parquet"))) == 5

    wide = pd.read_parquet(data).pivot(index="unit", columns="annotator", values="value")
    x = wide.to_numpy(dtype=object)
    x[pd.isna(x)] = None
    alpha = float(proc.stdout.split("(nominal): ")[1].split()[0])
    assert alpha == pytest.approx(krippendorff_alpha(x), abs=1e-15)
    local = example.local_agreement(data)
    assert local.alpha == alpha
    assert local.categories == category_agreement(x)
    assert local.specific == specific_agreement(x)


def test_block_gathers_whole_units_and_refuses_a_double_rating() -> None:
    frame = pd.DataFrame(
        {
            "unit": [7, 3, 7, 3, 9],
            "annotator": ["a", "a", "b", "c", "a"],
            "value": [1.0, 2.0, math.nan, 2.0, 5.0],
        }
    )
    block = example.block(frame)
    assert block.shape == (3, 2)
    assert block.tolist() == [[2.0, 2.0], [1.0, None], [5.0, None]]
    with pytest.raises(ValueError, match="unit 3 has two ratings by annotator a"):
        example.block(pd.concat([frame, frame.iloc[[1]]]))
    assert np.array_equal(example.block(frame.iloc[:0]), np.empty((0, 0), dtype=object))
