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

Each table is read from the exercises' declarations (`library`, `grader`, `refuse_attention`,
`refuse_schedules` in
their check modules, `autograder.judge.declaration`).
"""

from autograder.judge.exercises import EXERCISES

# Library functions and classes that implement (all or the heart of) each graded exercise,
# "module:name" (a top-level def, class or assignment of proof_lm/module.py).
LIBRARY_ANSWERS: dict[str, tuple[str, ...]] = {
    name: exercise.library for name, exercise in EXERCISES.items() if exercise.library
}

# The grader's own functions mounted in every grading sandbox that answer an exercise, "module:name"
# (of autograder/sandbox/guest/<module>.py): the sgd_train probe's softmax regression is linear_loss_and_grad.
GRADER_ANSWERS: dict[str, tuple[str, ...]] = {
    name: exercise.grader for name, exercise in EXERCISES.items() if exercise.grader
}

# Chapter 08's exercises that may not use PyTorch's finished attention or transformer layers: the
# grading process refuses them (autograder.sandbox.guest.answer_guard, the table torch_refused.json).
ATTENTION_EXERCISES = frozenset(
    name for name, exercise in EXERCISES.items() if exercise.refuse_attention
)
# Chapter 08's exercises whose answer a shaped schedule of PyTorch's would be (train_gpt's warm-up
# and cosine): cut from the sandbox's copy of PyTorch's schedule modules (`mounted.schedules_cut`).
SCHEDULE_EXERCISES = frozenset(
    name for name, exercise in EXERCISES.items() if exercise.refuse_schedules
)
# Graded in a process where something of PyTorch is refused (and no program may be exec'd).
REFUSING = ATTENTION_EXERCISES | SCHEDULE_EXERCISES
