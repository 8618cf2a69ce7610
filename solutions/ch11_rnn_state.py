"""Reference solution of ch11_rnn_state: built by `release` from autograder/assignments/ch11_rnn_state/notebook.md (edit that file), its setup and solution cells."""
import json
from fractions import Fraction
from pathlib import Path

import numpy as np

from rnnkit.helpers import load_model


def relu(v):
    """ReLU of a vector: positive entries kept, negative entries set to zero (section 11.2)."""
    ### BEGIN SOLUTION
    return np.maximum(np.asarray(v, dtype=float), 0.0)
    ### END SOLUTION


def softmax(z):
    """The probabilities of the scores `z` (one per candidate), computed in a numerically stable way."""
    ### BEGIN SOLUTION
    z = np.asarray(z, dtype=float)
    e = np.exp(z - np.max(z))
    return e / np.sum(e)
    ### END SOLUTION


def choose(probs, candidates):
    """The candidate (an entry of `candidates`) with the highest probability; a tie goes to the
    candidate listed first."""
    ### BEGIN SOLUTION
    best = 0
    for i in range(1, len(candidates)):
        if probs[i] > probs[best]:
            best = i
    return candidates[best]
    ### END SOLUTION


def rnn_step(x, h_prev, W_x, W_h, b_h):
    """One read: the new hidden state relu(x W_x + h_prev W_h + b_h) (row vectors)."""
    ### BEGIN SOLUTION
    return relu(x @ W_x + h_prev @ W_h + b_h)
    ### END SOLUTION


def output_logits(h, W_y, b_y):
    """The logits h W_y + b_y, one per candidate, in the order of `candidates`."""
    ### BEGIN SOLUTION
    return h @ W_y + b_y
    ### END SOLUTION


def run_rnn(token_ids, model):
    """Read `token_ids` from h_0 = 0 (on every call). Returns one dict per step with the keys
    `h` (the new hidden state), `logits` and `probs` (Table 11.3)."""
    ### BEGIN SOLUTION
    h = np.zeros(len(model["b_h"]))
    steps = []
    for token in token_ids:
        h = rnn_step(model["embeddings"][token], h, model["W_x"], model["W_h"], model["b_h"])
        logits = output_logits(h, model["W_y"], model["b_y"])
        steps.append({"h": h, "logits": logits, "probs": softmax(logits)})
    return steps
    ### END SOLUTION


def window_logits(token_ids, model):
    """The logits of the two-token window baseline of section 11.3: the embeddings of the last two
    tokens concatenated (earlier one first), times the window's W, plus its b, through ReLU, then the
    same output head W_y, b_y."""
    ### BEGIN SOLUTION
    window = model["window_baseline"]
    x = np.concatenate([model["embeddings"][token_ids[-2]], model["embeddings"][token_ids[-1]]])
    hidden = relu(x @ window["W"] + window["b"])
    return output_logits(hidden, model["W_y"], model["b_y"])
    ### END SOLUTION


def min_fillers_to_flip(model):
    """Exercise 11.7.1: the fewest `filler` tokens between `blue` and `key is` with which the RNN
    chooses the first candidate (red) after the last read; None if no count up to 100 does."""
    ### BEGIN SOLUTION
    ids = model["vocabulary"]
    emb = lambda token: model["embeddings"][ids[token]]  # noqa: E731
    step = lambda x, h: rnn_step(x, h, model["W_x"], model["W_h"], model["b_h"])  # noqa: E731
    h = step(emb("blue"), np.zeros(len(model["b_h"])))  # the state after the clue
    for fillers in range(101):
        final = step(emb("is"), step(emb("key"), h))
        logits = output_logits(final, model["W_y"], model["b_y"])
        # softmax keeps the order of the logits, so the choice can be read from them directly
        if choose(logits, model["candidates"]) == model["candidates"][0]:
            return fillers
        h = step(emb("filler"), h)  # one more filler: one more state transition
    return None
    ### END SOLUTION


def ex_11_7_1(model):
    """Exercise 11.7.1 for `model` (a dict with the keys of `load_model()`, one that flips within 100
    fillers): the fewest fillers between `blue` and `key is` that make the RNN choose the first
    candidate, and the final state and logits with that many fillers. Leave `model` unchanged.

    Return a dict {"min_fillers": int, "final_h": (2,) array, "logits": (2,) array}.
    """
    ### BEGIN SOLUTION
    ids = model["vocabulary"]
    fillers = min_fillers_to_flip(model)
    h = np.zeros(len(model["b_h"]))
    for token in [ids["blue"]] + [ids["filler"]] * fillers + [ids["key"], ids["is"]]:
        h = rnn_step(model["embeddings"][token], h, model["W_x"], model["W_h"], model["b_h"])
    return {"min_fillers": fillers, "final_h": h, "logits": output_logits(h, model["W_y"], model["b_y"])}
    ### END SOLUTION


def ex_11_7_2(model):
    """Exercise 11.7.2 for `model` (a dict with the keys of `load_model()`): set both diagonal entries
    of the recurrent matrix W_h to 1 (nothing else changes) and read `model["inputs"]["long_blue"]`.
    Work on a copy: leave `model` unchanged.

    Return a dict {"final_h": (2,) array, "logits": (2,) array, "choice": an entry of `model["candidates"]`}.
    """
    ### BEGIN SOLUTION
    W_h = np.array(model["W_h"], dtype=float)  # a copy: the caller's W_h stays as it was
    np.fill_diagonal(W_h, 1.0)
    h = np.zeros(len(model["b_h"]))
    for token in model["inputs"]["long_blue"]:
        h = rnn_step(model["embeddings"][token], h, model["W_x"], W_h, model["b_h"])
    logits = output_logits(h, model["W_y"], model["b_y"])
    # softmax keeps the order of the logits; argmax takes the first of equal ones (the tie rule)
    return {"final_h": h, "logits": logits, "choice": model["candidates"][int(np.argmax(logits))]}
    ### END SOLUTION


def ex_11_7_3():
    """Exercise 11.7.3 (diagnosing the log). Which statements are correct? Return a set of letters.

    A. The state going from [1, 0] to [0.25, 0] while reading `red key is` shows the model was modified.
    B. Hidden states change at every read even while W_x, W_h and b_h stay fixed.
    C. Evidence of an update is a comparison of saved parameter snapshots from before and after,
       together with the optimizer step that changed them.
    D. Resetting the state to [0, 0] before every read leaves h_3 = [0.25, 0] unchanged.
    E. Resetting before every read removes the old state's contribution: the last read (`is`) gives
       [0, 0], and the output head leans to red whatever the first token was.
    """
    ### BEGIN SOLUTION
    return {"B", "C", "E"}
    ### END SOLUTION


def ex_11_7_4():
    """Exercise 11.7.4 (choosing evidence). A system answered two long-distance colour questions
    correctly. Which statements are correct? Return a set of letters.

    A. The two right answers prove that the system uses an RNN.
    B. The two right answers prove that its weights changed.
    C. The two right answers prove that it can find the current travel policy.
    D. To find out whether learning happened, fix the inputs and the choice settings, and compare
       parameter snapshots and update records.
    E. Whether the current policy was used is settled by checking that the application actually
       supplied the current policy document, not by the colour answers.
    """
    ### BEGIN SOLUTION
    return {"D", "E"}
    ### END SOLUTION


def ex_11_7_5():
    """Exercise 11.7.5 (tracing responsibility). After the order assistant generates `approved`, its
    hidden vector changes, but the application's record still shows the cancellation as not approved.
    Which statements are correct? Return a set of letters.

    A. The changed hidden vector shows that the cancellation has been approved.
    B. Whether the operation may run is decided by the application's explicit approval record and its
       execution rules.
    C. Generated tokens and their hidden activations are results of a numerical computation, not
       approval events.
    D. The application record should be updated from the hidden vector, since it is more recent.
    """
    ### BEGIN SOLUTION
    return {"B", "C"}
    ### END SOLUTION
