"""The checks of ch12_boundaries: state boundaries, truncation, padding and causality.

The `step` callables given to the student functions are the kit's `TanhStep`s: deterministic
tanh-RNN steps with seeded float64 weights, bit-identical on rows and batches - which is what the
probes demand.

The drawers' bounds (the largest public case of each check has them): D, d <= 3; run_independent up to
4 sequences of 12 steps; run_stream up to 4 segments of 6; run_entities up to 5 runs of 4;
truncated_bptt_scalar T <= 12; a padded batch B <= 4, T <= 12. A branch's drawer stays inside them.

Each check's contract branches and extremes (`Branch`) are shown by a public case where the
self-check should warn (a public case gates the points), else drawn at the head of every attempt's
hidden cases. A branch on which a catalogued mistake is always right (a single sequence for the
carried state, one entity for the missing reset, k = 1 for sliding windows, no padding for every
padding mistake) is public: a drawer could never separate it.

Each catalogued mistake is the solution function as a student gets it wrong, named by its id, with
what the student should rethink (never the answer) in both languages. The sources are pasted into
student notebooks to build mutant submissions, so they use only `np`, the correct solution functions
(as `_name`) and the private helpers of their module.

One module an exercise, named like its check (the solution function it grades), defining it as
`CHECK` beside its catalogued mistakes: `Assignment.found` finds them and puts them in the notebook's
order. What several exercises share is in `../models.py`.
"""
