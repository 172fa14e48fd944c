"""What answers each exercise, and so what its grading sandbox may not run: the rule's tables.

The rule (README, "Answer keys"): no implementation of an exercise anywhere its grading process
can reach. NumPy exercises are graded with NumPy: their sandbox holds no PyTorch, so nothing of
PyTorch can answer them. Chapter 08's PyTorch exercises may use PyTorch's building blocks, not its
finished attention or transformer layers (`ATTENTION_EXERCISES`, refused inside the grading process
by `autograder.sandbox.guest.answer_guard`). What of the library (`LIBRARY_ANSWERS`) and of the
grader's own mounted modules (`GRADER_ANSWERS`) answers an exercise is cut out of the copies its
sandbox mounts (`autograder.judge.mounted`) and held back from the student kit until the deadline
(`autograder.kit.stages`). `tests/security/test_answer_keys.py` derives these tables by calling
everything on each exercise's check inputs, and fails when an answer is missing from them.
"""

# Library functions and classes that implement (all or the heart of) each graded exercise,
# "module:name" (a top-level def, class or assignment of proof_lm/module.py).
LIBRARY_ANSWERS: dict[str, tuple[str, ...]] = {
    "bigram_counts": ("ngram:bigram_count_table", "ngram:ngram_counts", "ngram:_ngram_codes"),
    "bigram_probs": ("ngram:add_k_probs",),
    "mean_nll": ("metrics:bigram_mean_nll", "metrics:ngram_mean_nll", "metrics:_mean_negative_log"),
    "perplexity": ("metrics:perplexity_from_nll",),
    "softmax": ("sampling:filter_probs",),
    "cross_entropy": ("nplm:nplm_mean_loss",),
    "context_windows": (
        "windows:_sliding_windows",
        "windows:padded_windows",
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
    "multi_head_attention": ("gpt2:CausalSelfAttention",),
    "min_p_probs": ("sampling:filter_probs",),
    "gpt_params": ("gpt:TinyGPT",),
    "bpe_train": ("bpe:bpe_train", "bpe:_replace"),
    "bpe_train_fast": ("bpe:bpe_train", "bpe:_replace"),
    "bpe_encode": ("bpe:bpe_encode", "bpe:_replace"),
    "bpe_decode": ("bpe:bpe_decode", "bpe:token_bytes", "bpe:_expand"),
    "get_batch": ("gpt2:get_batch",),
    "CausalSelfAttention": ("gpt2:CausalSelfAttention",),
    "Block": ("gpt2:Block",),
    "GPT": ("gpt2:GPT",),
    "generate": ("gpt2:generate",),
    "train_gpt": ("text_training:train_on_text",),
}

# The grader's own functions mounted in every grading sandbox that answer an exercise, "module:name"
# (of autograder/sandbox/guest/<module>.py): the sgd_train probe's softmax regression is linear_loss_and_grad.
GRADER_ANSWERS: dict[str, tuple[str, ...]] = {
    "linear_loss_and_grad": ("probes:softmax_regression",),
    "bigram_loss_and_grad": ("probes:softmax_regression",),
}


# Chapter 08's exercises that may not use PyTorch's finished attention or transformer layers: the
# grading process refuses them (autograder.sandbox.guest.answer_guard, the table torch_refused.json).
ATTENTION_EXERCISES = frozenset({"CausalSelfAttention", "Block", "GPT"})
