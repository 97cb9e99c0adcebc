"""Results files: mutated records of the committed table 2 results through `read_records`, then
the table, the CSV and the figure-4 curves a report draws from them."""

from __future__ import annotations

import os
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nesyworld.experiments.protocol.figures import plot_curves
from nesyworld.experiments.protocol.paper_table2 import paper_comparison
from nesyworld.experiments.protocol.report import read_records, table2_rows, write_csv

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "docs" / "results" / "table2" / "results.jsonl"
SAMPLE = "\n".join(RESULTS.read_text(encoding="utf-8").splitlines()[:3]) + "\n"
EXAMPLES = int(os.environ.get("NESYWORLD_FUZZ_EXAMPLES") or 15)


def _report(path: Path, out: Path) -> None:
    records = read_records(path)
    paper_comparison(table2_rows(records))
    write_csv(records, out / "metrics.csv")
    plot_curves(records, out, formats=())  # every curve drawn, nothing written


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_mutated_results_report_or_refuse(fuzz, data, tmp_path_factory) -> None:
    folder = tmp_path_factory.mktemp("results")
    path = folder / "results.jsonl"
    if data.draw(st.booleans(), label="bytes"):
        path.write_bytes(fuzz.mutant_bytes(data, SAMPLE.encode()))
    else:
        path.write_text(fuzz.mutant(data, SAMPLE), encoding="utf-8", errors="surrogatepass")
    fuzz.run("results.jsonl mutated", lambda: _report(path, folder))
