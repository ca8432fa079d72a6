"""Every file a recipe names, attacked as an adversarial tester would (sdcflow.data.
recipe_files): each file field of the recipe format (the data as CSV, Parquet and SPSS,
a JSON and a SKOS taxonomy, node attributes, an aggregated table, the population of
delta_presence and of anonymize, a ptable) is given a path outside the recipe's folder
(absolute, through '..', through a symbolic link, /etc/shadow, /proc/self/environ), a
device, a pipe (FIFO), a socket, a folder, a hidden file, a missing file, and files that
are not what they should be (credentials, NUL bytes, binary garbage, nothing, too large,
a header of 200,000 columns, JSON nested 100,000 deep, an XML encoding no one knows,
Latin-1 text). `sdcflow validate` must exit 1 within seconds, at the field's position,
without a traceback or an internal error, and never print what the file holds."""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import socket
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
from helpers import ROOT

from sdcflow.cli import main
from sdcflow.data import csv_input, recipe_files

SECRETS = ("hunter2", "s3cr3t")  # in every secret-looking file; never in any output
SECRET_TEXT = ("root:$6$s3cr3t$Xy9.hash:19000:0:99999:7:::\n"
               "AWS_SECRET_ACCESS_KEY=hunter2\n"
               "password = hunter2\n")
SECONDS = 20  # the longest one case may take (they take well under one, on a busy machine)


@dataclass(frozen=True)
class Field:
    """A file field of the recipe format: a recipe naming the file NAME, the files it
    needs besides, the suffix its files carry, and the limit kind of recipe_files."""

    recipe: str
    suffix: str
    kind: str
    data: bool = False  # the data file: problems in its content name the file itself

    def write(self, folder: Path, name: str) -> Path:
        text = self.recipe.replace("NAME", json.dumps(name))
        path = folder / "r.yaml"
        path.write_text(text, encoding="utf-8")
        return path


HEAD = "sdcflow: 1\nname: attack\nseed: 1\n"
TESTDATA = HEAD + "data: {builtin: testdata}\nvariables:\n  urbrur: {role: key}\n  sex: {role: key}\n"
FIELDS = {
    "data-csv": Field(HEAD + "data: {path: NAME}\nvariables:\n  a: {role: key}\nsteps:\n"
                      "  - {id: risk, measure: k_anonymity, params: {k: 1}}\n", ".csv",
                      "data", data=True),
    "data-parquet": Field(HEAD + "data: {path: NAME, format: parquet}\nvariables:\n"
                          "  a: {role: key}\nsteps:\n"
                          "  - {id: risk, measure: k_anonymity, params: {k: 1}}\n",
                          ".parquet", "data", data=True),
    "data-sav": Field(HEAD + "data: {path: NAME, format: sav}\nvariables:\n  a: {role: key}\n"
                      "steps:\n  - {id: risk, measure: k_anonymity, params: {k: 1}}\n",
                      ".sav", "data", data=True),
    "taxonomy-json": Field(HEAD + "data: {builtin: testdata}\nvariables:\n"
                           "  urbrur: {role: key, taxonomy: {file: NAME}}\nsteps:\n"
                           "  - {id: risk, measure: k_anonymity, params: {k: 1}}\n",
                           ".json", "taxonomy"),
    "taxonomy-skos": Field(HEAD + "data: {builtin: testdata}\nvariables:\n"
                           "  urbrur: {role: key, taxonomy: {file: NAME}}\nsteps:\n"
                           "  - {id: risk, measure: k_anonymity, params: {k: 1}}\n",
                           ".rdf", "taxonomy"),
    "nodes": Field(HEAD + "data: {path: edges.csv}\nvariables:\n"
                   "  s: {role: key, type: integer, nodes: {file: NAME, id: id}}\n"
                   "  t: {role: key, type: integer}\nsteps:\n"
                   "  - {id: risk, measure: k_anonymity, params: {k: 1}}\n", ".csv", "nodes"),
    "table": Field(HEAD + "data: {path: cells.csv}\nvariables:\n  profession: {role: key}\n"
                   "  town: {role: key}\ntables:\n  - id: t\n    dims: [profession, town]\n"
                   "    from: {path: NAME}\nsteps:\n"
                   "  - {id: audit, measure: table_audit, table: t}\n", ".csv", "table"),
    "population": Field(TESTDATA + "steps:\n  - {id: p, measure: delta_presence, params: "
                        "{population: NAME}}\n", ".csv", "population"),
    "anonymize-population": Field(
        TESTDATA + "steps:\n  - id: anon\n    method: anonymize\n    params:\n"
        "      targets: [{delta_presence: {population: NAME}}]\n"
        "      hierarchies: {urbrur: {mask: true}, sex: {mask: true}}\n", ".csv",
        "population"),
    "ptable": Field(HEAD + "data: {path: gh.csv}\nvariables:\n  g: {role: key}\n"
                    "  h: {role: key}\ntables: [{id: gh, dims: [g, h]}]\nsteps:\n"
                    "  - {id: ck, method: cell_key, table: gh, params: {ptable_file: NAME}}\n",
                    ".txt", "ptable"),
}


@dataclass
class Attack:
    """A name to write into the recipe (made by ``make(project, outside, suffix)``), the
    command-line allowances it comes with, and what the message must say."""

    make: object
    says: str | None = None
    allow: tuple = ()


def _outside(project: Path, outside: Path, suffix: str) -> str:
    return str(outside / f"secret{suffix}")


def _dotdot(project, outside, suffix):
    return f"../outside/secret{suffix}"


def _link_out(project, outside, suffix):
    (project / f"link{suffix}").symlink_to(outside / f"secret{suffix}")
    return f"link{suffix}"


def _fifo(project, outside, suffix):
    os.mkfifo(project / f"fifo{suffix}")  # reading it would block for ever
    return f"fifo{suffix}"


def _folder(project, outside, suffix):
    (project / f"folder{suffix}").mkdir()
    return f"folder{suffix}"


def _socket(project, outside, suffix):
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(f"sock{suffix}")  # (relative: the working directory is the project)
    _SOCKETS.append(sock)
    return f"sock{suffix}"


_SOCKETS: list = []


def _hidden(project, outside, suffix):
    (project / ".env").write_text(SECRET_TEXT)
    return ".env"


def _hidden_folder(project, outside, suffix):
    (project / ".git").mkdir()
    (project / ".git" / f"config{suffix}").write_text(
        "[http]\n\textraheader = AUTHORIZATION: basic hunter2\n")
    return f".git/config{suffix}"


def _content(data: bytes):
    def make(project, outside, suffix):
        (project / f"file{suffix}").write_bytes(data)
        return f"file{suffix}"
    return make


def _garbage() -> bytes:
    rng = random.Random(2026)
    return bytes(rng.randrange(256) for _ in range(4096)) + b"hunter2\n" + SECRET_TEXT.encode()


OUTSIDE = "is outside the recipe's folder"
ATTACKS = {
    "absolute-path": Attack(_outside, OUTSIDE),
    "dotdot": Attack(_dotdot, OUTSIDE),
    "symlink-out": Attack(_link_out, OUTSIDE),
    "etc-shadow": Attack(lambda p, o, s: "/etc/shadow", OUTSIDE),
    "proc-environ": Attack(lambda p, o, s: "/proc/self/environ", OUTSIDE),
    "dev-zero": Attack(lambda p, o, s: "/dev/zero", "not a regular file", ("/dev",)),
    "dev-urandom": Attack(lambda p, o, s: "/dev/urandom", "not a regular file", ("/dev",)),
    "proc-allowed": Attack(lambda p, o, s: "/proc/self/environ", None, ("/proc/self",)),
    "fifo": Attack(_fifo, "not a regular file"),
    "socket": Attack(_socket, "not a regular file"),
    "folder": Attack(_folder, "is a folder, not a file"),
    "hidden-file": Attack(_hidden, "is hidden"),
    "hidden-folder": Attack(_hidden_folder, "is hidden"),
    "missing": Attack(lambda p, o, s: f"nowhere{s}", "no such file"),
    "credentials": Attack(_content(SECRET_TEXT.encode())),
    "environ-nul": Attack(_content(b"SECRET=hunter2\x00PATH=/usr/bin\x00HOME=/s3cr3t\x00")),
    "binary": Attack(_content(_garbage())),
    "empty": Attack(_content(b"")),
    "wide-header": Attack(_content(b",".join([b"hunter2"] * 200_000) + b"\n1\n")),
    "deep-json": Attack(_content(b'{"tree": ' + b"[" * 100_000 + b"]" * 100_000 + b"}")),
    "xml-encoding": Attack(_content(b'<?xml version="1.0" encoding="klingon"?>\n'
                                    b"<secret>hunter2</secret>\n")),
    "xml-entities": Attack(_content(
        b'<?xml version="1.0"?>\n<!DOCTYPE x [<!ENTITY s3cr3t SYSTEM "file:///etc/passwd">]>'
        b"\n<x>&s3cr3t;</x>\n")),
    "secret-json": Attack(_content(b'{"api_key": "hunter2", "password": "s3cr3t"}')),
    "latin-1": Attack(_content("id,hunter2\n1,caf\xe9 s3cr3t\n".encode("latin-1"))),
}


@contextmanager
def time_bound(seconds: int):
    """Fail (rather than hang) when the block takes more than ``seconds``."""
    def expired(signum, frame):
        raise TimeoutError(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    start = time.monotonic()
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    assert time.monotonic() - start < seconds


def project(tmp_path: Path, monkeypatch) -> tuple[Path, Path]:
    """The recipe's folder (the working directory), with the files the fields need, and
    a folder beside it holding secrets."""
    proj, outside = tmp_path / "project", tmp_path / "outside"
    proj.mkdir()
    outside.mkdir()
    for suffix in {f.suffix for f in FIELDS.values()}:
        (outside / f"secret{suffix}").write_text(SECRET_TEXT)
    (proj / "edges.csv").write_text("s,t\n1,2\n2,3\n")
    shutil.copy(ROOT / "recipes" / "data" / "profession_town.csv", proj / "cells.csv")
    (proj / "gh.csv").write_text("g,h\nA,x\nB,y\nA,y\n")
    monkeypatch.chdir(proj)
    return proj, outside


def position(recipe: Path, name: str) -> str:
    """``r.yaml:LINE:COL`` of the value ``name`` in the recipe."""
    quoted = json.dumps(name)
    for line_no, line in enumerate(recipe.read_text().splitlines(), 1):
        if quoted in line:
            return f"r.yaml:{line_no}:{line.index(quoted) + 1}"
    raise AssertionError(f"{name} not in the recipe")


def attack(tmp_path, monkeypatch, capsys, field: Field, how: Attack) -> tuple[str, str]:
    """Run `sdcflow validate` on the field attacked: exit 1 within the time bound, no
    traceback, nothing secret; returns the output and the name's position."""
    proj, outside = project(tmp_path, monkeypatch)
    name = how.make(proj, outside, field.suffix)
    recipe = field.write(proj, name)
    argv = ["validate", str(recipe)] + [a for d in how.allow for a in ("--allow-path", d)]
    if not field.data:
        argv.append("--no-data")  # (the other files are read with the recipe)
    try:
        with time_bound(SECONDS):
            code = main(argv)
    finally:
        while _SOCKETS:
            _SOCKETS.pop().close()
    out = capsys.readouterr()
    text = out.out + out.err
    assert code == 1, text
    assert "Traceback" not in text and "internal error" not in text, text
    for secret in SECRETS:
        assert secret not in text, text
    return text, position(recipe, name)


@pytest.fixture(scope="module", autouse=True)
def imported():
    """What a first validation imports (pandas, pyarrow...), imported before the clock
    starts."""
    from sdcflow import validate

    validate(ROOT / "recipes" / "tables_profession_town.yaml")


@pytest.mark.parametrize("attack_name", list(ATTACKS))
@pytest.mark.parametrize("field_name", list(FIELDS))
def test_every_file_field_resists_every_attack(tmp_path, monkeypatch, capsys, field_name,
                                               attack_name):
    if field_name == "data-sav":
        pytest.importorskip("pyreadstat")
    field, how = FIELDS[field_name], ATTACKS[attack_name]
    if not all(Path(a).exists() for a in how.allow):  # (/dev, /proc: not on every system)
        pytest.skip(f"no {how.allow} here")
    text, where = attack(tmp_path, monkeypatch, capsys, field, how)
    if how.says is not None:
        assert f"{where}: " in text, text
        assert how.says in text, text
    elif not field.data:  # (the data's own problems name the data file)
        assert f"{where}: " in text, text


@pytest.mark.parametrize("field_name", [f for f in FIELDS if FIELDS[f].kind != "data"])
def test_files_larger_than_their_limit_are_refused_unread(tmp_path, monkeypatch, capsys,
                                                          field_name):
    field = FIELDS[field_name]
    monkeypatch.setitem(recipe_files.MAX_BYTES, field.kind, 1000)
    monkeypatch.setattr(recipe_files.CheckedFile, "opened", _never_opened)
    text, where = attack(tmp_path, monkeypatch, capsys, field,
                         Attack(_content(b"id,x\n" + b"1,hunter2\n" * 200)))
    assert f"{where}: " in text and "larger than the 1,000 bytes" in text, text


def _never_opened(self):
    raise AssertionError(f"{self.name} was opened")


def test_a_data_file_of_one_enormous_line_is_refused(tmp_path, monkeypatch, capsys):
    # the data file has no size limit: it is read in blocks of bounded size
    monkeypatch.setattr(csv_input, "MAX_RECORD_BYTES", 1024)
    text, _ = attack(tmp_path, monkeypatch, capsys, FIELDS["data-csv"],
                     Attack(_content(b"hunter2" * 100_000)))
    assert "the first line (the header) is longer than 1,024 bytes" in text
