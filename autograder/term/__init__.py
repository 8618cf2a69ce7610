"""The term: its rules, and the grade that counts under them.

* `policy`: each assignment's due date, grace, late policy, attempts, which attempt counts and
  feedback, from `course_config.TERM`, and the late policy's arithmetic.
* `penalties`: the late penalties written into the gradebook, and the attempt that counts.
* `standing`: what became of each hand-in, and its grade that counts (`standing`): what the grade
  sheets, the report and the LMS push read.
* `extensions`: extensions, and a student's extra attempts, late days or later close, granted with
  their reasons (one at a time or from a CSV file).
* `history`: the grade history: every grade that moves, recorded with why.
* `notes`: the term's notes in each student's feedback.
"""
