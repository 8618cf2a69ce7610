"""What leaves the private course for nbgrader's exchange gets the modes nbgrader's own set-up
gives it there, whatever the course's copy has.

nbgrader's release_feedback copies each page with its mode (`shutil.copy`) into the exchange's
`feedback/` (`0711`: nobody lists it, a student opens the page whose name only they can compute),
so a page the course keeps private (`0600`, `autograder.coursedir.privacy`) would reach no student.
`ReleaseFeedback` gives the pages it released nbgrader's default mode, `0644`.
"""

from __future__ import annotations

import os
import stat

from nbgrader.exchange.default.release_feedback import ExchangeReleaseFeedback

#: nbgrader's mode of a released feedback page (GenerateFeedback's default permissions).
PAGE = 0o644


class ReleaseFeedback(ExchangeReleaseFeedback):
    """nbgrader's release_feedback, each page it placed in the exchange readable by its student."""

    def copy_files(self) -> None:
        super().copy_files()
        with os.scandir(self.dest_path) as pages:
            for page in pages:
                info = page.stat(follow_symlinks=False)
                if page.name.endswith(".html") and stat.S_ISREG(info.st_mode) and info.st_uid == os.geteuid():
                    os.chmod(page.path, PAGE)
