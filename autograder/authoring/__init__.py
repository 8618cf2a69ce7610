"""What the course is built from the assignments: notebooks, the kit, sample classes, the book's values.

* `build`: the source notebooks, from each assignment's `notebook.md`.
* `kit`: the student kit (`rnnkit`), the public half of every assignment, built into its wheel.
* `written`: written answers, graded by hand with the book's answer as the rubric.
* `submissions`, `sample`: submissions made from a released notebook (the reference, the stub, the
  catalogued mistakes) and the bundled sample class.
* `book`: every book value recomputed by the SymPy engines and compared with the book.
"""
