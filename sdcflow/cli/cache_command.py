"""``sdcflow cache info|clear [RECIPE or DIR]``: the step cache of a recipe's folder
(see :mod:`sdcflow.engine.cache_admin`)."""

from __future__ import annotations

import sys
from pathlib import Path

from ._common import emit


def _bytes(n: int) -> str:
    for unit in ("bytes", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n} {unit}" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1024
    return ""  # pragma: no cover


def cmd_cache(args) -> int:
    from ..engine.cache_admin import CacheBusy, cache_info, clear_cache

    where = Path(args.where)
    if not where.exists():
        print(f"sdcflow cache: no such recipe or folder: {where}", file=sys.stderr)
        return 1
    if args.action == "clear":
        try:
            root, removed, freed = clear_cache(where, only_recipe=where.is_file())
        except CacheBusy as exc:
            print(f"sdcflow cache: {exc}", file=sys.stderr)
            return 1
        except OSError as exc:
            print(f"sdcflow cache: cannot clear the cache: {exc}", file=sys.stderr)
            return 1
        whose = f" of {where.name}'s last run" if where.is_file() else ""
        emit(args, f"removed {removed} entr{'y' if removed == 1 else 'ies'}{whose} "
                   f"({_bytes(freed)}) from {root}",
             {"cache": str(root), "removed": removed, "bytes": freed})
        return 0
    info = cache_info(where)
    data = info.as_dict()
    if not info.exists:
        text = f"{info.root}: no cache yet (a run of a recipe in {info.root.parent} makes it)"
    else:
        n = data["entries"]
        lines = [f"{info.root}: {n} entr{'y' if n == 1 else 'ies'}, {_bytes(data['bytes'])}"]
        for name, r in data["recipes"].items():
            if r is None:
                lines.append(f"  {name}: no run in its default output directory")
                continue
            lines.append(f"  {name}: {r['entries']} of the {r['steps_of_last_run']} steps of "
                         f"its last run, {_bytes(r['bytes'])}")
        other = data["other_entries"]
        if other["entries"]:
            lines.append(f"  not of the last run of a recipe here: {other['entries']}, "
                         f"{_bytes(other['bytes'])} (earlier runs, other parameters, or "
                         "runs written elsewhere with --out)")
        if data["leftovers"]:
            lines.append(f"  leftovers of interrupted runs: {data['leftovers']} (the next "
                         "run, or 'sdcflow cache clear', removes them)")
        text = "\n".join(lines)
    emit(args, text, data)
    return 0
