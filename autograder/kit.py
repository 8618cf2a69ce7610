"""The student kit: the public half of every assignment, built into its own wheel (`rnnkit`).

`write_public(package)` stores, in the kit's package folder, each assignment's public half
(`public/<a>.json`: `Assignment.public_half`, points, rules, book cases with expected values and the
catalogued mistakes' outputs on them, as codec JSON) and a copy of its messages
(`messages/<a>.<lang>.json`, from `messages.<lang>.json` in the assignment's folder); `build(out)`
makes the wheel from a copy of `kit/` with that data. The committed copies in `kit/rnnkit/` are what
the course's own environment installs; a test keeps them in sync.
"""
from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from rnnkit import codec

from . import config
from .assignments import ALL

KIT = config.REPO_ROOT / "kit"


def public_files(root: str | Path = config.REPO_ROOT) -> dict[str, bytes]:
    """path in the kit's package -> contents, of the public data and the assignments' messages, for
    the course at `root` (its POINTS)."""
    overrides = config.load(root).POINTS
    files = {}
    for name, spec in ALL.items():
        files[f"public/{name}.json"] = codec.dumps(spec.public_half(overrides)) + b"\n"
        for path in sorted(spec.folder.glob("messages.*.json")):
            files[f"messages/{name}.{path.name.removeprefix('messages.')}"] = path.read_bytes()
    return files


def write_public(package: Path = KIT / "rnnkit", root: str | Path = config.REPO_ROOT) -> list[Path]:
    """Write the public data and the assignments' messages into the kit's package folder."""
    written = []
    for name, data in public_files(root).items():
        (package / name).parent.mkdir(parents=True, exist_ok=True)
        (package / name).write_bytes(data)
        written.append(package / name)
    return written


def build(out: str | Path = "dist", root: str | Path = config.REPO_ROOT) -> Path:
    """The kit's wheel in `out`, with the public data of the course at `root`."""
    out = Path(out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        source = Path(scratch) / "kit"
        shutil.copytree(KIT, source, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "build"))
        shutil.rmtree(source / "rnnkit" / "public", ignore_errors=True)
        write_public(source / "rnnkit", root)
        before = set(out.glob("*.whl"))
        result = subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(out), str(source)],
                                capture_output=True, text=True)
        if result.returncode != 0:
            raise RuntimeError(f"building the kit failed:\n{result.stdout}\n{result.stderr}")
    made = sorted(set(out.glob("rnn_course_kit-*.whl")) - before) or sorted(out.glob("rnn_course_kit-*.whl"))
    return made[-1]
