"""Which feedback pages are stale: what each page shows, as one digest per (assignment, student)
(`inputs`), recorded when `feedback` makes the page (`Record`, the course's `.feedback-record.json`).

A page shows the autograded notebook, the gradebook's grades and comments (a TA's included) and
late penalty, the term's lines (`autograder.term.notes`: receipt, due date or extension, lateness)
and, where the course's policy allows it at the time it is made, the hidden cases' expected values
(`autograder.grading.reveal`); all of them, with the course's settings, go into its digest. So
`feedback` makes again only the pages whose digest moved: after a regrade, a TA's grade, an
extension, a revert, or an `after_due` date passing (the one change that comes with time alone).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from nbgrader.api import Gradebook, MissingEntry

from ..coursedir import config
from ..coursedir.layout import Course
from ..grading.reveal import allows, policy_of
from ..term.notes import notes

#: Where a course root records the digest of each feedback page as it was last made.
RECORD = ".feedback-record.json"

Key = tuple[str, str]  # (assignment, student)


def inputs(root: Path, keys: list[Key], now: dt.datetime | None = None) -> dict[Key, str]:
    """(assignment, student) -> the digest of what its feedback page made `now` (naive UTC; default:
    the present) would show; a submission the gradebook does not hold has none."""
    course = Course(Path(root))
    settings = config.load(course.root)
    db_url = config.database_url(course.root, settings)
    now = now or dt.datetime.now(dt.timezone.utc).replace(tzinfo=None)
    found = {}
    with Gradebook(db_url, settings.COURSE_ID) as gradebook:
        for assignment, student in keys:
            try:
                submission = gradebook.find_submission(assignment, student)
            except MissingEntry:
                continue
            graded = course.root / "autograded" / student / assignment
            shown = {
                "settings": repr(settings),
                "notebooks": {p.name: _sha256(p.read_bytes()) for p in sorted(graded.glob("*.ipynb"))},
                "grades": sorted(
                    (nb.name, g.name, g.auto_score, g.manual_score, g.extra_credit, g.needs_manual_grade)
                    for nb in submission.notebooks
                    for g in nb.grades
                ),
                "comments": sorted(
                    (nb.name, c.name, c.auto_comment or "", c.manual_comment or "")
                    for nb in submission.notebooks
                    for c in nb.comments
                ),
                "penalty": submission.late_submission_penalty,
                "due": str(submission.duedate),
                "timestamp": str(submission.timestamp),
                "term": notes(settings, db_url, assignment, student),
                "expected": allows(policy_of(settings, assignment), submission.duedate, now),
            }
            found[(assignment, student)] = _sha256(json.dumps(shown, sort_keys=True, default=str).encode())
    return found


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass
class Record:
    """The digest of each page as `feedback` last made it, in the course root's `RECORD`."""

    path: Path
    made: dict[str, str]

    @classmethod
    def read(cls, root: Path) -> "Record":
        path = Path(root) / RECORD
        try:
            made = {str(k): str(v) for k, v in json.loads(path.read_text(encoding="utf-8")).items()}
        except FileNotFoundError:
            made = {}
        except (OSError, ValueError, AttributeError) as error:
            raise ValueError(
                f"{path} cannot be read ({error}): nothing was made; remove it, and `feedback --all` makes every page again"
            ) from None
        return cls(path, made)

    def stale(self, root: Path, digests: dict[Key, str], keys: list[Key]) -> list[Key]:
        """Of `keys`, the pages to make: never made, gone from feedback/, or showing other inputs now."""
        course = Course(Path(root))
        return [
            (a, s)
            for a, s in keys
            if self.made.get(f"{a}/{s}", "") != digests.get((a, s)) or not (course.root / "feedback" / s / a).is_dir()
        ]

    def write(self, digests: dict[Key, str]) -> None:
        """Record the pages of `digests` as made."""
        self.made.update({f"{a}/{s}": digest for (a, s), digest in digests.items()})
        self.path.write_text(json.dumps(self.made, indent=1, sort_keys=True) + "\n", encoding="utf-8")
