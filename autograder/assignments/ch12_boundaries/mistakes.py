"""Catalogued mistakes of ch12_boundaries: each is the solution function as a student gets it wrong.

The sources are pasted into student notebooks to build mutant submissions, so they use only `np`,
the correct solution functions (as `_name`) and the private helpers below.
"""

import numpy as np

from solutions.ch12_boundaries import generation_features as _generation_features
from solutions.ch12_boundaries import masked_rnn_forward as _masked_rnn_forward
from solutions.ch12_boundaries import run_independent as _run_independent
from solutions.ch12_boundaries import run_stream as _run_stream
from solutions.ch12_boundaries import truncated_bptt_scalar as _truncated_bptt_scalar

from ...catalogue import mistake


# ----------------------------------------------------------------------------- state boundaries

@mistake("run_independent")
def state_carried_across_sequences(step, sequences, h0):
    return _run_stream(step, sequences, h0)


@mistake("run_independent")
def initial_state_included(step, sequences, h0):
    return [np.vstack([np.asarray(h0, dtype=float), states]) for states in _run_independent(step, sequences, h0)]


@mistake("run_stream")
def state_reset_inside_stream(step, segments, h0):
    return _run_independent(step, segments, h0)


@mistake("run_entities")
def no_reset_on_entity_change(step, stream, h0):
    return _run_stream(step, [np.array([x for _, x in stream], dtype=float)], h0)[0]


@mistake("run_entities")
def entity_state_resumed(step, stream, h0):
    saved, states = {}, []
    for entity, x in stream:
        h = step(np.asarray(x, dtype=float), saved.get(entity, np.asarray(h0, dtype=float)))
        saved[entity] = h
        states.append(h)
    return np.array(states)


# ----------------------------------------------------------------------------- truncated BPTT

def _segments(xs, w, targets, starts, h0, restart):
    """Truncated BPTT over segments beginning at the 0-based `starts`; each segment starts from the
    carried value, or from `restart` when it is not None. Returns states, loss, and per-segment grads."""
    states, loss, grads, h = [], 0, [], h0
    for start, end in zip(starts, list(starts[1:]) + [len(xs)]):
        if end <= start:
            continue
        part = {t - start: y for t, y in targets.items() if start < t <= end}
        first = h if (start == 0 or restart is None) else restart
        result = _truncated_bptt_scalar(xs[start:end], w, part, end - start, first)
        states, loss = states + result["states"], loss + result["loss"]
        grads.append(result["grad"])
        h = states[-1]
    return states, loss, grads


@mistake("truncated_bptt_scalar")
def no_detach_at_boundary(xs, w, targets, k, h0=0):
    return _truncated_bptt_scalar(xs, w, targets, len(xs), h0)


@mistake("truncated_bptt_scalar")
def value_zeroed_at_boundary(xs, w, targets, k, h0=0):
    states, loss, grads = _segments(xs, w, targets, list(range(0, len(xs), k)), h0, 0)
    return {"states": states, "loss": loss, "grad": sum(grads)}


@mistake("truncated_bptt_scalar")
def boundary_one_step_early(xs, w, targets, k, h0=0):
    states, loss, grads = _segments(xs, w, targets, [0] + list(range(k - 1, len(xs), k)), h0, None)
    return {"states": states, "loss": loss, "grad": sum(grads)}


@mistake("truncated_bptt_scalar")
def segment_gradients_overwritten(xs, w, targets, k, h0=0):
    states, loss, grads = _segments(xs, w, targets, list(range(0, len(xs), k)), h0, None)
    return {"states": states, "loss": loss, "grad": grads[-1]}


# ----------------------------------------------------------------------------- padding and masks

def _unmasked(step, X, h0):
    """States of every row through all T steps, padding included."""
    X = np.asarray(X, dtype=float)
    h = np.tile(np.asarray(h0, dtype=float), (X.shape[0], 1))
    H = []
    for t in range(X.shape[1]):
        h = step(X[:, t], h)
        H.append(h)
    return np.stack(H, axis=1)


@mistake("masked_rnn_forward")
def padding_updates_state(step, X, lengths, h0):
    H = _unmasked(step, X, h0)
    return H, H[np.arange(len(H)), np.asarray(lengths) - 1]


@mistake("masked_rnn_forward")
def final_state_at_padded_end(step, X, lengths, h0):
    H = _unmasked(step, X, h0)
    return H, H[:, -1]


@mistake("masked_rnn_forward")
def padded_states_zeroed(step, X, lengths, h0):
    H, final = _masked_rnn_forward(step, X, lengths, h0)
    valid = np.arange(H.shape[1])[None, :] < np.asarray(lengths)[:, None]
    return np.where(valid[:, :, None], H, 0.0), final


@mistake("masked_rnn_forward")
def rows_left_sorted_by_length(step, X, lengths, h0):
    order = np.argsort(-np.asarray(lengths), kind="stable")
    return _masked_rnn_forward(step, np.asarray(X, dtype=float)[order], np.asarray(lengths)[order], h0)


@mistake("masked_mean_loss")
def loss_averaged_over_padding(losses, mask):
    return float(np.mean(np.asarray(losses, dtype=float) * np.asarray(mask, dtype=float)))


@mistake("masked_mean_loss")
def padded_losses_included(losses, mask):
    return float(np.mean(losses))


@mistake("masked_mean_loss")
def mean_of_row_means(losses, mask):
    losses, mask = np.asarray(losses, dtype=float), np.asarray(mask, dtype=bool)
    return float(np.mean([np.sum(row[m]) / np.count_nonzero(m) for row, m in zip(losses, mask)]))


# ----------------------------------------------------------------------------- causality and leakage

@mistake("generation_features")
def generation_reads_future(step, xs, h0):
    return _generation_features(step, np.asarray(xs, dtype=float)[::-1], h0)[::-1]


@mistake("generation_features")
def sequence_reversed(step, xs, h0):
    return _generation_features(step, np.asarray(xs, dtype=float)[::-1], h0)


@mistake("generation_features")
def final_state_everywhere(step, xs, h0):
    states = _generation_features(step, xs, h0)
    return np.repeat(states[-1:], len(states), axis=0)


@mistake("generation_features")
def both_directions_in_generation(step, xs, h0):
    forward = _generation_features(step, xs, h0)
    backward = _generation_features(step, np.asarray(xs, dtype=float)[::-1], h0)[::-1]
    return np.concatenate([forward, backward], axis=1)


@mistake("bidirectional_features")
def backward_not_realigned(step_f, step_b, xs, h0):
    return np.concatenate([_generation_features(step_f, xs, h0), _generation_features(step_b, np.asarray(xs, dtype=float)[::-1], h0)], axis=1)


@mistake("bidirectional_features")
def backward_excludes_current(step_f, step_b, xs, h0):
    backward = _generation_features(step_b, np.asarray(xs, dtype=float)[::-1], h0)[::-1]
    shifted = np.vstack([backward[1:], np.asarray(h0, dtype=float)[None, :]])
    return np.concatenate([_generation_features(step_f, xs, h0), shifted], axis=1)


@mistake("bidirectional_features")
def forward_step_used_backward(step_f, step_b, xs, h0):
    backward = _generation_features(step_f, np.asarray(xs, dtype=float)[::-1], h0)[::-1]
    return np.concatenate([_generation_features(step_f, xs, h0), backward], axis=1)


@mistake("bidirectional_features")
def halves_swapped(step_f, step_b, xs, h0):
    backward = _generation_features(step_b, np.asarray(xs, dtype=float)[::-1], h0)[::-1]
    return np.concatenate([backward, _generation_features(step_f, xs, h0)], axis=1)


# ----------------------------------------------------------------------------- exercises

@mistake("ex_12_7_3")
def gradient_crosses_truncation():
    return {"passes": {"A", "B", "C"}, "cut": set()}


@mistake("ex_12_7_3")
def value_cut_at_truncation():
    return {"passes": set(), "cut": {"A", "B", "C"}}


@mistake("ex_12_7_3")
def carried_state_proves_tracking():
    return {"passes": {"A", "E"}, "cut": {"B", "C"}}


@mistake("ex_12_7_6")
def leak_blamed_on_model_size():
    return {"leak": {"C"}, "full_context_ok": {"P", "S"}}


@mistake("ex_12_7_6")
def full_context_for_generation():
    return {"leak": {"A", "B"}, "full_context_ok": {"P", "Q", "R", "S"}}
