"""A course made by `init_course` has an exchange of its own: the formgrader shows no warning."""

import shutil
import urllib.request

import pytest
from support.browser import Lab

from autograder.course.release import init_course

pytestmark = pytest.mark.slow

WARNING = 'id="warning-exchange"'


def test_the_formgrader_of_a_new_course_warns_of_no_missing_exchange(tmp_path):
    root = init_course(tmp_path / "course")
    with Lab(root) as lab:

        def page() -> str:
            with urllib.request.urlopen(lab.url("formgrader/manage_assignments")) as response:
                return response.read().decode()

        clean = page()
        assert "Manage Assignments" in clean, clean[:500]
        assert WARNING not in clean, "the formgrader warns about the exchange directory"
        shutil.rmtree(root / "exchange")
        assert WARNING in page(), "the check above no longer sees nbgrader's warning"
