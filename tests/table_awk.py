"""Runs experiments/table.awk (`make bench`'s and `make run`'s table) on result dicts, for
the tests of its columns."""
import json
import subprocess
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def table_text(results):
    """table.awk's output for these results, written as one JSON line each."""
    with tempfile.TemporaryDirectory() as d:
        f = Path(d) / "r.jsonl"
        f.write_text("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in results))
        return subprocess.run(["awk", "-f", str(ROOT / "experiments" / "table.awk"), str(f)],
                              capture_output=True, text=True, check=True).stdout
