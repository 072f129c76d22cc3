"""One point as a self-contained job: what to run (a JSON-serialisable dict, so it can
travel to another machine through GNU parallel or a SLURM array), and running it into one
record: rundb's result line tagged with the spec, point and repetition, or a failure
record with the exit status and the last lines of stderr."""

import base64
import hashlib
import json
import os
import signal
import socket
import subprocess
import time
from pathlib import Path

from .spec import ROOT, Point, Spec

STDERR_TAIL_LINES = 15


def make_job(spec: Spec, point: Point, oversubscribed_by_spec: bool) -> dict:
    args = spec.rundb_args(point)
    variant = point.get("variant")
    # identifies the configuration apart from the seed: a result line whose key differs
    # from the spec's current one was made by an earlier version of the spec
    key_args = list(args)
    seed_at = key_args.index("--seed")
    del key_args[seed_at : seed_at + 2]
    config_key = hashlib.sha1(json.dumps([variant] + key_args).encode()).hexdigest()[:12]
    return {
        "spec": spec.name,
        "scale": spec.scale,
        "point": dict(point.params),
        "point_id": point.point_id,
        "rep": point.rep,
        "config_key": config_key,
        "binary": f"build/bin/rundb-{variant}",
        "args": args,
        "timeout": spec.timeout,
        "expected_s": spec.warmup + spec.duration,
        "oversubscribed_by_spec": oversubscribed_by_spec,
    }


def encode(job: dict) -> str:
    """A job as one shell-safe word (for GNU parallel's argument list)."""
    return base64.urlsafe_b64encode(json.dumps(job).encode()).decode()


def decode(word: str) -> dict:
    return json.loads(base64.urlsafe_b64decode(word.encode()))


def _tags(job: dict) -> dict:
    return {k: job[k] for k in ("spec", "point", "point_id", "rep", "scale", "config_key",
                                "oversubscribed_by_spec")}


def failure(job: dict, status: str, exit_code, stderr_tail: str, wall_s=None) -> dict:
    """The record of a point that produced no result ("failed" or "timeout")."""
    rec = {**_tags(job), "status": status, "exit": exit_code, "stderr_tail": stderr_tail,
           "command": [job["binary"]] + job["args"], "host": socket.gethostname()}
    if wall_s is not None:
        rec["wall_s"] = round(wall_s, 3)
    return rec


def _tail(text: str) -> str:
    return "\n".join(text.rstrip("\n").splitlines()[-STDERR_TAIL_LINES:])


class Interrupted(Exception):
    """The runner was asked to stop (SIGINT or SIGTERM) while a point ran."""


def run(job: dict, root: Path = ROOT) -> dict:
    """Runs the job's rundb command in its own process group and returns its record. A
    point succeeds when rundb exits 0 and its last stdout line is a JSON object."""
    cmd = [job["binary"]] + job["args"]
    start = time.monotonic()
    try:
        proc = subprocess.Popen(cmd, cwd=root, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, start_new_session=True)
    except OSError as e:
        return failure(job, "failed", None, f"cannot start {cmd[0]}: {e.strerror}")
    try:
        out, err = proc.communicate(timeout=job["timeout"])
        status = "ok" if proc.returncode == 0 else "failed"
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        status = "timeout"
    except BaseException:
        # the runner is stopping: the point is lost, never recorded half-done
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        raise
    wall = time.monotonic() - start
    if status == "ok":
        lines = out.strip().splitlines()
        try:
            result = json.loads(lines[-1]) if lines else None
        except json.JSONDecodeError:
            result = None
        if isinstance(result, dict):
            window = float(result.get("duration_s", 0.0))
            # the warm-up the run itself reports (its config), not what the caller expected
            warmup = float(result.get("config", {}).get("run", {}).get("warmup", 0.0))
            result.update(_tags(job))
            # overhead: wall time outside the measured window (warm-up included); the
            # rest of it, beyond the warm-up, is process start, load, query generation
            # and teardown
            result["runner"] = {"wall_s": round(wall, 3), "overhead_s": round(wall - window, 3),
                                "setup_s": round(wall - window - warmup, 3),
                                "host": socket.gethostname(), "command": cmd}
            return result
        status, err = "failed", err + "\n(no JSON result line on stdout)"
    return failure(job, status, proc.returncode if status != "timeout" else None, _tail(err),
                   wall)


def is_failure(record: dict) -> bool:
    return "status" in record and record.get("status") != "ok"
