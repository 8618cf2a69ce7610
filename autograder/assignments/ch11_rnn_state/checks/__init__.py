"""The checks of ch11_rnn_state: the book's cases of Tables 11.2-11.4, Examples 11.1-11.2, section 11.3
and exercise 11.7, and hidden cases on seeded random models (exercises 11.7.1 and 11.7.2 too: asked
of the book's model and of other models in the self-check, of random models at grading).

One module an exercise, named like its check (`relu.py` to `ex_11_7_5.py`), defines it as `CHECK`
beside its catalogued mistakes; `Assignment.found` finds the modules and puts them in the notebook's
order. What several of them share (the book's model, the random models) is in `../models.py`.

Each graded check lists its contract's branches and extremes (`BRANCHES`: answers of 0, of the
bound and None, ties, far-apart logits, one-token and longest inputs, ReLU cutting); each is shown
by a public case or drawn among every attempt's hidden cases (the branch's own drawer makes the
first hidden cases). A branch on which some catalogued mistake is right by construction (a
one-token run cannot show a refetched clue, a two-token window reads its first two tokens, a strict
flip shows no tie rule) has no drawer: a public case shows it. The public cases hold one case of the
largest size a hidden case can have (six entries, five candidates, `LONGEST` tokens, 100 fillers).

Random models keep the book's shapes (2-d embeddings and states, two candidates) but have entries of
both signs in 1/8 steps (so ReLU matters and float64 arithmetic stays exact), a non-symmetric W_h (so
`h_prev @ W_h` differs from `W_h @ h_prev`) and a shuffled vocabulary.

A catalogued mistake is the solution function as a student gets it wrong, named by its id, with what
the student should rethink (never the answer) in both languages. It is named where it reproduces at
least two wrong answers of a check (or its only one), a mistake of a function the check calls only
when the student's version of that function fails its own public cases; on a tie the check's own
mistakes come first.
"""
