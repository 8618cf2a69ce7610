"""Catalogued mistakes of ch11_rnn_state: each is the solution function as a student gets it wrong.

A mistake is named where it reproduces at least two wrong answers of a check (or its only one), a
mistake of a function the check calls only when the student's version of that function fails its
own public cases; on a tie the check's own mistakes come first, in the order below.
"""
import numpy as np

from solutions.ch11_rnn_state import choose, output_logits, relu, rnn_step, softmax

from ...catalogue import mistake


def _flip_one_transition_late(model):
    """The first filler count n whose sequence, read with one transition too many after the clue
    (n + 3 tokens taken as n + 3 updates), makes red win, with that state and its logits; or None."""
    ids = model["vocabulary"]
    for fillers in range(101):
        tokens = [ids["blue"]] + [ids["filler"]] * (fillers + 1) + [ids["key"], ids["is"]]
        h = np.zeros(len(model["b_h"]))
        for token in tokens:
            h = rnn_step(model["embeddings"][token], h, model["W_x"], model["W_h"], model["b_h"])
        logits = output_logits(h, model["W_y"], model["b_y"])
        if choose(logits, model["candidates"]) == model["candidates"][0]:
            return fillers, h, logits
    return None


@mistake("min_fillers_to_flip")
def tokens_counted_as_transitions(model):
    found = _flip_one_transition_late(model)
    return None if found is None else found[0]


@mistake("relu")
def relu_missing(v):
    return np.asarray(v, dtype=float)


@mistake("softmax")
def softmax_without_exp(z):
    z = np.asarray(z, dtype=float)
    return z / np.sum(z)


@mistake("choose")
def tie_to_last(probs, candidates):
    best = 0
    for i in range(1, len(candidates)):
        if probs[i] >= probs[best]:
            best = i
    return candidates[best]


@mistake("choose")
def choice_as_index(probs, candidates):
    return int(np.argmax(probs))


@mistake("rnn_step")
def recurrent_weight_transposed(x, h_prev, W_x, W_h, b_h):
    return relu(x @ W_x + W_h @ h_prev + b_h)


@mistake("rnn_step")
def state_bias_forgotten(x, h_prev, W_x, W_h, b_h):
    return relu(x @ W_x + h_prev @ W_h)


@mistake("output_logits")
def output_bias_forgotten(h, W_y, b_y):
    return h @ W_y


@mistake("run_rnn")
def state_carried_between_calls(token_ids, model, memory={}):  # noqa: B006  (the mistake itself)
    h = memory.get("h", np.zeros(len(model["b_h"])))
    steps = []
    for token in token_ids:
        h = rnn_step(model["embeddings"][token], h, model["W_x"], model["W_h"], model["b_h"])
        logits = output_logits(h, model["W_y"], model["b_y"])
        steps.append({"h": h, "logits": logits, "probs": softmax(logits)})
    memory["h"] = h
    return steps


@mistake("run_rnn")
def first_embedding_refetched(token_ids, model):
    first = model["embeddings"][token_ids[0]]
    h = np.zeros(len(model["b_h"]))
    steps = []
    for t, token in enumerate(token_ids):
        old = h if t == 0 else first  # goes back to the clue's embedding instead of the carried state
        h = rnn_step(model["embeddings"][token], old, model["W_x"], model["W_h"], model["b_h"])
        logits = output_logits(h, model["W_y"], model["b_y"])
        steps.append({"h": h, "logits": logits, "probs": softmax(logits)})
    return steps


@mistake("run_rnn")
def softmax_over_hidden_state(token_ids, model):
    h = np.zeros(len(model["b_h"]))
    steps = []
    for token in token_ids:
        h = rnn_step(model["embeddings"][token], h, model["W_x"], model["W_h"], model["b_h"])
        logits = output_logits(h, model["W_y"], model["b_y"])
        steps.append({"h": h, "logits": logits, "probs": softmax(h)})
    return steps


@mistake("run_rnn")
def softmax_over_steps(token_ids, model):
    h = np.zeros(len(model["b_h"]))
    states, logits = [], []
    for token in token_ids:
        h = rnn_step(model["embeddings"][token], h, model["W_x"], model["W_h"], model["b_h"])
        states.append(h)
        logits.append(output_logits(h, model["W_y"], model["b_y"]))
    by_candidate = [softmax(column) for column in np.array(logits).T]  # each candidate over the reads
    probs = np.array(by_candidate).T
    return [{"h": s, "logits": z, "probs": p} for s, z, p in zip(states, logits, probs)]


@mistake("window_logits")
def window_reads_first_two(token_ids, model):
    window = model["window_baseline"]
    x = np.concatenate([model["embeddings"][token_ids[0]], model["embeddings"][token_ids[1]]])
    hidden = relu(x @ window["W"] + window["b"])
    return output_logits(hidden, model["W_y"], model["b_y"])


@mistake("window_logits")
def window_order_swapped(token_ids, model):
    window = model["window_baseline"]
    x = np.concatenate([model["embeddings"][token_ids[-1]], model["embeddings"][token_ids[-2]]])
    hidden = relu(x @ window["W"] + window["b"])
    return output_logits(hidden, model["W_y"], model["b_y"])


@mistake("ex_11_7_1")
def every_token_counted_as_a_halving(model):
    # each token taken as an update of the clue: the state read is that of one filler more, so the
    # count reported is one short of the sequence that flips
    found = _flip_one_transition_late(model)
    return None if found is None else {"min_fillers": found[0], "final_h": found[1], "logits": found[2]}


@mistake("ex_11_7_2")
def every_recurrent_entry_set_to_one(model):
    W_h = np.ones_like(model["W_h"])
    h = np.zeros(len(model["b_h"]))
    for token in model["inputs"]["long_blue"]:
        h = rnn_step(model["embeddings"][token], h, model["W_x"], W_h, model["b_h"])
    logits = output_logits(h, model["W_y"], model["b_y"])
    return {"final_h": h, "logits": logits, "choice": model["candidates"][int(np.argmax(logits))]}


@mistake("ex_11_7_3")
def changing_state_taken_as_learning():
    return {"A", "C", "E"}


@mistake("ex_11_7_3")
def reset_thought_harmless():
    return {"B", "C", "D"}


@mistake("ex_11_7_4")
def right_answers_taken_as_proof():
    return {"A", "D", "E"}


@mistake("ex_11_7_5")
def hidden_vector_as_authority():
    return {"A", "D"}
