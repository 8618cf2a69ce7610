"""The grading run: one submission through nbgrader's autograde, and a class of them.

* `execute`: nbgrader's execute step (`TrustedExecute`): the student's cells in a sandboxed runner,
  every grade made by the grader.
* `checks`: a check run against a student's function: public and fresh hidden cases, comparison,
  the catalogued mistake named, probes.
* `attempts`: the course secret and the attempt that seed each student's hidden cases.
* `result`, `reveal`: the structured result stored with each grade cell; which expected values the
  feedback shows.
* `figures`: the reference run's figures, drawn once and put back in graded notebooks.
* `worker`, `runners`, `dask_setup`: one submission in a grader process; a class in this process, a
  pool of processes or on Dask.
"""
