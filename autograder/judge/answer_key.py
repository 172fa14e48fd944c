"""What the grading sandbox of one exercise may import: no implementation of that exercise, anywhere.

The sandbox sees two project packages, both built here as read-only copies: `autograder` holding
only the package `autograder.sandbox.guest`, whole (the grading process, its probes: no checks, no
references, no exercise list), and `proof_lm` with every function that answers the exercise being
graded cut out of its source and replaced by one that raises `AnswerKeyError`. The real files are
not mounted, so no import trick can reach them.

The rule (README, "Answer keys"): NumPy exercises are graded with NumPy: their sandbox holds no
PyTorch (its folder is covered by a package that raises `NoPyTorch` on import), so nothing of
PyTorch can answer them. Chapter 08's PyTorch exercises may use PyTorch's building blocks, not its
finished attention or transformer layers (`ATTENTION_EXERCISES`, refused inside the grading process
by `autograder.sandbox.guest.answer_guard`). `tests/security/test_answer_keys.py` derives what the library and the
grader's mounted modules answer by calling them on each exercise's check inputs, and fails when
one that reproduces an answer is missing from LIBRARY_ANSWERS or GRADER_ANSWERS.
"""

# Library functions and classes that implement (all or the heart of) each graded exercise,
# "module:name" (a top-level def, class or assignment of proof_lm/module.py).
LIBRARY_ANSWERS: dict[str, tuple[str, ...]] = {
    "bigram_counts": ("ngram:bigram_count_table", "ngram:ngram_counts"),
    "bigram_probs": ("ngram:add_k_probs",),
    "mean_nll": ("metrics:bigram_mean_nll", "metrics:ngram_mean_nll"),
    "perplexity": ("metrics:perplexity_from_nll",),
    "softmax": ("sampling:filter_probs",),
    "cross_entropy": ("nplm:nplm_mean_loss",),
    "bigram_loss_and_grad": ("table_fit:table_loss_and_grad",),
    "context_windows": (
        "windows:_sliding_windows",
        "windows:padded_windows",
        "windows:encode_stream",
        "windows:name_windows",
        "windows:make_context_dataset",
    ),
    "nplm_params": ("nplm:init_nplm", "baselines:TorchContextMLP"),
    "nplm_loss": (
        "nplm:nplm_logits",
        "nplm:nplm_mean_loss",
        "nplm:nplm_loss_and_grads",
        "baselines:TorchContextMLP",
    ),
    "numerical_gradient": ("gradcheck:central_difference",),
    "nplm_grads": ("nplm:nplm_loss_and_grads", "baselines:TorchContextMLP"),
    "temperature_probs": ("sampling:filter_probs",),
    "top_k_probs": ("sampling:filter_probs",),
    "top_p_probs": ("sampling:filter_probs",),
    "sample_next": ("sampling:filter_probs", "sampling:draw"),
    "multi_head_attention": ("gpt:CausalSelfAttention", "gpt2:CausalSelfAttention"),
    "min_p_probs": ("sampling:filter_probs",),
    "gpt_params": ("gpt:TinyGPT",),
    "bpe_train": ("bpe:bpe_train", "bpe:_replace"),
    "bpe_train_fast": ("bpe:bpe_train", "bpe:_replace"),
    "bpe_encode": ("bpe:bpe_encode", "bpe:_replace"),
    "bpe_decode": ("bpe:bpe_decode", "bpe:token_bytes", "bpe:_expand"),
    "get_batch": ("gpt2:get_batch",),
    "CausalSelfAttention": ("gpt2:CausalSelfAttention", "gpt:CausalSelfAttention"),
    "Block": ("gpt2:Block", "gpt:Block"),
    "GPT": ("gpt2:GPT", "gpt:TinyGPT"),
    "generate": ("gpt2:generate",),
    "train_gpt": ("text_training:train_on_text",),
}

# The grader's own functions mounted in every grading sandbox that answer an exercise, "module:name"
# (of autograder/sandbox/guest/module.py): the sgd_train probe's softmax regression is linear_loss_and_grad.
GRADER_ANSWERS: dict[str, tuple[str, ...]] = {
    "linear_loss_and_grad": ("probes:softmax_regression",),
    "bigram_loss_and_grad": ("probes:softmax_regression",),
}


# Chapter 08's exercises that may not use PyTorch's finished attention or transformer layers: the
# grading process refuses them (autograder.sandbox.guest.answer_guard, the table torch_refused.json).
ATTENTION_EXERCISES = frozenset({"CausalSelfAttention", "Block", "GPT"})
