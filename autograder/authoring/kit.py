"""The student kit: the public half of every assignment, built into its own wheel (`rnnkit`).

`kit/` holds the kit's code and its own sentences (`messages/core.<lang>.json`); what it knows of
the assignments is built from them when the kit is built, never committed: each assignment's public
half (`public/<a>.json`: `public_half`, points, rules, book cases with their labels in each language,
expected values and the catalogued mistakes' outputs on them, and the due date where the course's
TERM gives one (`due_date`), as codec JSON) and its mistakes' sentences (`messages/<a>.<lang>.json`,
from each `@mistake`). `build(out)` makes the wheel from a copy of `kit/` with that data;
`install()` writes it into `kit/` (ignored by git) and installs the kit in the course's own
environment (`make venv`).

The kit's version follows the course (`version`): `kit/pyproject.toml`'s version with a digest of
what the kit is built from (its code, the assignments, and the course's points, due dates and call
limit) as its local part, `0.2.0+k<12 hex digits>`. So a kit built again from a changed course is
a new version, which `pip install <wheel>` puts in place of the old one; the released notebooks
name the version they were released with (`check = checker(..., kit=...)`), and the self-check
says when the kit it runs on is another. `stale` is what `release` and `extend` say to the
instructor when the kit handed out, or the released notebooks, are not the course's now.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from functools import lru_cache
from pathlib import Path
from typing import Any

from rnnkit import codec
from rnnkit.compare import compare
from rnnkit.jail.limits import Limits
from rnnkit.messages import LANGUAGES

from ..assignments import ALL
from ..coursedir import config
from ..coursedir.settings import Settings
from ..grading.checks import mistaken_output, public_cases
from ..labels import label
from ..term import policy
from ..vocabulary.spec import Assignment

KIT = config.REPO_ROOT / "kit"
#: What the kit's public data is built from besides the kit itself (`version` digests them).
BUILT_FROM = tuple(
    config.REPO_ROOT / "autograder" / part
    for part in ("assignments", "vocabulary", "grading/checks.py", "authoring/kit.py")
)
#: Where `python -m autograder kit` records, in a course root, the version it last built.
KIT_RECORD = ".kit-record.json"
#: How a released notebook names the kit it was released with (`checker(..., kit="<version>")`).
NAMED_KIT = re.compile(r'checker\("[^"]+", lang="[^"]+", kit="([^"]+)"\)')


def due_date(settings: Settings, assignment: str) -> dict[str, str] | None:
    """The due date of `assignment` as the kit stores it, None where the course's TERM gives none:
    `at`, ISO 8601 with its offset, in the course's `TIMEZONE`, and `zone`, that zone's name. The
    due date is public (every student of the course has it); a student's extension is not, and
    never goes in the kit (nor does anything else of TERM)."""
    due = policy.rules(settings, assignment).due
    if due is None:
        return None
    return {"at": due.astimezone(policy.zone(settings)).isoformat(), "zone": settings.TIMEZONE}


def public_half(
    spec: Assignment,
    overrides: dict | None = None,
    due: dict[str, str] | None = None,
    CALL_TIMEOUT: float = Limits.CALL_TIMEOUT,
) -> dict[str, Any]:
    """What the student kit stores: per check its points (0 for a self-check), rules and book
    cases, each with the expected value and the catalogued mistakes' outputs on it (those that
    differ), and the function each mistake of a function the check calls replaces (`callees`);
    the points of each written answer (graded by hand; no rubric); the seconds one call may take,
    as at grading (the course's CALL_TIMEOUT); and the due date (`due_date`), where
    there is one."""
    checks = {}
    for check in spec.checks:
        cases = []
        for case, _, expected in public_cases(check, labelled=False):
            outputs = []
            for entry in spec.for_check(check.name):
                output = mistaken_output(entry, check, case)
                if output is not None and not compare(output, expected, exact=check.exact, rtol=check.rtol).ok:
                    outputs.append((entry.id, output))
            cases.append(
                {
                    "label": case.label,
                    "args": case.args,
                    "kwargs": case.kwargs,
                    "expected": expected,
                    "mistakes": outputs,
                }
            )
        rules = check.rules
        checks[check.name] = {
            "points": spec.points(check.name, overrides),
            "cases": cases,
            "rules": {
                "exact": rules.exact,
                "rtol": rules.rtol,
                "reveal": rules.reveal,
                "call": rules.call,
                "kept": rules.kept,
            },
            "callees": {
                entry.id: entry.function for entry in spec.for_check(check.name) if entry.function != check.name
            },
        }
    half = {
        "assignment": spec.name,
        "checks": checks,
        "written": {answer.name: spec.points(answer.name, overrides) for answer in spec.written},
        "CALL_TIMEOUT": CALL_TIMEOUT,
    }
    if due is not None:
        half["due"] = dict(due)
    return half


def public_files(root: str | Path = config.REPO_ROOT) -> dict[str, bytes]:
    """path in the kit's package -> contents, of the public data and the mistakes' sentences, for
    the course at `root` (its POINTS, and its TERM's due dates in its TIMEZONE)."""
    settings = config.load(root)
    files = {}
    for name, spec in ALL.items():
        files[f"public/{name}.json"] = (
            codec.dumps(public_half(spec, settings.POINTS, due_date(settings, name), settings.CALL_TIMEOUT)) + b"\n"
        )
        for lang in LANGUAGES:
            says = {f"mistake.{entry.id}": entry.says[lang] for entry in spec.mistakes() if entry.says}
            files[f"messages/{name}.{lang}.json"] = json.dumps(says, ensure_ascii=False, indent=2).encode() + b"\n"
    return files


def write_public(package: Path, root: str | Path = config.REPO_ROOT) -> list[Path]:
    """Write the public data and the mistakes' sentences into a copy of the kit's package folder."""
    written = []
    for name, data in public_files(root).items():
        (package / name).parent.mkdir(parents=True, exist_ok=True)
        (package / name).write_bytes(data)
        written.append(package / name)
    return written


def _base_version() -> str:
    """The kit's own version, `kit/pyproject.toml`'s: the public part of every course's version."""
    return tomllib.loads((KIT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]


def version(root: str | Path = config.REPO_ROOT) -> str:
    """The version of the kit of the course at `root`: `<base>+k<digest>`, the digest (12 hex
    digits of SHA-256) of the kit's source, the files its public data is built from (`BUILT_FROM`)
    and the course's settings the kit carries (points, due dates in its time zone, call limit)."""
    settings = config.load(root)
    carried = {
        "POINTS": settings.POINTS,
        "due": {name: due_date(settings, name) for name in ALL},
        "CALL_TIMEOUT": settings.CALL_TIMEOUT,
    }
    return _version(json.dumps(carried, sort_keys=True, default=str))


@lru_cache(maxsize=None)
def _version(carried: str) -> str:
    digest = hashlib.sha256(carried.encode("utf-8"))
    for path in _source_files():
        digest.update(str(path.relative_to(config.REPO_ROOT)).encode("utf-8") + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return f"{_base_version()}+k{digest.hexdigest()[:12]}"


def _source_files() -> list[Path]:
    """The kit's source (as `build` copies it) and the files of `BUILT_FROM`, in a stable order."""
    found = []
    for top in (KIT, *BUILT_FROM):
        if top.is_file():
            found.append(top)
            continue
        for folder, names, files in os.walk(top):
            names[:] = sorted(set(names) - _not_source(folder, names))
            found.extend(Path(folder) / name for name in sorted(set(files) - _not_source(folder, files)))
    return sorted(found)


def wheel_name(root: str | Path = config.REPO_ROOT) -> str:
    """The file name of the wheel `build` makes for the course at `root`."""
    return f"rnn_course_kit-{version(root)}-py3-none-any.whl"


def build(out: str | Path = "dist", root: str | Path = config.REPO_ROOT) -> Path:
    """The kit's wheel in `out` (`wheel_name`), with the public data of the course at `root`."""
    out = Path(out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        source = Path(scratch) / "kit"
        shutil.copytree(KIT, source, ignore=_not_source)
        write_public(source / "rnnkit", root)
        project = source / "pyproject.toml"
        text = project.read_text(encoding="utf-8")
        project.write_text(text.replace(f'version = "{_base_version()}"', f'version = "{version(root)}"', 1))
        _run(
            [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(out), str(source)],
            "building the kit",
        )
    wheel = out / wheel_name(root)
    if not wheel.is_file():
        raise RuntimeError(f"building the kit made no {wheel.name} in {out}")
    return wheel


def record_built(root: str | Path) -> None:
    """Record in the course at `root` (`KIT_RECORD`) that its kit was built now, at its version."""
    when = dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")
    (Path(root) / KIT_RECORD).write_text(json.dumps({"version": version(root), "built": when}) + "\n", encoding="utf-8")


def stale(root: str | Path) -> str | None:
    """What the instructor must do for the students' kit to be the course's (one line), or None:
    where the kit last built for the course at `root` (`record_built`), or a released notebook, names
    another version than the course's now (its points, due dates, call limit or checks changed)."""
    from ..coursedir.layout import Course

    course, now = Course(Path(root)), version(root)
    try:
        built = json.loads((course.root / KIT_RECORD).read_text(encoding="utf-8")).get("version")
    except (OSError, ValueError, AttributeError):
        built = None
    released = sorted(
        name
        for name in ALL
        if (path := course.notebook(course.release(name), name)).is_file() and released_with(path) != now
    )
    if built == now and not released:
        return None
    if released:
        return label("kit.stale_release", version=now, assignments=", ".join(released), wheel=wheel_name(root))
    return label("kit.stale", version=now, wheel=wheel_name(root))


def released_with(notebook: Path) -> str | None:
    """The version of the kit a released notebook names (`NAMED_KIT`), None where it names none."""
    try:
        cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
        source = "".join("".join(cell["source"]) for cell in cells if cell["cell_type"] == "code")
    except (OSError, ValueError, KeyError, TypeError):
        return None
    named = NAMED_KIT.search(source)
    return named.group(1) if named else None


def install(root: str | Path = config.REPO_ROOT) -> None:
    """Build the kit of the course at `root`, write its data into `kit/` too (beside its code,
    ignored by git), and install the wheel in this environment."""
    write_public(KIT / "rnnkit", root)
    with tempfile.TemporaryDirectory() as out:
        wheel = build(out, root)
        _run(
            [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--force-reinstall", str(wheel)],
            "installing the kit",
        )


def _not_source(folder: str, names: list[str]) -> set[str]:
    """Of a folder of `kit/`, what is not the kit's source: caches, build leftovers, and the data
    `install` wrote (`public/`, the assignments' `messages/<a>.<lang>.json`), which `build` writes afresh."""
    skipped = {name for name in names if name in ("__pycache__", "build", "public") or name.endswith(".egg-info")}
    if Path(folder).name == "messages":
        skipped |= {name for name in names if name.endswith(".json") and not name.startswith("core.")}
    return skipped


def _run(command: list[str], doing: str) -> None:
    """Run `command` with the umask of a public install: the kit is what every student may read."""
    result = subprocess.run(command, capture_output=True, text=True, umask=0o022)
    if result.returncode != 0:
        raise RuntimeError(f"{doing} failed:\n{result.stdout}\n{result.stderr}")
