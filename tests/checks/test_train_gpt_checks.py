"""train_gpt's hidden checks hand the student's loop a recipe with the chapter's Recipe fields."""

import dataclasses

import numpy as np

from autograder.judge.checks.train_gpt import train_gpt_checks
from proof_lm.training import Recipe


def test_every_probe_recipe_has_exactly_the_fields_of_the_chapters_recipe():
    fields = {field.name for field in dataclasses.fields(Recipe)}
    for check in train_gpt_checks(np.random.default_rng(0)):
        for call in check.calls:
            recipe = call.args[4]
            assert set(recipe) == fields, check.name
            Recipe(**recipe)  # and the chapter's Recipe accepts it
