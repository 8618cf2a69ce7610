"""Corpus entries of ch11_rnn_state (setup cell: json, Fraction, Path, plt, np, load_model)."""
from . import mistake, variant

A = "ch11_rnn_state"

ENTRIES = [
    # ------------------------------------------------------------------ relu
    variant(A, "relu", "relu-where", '''
        def relu(v):
            v = np.asarray(v, dtype=float)
            return np.where(v > 0, v, 0.0)
    ''', why="np.where"),
    variant(A, "relu", "relu-listcomp", '''
        def relu(v):
            return [float(t) if t > 0 else 0.0 for t in v]
    ''', why="a list comprehension returning a list (rnn_step and the window then return lists too)"),
    mistake(A, "relu", "relu-abs", '''
        def relu(v):
            return np.abs(np.asarray(v, dtype=float))
    ''', None, why="negative entries flipped to positive instead of cut to zero"),

    # ------------------------------------------------------------------ softmax
    variant(A, "softmax", "softmax-math-loop", '''
        import math

        def softmax(z):
            top = max(z)
            exps = [math.exp(score - top) for score in z]
            total = sum(exps)
            return [e / total for e in exps]
    ''', why="math.exp in a loop, a list of floats"),
    variant(A, "softmax", "softmax-logsumexp", '''
        def softmax(z):
            z = np.asarray(z, dtype=np.float64)
            m = z.max()
            log_total = m + np.log(np.exp(z - m).sum())
            return np.exp(z - log_total)
    ''', why="log-sum-exp"),
    mistake(A, "softmax", "softmax-unshifted", '''
        def softmax(z):
            e = np.exp(np.asarray(z, dtype=float))
            return e / e.sum()
    ''', None, why="no max shift: exp overflows for large logits (NaN)"),

    # ------------------------------------------------------------------ choose
    variant(A, "choose", "choose-argmax", '''
        def choose(probs, candidates):
            return candidates[int(np.argmax(probs))]  # argmax returns the first of equal maxima
    ''', why="np.argmax"),
    variant(A, "choose", "choose-npstr", '''
        def choose(probs, candidates):
            return np.array(candidates)[np.argmax(np.asarray(probs))]
    ''', why="returns a numpy string (np.str_)"),
    mistake(A, "choose", "choose-tuple-max", '''
        def choose(probs, candidates):
            return max(zip(probs, candidates))[1]
    ''', "tie_to_last", hidden_only=True,
        why="max over tuples: a tie is broken by the candidates' names (alphabetically last), not by their order"),
    mistake(A, "choose", "choose-argmax-index", '''
        def choose(probs, candidates):
            return np.argmax(probs)
    ''', "choice_as_index", why="returns the position (np.int64), not the candidate"),

    # ------------------------------------------------------------------ rnn_step
    variant(A, "rnn_step", "rnn-step-concat", '''
        def rnn_step(x, h_prev, W_x, W_h, b_h):
            u = np.concatenate([x, h_prev])
            W = np.vstack([W_x, W_h])
            return relu(u @ W + b_h)
    ''', why="one matrix over the concatenation [x, h_prev]"),
    variant(A, "rnn_step", "rnn-step-loops", '''
        def rnn_step(x, h_prev, W_x, W_h, b_h):
            new = []
            for j in range(len(b_h)):
                total = b_h[j]
                for i in range(len(x)):
                    total += x[i] * W_x[i][j]
                for i in range(len(h_prev)):
                    total += h_prev[i] * W_h[i][j]
                new.append(max(total, 0.0))
            return new
    ''', why="explicit index loops, a list of numpy floats"),
    mistake(A, "rnn_step", "rnn-step-column-vectors", '''
        def rnn_step(x, h_prev, W_x, W_h, b_h):
            return relu(W_x @ x + W_h @ h_prev + b_h)
    ''', "recurrent_weight_transposed", why="column-vector convention for both matrices (W_x too, not only W_h)"),

    # ------------------------------------------------------------------ output_logits
    variant(A, "output_logits", "logits-einsum", '''
        def output_logits(h, W_y, b_y):
            return np.einsum("i,ij->j", np.asarray(h, dtype=float), W_y) + b_y
    ''', why="np.einsum"),
    # ------------------------------------------------------------------ run_rnn
    variant(A, "run_rnn", "run-recursive", '''
        def run_rnn(token_ids, model):
            def go(ids, h):
                if not ids:
                    return []
                h = rnn_step(model["embeddings"][ids[0]], h, model["W_x"], model["W_h"], model["b_h"])
                z = output_logits(h, model["W_y"], model["b_y"])
                return [{"h": h, "logits": z, "probs": softmax(z)}] + go(ids[1:], h)
            return go(list(token_ids), np.zeros(len(model["b_h"])))
    ''', why="a recursive helper defined inside"),
    variant(A, "run_rnn", "run-ordereddict", '''
        from collections import OrderedDict

        def run_rnn(token_ids, model):
            h = np.zeros_like(model["b_h"], dtype=float)
            trace = []
            for t in token_ids:
                h = rnn_step(model["embeddings"][t], h, model["W_x"], model["W_h"], model["b_h"])
                record = OrderedDict()
                record["h"] = h
                record["logits"] = output_logits(h, model["W_y"], model["b_y"])
                record["probs"] = softmax(record["logits"])
                trace.append(record)
            return trace
    ''', why="an OrderedDict per step"),
    mistake(A, "run_rnn", "run-aliased-state", '''
        def run_rnn(token_ids, model):
            h = np.zeros(len(model["b_h"]))
            steps = []
            for token in token_ids:
                h[:] = rnn_step(model["embeddings"][token], h, model["W_x"], model["W_h"], model["b_h"])
                logits = output_logits(h, model["W_y"], model["b_y"])
                steps.append({"h": h, "logits": logits, "probs": softmax(logits)})
            return steps
    ''', None, why="h updated in place: every step's dict holds the same array, the last state"),
    mistake(A, "run_rnn", "run-probs-of-state", '''
        def run_rnn(token_ids, model):
            h, out = np.zeros(2), []
            for token in token_ids:
                h = rnn_step(model["embeddings"][token], h, model["W_x"], model["W_h"], model["b_h"])
                out.append({"h": h, "logits": output_logits(h, model["W_y"], model["b_y"]), "probs": softmax(h)})
            return out
    ''', "softmax_over_hidden_state", why="softmax of the hidden state instead of the logits"),

    # ------------------------------------------------------------------ window_logits
    variant(A, "window_logits", "window-fancy-index", '''
        def window_logits(token_ids, model):
            pair = model["embeddings"][list(token_ids[-2:])].reshape(-1)
            W, b = model["window_baseline"]["W"], model["window_baseline"]["b"]
            return output_logits(relu(pair @ W + b), model["W_y"], model["b_y"])
    ''', why="fancy indexing of the last two rows, flattened"),
    mistake(A, "window_logits", "window-no-relu", '''
        def window_logits(token_ids, model):
            x = np.concatenate([model["embeddings"][token_ids[-2]], model["embeddings"][token_ids[-1]]])
            hidden = x @ model["window_baseline"]["W"] + model["window_baseline"]["b"]
            return output_logits(hidden, model["W_y"], model["b_y"])
    ''', None, hidden_only=True, why="the window's hidden layer without ReLU (no public window case has a negative pre-activation)"),

    # ------------------------------------------------------------------ min_fillers_to_flip
    variant(A, "min_fillers_to_flip", "fillers-via-run-rnn", '''
        def min_fillers_to_flip(model):
            ids, red = model["vocabulary"], model["candidates"][0]
            for n in range(101):
                sequence = [ids["blue"]] + [ids["filler"]] * n + [ids["key"], ids["is"]]
                last = run_rnn(sequence, model)[-1]
                if choose(last["probs"], model["candidates"]) == red:
                    return n
            return None
    ''', why="reruns the whole sequence with run_rnn for each count, chooses on the probabilities"),
    mistake(A, "min_fillers_to_flip", "fillers-strict-win", '''
        def min_fillers_to_flip(model):
            ids = model["vocabulary"]
            for n in range(101):
                last = run_rnn([ids["blue"]] + [ids["filler"]] * n + [ids["key"], ids["is"]], model)[-1]
                if last["probs"][0] > last["probs"][1]:  # red must beat blue
                    return n
            return None
    ''', None, why="red must win strictly: an exact tie (which the tie rule gives to red) is not counted"),

    # ------------------------------------------------------------------ exercises
    variant(A, "ex_11_7_1", "ex1-lists", '''
        def ex_11_7_1(model):
            n = min_fillers_to_flip(model)
            v = model["vocabulary"]
            steps = run_rnn([v["blue"], *[v["filler"]] * n, v["key"], v["is"]], model)
            return {"min_fillers": np.int64(n), "final_h": steps[-1]["h"].tolist(), "logits": list(steps[-1]["logits"])}
    ''', why="np.int64 count, lists of floats"),
    variant(A, "ex_11_7_2", "ex2-diag-indices", '''
        def ex_11_7_2(m):
            W_h = np.array(m["W_h"], dtype=float)
            W_h[np.diag_indices_from(W_h)] = 1
            last = run_rnn(m["inputs"]["long_blue"], dict(m, W_h=W_h))[-1]
            return {"final_h": tuple(last["h"]), "logits": last["logits"], "choice": np.str_(choose(last["probs"], m["candidates"]))}
    ''', why="np.diag_indices_from, a tuple state and an np.str_ choice"),
    mistake(A, "ex_11_7_1", "ex1-book-model-only", '''
        def ex_11_7_1(model):
            book = load_model()  # the book's model, whatever model was passed in
            n = min_fillers_to_flip(book)
            v = book["vocabulary"]
            last = run_rnn([v["blue"], *[v["filler"]] * n, v["key"], v["is"]], book)[-1]
            return {"min_fillers": n, "final_h": last["h"], "logits": last["logits"]}
    ''', None, hidden_only=True, why="answers for the book's model only: the self-check passes, the other models of the grade do not"),
    variant(A, "ex_11_7_3", "ex3-numpy-mask", '''
        def ex_11_7_3():
            letters = np.array(list("ABCDE"))
            correct = np.array([False, True, True, False, True])
            return set(letters[correct])  # a set of np.str_
    ''', why="a boolean numpy mask over the letters: a set of numpy strings"),
    variant(A, "ex_11_7_4", "ex4-frozenset", '''
        def ex_11_7_4():
            return frozenset("DE")
    ''', why="a frozenset"),
    variant(A, "ex_11_7_5", "ex5-tuple", '''
        def ex_11_7_5():
            return ("C", "B")
    ''', why="a tuple of letters, any order"),
]
