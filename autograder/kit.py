"""The student kit: the public half of every assignment, built into its own wheel (`rnnkit`).

`write_public(folder)` stores each assignment's public half (`Assignment.public_half`: points, rules,
book cases with expected values and the catalogued mistakes' outputs on them) as codec JSON;
`build(out)` makes the wheel from a copy of `kit/` with that data. The committed
`kit/rnnkit/public/` is what the course's own environment installs; a test keeps it in sync.
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
    """file name -> contents of the public data, for the course at `root` (its POINTS)."""
    overrides = config.load(root).POINTS
    return {f"{name}.json": codec.dumps(spec.public_half(overrides)) + b"\n" for name, spec in ALL.items()}


def write_public(folder: Path = KIT / "rnnkit" / "public", root: str | Path = config.REPO_ROOT) -> list[Path]:
    """Write the public data files into `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, data in public_files(root).items():
        (folder / name).write_bytes(data)
        written.append(folder / name)
    return written


def build(out: str | Path = "dist", root: str | Path = config.REPO_ROOT) -> Path:
    """The kit's wheel in `out`, with the public data of the course at `root`."""
    out = Path(out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        source = Path(scratch) / "kit"
        shutil.copytree(KIT, source, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "build"))
        shutil.rmtree(source / "rnnkit" / "public", ignore_errors=True)
        write_public(source / "rnnkit" / "public", root)
        before = set(out.glob("*.whl"))
        result = subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(out), str(source)],
                                capture_output=True, text=True)
        if result.returncode != 0:
            raise RuntimeError(f"building the kit failed:\n{result.stdout}\n{result.stderr}")
    made = sorted(set(out.glob("rnn_course_kit-*.whl")) - before) or sorted(out.glob("rnn_course_kit-*.whl"))
    return made[-1]
