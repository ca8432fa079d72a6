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


def _unprivileged() -> list[str] | None:
    """The command prefix that runs as a user who cannot write the copy: root writes
    anywhere, so as root run as nobody (util-linux setpriv), as a shared install's user.
    None when that cannot be arranged (root without setpriv, or a Python installation
    nobody may read): the copy is then writable and only the results can be checked."""
    if os.geteuid() != 0:
        return []
    if shutil.which("setpriv") is None:
        return None
    prefix = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
    probe = subprocess.run([*prefix, sys.executable, "-c", "import numpy"],
                           capture_output=True, check=False)
    return prefix if probe.returncode == 0 else None  # (e.g. a venv in a private dir)


def _run_read_only(args: list[str], site: Path, **extra: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_", "XDG_"))}
    env.update(PYTHONPATH=str(site), NUMBA_CACHE_DIR="/proc/sdcflow-forbidden",
               HOME="/proc/sdcflow-no-home")
    env.update(extra)
    env = {k: v for k, v in env.items() if v}  # an empty value: not set at all
    return subprocess.run([*(_unprivileged() or []), sys.executable, *args], env=env, cwd=site,
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
        if _unprivileged() is not None:  # (the copy really is unwritable)
            assert len(warnings) == 1 and "compiled kernels are not cached" in warnings[0]

        quickstart = str(ROOT / "recipes" / "quickstart.yaml")
        done = _run_read_only(["-m", "sdcflow.cli", "validate", quickstart], site)
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip().endswith("quickstart.yaml: valid")
    finally:
        for path in [site, *site.rglob("*")]:
            path.chmod(0o755 if path.is_dir() else 0o644)
        shutil.rmtree(site)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX permissions")
def test_without_a_home_the_kernels_are_cached_in_a_private_temporary_directory():
    # as above, but with NUMBA_CACHE_DIR unset: sdcflow's choice falls back from the
    # home directory to the temporary directory, and nothing is said
    site = _read_only_install()
    tmp = Path(tempfile.mkdtemp(prefix="sdcflow-tmp-"))
    tmp.chmod(0o1777)  # a shared temporary directory, as /tmp
    try:
        code = ("import os\n"
                "from sdcflow.kernels.perturbative.microaggregation.univariate import shortest_path\n"
                "print(shortest_path._cache._cache_path)\n")
        done = _run_read_only(["-c", code], site, NUMBA_CACHE_DIR="", TMPDIR=str(tmp))
        assert done.returncode == 0, done.stderr
        assert done.stderr == ""
        (private,) = tmp.iterdir()
        assert private.name.startswith("sdcflow-") and private.stat().st_mode & 0o077 == 0
        assert done.stdout.strip().startswith(str(private / "numba"))
    finally:
        for path in [site, *site.rglob("*")]:
            path.chmod(0o755 if path.is_dir() else 0o644)
        shutil.rmtree(site)
        shutil.rmtree(tmp)


def test_every_compiled_kernel_goes_through_the_one_cache_policy():
    # A kernel decorated with numba's own njit(cache=True) would bring the import
    # failure back: every module must take njit from sdcflow.kernels.jit.
    offenders = [str(p.relative_to(ROOT)) for p in PACKAGE.rglob("*.py")
                 if p.name != "jit.py"
                 and re.search(r"from numba import[^\n]*\bnjit\b|numba\.njit|numba\.jit\b",
                               p.read_text(encoding="utf-8"))]
    assert offenders == []


# ------------------------------------------------------------------ the cache directory


def test_a_cache_directory_set_by_the_user_is_honoured(tmp_path):
    from sdcflow.kernels.jit import choose_cache_dir

    chosen = str(tmp_path / "mine")
    assert choose_cache_dir({"NUMBA_CACHE_DIR": chosen}, tmp_path / "home",
                            tmp_path / "tmp") == (chosen, "env")
    assert not (tmp_path / "home").exists()  # nothing else is tried, nor made


def test_the_cache_directory_is_a_per_user_one(tmp_path):
    from sdcflow.kernels.jit import choose_cache_dir

    home = tmp_path / "home"
    assert choose_cache_dir({}, home, tmp_path / "tmp") == (
        str(home / ".cache" / "sdcflow" / "numba"), "user")
    xdg = tmp_path / "xdg"
    assert choose_cache_dir({"XDG_CACHE_HOME": str(xdg), "NUMBA_CACHE_DIR": ""}, home,
                            tmp_path / "tmp") == (str(xdg / "sdcflow" / "numba"), "user")
    # a relative XDG_CACHE_HOME is invalid (XDG base directory specification): ignored
    assert choose_cache_dir({"XDG_CACHE_HOME": "rel"}, home, tmp_path / "tmp")[1] == "user"
    assert (home / ".cache" / "sdcflow" / "numba").is_dir()


def _unwritable(tmp_path: Path, name: str) -> Path:
    """A path under which no directory can be made, even by root: it is a file."""
    path = tmp_path / name
    path.write_text("")
    return path


def test_an_unwritable_home_falls_back_to_a_private_temporary_directory(tmp_path):
    from sdcflow.kernels.jit import choose_cache_dir

    home = _unwritable(tmp_path, "home")
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    path, source = choose_cache_dir({}, home, tmp)
    assert source == "temp" and Path(path).parent.parent == tmp
    assert Path(path).is_dir()
    if hasattr(os, "getuid"):
        assert Path(path).parent.name == f"sdcflow-{os.getuid()}"
        assert Path(path).parent.stat().st_mode & 0o077 == 0


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX owners and permissions")
def test_a_temporary_directory_others_can_write_is_refused(tmp_path):
    from sdcflow.kernels.jit import choose_cache_dir

    tmp = tmp_path / "tmp"
    (tmp / f"sdcflow-{os.getuid()}").mkdir(parents=True)
    (tmp / f"sdcflow-{os.getuid()}").chmod(0o777)  # made by someone else, say
    assert choose_cache_dir({}, _unwritable(tmp_path, "home"), tmp) == (None, "none")
    (tmp / f"sdcflow-{os.getuid()}").rmdir()
    (tmp / f"sdcflow-{os.getuid()}").symlink_to(tmp_path)
    assert choose_cache_dir({}, _unwritable(tmp_path, "home"), tmp) == (None, "none")


def test_nothing_writable_means_no_cache_directory(tmp_path):
    from sdcflow.kernels.jit import choose_cache_dir

    assert choose_cache_dir({}, _unwritable(tmp_path, "home"),
                            _unwritable(tmp_path, "tmp")) == (None, "none")


def test_the_choice_is_given_to_numba_before_a_kernel_is_decorated(tmp_path):
    # a fresh process without NUMBA_CACHE_DIR: the kernels cache under the user's cache
    # directory, and processes it starts inherit the choice
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_", "XDG_"))}
    env.update(XDG_CACHE_HOME=str(tmp_path / "cache"), PYTHONPATH=str(ROOT))
    code = ("import os, numba\n"
            "from sdcflow.kernels.perturbative.microaggregation import mdav\n"
            "print(numba.config.CACHE_DIR)\n"
            "print(os.environ['NUMBA_CACHE_DIR'])\n"
            "print(mdav._mdav._cache._cache_path)\n")
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                          text=True, check=False, timeout=300)
    assert done.returncode == 0, done.stderr
    config, environ, kernel = done.stdout.splitlines()
    expected = str(tmp_path / "cache" / "sdcflow" / "numba")
    assert config == environ == expected and kernel.startswith(expected)
    assert done.stderr == ""
