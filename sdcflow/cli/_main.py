"""Running a command: errors as ``file:line:col: message`` or one line, never a
traceback (``--debug`` shows one), and the exit code of the contract."""

from __future__ import annotations

import sys

from .parser import build_parser
from .pipes import reader_went_away, stdout_closed


def _plain_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """A warning that escapes the numerical code is an sdcflow bug: one line, without the
    source line Python would print."""
    sys.stderr.write(f"sdcflow: warning: {category.__name__}: {message} (please report "
                     "it)\n")


def main(argv: list[str] | None = None) -> int:
    import warnings

    with warnings.catch_warnings():
        warnings.showwarning = _plain_warning
        try:
            status = _main(argv)
            sys.stdout.flush()
            return status
        except BrokenPipeError:
            return reader_went_away()


def _notes(exc) -> int:
    """Print the notes a command added to its error (after the error); its exit code."""
    for note in getattr(exc, "__notes__", ()):
        print(note, file=sys.stderr)
    return exc.exit_code


def _main(argv: list[str] | None) -> int:
    from ..errors import InternalError, RecipeError, SdcflowError

    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except InternalError as exc:
        if args.debug and exc.__cause__ is not None:
            raise exc.__cause__
        print(f"sdcflow: internal error: {exc}", file=sys.stderr)
        return _notes(exc)
    except RecipeError as exc:
        for p in exc.warnings + exc.problems:
            print(p, file=sys.stderr)
        return _notes(exc)
    except SdcflowError as exc:
        print(f"sdcflow: {exc}", file=sys.stderr)
        return _notes(exc)
    except KeyboardInterrupt:
        print("sdcflow: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        if stdout_closed():
            raise  # the reader of our output went away: main() ends quietly
        if args.debug:
            raise
        print("sdcflow: internal error: BrokenPipeError (run with --debug for details and "
              "please report it)", file=sys.stderr)
        return 4
    except Exception as exc:  # a bug: say so plainly, traceback only on request
        if args.debug:
            raise
        print(f"sdcflow: internal error: {type(exc).__name__}: {exc} "
              "(run with --debug for details and please report it)", file=sys.stderr)
        return 4
