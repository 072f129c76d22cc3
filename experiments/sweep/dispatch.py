"""Running a sweep's jobs beyond this process, on existing engines: GNU parallel over ssh
(one job per host at a time, so pinning keeps its meaning) and SLURM job arrays (one job
per array task, each task on a whole node). Both run `experiments/run --exec-...` on the
far side, from the same checkout path (a shared file system or an identical checkout)."""

import json
import os
import shlex
import shutil
import signal
import subprocess
from pathlib import Path

from . import job as jobmod
from .spec import ROOT


class DispatchError(Exception):
    pass


def _need(tool: str, package: str) -> None:
    if shutil.which(tool) is None:
        raise DispatchError(f"'{tool}' is not installed (apt-get install {package})")


def read_hosts(path: Path) -> list:
    """GNU parallel's sshlogin file: one [user@]host per line ('#' comments; ':' is this
    machine without ssh)."""
    try:
        lines = Path(path).read_text().splitlines()
    except OSError as e:
        raise DispatchError(f"--hosts {path}: {e.strerror}") from None
    hosts = [ln.strip() for ln in lines if ln.strip() and not ln.strip().startswith("#")]
    if not hosts:
        raise DispatchError(f"--hosts {path}: no hosts listed")
    return hosts


def _parallel_base(hosts_file: Path) -> list:
    # --will-cite: no citation notice waiting for input; -j1: one job per host at a time
    return ["parallel", "--will-cite", "--sshloginfile", str(hosts_file), "-j1"]


def build_on_hosts(hosts_file: Path, remote_dir: str, targets: list) -> None:
    """Builds the binaries once on every host (make does nothing where they are current)."""
    _need("parallel", "parallel")
    cmd = f"cd {shlex.quote(remote_dir)} && make -s -j$(nproc) {' '.join(map(shlex.quote, targets))}"
    r = subprocess.run(_parallel_base(hosts_file) + ["--nonall", cmd],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        raise DispatchError("building on the hosts failed: " + r.stderr.strip()[-300:])


def run_on_hosts(jobs: list, hosts_file: Path, remote_dir: str, on_record) -> None:
    """Runs the jobs through GNU parallel; on_record(job, record) is called as each one
    ends (parallel prints each job's single output line when the job is done)."""
    _need("parallel", "parallel")
    words = {jobmod.encode(j): j for j in jobs}
    cmd = _parallel_base(hosts_file) + [
        "--line-buffer", "--tagstring", "{}",
        f"cd {shlex.quote(remote_dir)} && experiments/run --exec-job {{}}", ":::", *words]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, start_new_session=True)
    try:
        for line in proc.stdout:
            word, _, payload = line.rstrip("\n").partition("\t")
            if word not in words:
                continue
            try:
                record = json.loads(payload)
            except ValueError:
                continue
            on_record(words.pop(word), record)
        proc.wait()
    except BaseException:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait()
        raise
    for word, j in words.items():  # a job that printed nothing (ssh failed, host down)
        on_record(j, jobmod.failure(j, "failed", None,
                                    f"no result from GNU parallel (exit {proc.returncode})"))


def write_slurm(jobs: list, spec_dir: Path, results_dir: Path, sbatch_args: list) -> Path:
    """Writes <spec_dir>/slurm/jobs.jsonl (one job per line) and job.sh, an sbatch array
    script whose task i runs job i and appends its record to the spec's results."""
    sdir = spec_dir / "slurm"
    sdir.mkdir(parents=True, exist_ok=True)
    jobs_file = sdir / "jobs.jsonl"
    jobs_file.write_text("".join(json.dumps(j) + "\n" for j in jobs))
    timeout_min = int(max(j["timeout"] for j in jobs) // 60 + 2)
    lines = [
        "#!/bin/bash",
        f"# Written by experiments/run: {len(jobs)} points of spec {jobs[0]['spec']}, one per",
        "# array task; each task has a whole node (--exclusive) so pinning keeps its meaning.",
        f"#SBATCH --job-name=rundb-{jobs[0]['spec']}",
        f"#SBATCH --array=0-{len(jobs) - 1}",
        "#SBATCH --nodes=1",
        "#SBATCH --exclusive",
        f"#SBATCH --time={timeout_min}",
        f"#SBATCH --output={sdir.resolve()}/task-%a.log",
        *(f"#SBATCH {a}" for a in sbatch_args),
        f"cd {shlex.quote(str(ROOT))}",
        f"exec experiments/run --exec-slurm-task {shlex.quote(str(jobs_file.resolve()))} "
        f"--results-dir {shlex.quote(str(Path(results_dir).resolve()))}",
    ]
    script = sdir / "job.sh"
    script.write_text("\n".join(lines) + "\n")
    script.chmod(0o755)
    return script


def submit_slurm(script: Path, wait: bool) -> str:
    _need("sbatch", "slurm-client")
    cmd = ["sbatch", "--parsable"] + (["--wait"] if wait else []) + [str(script)]
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        raise DispatchError(f"sbatch {script} failed (exit {r.returncode}): "
                            + (r.stderr.strip().splitlines() or [""])[-1])
    return r.stdout.strip().split(";")[0]
