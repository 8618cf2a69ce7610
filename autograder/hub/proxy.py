"""configurable-http-proxy, the hub's front door, from npm into a folder of the course's own
(`npm install configurable-http-proxy@5.3`): installed once, with a line saying so, and checked."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from .environments import Unavailable
from .plan import PROXY


def command(folder: Path) -> Path:
    """The proxy's command in `folder`."""
    return folder / "node_modules" / ".bin" / "configurable-http-proxy"


def version(folder: Path) -> str | None:
    """The version of the proxy installed in `folder`, None where there is none."""
    if not command(folder).is_file():
        return None
    result = subprocess.run([str(command(folder)), "--version"], capture_output=True, text=True)
    return result.stdout.strip() if result.returncode == 0 else None


def install(folder: Path, say=print) -> Path:
    """configurable-http-proxy `PROXY` in `folder`, installed with npm unless it is there; its command."""
    found = version(folder)
    if found and found.startswith(PROXY + "."):
        return command(folder)
    npm = shutil.which("npm")
    if npm is None:
        raise Unavailable(
            f"the hub's proxy is configurable-http-proxy {PROXY} from npm, and there is no npm here "
            "(apt-get install npm)"
        )
    say(f"hub: installing configurable-http-proxy {PROXY} (npm) into {folder} ...")
    folder.mkdir(parents=True, exist_ok=True)
    result = subprocess.run(
        [
            npm,
            "install",
            "--prefix",
            str(folder),
            "--no-audit",
            "--no-fund",
            "--loglevel=error",
            f"configurable-http-proxy@{PROXY}",
        ],
        capture_output=True,
        text=True,
    )
    found = version(folder)
    if result.returncode != 0 or not found or not found.startswith(PROXY + "."):
        last = (result.stderr.strip() or result.stdout.strip()).splitlines()[-1:] or [f"version {found}"]
        raise Unavailable(f"npm install configurable-http-proxy@{PROXY} failed: {last[0]}")
    return command(folder)
