"""The shipped SLURM profile on a real single-node SLURM cluster (tests/slurm_cluster.py:
Debian's packages, which `make test-tools` installs), once without accounting and once with
slurmdbd + MariaDB: a signal ends a run, the rerun finishes the campaign although one of
its running jobs is cancelled with `scancel`, and the Parquet files are the bytes of a
local run of the same config.  Skipped, with the reason, where SLURM cannot be started
(not root, or not installed: tests/system_tools.py says how to enable it).

Every snakemake run is in its own process group under a hard timeout, so a hang fails
the test instead of hanging CI; the daemons are stopped by PID whatever happens."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from slurm_cluster import Cluster, not_installed, unavailable_reason, wait_until
from system_tools import missing
from wfhelp import SNAKEMAKE, WAREHOUSE_RULE, digests, env, workdir

CONFIG = (Path(__file__).parent / "slurm_campaign.yaml").read_text()  # 4 shard jobs + the warehouse
PROFILE = ["--workflow-profile", "workflow/profiles/slurm"]
# The profile's status-check delays suit 10-60 minute jobs; these jobs last seconds.
QUICK_CHECKS = ["--slurm-init-seconds-before-status-checks", "1", "--seconds-between-status-checks", "1"]
# ... and the plugin's growing pause between checks, which no option sets, capped there too
QUICK_CHECKS_SITE = Path(__file__).parent / "slurm_quick_checks"
RUN_TIMEOUT_S = 1200  # one snakemake run through SLURM (a few minutes on two loaded cores)
SIGNAL_TIMEOUT_S = 300  # from the signal to the run's end: the running jobs finish or are cancelled
# What plugin 2.8.0 prints on a cluster without accounting, where no account can be given
# (docs/scaling.md); with accounting the test sets the account, and nothing may be printed.
NO_ACCOUNTING_NOTES = (
    "No SLURM account given, trying to guess.",
    "No account was given, not able to get a SLURM account via sacct",
    "Unable to guess SLURM account. Trying to proceed without.",
)
NOTE_WORDS = re.compile(r"warn|account|sacct|minjobage|unable|falling back|not recogni", re.I)


@pytest.fixture(scope="module", params=["without accounting", "with accounting"])
def cluster(request):
    accounting = request.param == "with accounting"
    reason = unavailable_reason(accounting) or not_installed(accounting)
    if reason:
        missing(f"no SLURM cluster here: {reason}")
    # short and traversable: the munge socket's path must fit a Unix socket name
    root = Path(tempfile.mkdtemp(prefix="cardlab-slurm-", dir="/tmp"))
    with Cluster(root, accounting) as c:
        yield c
    shutil.rmtree(root)


@pytest.fixture(scope="module")
def local_run(tmp_path_factory) -> tuple[dict[str, str], float]:
    """Digests and wall time of a local run of CONFIG on 2 cores."""
    wd = workdir(tmp_path_factory.mktemp("slurm-local"), CONFIG)
    began = time.monotonic()
    done = subprocess.run(
        [SNAKEMAKE, "--cores", "2", WAREHOUSE_RULE], cwd=wd, env=env(), capture_output=True, text=True, timeout=900
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return digests(wd), time.monotonic() - began


def through_slurm(cluster: Cluster, extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of a snakemake run that submits to ``cluster``, its status-check pauses capped (tests/slurm_quick_checks)."""
    run_env = env({"SLURM_CONF": str(cluster.conf), **(extra or {})})
    return {**run_env, "PYTHONPATH": os.pathsep.join([str(QUICK_CHECKS_SITE), run_env["PYTHONPATH"]])}


def interruptible() -> None:
    """Ctrl-C reaches snakemake even where this test was started in the background: a shell ignores
    SIGINT in what it starts with `&`, the ignoring is inherited, and Python then installs no
    KeyboardInterrupt handler."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class Run:
    """One snakemake run through the cluster, in its own process group, output in a file."""

    def __init__(self, wd: Path, cluster: Cluster, *args: str, env_extra: dict[str, str] | None = None):
        self.cluster = cluster
        self.log = wd / "snakemake-through-slurm.out"
        self.began = time.monotonic()
        with open(self.log, "w") as out:
            self.proc = subprocess.Popen(
                [SNAKEMAKE, *PROFILE, *QUICK_CHECKS, *args, WAREHOUSE_RULE],
                cwd=wd,
                env=through_slurm(cluster, env_extra),
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
                preexec_fn=interruptible,
            )

    @property
    def output(self) -> str:
        return self.log.read_text()

    def running_job(self) -> str:
        """The id of a job the cluster runs now (waits for one)."""
        while self.proc.poll() is None and time.monotonic() - self.began < RUN_TIMEOUT_S:
            ids = self.cluster.slurm("squeue", "-h", "-t", "RUNNING", "-o", "%i").stdout.split()
            if ids:
                return ids[0]
            time.sleep(0.2)
        raise AssertionError(f"no job ran:\n{self.output[-3000:]}")

    def job_state(self, job: str) -> str:
        """A job's state as SLURM reports it (finished jobs included), "" once it is forgotten."""
        return self.cluster.slurm("squeue", "--states=all", "-h", "-j", job, "-o", "%T", check=False).stdout.strip()

    def cancel_a_running_job(self) -> str:
        """`scancel` a job the cluster runs, and wait for SLURM's verdict on it: a job that finished before
        the cancel reached it is COMPLETED, not CANCELLED; then the next running job is taken.  Returns
        the id of a job SLURM says it cancelled (no guess about how long a job runs)."""
        while True:
            job = self.running_job()
            self.cluster.slurm("scancel", job, check=False)  # a job already gone is no error here
            final = {}

            def settled(job: str = job, final: dict = final) -> bool:
                final["state"] = self.job_state(job)
                return final["state"] not in ("RUNNING", "COMPLETING", "PENDING")

            wait_until(settled, f"job {job}'s end after scancel", timeout=SIGNAL_TIMEOUT_S)
            if final["state"].startswith("CANCELLED"):
                return job

    def no_job_left(self) -> None:
        """Wait until the cluster holds no job of the run: scancel does not wait for the jobs to end, and a
        job may stay COMPLETING a while after its process was signalled (an event, with a long deadline)."""
        left = {}

        def empty() -> bool:
            left["jobs"] = self.cluster.slurm("squeue", "-h", "-o", "%i %T").stdout.strip()
            return left["jobs"] == ""

        try:
            wait_until(empty, "the run's jobs gone from the cluster", timeout=SIGNAL_TIMEOUT_S)
        except RuntimeError:
            raise AssertionError(f"jobs left behind: {left['jobs']}") from None

    def wait(self, timeout: float = RUN_TIMEOUT_S) -> int:
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
            raise AssertionError(f"snakemake through SLURM hung ({timeout:.0f} s):\n{self.output[-3000:]}") from None

    def notes(self, cancelled: str) -> list[str]:
        """Lines that look like a warning, apart from the report on the job the test cancelled."""
        lines = [ln for ln in self.output.splitlines() if not ln.lstrip().startswith("resources:")]  # slurm_account=
        return [ln for ln in lines if NOTE_WORDS.search(ln) and f"SLURM-job '{cancelled}'" not in ln]


def set_account_in_profile(wd: Path, account: str) -> None:
    """What docs/scaling.md asks of a site with accounting: uncomment slurm_account."""
    profile = wd / "workflow" / "profiles" / "slurm" / "config.v8+.yaml"
    text = profile.read_text()
    assert '# slurm_account: "my_account"' in text
    profile.write_text(text.replace('# slurm_account: "my_account"', f'slurm_account: "{account}"'))


def test_slurm_profile_on_a_real_cluster(cluster, local_run, tmp_path):
    local, local_s = local_run
    wd = workdir(tmp_path / "wd", CONFIG)
    if cluster.accounting:
        set_account_in_profile(wd, "root")  # slurmdbd's built-in account

    # A signal ends the run: SIGTERM (a batch system's stop) submits nothing more and waits
    # for the submitted jobs, Ctrl-C (SIGINT) cancels them; either way no job of the run is
    # left on the cluster.  Two jobs at a time, so that most of the campaign is left to do.
    sig = signal.SIGINT if cluster.accounting else signal.SIGTERM
    first = Run(wd, cluster, "--jobs", "2")
    first.running_job()
    os.kill(first.proc.pid, sig)
    rc = first.wait(SIGNAL_TIMEOUT_S)
    assert rc != 0, first.output[-3000:]
    first.no_job_left()
    assert len(digests(wd)) < len(local), f"the run went on after {sig.name}"

    # The rerun resumes; one of its running jobs is cancelled and resubmitted (retries: 1).
    rerun = Run(wd, cluster)
    cancelled = rerun.cancel_a_running_job()
    assert rerun.wait() == 0, rerun.output[-4000:]
    out = rerun.output
    slurm_s = time.monotonic() - rerun.began
    assert f"SLURM-job '{cancelled}' failed, SLURM status is: 'CANCELLED'" in out, out[-3000:]
    assert "Trying to restart job" in out
    assert digests(wd) == local, "SLURM and local bytes differ"

    expected = () if cluster.accounting else NO_ACCOUNTING_NOTES
    notes = [ln for ln in first.notes(cancelled) + rerun.notes(cancelled) if not ln.startswith(expected)]
    assert notes == [], "\n".join(notes)
    print(
        f"\nSLURM {cluster.accounting=}: rerun {slurm_s:.0f} s, {job_seconds(cluster, wd)}; local run {local_s:.0f} s"
    )


def job_seconds(cluster: Cluster, wd: Path) -> str:
    """The mean time of a completed job in SLURM (start to end) and of the shard's own work in it."""
    rows = [ln.split("|") for ln in cluster.slurm("squeue", "--states=all", "-h", "-o", "%T|%S|%e").stdout.split()]
    spans = [
        time.mktime(time.strptime(end, "%Y-%m-%dT%H:%M:%S")) - time.mktime(time.strptime(start, "%Y-%m-%dT%H:%M:%S"))
        for state, start, end in rows
        if state == "COMPLETED"
    ]
    records = [json.loads(p.read_text()) for p in (wd / "results" / "timings").rglob("shard=*.json")]
    work = [r["wall_s"] for r in records if r.get("state") == "done"]
    return f"{len(spans)} jobs of {sum(spans) / len(spans):.1f} s in SLURM, shard work {sum(work) / len(work):.1f} s per shard"


# `cardlab redblack campaign K --run N` with the profile's options: the next shards as SLURM jobs
CAMPAIGN = """batch_cpu_s: 0
redblack:
  exhaustive:
    - k: [9]
      method: owner
      campaign: true
      deals_per_shard: 1000
  basins: false
"""
CAMPAIGN_SHARDS = "results/redblack/*/exhaustive_k09/owner/*.parquet"


def campaign_run(wd: Path, *extra: str, cluster: Cluster | None = None) -> subprocess.CompletedProcess:
    argv = [sys.executable, "-m", "engines.cli", "redblack", "campaign", "9", "--run", "3", *extra]
    run_env = through_slurm(cluster) if cluster else env()
    return subprocess.run(argv, cwd=wd, env=run_env, capture_output=True, text=True, timeout=RUN_TIMEOUT_S)


@pytest.fixture(scope="module")
def local_campaign(tmp_path_factory) -> Path:
    """The campaign's next shards run locally (once for both clusters)."""
    local = workdir(tmp_path_factory.mktemp("local-campaign"), CAMPAIGN)
    done = campaign_run(local, "--cores", "2")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return local


def test_a_campaign_runs_its_next_shards_through_slurm(cluster, local_campaign, tmp_path):
    local = local_campaign
    wd = workdir(tmp_path / "slurm", CAMPAIGN)
    if cluster.accounting:
        set_account_in_profile(wd, "root")
    options = " ".join([*PROFILE, *QUICK_CHECKS])
    run = campaign_run(wd, f"--snakemake={options}", cluster=cluster)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert re.search(r"k = 9: 3 shards \(0\.\.2, 3,000 deals\)", run.stdout)
    assert "keeps 3 shards (0..2) of 1,000 deals" in run.stdout  # the campaign's ledger
    # the shards ran as SLURM jobs, and they are the bytes of the local run's
    jobs = cluster.slurm("squeue", "--states=all", "-h", "-o", "%T").stdout.split()
    assert jobs.count("COMPLETED") >= 3, jobs
    ours = {p.relative_to(wd): p.read_bytes() for p in wd.glob(CAMPAIGN_SHARDS)}
    assert len(ours) == 9 and ours == {p.relative_to(local): p.read_bytes() for p in local.glob(CAMPAIGN_SHARDS)}
    assert (wd / "config.yaml").read_text() == (local / "config.yaml").read_text()


# Five shards on the GPU (numba-cuda's simulator), then one more size on the CPU
GPU_CAMPAIGN = """batch_cpu_s: 0
redblack:
  exhaustive:
    - {k: [6], method: owner, deals_per_shard: 100, backend: gpu}
  basins: false
"""
CPU_BLOCK = "    - {k: [5], method: owner, deals_per_shard: 1000}\n"


def test_gpu_shards_are_granted_gpus_through_slurm_and_cpu_shards_none(cluster, tmp_path):
    """The shipped profile, unchanged, on a node with two GPUs (a generic resource): each GPU shard's job is
    granted one (--gpus=1), two run at once on the two devices SLURM gave them, a CPU shard's job holds
    none, and the bytes are a CPU run's."""
    if cluster.accounting:
        pytest.skip("the GPU grant does not depend on accounting: checked on the cluster without it")
    from barrier import Barrier
    from test_gpu_jobs import records

    wd = workdir(tmp_path / "wd", GPU_CAMPAIGN)
    held = Barrier(tmp_path / "barrier", ".parquet")  # every shard's first table waits before its rename
    run = Run(wd, cluster, env_extra={**held.env(), "NUMBA_ENABLE_CUDASIM": "1"})
    try:
        held.wait_reached(run.proc, held=2)  # the event: two shard jobs hold there
        during = records(wd)
        assert sorted(r.get("device_id") for r in during.values()) == ["0", "1"], during
        held.release()
        assert run.wait() == 0, run.output[-4000:]
    finally:
        held.release()
        if run.proc.poll() is None:
            os.killpg(run.proc.pid, signal.SIGKILL)
        held.close()
    (wd / "config.yaml").write_text(GPU_CAMPAIGN.replace("  basins:", CPU_BLOCK + "  basins:"))
    rerun = Run(wd, cluster, env_extra={"NUMBA_ENABLE_CUDASIM": "1"})
    assert rerun.wait() == 0, rerun.output[-4000:]
    after = records(wd)
    assert len(after) == 5 and {r["device_id"] for r in after.values()} == {"0", "1"}
    # what each job asked SLURM for: the k = 6 shards one GPU each, the k = 5 shard and the warehouse none
    listed = cluster.slurm("squeue", "--states=all", "-h", "-O", "Comment:200|,tres-per-job:50").stdout
    gres = {c.strip(): t.strip() for c, t in (ln.split("|", 1) for ln in listed.splitlines() if "|" in ln)}
    k6, k5 = ([t for c, t in gres.items() if size in c] for size in ("exhaustive_k06", "exhaustive_k05"))
    assert len(k6) == 5 and set(k6) == {"gres:gpu:1"} and k5 == ["N/A"], gres
    assert all(t == "N/A" for c, t in gres.items() if "warehouse" in c), gres
    local = workdir(tmp_path / "local", (wd / "config.yaml").read_text().replace("backend: gpu", "backend: scalar"))
    done = subprocess.run(
        [SNAKEMAKE, "--cores", "2", WAREHOUSE_RULE], cwd=local, env=env(), capture_output=True, text=True, timeout=900
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert digests(wd) == digests(local), "GPU shards through SLURM and CPU shards differ"
