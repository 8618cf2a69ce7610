"""Reference solution of ch12_boundaries: built by `release` from autograder/assignments/ch12_boundaries/notebook.md (edit that file), its setup and solution cells."""
import numpy as np
from fractions import Fraction

def tanh_step(W_x, W_h, b):
    """A tanh RNN step h_new = tanh(x @ W_x + h @ W_h + b) for the demonstrations; rows or batches."""
    W_x, W_h, b = (np.array(a, dtype=float) for a in (W_x, W_h, b))
    return lambda x, h: np.tanh(np.asarray(x, dtype=float) @ W_x + np.asarray(h, dtype=float) @ W_h + b)

def random_step(seed, D, d):
    """A tanh RNN step with random weights (W_x in [-1, 1], W_h in [-0.9, 0.9], b in [-0.5, 0.5])."""
    rng = np.random.default_rng(seed)
    return tanh_step(rng.uniform(-1, 1, (D, d)), rng.uniform(-0.9, 0.9, (d, d)), rng.uniform(-0.5, 0.5, d))


def run_independent(step, sequences, h0):
    """States of independent sequences: every sequence starts again from h0.

    `step(x, h)` returns the next state; `sequences` is a list of (T_i, D) arrays; `h0` is (d,).
    Returns a list with one (T_i, d) array of states [h_1, ..., h_T_i] per sequence.
    """
    ### BEGIN SOLUTION
    h0 = np.asarray(h0, dtype=float)
    result = []
    for xs in sequences:
        h, states = h0, []
        for x in np.asarray(xs, dtype=float):
            h = step(x, h)
            states.append(h)
        result.append(np.array(states, dtype=float).reshape(len(states), h0.shape[-1]))
    return result
    ### END SOLUTION


def run_stream(step, segments, h0):
    """States of one stream cut into segments: the state carries from one segment to the next.

    `segments` is a list of (T_k, D) arrays, in stream order; only the first segment starts from h0.
    Returns a list with one (T_k, d) array of states per segment.
    """
    ### BEGIN SOLUTION
    h = np.asarray(h0, dtype=float)
    result = []
    for xs in segments:
        states = []
        for x in np.asarray(xs, dtype=float):
            h = step(x, h)
            states.append(h)
        result.append(np.array(states, dtype=float).reshape(len(states), h.shape[-1]))
    return result
    ### END SOLUTION


def run_entities(step, stream, h0):
    """States of a stream of (entity_id, x) pairs: the state resets to h0 whenever the entity changes.

    Returns a (T, d) array: row t is the state after reading the t-th pair.
    """
    ### BEGIN SOLUTION
    h0 = np.asarray(h0, dtype=float)
    states, h, current = [], h0, None
    for index, (entity, x) in enumerate(stream):
        if index == 0 or entity != current:
            h = h0
        h = step(np.asarray(x, dtype=float), h)
        current = entity
        states.append(h)
    return np.array(states, dtype=float).reshape(len(states), h0.shape[-1])
    ### END SOLUTION


def truncated_bptt_scalar(xs, w, targets, k, h0=0):
    """Truncated BPTT for h_t = x_t + w h_{t-1} with segments of k steps (steps 1..k, k+1..2k, ...).

    `targets` maps a 1-based step t to its target y_t; the loss is sum_t 1/2 (h_t - y_t)^2.
    The state VALUE carries across a segment boundary; the GRADIENT does not flow back across it.
    Returns a dict: `states` [h_1..h_T], `loss`, `grad` (dL/dw of the truncated computation). Exact.
    """
    ### BEGIN SOLUTION
    states, h = [], h0
    for x in xs:
        h = x + w * h
        states.append(h)
    loss = sum((states[t - 1] - y) * (states[t - 1] - y) / 2 for t, y in targets.items())
    previous = [h0] + states[:-1]
    grad = 0
    for start in range(0, len(xs), k):
        carry = 0  # nothing flows back into this segment from the next one
        for t in reversed(range(start, min(start + k, len(xs)))):
            delta = carry + (states[t] - targets[t + 1] if t + 1 in targets else 0)
            grad = grad + delta * previous[t]
            carry = delta * w
    return {"states": states, "loss": loss, "grad": grad}
    ### END SOLUTION


def ex_12_7_3():
    """Exercise 12.7.3: a program carries the hidden state from one segment to the next but truncates
    the gradient at the boundary; the second segment's target depends on a clue in the first segment.

    Options:
      A. the numeric value of the hidden state handed to the second segment
      B. the second segment's loss gradient flowing back into the first segment's states
      C. the contributions that the first segment's uses of w make to the second segment's loss
      D. the contributions that the second segment's own uses of w make to its loss
      E. a proof that training tracked the whole sequence, because the carried state is nonzero

    Return {"passes": set of letters that still cross the boundary,
            "cut": set of letters that the truncation cuts}. Some options belong to neither set.
    """
    ### BEGIN SOLUTION
    return {"passes": {"A"}, "cut": {"B", "C"}}
    ### END SOLUTION


def masked_rnn_forward(step, X, lengths, h0):
    """A padded batch: X is (B, T, D), lengths (B,) ints, h0 (d,).

    Row b is valid for its first lengths[b] steps; after that X holds padding (anything, even NaN).
    Returns (H, final): H (B, T, d) with each row's state frozen after its last valid step, and
    final (B, d), each row's state at its last valid step.
    """
    ### BEGIN SOLUTION
    X = np.asarray(X, dtype=float)
    lengths = np.asarray(lengths)
    B, T, _ = X.shape
    h = np.tile(np.asarray(h0, dtype=float), (B, 1))
    H = np.empty((B, T, h.shape[1]))
    for t in range(T):
        valid = (t < lengths)[:, None]
        h = np.where(valid, step(X[:, t], h), h)
        H[:, t] = h
    return H, h
    ### END SOLUTION


def masked_mean_loss(losses, mask):
    """Mean of per-position losses (B, T) over the valid positions only (mask: bool (B, T), True = valid).

    Padded positions of `losses` may hold anything (even NaN). Returns a float.
    """
    ### BEGIN SOLUTION
    losses = np.asarray(losses, dtype=float)
    mask = np.asarray(mask, dtype=bool)
    return float(np.sum(losses[mask]) / np.count_nonzero(mask))
    ### END SOLUTION


def generation_features(step, xs, h0):
    """Features usable by a generator: the forward states only. xs (T, D) -> (T, d), row t = h_t."""
    ### BEGIN SOLUTION
    h, states = np.asarray(h0, dtype=float), []
    for x in np.asarray(xs, dtype=float):
        h = step(x, h)
        states.append(h)
    return np.array(states, dtype=float).reshape(len(states), h.shape[-1])
    ### END SOLUTION


def bidirectional_features(step_f, step_b, xs, h0):
    """Features for a task that sees the whole input: xs (T, D) -> (T, 2d).

    Row t is [forward state after x_1..x_t (step_f), backward state after reading x_T..x_t (step_b)];
    both directions start from h0.
    """
    ### BEGIN SOLUTION
    xs = np.asarray(xs, dtype=float)
    forward = generation_features(step_f, xs, h0)
    backward = generation_features(step_b, xs[::-1], h0)[::-1]
    return np.concatenate([forward, backward], axis=1)
    ### END SOLUTION


def ex_12_7_6():
    """Exercise 12.7.6: a scheme computes backward ELMo states from the complete reference translation
    and then uses them to predict that same translation from the start.

    Why is this not a valid evaluation of generation? Options (choose all that apply):
      A. at position t the backward state has read the reference tokens after t, which the generator
         has not produced yet at that moment
      B. the target being evaluated flows into the features used to predict it, so the score is leaked
      C. a bidirectional model has more parameters than a forward one, so the comparison is unfair
      D. the backward language model's pretraining puts its own prediction target into its input
    In which tasks is reading the full input legitimate? Options (choose all that apply):
      P. sentiment classification of a complete sentence that is given in full
      Q. next-word suggestions while the user is still typing
      R. translating word by word, each word chosen before the next is produced
      S. tagging every word of a complete sentence that is already given (sequence labelling)

    Return {"leak": set of letters, "full_context_ok": set of letters}.
    """
    ### BEGIN SOLUTION
    return {"leak": {"A", "B"}, "full_context_ok": {"P", "S"}}
    ### END SOLUTION
