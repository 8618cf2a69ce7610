"""Course settings: the one place to change the course id, assignments, points, limits and gradebook.

`nbgrader_config.py` and the `autograder` package both read this file, so plain
`nbgrader ...` commands run from the course root honour it.
"""

COURSE_ID = "rnn-chapters"

#: Assignments in release order; each maps grade id (= function or exercise name) to points.
ASSIGNMENTS = {
    "ch11_rnn_state": {
        "relu": 1,
        "softmax": 1,
        "choose": 1,
        "rnn_step": 2,
        "output_logits": 1,
        "run_rnn": 3,
        "window_logits": 2,
        "min_fillers_to_flip": 2,
        "ex_11_7_1": 1,
        "ex_11_7_2": 1,
        "ex_11_7_3": 1,
        "ex_11_7_4": 1,
        "ex_11_7_5": 1,
    },
    "ch12_bptt": {
        "scalar_forward": 1,
        "sgd_update": 1,
        "bptt_scalar": 3,
        "update_and_recompute": 2,
        "signal_multiplier": 1,
        "finite_difference_grad": 1,
        "polynomial_grad": 1,
        "tanh_local_rate": 1,
        "rnn_backward": 3,
        "clip_by_global_norm": 2,
        "ex_12_7_1": 1,
        "ex_12_7_2": 1,
    },
    "ch12_gates": {
        "sigmoid": 1,
        "lstm_cell_update": 2,
        "ex_12_7_4": 1,
        "lstm_step": 3,
        "gru_step": 3,
        "ex_12_7_5": 1,
        "retention": 1,
        "rnn_param_count": 1,
        "lstm_param_count": 1,
        "lstm_param_count_two_bias": 1,
        "gru_param_count": 1,
    },
    "ch12_boundaries": {
        "run_independent": 1,
        "run_stream": 1,
        "run_entities": 2,
        "truncated_bptt_scalar": 3,
        "ex_12_7_3": 1,
        "masked_rnn_forward": 3,
        "masked_mean_loss": 1,
        "generation_features": 1,
        "bidirectional_features": 2,
        "ex_12_7_6": 1,
    },
}

#: Seconds one notebook cell may run during autograding before its kernel is interrupted.
CELL_TIMEOUT = 120
#: Seconds one call of a student's function may take inside a check.
CALL_TIMEOUT = 10
#: Hidden cases drawn per check (besides the book's public cases).
HIDDEN_CASES = 6
#: Parallel autograde workers on this machine.
WORKERS = 2
#: Gradebook database; relative SQLite paths are resolved against the course root.
DATABASE_URL = "sqlite:///gradebook.db"
