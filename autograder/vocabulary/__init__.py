"""What an assignment's author writes with; the assignments import it, the grading run reads it.

* `spec`: the `Assignment` (found from its folder), its `Check`s, `Branch`es and `Written` answers.
* `template`: an assignment's `notebook.md`: its cells, and the reference solution it holds.
* `catalogue`: the catalogued mistakes (`@mistake`), each a wrong version of a solution function.
* `probes`: causal and leakage probes, rules a student's outputs must obey.
* `draws`, `symbolic`: random inputs for hidden cases; exact SymPy numbers and the book's decimals.
"""
