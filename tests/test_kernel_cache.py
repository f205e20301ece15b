"""numba's cached kernels are dropped when any module they were compiled from changes."""

from __future__ import annotations

import numba

from engines.core.kernel_cache import drop_stale_caches


def test_cached_kernels_go_when_a_module_they_use_changes(tmp_path, monkeypatch):
    monkeypatch.setattr(numba.config, "CACHE_DIR", "")
    (tmp_path / "entry.py").write_text("x = 1\n")
    (tmp_path / "inlined.py").write_text("y = 2\n")
    cache = tmp_path / "__pycache__"
    cache.mkdir()

    def cached():
        for name in ("entry.f-3.py311.nbi", "entry.f-3.py311.1.nbc", "other.g-1.py311.nbi"):
            (cache / name).touch()
        return sorted(p.name for p in cache.iterdir() if p.suffix in (".nbi", ".nbc"))

    everything = cached()
    drop_stale_caches(tmp_path, ["entry", "inlined"])  # no mark yet: nothing says the caches are current
    assert sorted(p.name for p in cache.iterdir() if p.suffix in (".nbi", ".nbc")) == ["other.g-1.py311.nbi"]
    assert cached() == everything
    drop_stale_caches(tmp_path, ["entry", "inlined"])  # unchanged code: the caches stay
    assert cached() == everything
    (tmp_path / "inlined.py").write_text("y = 3\n")
    drop_stale_caches(tmp_path, ["entry", "inlined"])
    assert sorted(p.name for p in cache.iterdir() if p.suffix in (".nbi", ".nbc")) == ["other.g-1.py311.nbi"]
