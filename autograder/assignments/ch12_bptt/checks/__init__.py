"""The checks of ch12_bptt: the book's cases of Example 12.1, Tables 12.1-12.2 and exercises 12.7.1-2, and hidden
draws (the exercises too, on variants of their givens).

One module an exercise, named like its check (`scalar_forward.py`, ..., `ex_12_7_2.py`): its public cases, its
hidden-case drawer, the branches and extremes of its function's contract (`Branch`: a public case shows one, or
every attempt draws one, `autograder.grading.checks.hidden_cases`), its `CHECK`, and its catalogued mistakes,
each the solution function as a student gets it wrong, named by its id, with what the student should rethink
(never the answer) in both languages. `Assignment.found` finds the modules and puts them in the notebook's
order; what several share is in `models.py`.
"""
