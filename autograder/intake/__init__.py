"""Submissions in: what a student hands in, refused or admitted before anything of it is trusted.

* `collect`: nbgrader's exchange collect and the LMS zip, taken by descriptor, recorded in the ledger.
* `walk`: the walk of a submission folder (no link followed, sizes bounded) and its files read by
  descriptor.
* `admission`: nbgrader's autograde with each submission admitted first; a refused one recorded.
* `putback`: a submission's earlier grading kept while it is graded again.
* `bookkeeping`: nbgrader's gradebook steps of autograde.
* `sanitize`, `escape`: a notebook's own words made harmless for pages, and file names for terminals.
"""
