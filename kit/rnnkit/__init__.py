"""The student kit of the RNN chapters course (Chapters 11 and 12): what a released notebook imports.

`checker("<assignment>")` gives the notebook's `check(name, function)`, which runs the book's public
cases and says what to do (`check.summary()` counts the checks right); `uses_your_functions()`
wraps a table or plot cell that calls the student's functions; `rnnkit.helpers` holds what the course gives (`load_model`, the `step`
callables). The kit holds no solution, reference engine or hidden case: those stay with the grader.
"""

from .selfcheck import checker, uses_your_functions

__all__ = ["checker", "uses_your_functions"]
