"""The class as graded, for the instructor: what the gradebook, the ledger and the graded notebooks
hold, and the pages and sheets made from it.

* `classdata`: the class's data (`ClassData`: rows by graded cell, the standing of each hand-in from
  `autograder.term.standing`), read from structured records only.
* `stats`, `variants`: item analysis (facility, discrimination) and whether every drawn variant was
  equally hard.
* `exports`: the grade sheets (grades.csv, scores.csv, canvas.csv and the statistics).
* `report`: the class report page and the score table the command line prints; `page_style`: what
  every rendered page shares; `feedback_page`: what the student's feedback page needs.
* `similarity`, `similarity_page`: answer similarity (shared code, another student's hidden value)
  and its page.
"""
