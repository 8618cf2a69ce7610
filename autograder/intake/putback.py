"""A submission's earlier grading kept while it is graded again, and put back unless the new one
finishes (`EarlierCopy`): a run stopped at any point leaves one whole grading of it."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from ..coursedir.graded import GradedRecord, graded_record
from ..coursedir.layout import failed_attempt_record


class EarlierCopy:
    """A submission's graded folder (autograded/<student>/<assignment>) kept beside it while it is
    graded again: put back unless the new grading finished or was skipped (`done`), and its failed
    `attempt`, where there is one, recorded (`layout.failed_attempt_record`) until a grading succeeds.

    The record that the submission is graded (`coursedir.graded.graded_record`) is removed first and
    written last, once the kept copy is gone: a run stopped at any point leaves either the new
    grading with its record, or the earlier copy and no record (graded again by the next run)."""

    #: In a kept folder: there was no graded folder before (a first grading), so none is put back.
    NONE = ".none"

    def __init__(self, dest: Path):
        self.dest, self.kept = dest, dest.parent / f".{dest.name}.earlier"
        self.finished, self.graded, self.attempt, self.record = False, False, None, None
        graded_record(dest).unlink(missing_ok=True)
        if self.kept.is_dir():  # left by a run that was stopped before it finished: what was there before
            self._put_back()
        copying = self.kept.with_name(self.kept.name + ".copying")  # whole, or not there: renamed into place
        shutil.rmtree(copying, ignore_errors=True)
        if self.dest.is_dir():
            shutil.copytree(self.dest, copying, symlinks=True)
        else:
            copying.mkdir(parents=True)
            (copying / self.NONE).touch()
        os.replace(copying, self.kept)

    def _put_back(self) -> None:
        """The graded folder as it was before this grading (none, for a first one)."""
        if self.dest.exists():
            shutil.rmtree(self.dest, ignore_errors=True)
        if (self.kept / self.NONE).exists():
            shutil.rmtree(self.kept)
        else:
            os.replace(self.kept, self.dest)

    def done(self, graded: bool = True, record: GradedRecord | None = None) -> None:
        self.finished, self.graded, self.record = True, graded, record

    def __enter__(self) -> "EarlierCopy":
        return self

    def __exit__(self, *exc) -> None:
        record = failed_attempt_record(self.dest)
        if self.finished:
            shutil.rmtree(self.kept, ignore_errors=True)
            if self.graded:
                record.unlink(missing_ok=True)
                if self.record is not None:
                    self.record.write(graded_record(self.dest))
            return
        if self.kept.is_dir():
            self._put_back()
        if self.attempt:
            self.attempt.write(record)
