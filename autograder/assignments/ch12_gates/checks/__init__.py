"""The checks of ch12_gates: the book's cases of section 12.4 (Examples 12.3-12.4, the second and third
texts' gate examples, Table 12.3's parameter budget) and seeded hidden draws.

Hidden draws: gate values and cells are exact Fractions for `lstm_cell_update`, `retention` and the
exercises 12.7.4-5 (scalar variants of their givens); `lstm_step` and `gru_step` get float64
parameters with input width m from 1 to 4, hidden width d from 1 to 5 (GRU: 2 to 5, see the drawer of
`gru_step`), full (non-diagonal) A and U_g matrices, and biases that push some gates to within a few
thousandths of 0 or 1.

Branches (`Branch`): every graded check lists its contract's extremes. The limits a mistake cannot be
told apart on (r = 1 for a reset mistake, z = 0, a closed forget gate for `retention`) are shown by
public cases, which earn nothing; the others are drawn at the head of every attempt's hidden cases
by the `..._with` drawers. Each check whose cost grows with size has a public case of the largest
size its drawer draws.

Catalogued mistakes: each is the solution function as a student gets it wrong, named by its id, with
what the student should rethink (never the answer) in both languages. Mistakes of `sigmoid` and
`lstm_cell_update` also change the checks of their callers (`lstm_step`, `gru_step`), because the
mistaken output is computed by running the solution module with the function swapped in.

One module an exercise, named like its check (`sigmoid.py` ... `gru_param_count.py`), holding its
cases, drawer, branches, `CHECK` and mistakes; `Assignment.found` finds them and puts them in the
notebook's order. What several share is in `../models.py`.
"""
