"""A fresh environment with only the student kit's requirements and the kit installed as its README says.

The packages are linked from this environment's files (so no download), their data files copied
(JupyterLab's page, the kernel spec, labextensions), and so is the kit's build backend with what
it needs; then `pip install -e KIT` runs as a student's does (but without fetching the backend), and `python -m ipykernel install` names a kernel of its own. The repository and its editable
install are not in it: the kit stands on its own.
"""

import os
import shutil
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement

DATA = ("share", "etc")  # the data files' folders under an environment's prefix


def outside_env(**extra: str) -> dict[str, str]:
    """This process's environment without anything that would put the repository on sys.path."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return {**env, "PYTHONNOUSERSITE": "1", **extra}


def link_distribution(pin: str, site: Path) -> None:
    """Install the pinned distribution in `site` by linking its files from here (its data files under the prefix: copied)."""
    requirement = Requirement(pin)
    dist = metadata.distribution(requirement.name)
    assert requirement.specifier.contains(dist.version), f"{pin}: {dist.version} installed here"
    names = [Path(name) for name in dist.files or []]
    for top in {name.parts[0] for name in names} - {"..", "__pycache__"}:
        if not (site / top).exists():
            (site / top).symlink_to(dist.locate_file(top))
    for name in names:
        target = Path(os.path.normpath(site / name))
        if name.parts[0] == ".." and target.relative_to(site.parents[2]).parts[0] in DATA:
            target.parent.mkdir(parents=True, exist_ok=True)
            if not target.exists():  # a copy: Jupyter serves no file linked from elsewhere
                shutil.copyfile(dist.locate_file(name), target)


def build_backend(kit: Path) -> list[str]:
    """Pins (as installed here) of the kit's build requirements and everything they need."""
    wanted = tomllib.loads((kit / "pyproject.toml").read_text())["build-system"]["requires"]
    pins: dict[str, str] = {}
    while wanted:
        requirement = Requirement(wanted.pop())
        if requirement.marker is not None and not requirement.marker.evaluate({"extra": ""}):
            continue
        dist = metadata.distribution(requirement.name)
        if dist.name not in pins:
            pins[dist.name] = f"{dist.name}=={dist.version}"
            wanted += dist.requires or []
    return sorted(pins.values())


def kit_environment(kit: Path, env: Path, kernel: str | None = None) -> Path:
    """A new venv at `env` with the kit's requirements and the kit installed (-e); its python.

    `kernel`: a kernel spec of that name for the venv's Python (else only the default `python3`).
    """
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env)], check=True)
    python = env / "bin" / "python"
    purelib = "import sysconfig; print(sysconfig.get_path('purelib'))"
    site = Path(subprocess.check_output([python, "-c", purelib], text=True).strip())
    for pin in (kit / "requirements.txt").read_text().split() + build_backend(kit):
        link_distribution(pin, site)
    pip = [sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", "--no-deps"]
    commands = [[*pip, "--no-build-isolation", "--no-index", "-e", str(kit)]]
    if kernel is not None:
        commands.append([python, "-m", "ipykernel", "install", "--sys-prefix", "--name", kernel])
    for command in commands:
        subprocess.run(command, check=True, cwd=env, env=outside_env())
    return python
