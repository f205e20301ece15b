"""The throw-away cluster's claim on /etc/slurm/slurm.conf (tests/slurm_cluster.py): a link
left by a run that was killed must not stop the next run, nor must the daemons of a test that
was killed; a cluster that still runs for someone must not be taken over.  The link's place is
a temporary path here, and the "daemons" are `sleep`s, so nothing real is touched."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
import slurm_cluster
from slurm_cluster import Cluster, Unavailable


@pytest.fixture
def default_conf(tmp_path, monkeypatch) -> Path:
    link = tmp_path / "etc" / "slurm.conf"
    monkeypatch.setattr(slurm_cluster, "DEFAULT_CONF", link)
    return link


def earlier_cluster(root: Path, pids: dict[str, list[int | None]]) -> Path:
    """A cluster's files as its session left them: each daemon's [PID, start time]."""
    root.mkdir()
    (root / "slurm.conf").write_text("ClusterName=cardlab\n")
    (root / "pids.json").write_text(json.dumps(pids))
    return root / "slurm.conf"


def claim(root: Path) -> None:
    root.mkdir(exist_ok=True)
    Cluster(root)._link_default_config()


def test_a_dangling_link_is_replaced(tmp_path, default_conf):
    default_conf.parent.mkdir()
    default_conf.symlink_to(tmp_path / "gone" / "slurm.conf")
    claim(tmp_path / "new")
    assert default_conf.readlink() == (tmp_path / "new" / "slurm.conf").resolve()


def test_a_link_to_a_killed_cluster_is_replaced(tmp_path, default_conf):
    # what a killed session leaves: the configuration and its PIDs, no daemon running
    conf = earlier_cluster(tmp_path / "old", {"munged": [2**22 + 1, 1], "slurmctld": [2**22 + 2, 2]})
    default_conf.parent.mkdir()
    default_conf.symlink_to(conf)
    claim(tmp_path / "new")
    assert default_conf.readlink() == (tmp_path / "new" / "slurm.conf").resolve()


def fake_daemon(root: Path) -> subprocess.Popen:
    return subprocess.Popen(["sleep", "60"], env={**os.environ, "SLURM_CONF": f"{root}/slurm.conf"})


@pytest.mark.parametrize("owner", [None, "alive"])
def test_a_running_cluster_is_not_taken_over(tmp_path, default_conf, owner):
    """Started from the command line (no owner), or by a test still running (this one)."""
    root = (tmp_path / "old").resolve()
    daemon = fake_daemon(root)
    try:
        conf = earlier_cluster(root, {"munged": [daemon.pid, slurm_cluster._start_time(daemon.pid)]})
        if owner:
            (root / "owner.pid").write_text(str(os.getpid()))
        default_conf.parent.mkdir()
        default_conf.symlink_to(conf)
        with pytest.raises(Unavailable, match="another cluster runs here"):
            claim(tmp_path / "new")
        assert default_conf.readlink() == conf
        assert daemon.poll() is None
    finally:
        daemon.kill()
        daemon.wait()


def test_the_daemons_of_a_killed_test_are_stopped_and_the_link_taken(tmp_path, default_conf):
    root = (tmp_path / "old").resolve()
    daemon = fake_daemon(root)
    try:
        conf = earlier_cluster(root, {"munged": [daemon.pid, slurm_cluster._start_time(daemon.pid)]})
        (root / "owner.pid").write_text(str(2**22 + 3))  # no such process
        default_conf.parent.mkdir()
        default_conf.symlink_to(conf)
        claim(tmp_path / "new")
        assert default_conf.readlink() == (tmp_path / "new" / "slurm.conf").resolve()
        assert daemon.poll() is not None, "the orphaned daemon still runs"
        assert not (root / "pids.json").exists()
    finally:
        daemon.kill()
        daemon.wait()


def test_a_reused_pid_does_not_count_as_a_daemon(tmp_path, default_conf):
    # the recorded PID now belongs to a process of some other program (this test's own), started at another time
    conf = earlier_cluster(tmp_path / "old", {"slurmd": [os.getpid(), slurm_cluster._start_time(os.getpid()) - 1]})
    default_conf.parent.mkdir()
    default_conf.symlink_to(conf)
    claim(tmp_path / "new")
    assert default_conf.readlink() == (tmp_path / "new" / "slurm.conf").resolve()


def test_a_daemon_is_recognised_the_moment_it_is_started(tmp_path):
    # A daemon is known by its PID and its start time, which is set at fork and kept across execve:
    # read the moment Popen returns (the child may still be inside execve), it is the daemon's for good.
    # (Its environment, read there, was nearly always empty: the daemon was taken for someone else's.)
    daemon = fake_daemon(tmp_path.resolve())
    try:
        started = slurm_cluster._start_time(daemon.pid)
        assert slurm_cluster._is_ours(daemon.pid, started)
        assert not slurm_cluster._is_ours(daemon.pid, started + 1)  # another process under the same PID
        assert not slurm_cluster._is_ours(daemon.pid, None)
    finally:
        daemon.kill()
        daemon.wait()
    assert not slurm_cluster._is_ours(daemon.pid, started)  # gone


def test_a_missing_slurm_is_named_with_its_packages_and_never_installed_by_the_test(monkeypatch):
    """`make test` installs nothing: a missing SLURM is a reason to skip (`make test-tools` installs it)."""
    monkeypatch.setattr(slurm_cluster, "_missing", lambda accounting: ["slurmd"])
    reason = slurm_cluster.not_installed(accounting=True)
    assert reason == "slurmd not installed (Debian's slurm-wlm munge slurmdbd mariadb-server)"
    assert slurm_cluster.missing_packages(accounting=False) == ["slurm-wlm", "munge"]
    monkeypatch.setattr(slurm_cluster, "_missing", lambda accounting: [])
    assert slurm_cluster.not_installed(accounting=True) is None


def test_the_packages_command_names_what_start_would_install(monkeypatch, capsys):
    """What `make test-tools` installs: the packages, from the same list install() uses."""
    monkeypatch.setattr(slurm_cluster, "_missing", lambda accounting: ["sacct"] if accounting else [])
    assert slurm_cluster.main(["packages", "--accounting"]) == 0
    assert capsys.readouterr().out.split() == ["slurm-wlm", "munge", "slurmdbd", "mariadb-server"]
    assert slurm_cluster.main(["packages"]) == 0
    assert capsys.readouterr().out.strip() == ""
