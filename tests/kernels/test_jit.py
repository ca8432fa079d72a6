"""Compiled kernels when no cache directory can be written (sdcflow.kernels.jit)."""

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from helpers import ROOT

PACKAGE = ROOT / "sdcflow"
NOBODY = 65534


def _read_only_install() -> Path:
    """A copy of the package in a read-only directory that an unprivileged user can read
    (pytest's tmp_path is private to its owner, hence a world-readable temporary dir)."""
    site = Path(tempfile.mkdtemp(prefix="sdcflow-ro-"))
    shutil.copytree(PACKAGE, site / "sdcflow",
                    ignore=shutil.ignore_patterns("__pycache__", "*.nbi", "*.nbc"))
    for path in [site, *site.rglob("*")]:
        path.chmod(0o555 if path.is_dir() else 0o444)
    return site


def _unprivileged() -> list[str]:
    """The command prefix that runs as a user who cannot write the copy: root writes
    anywhere, so as root run as nobody (util-linux setpriv), as a shared install's user."""
    if os.geteuid() != 0:
        return []
    if shutil.which("setpriv") is None:
        pytest.skip("running as root without setpriv: cannot make a directory unwritable")
    prefix = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
    probe = subprocess.run([*prefix, sys.executable, "-c", "import numpy"],
                           capture_output=True, check=False)
    if probe.returncode != 0:  # e.g. a virtual environment in a private directory
        pytest.skip("this Python installation cannot be read by an unprivileged user")
    return prefix


def _run_read_only(args: list[str], site: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_", "XDG_"))}
    env.update(PYTHONPATH=str(site), NUMBA_CACHE_DIR="/proc/sdcflow-forbidden",
               HOME=str(site / "no-home"))
    return subprocess.run([*_unprivileged(), sys.executable, *args], env=env, cwd=site,
                          capture_output=True, text=True, timeout=600, check=False)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX permissions")
def test_no_writable_cache_directory_neither_breaks_import_nor_compilation():
    # Reported: with NUMBA_CACHE_DIR unwritable, a read-only installation and no home
    # directory, `sdcflow validate` died with "RuntimeError: cannot cache function
    # 'build': no locator available" (exit 4) when the plugins imported the kernels.
    site = _read_only_install()
    try:
        code = ("import sdcflow, numpy as np\n"
                "from sdcflow.kernels.perturbative.microaggregation.univariate import shortest_path\n"
                "print(sdcflow.__file__)\n"
                # the optimal 2-groups of 1, 2, 10, 11 are {1, 2}, {10, 11}: SSE 0.5 + 0.5
                "cost, back = shortest_path(np.array([[1.0], [2.0], [10.0], [11.0]]), 2)\n"
                "print(cost[-1], back.tolist())\n")
        done = _run_read_only(["-c", code], site)
        assert done.returncode == 0, done.stderr
        path, result = done.stdout.splitlines()
        assert path.startswith(str(site))
        assert result == "1.0 [-1, -1, 0, 0, 2]"
        warnings = [line for line in done.stderr.splitlines() if line.strip()]
        assert len(warnings) == 1 and "compiled kernels are not cached" in warnings[0]

        quickstart = str(ROOT / "recipes" / "quickstart.yaml")
        done = _run_read_only(["-m", "sdcflow.cli", "validate", quickstart], site)
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip().endswith("quickstart.yaml: valid")
    finally:
        for path in [site, *site.rglob("*")]:
            path.chmod(0o755 if path.is_dir() else 0o644)
        shutil.rmtree(site)


def test_every_compiled_kernel_goes_through_the_one_cache_policy():
    # A kernel decorated with numba's own njit(cache=True) would bring the import
    # failure back: every module must take njit from sdcflow.kernels.jit.
    offenders = [str(p.relative_to(ROOT)) for p in PACKAGE.rglob("*.py")
                 if p.name != "jit.py"
                 and re.search(r"from numba import[^\n]*\bnjit\b|numba\.njit|numba\.jit\b",
                               p.read_text(encoding="utf-8"))]
    assert offenders == []
