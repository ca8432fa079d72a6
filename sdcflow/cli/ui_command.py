"""``sdcflow ui``: the browser workbench (:mod:`sdcflow.ui`)."""

from __future__ import annotations


def cmd_ui(args) -> int:
    from ..errors import SdcflowError
    from ..ui.server.serve import serve

    if not 0 <= args.port <= 65535:
        raise SdcflowError(f"--port {args.port}: not a port (0 to 65535; 0 picks a free one)")
    return serve(args.target, port=args.port, open_browser=not args.no_browser)
