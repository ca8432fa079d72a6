"""``sdcflow ui``: serve the workbench on 127.0.0.1 and open the browser on its link."""

from __future__ import annotations

import socket
import sys
import webbrowser
from pathlib import Path

from ...errors import SdcflowError
from .project import DATA_SUFFIXES, RECIPE_SUFFIXES
from .security import new_token

HOST = "127.0.0.1"


def target_parts(target: str | None) -> tuple[Path, str | None, str | None]:
    """The project folder, the recipe to open and the data file to start from (both
    relative to the folder, or None) for ``sdcflow ui [TARGET]``: a folder serves that
    folder, a recipe its folder with it open, a data file its folder with the project
    page's new recipe made from it; nothing, the current folder."""
    if target is None:
        return Path.cwd(), None, None
    path = Path(target)
    if path.is_dir():
        return path, None, None
    if not path.is_file():
        raise SdcflowError(f"{target}: no such file or folder")
    name = path.name.lower()
    if name.endswith(RECIPE_SUFFIXES):
        return path.parent, path.name, None
    if name.endswith(DATA_SUFFIXES):
        return path.parent, None, path.name
    raise SdcflowError(f"{target}: not a recipe (.yaml, .yml), a data file "
                       f"({', '.join(DATA_SUFFIXES)}) or a folder")


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def serve(target: str | None = None, *, port: int = 0, open_browser: bool = True) -> int:
    """Serve the workbench for ``target`` (see :func:`target_parts`) until interrupted;
    prints the one-time link (and opens it unless ``open_browser`` is false)."""
    import uvicorn

    from .app import create_app

    folder, recipe, data = target_parts(target)
    token = new_token()
    app = create_app(folder, token, recipe, data=data)
    port = port or free_port()
    url = f"http://{HOST}:{port}/?token={token}"
    print(f"sdcflow workbench for {folder.resolve()}\n  {url}\n(the link works once, in one "
          "browser; Ctrl-C stops the server)", file=sys.stderr, flush=True)
    if open_browser:
        webbrowser.open(url)
    uvicorn.run(app, host=HOST, port=port, log_level="warning", access_log=False)
    return 0
