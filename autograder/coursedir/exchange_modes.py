"""What leaves the private course for nbgrader's exchange gets the modes nbgrader's own set-up
gives it there, whatever the course's copy has.

nbgrader's release_feedback copies each page with its mode (`shutil.copy`) into the exchange's
`feedback/` (`0711`: nobody lists it, a student opens the page whose name only they can compute),
so a page the course keeps private (`0600`, `autograder.coursedir.privacy`) would reach no student.
`ReleaseFeedback` gives the pages it released nbgrader's default mode, `0644`.
"""

from __future__ import annotations

import glob
import os
import stat
from pathlib import Path

from nbgrader.exchange.default.release_feedback import ExchangeReleaseFeedback

#: nbgrader's mode of a released feedback page (GenerateFeedback's default permissions).
PAGE = 0o644


class ReleaseFeedback(ExchangeReleaseFeedback):
    """nbgrader's release_feedback, each page it placed in the exchange readable by its student; a
    page of a hand-in that did not come through `nbgrader submit` (no `submission_secret.txt`, from
    which the student's client finds its page: a folder put in submitted/ by hand, an LMS download)
    is left out with one line instead of stopping the class with a traceback."""

    def copy_files(self) -> None:
        unsent = sorted(
            {
                Path(page).parent.parent.name
                for page in glob.glob(os.path.join(self.src_path, "*.html"))
                if not all((Path(page).parent / name).is_file() for name in ("timestamp.txt", "submission_secret.txt"))
            }
        )
        for student in unsent:
            self.log.warning(
                "feedback of %s on %s not released through the exchange: the hand-in did not come through "
                "nbgrader submit (no submission_secret.txt), so no student could find it there; give them %s",
                student,
                self.coursedir.assignment_id,
                os.path.join(
                    self.coursedir.format_path(
                        self.coursedir.feedback_directory, student, self.coursedir.assignment_id
                    ),
                    "*.html",
                ),
            )
        excluded = self.coursedir.student_id_exclude
        self.coursedir.student_id_exclude = ",".join(filter(None, [excluded, *unsent]))
        try:
            super().copy_files()
        finally:
            self.coursedir.student_id_exclude = excluded
        with os.scandir(self.dest_path) as pages:
            for page in pages:
                info = page.stat(follow_symlinks=False)
                if page.name.endswith(".html") and stat.S_ISREG(info.st_mode) and info.st_uid == os.geteuid():
                    os.chmod(page.path, PAGE)
