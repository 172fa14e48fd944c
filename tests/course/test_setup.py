"""Set-up files agree with each other: one set of pins, torch pinned everywhere, CI runs the README's command."""

import re

from conftest import REPO


def pins(text: str) -> dict[str, str]:
    return {
        m[0].lower(): m[1] for m in re.findall(r"^\s*-?\s*([A-Za-z0-9_.-]+)==([^\s#]+)", text, re.M)
    }


def test_environment_yml_pins_match_requirements():
    requirements = pins((REPO / "requirements.txt").read_text())
    environment = pins((REPO / "environment.yml").read_text())
    assert len(environment) >= 10
    for package, version in environment.items():
        assert requirements.get(package) == version, (
            f"{package}: {version} vs {requirements.get(package)}"
        )


def test_torch_is_pinned_to_the_cpu_build_everywhere():
    for name in ["requirements.txt", "environment.yml", "pyproject.toml"]:
        text = (REPO / name).read_text()
        assert "torch==2.13.0" in text, name
        assert not re.search(r"torch\s*(>=|~=|<|\"|$)", text.replace("torch==2.13.0", "")), name


def test_ci_runs_the_readme_test_command():
    assert "make test" in (REPO / ".ci" / "run").read_text()
    readme = (REPO / "README.md").read_text()
    assert readme.index("make lab") < readme.index("## ") and "make test" in readme.split("## ")[0]


def test_no_text_file_holds_a_merge_conflict_marker():
    """A merge left unresolved shows in no committed text file (README, docs, code, notebooks)."""
    import subprocess

    tracked = subprocess.run(
        ["git", "ls-files"], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout.split()
    marker = re.compile(r"^(<{7}|>{7}) ", re.M)
    found = []
    for name in tracked:
        if name.endswith((".py", ".md", ".ipynb", ".toml", ".txt", ".yml", ".cfg", ".j2", ".js")):
            text = (REPO / name).read_text(encoding="utf-8", errors="replace")
            found += [name] if marker.search(text) else []
    assert not found, found
