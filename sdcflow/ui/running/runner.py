"""A run of the saved recipe from the browser: ``sdcflow run --progress RECIPE`` as a
subprocess in the recipe's folder (the same command a user types, so the output folder,
``public/`` and the reports are the CLI's to the byte), its lines collected for the page
as they come, cancellable; one run at a time."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

MAX_LINES = 5000
CANCEL_WAIT = 10.0  # seconds between asking the run to stop and killing it


class RunBusy(Exception):
    """A run is going on: one at a time."""


@dataclass
class RunJob:
    """One ``sdcflow run`` subprocess and what it printed (``lines``: standard error and
    output, in order of arrival)."""

    recipe: Path
    command: list[str]
    process: subprocess.Popen
    lines: list[str] = field(default_factory=list)
    cancelled: bool = False
    started: float = field(default_factory=time.monotonic)
    # the output folder's manifest as it was before the run (file_identity): a manifest
    # that is still that file was not written by this run (times are too coarse to tell)
    manifest_before: tuple | None = None
    ended: float | None = None
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def running(self) -> bool:
        return self.process.poll() is None or self.ended is None

    @property
    def returncode(self) -> int | None:
        return None if self.running else self.process.returncode

    def add(self, line: str) -> None:
        with self.lock:
            self.lines.append(line.rstrip("\n"))
            del self.lines[:-MAX_LINES]

    def cancel(self) -> None:
        """Stop the run as Ctrl-C does (SIGINT: the CLI says "interrupted", exit 130,
        and leaves its output folder as it was), then terminate and kill it when it does
        not stop in time. The run inherits this server's ignoring of SIGINT (a server
        started in the background ignores it): then it is terminated at once."""
        if self.process.poll() is not None:
            return
        self.cancelled = True
        stops = [self.process.terminate, self.process.kill]
        if signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
            stops.insert(0, lambda: self.process.send_signal(signal.SIGINT))
        for stop in stops:
            stop()
            try:
                self.process.wait(CANCEL_WAIT)
                return
            except subprocess.TimeoutExpired:
                continue

    def outcome(self) -> str:
        """released / not released (a check failed) / error / cancelled / running."""
        code = self.returncode
        if code is None:
            return "running"
        if self.cancelled and code != 0:  # (a run that ended before it heard: its outcome)
            return "cancelled"
        return {0: "released", 3: "not released: a check failed"}.get(code, "error")


def run_command(recipe: Path) -> list[str]:
    """``sdcflow run --progress RECIPE`` with this Python (the recipe by its name: the
    command runs in its folder)."""
    return [sys.executable, "-m", "sdcflow", "run", "--progress", recipe.name]


def start(recipe: Path) -> RunJob:
    """Start ``sdcflow run`` on the saved ``recipe`` in its folder."""
    command = run_command(recipe)
    process = subprocess.Popen(command, cwd=recipe.parent, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                               text=True, encoding="utf-8", errors="replace", bufsize=1,
                               env=_environment())
    job = RunJob(recipe, command, process)

    def pump() -> None:
        for line in process.stdout:
            job.add(line)
        process.wait()
        job.ended = time.monotonic()

    threading.Thread(target=pump, daemon=True).start()
    return job


def _environment() -> dict:
    import os

    env = dict(os.environ)
    env.pop("COLUMNS", None)
    env["PYTHONUNBUFFERED"] = "1"
    return env


def file_identity(path: Path | None) -> tuple | None:
    """What tells one version of a file from another (inode, size, modification time in
    ns; a release's files are replaced by renames, so each version is a new inode), or
    None when there is no such file."""
    if path is None:
        return None
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


class Runner:
    """The workbench's one run (the last one, finished or not)."""

    def __init__(self) -> None:
        self.job: RunJob | None = None
        self._lock = threading.Lock()

    def start(self, recipe: Path, manifest: Path | None = None) -> RunJob:
        """Start a run of ``recipe``; ``manifest``: the manifest it will write, whose
        version before the run the job remembers."""
        with self._lock:
            if self.job is not None and self.job.running:
                raise RunBusy("a run is going on: wait for it or cancel it")
            before = file_identity(manifest)
            self.job = start(recipe)
            self.job.manifest_before = before
            return self.job


def release_files(out_dir: Path) -> list[dict]:
    """The files the run's manifest lists (``files``: path relative to the output folder
    -> sha256), or [] when there is no manifest."""
    try:
        data = json.loads((out_dir / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    files = data.get("files") if isinstance(data, dict) else None
    if not isinstance(files, dict):
        return []
    return [{"path": str(path), "sha256": str(digest),
             "public": str(path).startswith("public/")}
            for path, digest in sorted(files.items())]
