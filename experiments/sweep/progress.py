"""Sweep progress: on a terminal one line rewritten in place (points done / total, elapsed,
estimated time left, the running point); otherwise one plain line per finished point."""

import sys
import time


def hms(seconds: float) -> str:
    s = int(max(seconds, 0) + 0.5)
    return f"{s // 3600}h{s // 60 % 60:02d}m{s % 60:02d}s" if s >= 3600 else f"{s // 60}m{s % 60:02d}s"


class Progress:
    def __init__(self, total: int, expected_s: list, stream=sys.stderr):
        self.total = total
        self.done = 0
        self.failed = 0
        self.remaining_expected = sum(expected_s)
        self.overheads = []
        self.start = time.monotonic()
        self.stream = stream
        self.tty = stream.isatty()
        self.current = ""

    def eta(self) -> float:
        """Expected seconds of the points left, plus the median overhead seen so far."""
        if not self.overheads:
            return self.remaining_expected
        o = sorted(self.overheads)[len(self.overheads) // 2]
        return self.remaining_expected + o * (self.total - self.done)

    def _status(self) -> str:
        return (f"[{self.done}/{self.total}] elapsed {hms(time.monotonic() - self.start)}, "
                f"left ~{hms(self.eta())}" + (f", {self.failed} failed" if self.failed else ""))

    def starting(self, label: str) -> None:
        self.current = label
        if self.tty:
            line = f"{self._status()}  running {label}"
            self.stream.write("\r\033[K" + line[: 200])
            self.stream.flush()

    def finished(self, label: str, ok: bool, wall_s: float, expected_s: float,
                 overhead_s=None, detail: str = "") -> None:
        self.done += 1
        self.failed += not ok
        self.remaining_expected -= expected_s
        if overhead_s is not None:
            self.overheads.append(overhead_s)
        if self.tty:
            if not ok:  # failures stay on screen
                self.stream.write(f"\r\033[KFAILED {label}: {detail}\n")
            self.stream.write("\r\033[K" + self._status())
        else:
            state = "ok" if ok else f"FAILED ({detail})"
            self.stream.write(f"{self._status()}  {label} {state} {wall_s:.1f}s\n")
        self.stream.flush()

    def close(self) -> None:
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()
