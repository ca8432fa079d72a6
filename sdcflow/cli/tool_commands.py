"""The commands about sdcflow itself: methods (the plugins and their parameters) and
compile (the numeric kernels ahead of time)."""

from __future__ import annotations

import contextlib
import sys

from ._common import emit, line, live, show_progress


def cmd_methods(args) -> int:
    from .describe import methods_command

    return methods_command(args, emit)


def cmd_compile(args) -> int:
    import time

    from ..kernels.jit import cache_directory, caching_available
    from . import warmup

    only = [name for value in args.only or () for name in value.split(",") if name]
    try:
        chosen = warmup.families(only)
    except ValueError as exc:
        print(f"sdcflow compile: {exc}", file=sys.stderr)
        return 2
    cached = caching_available()  # (says so, once, when nothing can be written)
    where, _ = cache_directory()
    start = time.perf_counter()
    done = []
    display = None
    if show_progress(args) and live():
        from .display import CompileDisplay, console

        display = CompileDisplay(console(), sum(f.weight for f in chosen))
    with display or contextlib.nullcontext():
        for family in chosen:
            if display is not None:
                display.started(family.name)
            seconds = warmup.compile_family(family)
            done.append({"family": family.name, "seconds": round(seconds, 2)})
            if display is not None:
                display.finished(family.name, family.weight, seconds)
            elif show_progress(args):
                line(f"compiled {family.name} in {seconds:.1f}s")
    missing = warmup.not_compiled(chosen)
    for name in missing:
        print(f"sdcflow compile: warning: {name} was not compiled ahead of time (no kernel "
              "family calls it; see sdcflow/cli/warmup.py)", file=sys.stderr)
    total = time.perf_counter() - start
    what = f"{len(chosen)} kernel famil{'y' if len(chosen) == 1 else 'ies'}"
    if cached:
        place = where or "numba's default cache directory"
        text = f"compiled {what} into {place} in {total:.1f}s"
    else:
        text = (f"compiled {what} in {total:.1f}s, but nothing could be cached: runs will "
                "compile again (set NUMBA_CACHE_DIR to a writable directory)")
    emit(args, text, {"cache": where if cached else None, "cached": cached,
                       "families": done, "not_compiled": missing,
                       "seconds": round(total, 2)})
    return 0
