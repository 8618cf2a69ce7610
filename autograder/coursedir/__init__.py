"""The course folder: where everything is kept, and the settings that say how.

* `settings`, `config`: `course_config.py` read once into typed `Settings`; the course's paths and
  its database.
* `layout`: the folder layout (`Course`), as nbgrader's CourseDirectory keeps its own.
* `privacy`, `exchange_modes`: the course is private (umask, modes checked); what goes to the
  exchange gets the modes nbgrader expects.
* `ledger`: the submission ledger, the grader's record of what arrived, when, and which attempt.
* `gradebook`, `graded`: nbgrader's gradebook opened cheaply; which submissions are graded already.
* `data`: the course data (the Chapter 11 model, the book's values).
"""
