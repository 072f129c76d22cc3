"""The results of a sweep: results/<spec>/results.jsonl (one line per finished point) and
failures.jsonl (one line per failed or timed-out attempt).

Each record is appended as one write() on a file opened with O_APPEND, under an exclusive
flock (SLURM tasks on a shared file system append to the same file), then fsync'ed, so a
finished point survives the runner being killed right after; a line cut short by a crash
mid-write is skipped (and reported) when the file is read back.
"""

import fcntl
import json
import os
from pathlib import Path


class Store:
    def __init__(self, results_dir: Path, spec_name: str):
        self.dir = Path(results_dir) / spec_name
        self.results = self.dir / "results.jsonl"
        self.failures = self.dir / "failures.jsonl"

    def append(self, record: dict, failure: bool) -> None:
        self.dir.mkdir(parents=True, exist_ok=True)
        path = self.failures if failure else self.results
        data = (json.dumps(record, separators=(",", ":")) + "\n").encode()
        fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            end = os.lseek(fd, 0, os.SEEK_END)
            if end and os.pread(fd, 1, end - 1) != b"\n":
                data = b"\n" + data  # end a line a killed writer left unfinished
            os.write(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)

    def finished(self) -> tuple:
        """({(point_id, rep): config_key} of every result line, number of unreadable
        lines)."""
        done, bad = {}, 0
        if not self.results.exists():
            return done, bad
        with open(self.results) as f:
            for line in f:
                try:
                    rec = json.loads(line)
                    done[(rec["point_id"], rec["rep"])] = rec.get("config_key")
                except (json.JSONDecodeError, KeyError, TypeError):
                    bad += 1
        return done, bad

    def records(self, failures: bool = False) -> list:
        """Every readable line of results.jsonl (or failures.jsonl)."""
        path = self.failures if failures else self.results
        out = []
        if path.exists():
            with open(path) as f:
                for line in f:
                    try:
                        out.append(json.loads(line))
                    except json.JSONDecodeError:
                        pass
        return out
