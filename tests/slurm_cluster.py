"""A throw-away single-node SLURM cluster on this machine, for the real-cluster test
(tests/test_slurm_real.py) and for trying the SLURM profile out (docs/scaling.md):

    sudo python3 tests/slurm_cluster.py start /tmp/cardlab-slurm [--accounting]
    export SLURM_CONF=/tmp/cardlab-slurm/slurm.conf      # then sinfo, sbatch, snakemake ...
    sudo python3 tests/slurm_cluster.py stop /tmp/cardlab-slurm

`install` puts Debian's packages on this machine (root and apt-get; `make test-tools` calls it:
the test itself installs nothing, and is skipped where SLURM is missing); `start` writes a
slurm.conf for this node (CPUs and memory from `slurmd -C`), and starts its own munged,
slurmctld and slurmd (with `--accounting` also MariaDB and slurmdbd, so `sacct` works).
Every file lives in the given directory, every daemon listens on a free port and
talks to its own munge socket, so an installed cluster is not disturbed; `stop` ends
exactly the daemons `start` recorded, by PID.  Only the standard library is used.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

BASE_PACKAGES = ["slurm-wlm", "munge"]  # slurmctld, slurmd, the client commands, munged
ACCOUNTING_PACKAGES = ["slurmdbd", "mariadb-server"]
BASE_PROGRAMS = ["munged", "slurmctld", "slurmd", "sbatch", "squeue", "scancel"]
ACCOUNTING_PROGRAMS = ["slurmdbd", "mariadbd", "mariadb-install-db", "sacct"]
INSTALL_TIMEOUT_S = 900
START_TIMEOUT_S = 60
# Where SLURM commands look for the configuration when SLURM_CONF is unset.  The executor's job
# step (snakemake-executor-plugin-slurm-jobstep 0.6.1) drops SLURM_CONF before it calls `srun`
# inside a job, so the cluster's configuration must be found here.
DEFAULT_CONF = Path("/etc/slurm/slurm.conf")
# The node's generic resource gpu: two stand-in character devices (the simulator computes)
STAND_IN_DEVICES = ("/dev/null", "/dev/zero")
GPUS = len(STAND_IN_DEVICES)
STOP_TIMEOUT_S = 20


class Unavailable(RuntimeError):
    """SLURM cannot be started here (the reason says why)."""


def _sbin_path() -> str:
    """PATH with the sbin directories, where Debian puts the daemons."""
    parts = os.environ.get("PATH", "").split(os.pathsep)
    return os.pathsep.join(parts + [d for d in ("/usr/local/sbin", "/usr/sbin", "/sbin") if d not in parts])


def _missing(accounting: bool) -> list[str]:
    programs = BASE_PROGRAMS + (ACCOUNTING_PROGRAMS if accounting else [])
    return [p for p in programs if shutil.which(p, path=_sbin_path()) is None]


def missing_packages(accounting: bool) -> list[str]:
    """The Debian packages :func:`install` would install here (none when every program is there)."""
    return (BASE_PACKAGES + (ACCOUNTING_PACKAGES if accounting else [])) if _missing(accounting) else []


def unavailable_reason(accounting: bool) -> str | None:
    """Why a cluster cannot be started here, or None (packages present or installable, and root)."""
    if os.geteuid() != 0:
        return "starting slurmd needs root (it runs jobs as their users)"
    if DEFAULT_CONF.exists() and not DEFAULT_CONF.is_symlink():
        return f"{DEFAULT_CONF} exists (a configured cluster); jobs would reach it, not a private one"
    return None


def not_installed(accounting: bool) -> str | None:
    """What is missing for a cluster here, or None: the programs and Debian's packages that bring them."""
    if not _missing(accounting):
        return None
    return f"{', '.join(_missing(accounting))} not installed (Debian's {' '.join(missing_packages(accounting))})"


def install(accounting: bool, log: Path) -> float:
    """apt-get install the packages that are missing; the seconds it took (0 if nothing was missing)."""
    packages = missing_packages(accounting)
    if not packages:
        return 0.0
    print(f"installing Debian's {' '.join(packages)} system-wide with apt-get (log: {log})", file=sys.stderr)
    began = time.monotonic()
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    with open(log, "a") as out:
        for cmd in (
            ["apt-get", "update", "-qq"],
            ["apt-get", "install", "-y", "-qq", "--no-install-recommends", *packages],
        ):
            done = subprocess.run(cmd, stdout=out, stderr=subprocess.STDOUT, env=env, timeout=INSTALL_TIMEOUT_S)
            if done.returncode != 0:
                raise Unavailable(f"{' '.join(cmd)} failed (exit {done.returncode}); see {log}")
    if _missing(accounting):
        raise Unavailable(f"still missing after apt-get install: {', '.join(_missing(accounting))}")
    return time.monotonic() - began


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def node_description() -> str:
    """This machine's NodeName line (CPUs, sockets, cores, memory) as `slurmd -C` prints it."""
    out = subprocess.run(["slurmd", "-C"], capture_output=True, text=True, check=True, env={"PATH": _sbin_path()})
    return next(line for line in out.stdout.splitlines() if line.startswith("NodeName="))


def wait_until(ready: Callable[[], bool], what: str, timeout: float = START_TIMEOUT_S, log: Path | None = None) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if ready():
            return
        time.sleep(0.2)
    tail = log.read_text()[-2000:] if log and log.exists() else ""
    raise RuntimeError(f"{what} not ready after {timeout:.0f} s\n{tail}")


class Cluster:
    """The daemons of one single-node cluster, all files under ``root``."""

    def __init__(self, root: Path, accounting: bool = False):
        self.root = root.resolve()
        self.accounting = accounting
        self.conf = self.root / "slurm.conf"
        self.pids_file = self.root / "pids.json"
        self.owner_file = self.root / "owner.pid"  # the process whose `with` block the cluster lives in

    @property
    def env(self) -> dict[str, str]:
        """The environment for SLURM commands and everything that submits to this cluster."""
        return {**os.environ, "SLURM_CONF": str(self.conf), "PATH": _sbin_path()}

    def slurm(self, *cmd: str, check: bool = True) -> subprocess.CompletedProcess:
        return subprocess.run(list(cmd), capture_output=True, text=True, env=self.env, timeout=60, check=check)

    # --- configuration -------------------------------------------------------------------------

    def _write_config(self) -> None:
        for sub in ("state", "spool", "log", "munge", "mysql", "dev"):
            (self.root / sub).mkdir(parents=True, exist_ok=True)
        self.root.chmod(0o755)
        munge_key = self.root / "munge" / "munge.key"
        munge_key.write_bytes(os.urandom(1024))
        munge_key.chmod(0o400)
        self.munge_socket = self.root / "munge" / "munge.socket"
        self.ports = {name: free_port() for name in ("slurmctld", "slurmd", "slurmdbd", "mariadb")}
        node = node_description()
        self.node = node.split()[0].split("=", 1)[1]
        r = self.root
        lines = [
            "ClusterName=cardlab",
            f"SlurmctldHost={self.node}(127.0.0.1)",
            f"SlurmctldPort={self.ports['slurmctld']}",
            f"SlurmdPort={self.ports['slurmd']}",
            "SlurmUser=root",
            "AuthType=auth/munge",
            "CredType=cred/munge",
            f"AuthInfo=socket={self.munge_socket}",
            f"StateSaveLocation={r}/state",
            f"SlurmdSpoolDir={r}/spool",
            f"SlurmctldPidFile={r}/slurmctld.pid",
            f"SlurmdPidFile={r}/slurmd.pid",
            f"SlurmctldLogFile={r}/log/slurmctld.log",
            f"SlurmdLogFile={r}/log/slurmd.log",
            # no cgroups: plain processes, which works in containers and without systemd
            "ProctrackType=proctrack/linuxproc",
            "TaskPlugin=task/none",
            "MpiDefault=none",
            "SelectType=select/cons_tres",
            "SelectTypeParameters=CR_Core_Memory",
            "ReturnToService=2",
            # a finished job stays visible to squeue this long (the SLURM default; the profile's
            # squeue status queries need it to be at least 3 x the first status-check delay)
            "MinJobAge=300",
            "KillWait=5",
            "InactiveLimit=0",
            "JobAcctGatherType=jobacct_gather/none",
            "JobCompType=jobcomp/none",
            # two GPUs as a generic resource, stand-in device files (gres.conf beside this file): a job
            # granted one gets CUDA_VISIBLE_DEVICES from slurmd; the GPU itself is numba-cuda's simulator
            "GresTypes=gpu",
        ]
        if self.accounting:
            lines += [
                "AccountingStorageType=accounting_storage/slurmdbd",
                "AccountingStorageHost=127.0.0.1",
                f"AccountingStoragePort={self.ports['slurmdbd']}",
                # the munge socket for talking to slurmdbd (AuthInfo does not cover that link)
                f"AccountingStoragePass={self.munge_socket}",
            ]
        else:
            lines.append("AccountingStorageType=accounting_storage/none")
        lines += [
            f"{node} Gres=gpu:{GPUS} NodeAddr=127.0.0.1 State=UNKNOWN",
            f"PartitionName=cardlab Nodes={self.node} Default=YES MaxTime=INFINITE State=UP",
        ]
        self.conf.write_text("\n".join(lines) + "\n")
        for i, stand_in in enumerate(STAND_IN_DEVICES):  # slurmd wants character devices, never opened here
            (r / "dev" / f"gpu{i}").symlink_to(stand_in)
        (self.root / "gres.conf").write_text(f"NodeName={self.node} Name=gpu File={r}/dev/gpu[0-{GPUS - 1}]\n")
        if self.accounting:
            dbd = self.root / "slurmdbd.conf"
            dbd.write_text(
                "\n".join(
                    [
                        "DbdHost=localhost",
                        "DbdAddr=127.0.0.1",
                        f"DbdPort={self.ports['slurmdbd']}",
                        "SlurmUser=root",
                        "AuthType=auth/munge",
                        f"AuthInfo=socket={self.munge_socket}",
                        f"PidFile={r}/slurmdbd.pid",
                        f"LogFile={r}/log/slurmdbd.log",
                        "StorageType=accounting_storage/mysql",
                        "StorageHost=127.0.0.1",
                        f"StoragePort={self.ports['mariadb']}",
                        "StorageUser=root",
                        "StorageLoc=slurm_acct_db",
                    ]
                )
                + "\n"
            )
            dbd.chmod(0o600)  # slurmdbd refuses a config others can read

    # --- daemons -------------------------------------------------------------------------------

    def _spawn(self, name: str, cmd: list[str]) -> None:
        """Start one daemon in the foreground as a child in its own session (signals to the
        caller's process group do not reach it) and record its PID."""
        log = open(self.root / "log" / f"{name}.out", "w")  # noqa: SIM115 - the daemon owns it
        proc = subprocess.Popen(
            cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=self.env, start_new_session=True
        )
        self._pids[name] = proc.pid
        self._started[name] = _start_time(proc.pid)  # a daemon is known by its PID and start time
        self.pids_file.write_text(json.dumps({n: [pid, self._started[n]] for n, pid in self._pids.items()}))

    def _alive(self, name: str) -> bool:
        try:
            os.kill(self._pids[name], 0)
        except ProcessLookupError:
            return False
        return True

    def _check(self, name: str, ready: Callable[[], bool]) -> None:
        log = self.root / "log" / f"{name}.out"
        wait_until(lambda: ready() or not self._alive(name), name, log=log)
        if not ready():
            raise RuntimeError(f"{name} exited at start:\n{log.read_text()[-2000:]}")

    def _munge_works(self) -> bool:
        enc = subprocess.run(["munge", "-n", f"--socket={self.munge_socket}"], capture_output=True)
        return enc.returncode == 0

    def _start_database(self) -> None:
        data = self.root / "mysql"
        subprocess.run(
            [
                "mariadb-install-db",
                f"--datadir={data}",
                "--user=root",
                "--skip-test-db",
                "--auth-root-authentication-method=socket",
            ],
            capture_output=True,
            check=True,
            env=self.env,
            timeout=120,
        )
        sock = self.root / "mysql.sock"
        self._spawn(
            "mariadbd",
            [
                "mariadbd",
                "--no-defaults",
                f"--datadir={data}",
                "--user=root",
                f"--socket={sock}",
                f"--port={self.ports['mariadb']}",
                "--bind-address=127.0.0.1",
                f"--pid-file={self.root}/mariadbd.pid",
                # a private, throw-away database: no privilege checks (slurmdbd connects as root over TCP)
                "--skip-grant-tables",
                "--innodb-buffer-pool-size=64M",
            ],
        )
        self._check("mariadbd", lambda: _port_open(self.ports["mariadb"]))
        # slurmdbd reads slurmdbd.conf beside $SLURM_CONF
        self._spawn("slurmdbd", ["slurmdbd", "-D"])
        self._check("slurmdbd", lambda: _port_open(self.ports["slurmdbd"]))

    def _link_default_config(self) -> None:
        if DEFAULT_CONF.is_symlink():
            other = DEFAULT_CONF.resolve().parent
            if DEFAULT_CONF.exists() and other != self.root and _daemons_alive(other):
                if not _orphaned(other):
                    raise Unavailable(f"{DEFAULT_CONF} links to {DEFAULT_CONF.resolve()}: another cluster runs here")
                Cluster(other).stop()  # its test was killed; the daemons, in their own sessions, were not
            # dangling, or left by a cluster whose run was killed before it could stop
            # (a killed session ends the daemons too, but not the link)
            DEFAULT_CONF.unlink(missing_ok=True)
        DEFAULT_CONF.parent.mkdir(parents=True, exist_ok=True)
        DEFAULT_CONF.symlink_to(self.conf)

    def _unlink_default_config(self) -> None:
        if DEFAULT_CONF.is_symlink() and DEFAULT_CONF.readlink() == self.conf:
            DEFAULT_CONF.unlink()

    def start(self) -> Cluster:
        self._pids: dict[str, int] = {}
        self._started: dict[str, int | None] = {}
        self._write_config()
        try:
            self._link_default_config()
            self._spawn(
                "munged",
                [
                    "munged",
                    "--foreground",
                    "--force",
                    f"--socket={self.munge_socket}",
                    f"--key-file={self.root}/munge/munge.key",
                    f"--pid-file={self.root}/munge/munged.pid",
                    f"--log-file={self.root}/log/munged.log",
                    f"--seed-file={self.root}/munge/munged.seed",
                ],
            )
            self._check("munged", self._munge_works)
            if self.accounting:
                self._start_database()
            self._spawn("slurmctld", ["slurmctld", "-D", "-f", str(self.conf)])
            self._check("slurmctld", lambda: "is UP" in self.slurm("scontrol", "ping", check=False).stdout)
            self._spawn("slurmd", ["slurmd", "-D", "-f", str(self.conf)])
            self._check("slurmd", self._node_idle)
        except BaseException:
            self.stop()
            raise
        return self

    def _node_idle(self) -> bool:
        return self.slurm("sinfo", "-h", "-N", "-o", "%T", check=False).stdout.strip() == "idle"

    def stop(self) -> None:
        """Cancel this cluster's jobs, then end the recorded daemons in reverse start order:
        SIGTERM, then SIGKILL after a grace period.  A PID whose process started at another time
        than the recorded one (reused by another process) is left alone."""
        pids = json.loads(self.pids_file.read_text()) if self.pids_file.exists() else {}
        if "slurmctld" in pids:
            self.slurm("scancel", "--user", str(os.geteuid()), check=False)
        for name, (pid, started) in reversed(list(pids.items())):
            if not _is_ours(pid, started):
                continue
            os.kill(pid, signal.SIGTERM)
            end = time.monotonic() + STOP_TIMEOUT_S
            while _exists(pid) and time.monotonic() < end:
                _reap(pid)
                time.sleep(0.1)
            if _exists(pid):
                os.kill(pid, signal.SIGKILL)
                _reap(pid, block=True)
        self.pids_file.unlink(missing_ok=True)
        self.owner_file.unlink(missing_ok=True)
        self._unlink_default_config()

    def __enter__(self) -> Cluster:
        self.root.mkdir(parents=True, exist_ok=True)
        self.owner_file.write_text(str(os.getpid()))
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def _port_open(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


def _exists(pid: int) -> bool:
    """The process exists and is not a zombie."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False


def _reap(pid: int, block: bool = False) -> None:
    """Collect the exit status of a daemon that is our child (started in this process)."""
    try:
        os.waitpid(pid, 0 if block else os.WNOHANG)
    except ChildProcessError:
        pass


def _daemons_alive(root: Path) -> bool:
    """Some daemon recorded for the cluster in ``root`` still runs."""
    try:
        pids = json.loads((root / "pids.json").read_text())
    except (FileNotFoundError, ValueError):
        return False
    return any(_exists(pid) and _is_ours(pid, started) for pid, started in pids.values())


def _orphaned(root: Path) -> bool:
    """The cluster in ``root`` was started by a `with` block whose process is gone (a cluster started
    from the command line has no owner, and is never taken for an orphan)."""
    try:
        return not _exists(int((root / "owner.pid").read_text()))
    except (FileNotFoundError, ValueError):
        return False


def _start_time(pid: int) -> int | None:
    """When the process started (clock ticks since boot, /proc/PID/stat's 22nd field), None if it is gone.
    Set at fork and kept across execve: a PID reused by another process has another start time."""
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[19])
    except (FileNotFoundError, ProcessLookupError, IndexError, ValueError):
        return None


def _is_ours(pid: int, started: int | None) -> bool:
    """The process is the daemon recorded with this start time, not another one under a reused PID."""
    return started is not None and _start_time(pid) == started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "action", choices=["start", "stop", "packages", "install"], help="packages: what install would install"
    )
    parser.add_argument("dir", type=Path, nargs="?", default=Path("/tmp/cardlab-slurm"), help="default: %(default)s")
    parser.add_argument("--accounting", action="store_true", help="also MariaDB + slurmdbd (sacct works)")
    parser.add_argument("--log", type=Path, default=Path("/tmp/cardlab-slurm-install.log"), help="apt-get's output")
    args = parser.parse_args(argv)
    if args.action == "packages":
        print(" ".join(missing_packages(args.accounting)))
        return 0
    if args.action == "install":
        try:
            took = install(args.accounting, args.log)
        except Unavailable as e:
            print(f"cannot install SLURM here: {e}", file=sys.stderr)
            return 1
        print(f"installed Debian's SLURM packages in {took:.0f} s" if took else "SLURM's packages: all there")
        return 0
    cluster = Cluster(args.dir, args.accounting)
    if args.action == "stop":
        cluster.stop()
        return 0
    reason = unavailable_reason(args.accounting)
    if reason:
        print(f"cannot start SLURM here: {reason}", file=sys.stderr)
        return 1
    args.dir.mkdir(parents=True, exist_ok=True)
    took = install(args.accounting, args.dir / "install.log")
    if took:
        print(f"installed Debian's SLURM packages in {took:.0f} s")
    cluster.start()
    print(f"started {', '.join(json.loads(cluster.pids_file.read_text()))}; now\n  export SLURM_CONF={cluster.conf}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
