"""A built wheel carries the environment's default data and its verifiers plug-in: installed from the wheel
(no repository on the path, cwd elsewhere), `load_environment()` and verifiers' loader both work."""

import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

CHECK = textwrap.dedent("""
    import sys
    from pathlib import Path
    target = Path(sys.argv[1]).resolve()

    import reasonforge
    assert Path(reasonforge.__file__).resolve().is_relative_to(target), reasonforge.__file__
    from reasonforge.forecast import load_environment
    from reasonforge.forecast.env import default_data
    with default_data() as path:
        assert path.resolve().is_relative_to(target), path
    env = load_environment()
    assert len(env.items) == 240, len(env.items)
    from reasonforge.forecast.dataset import DEFAULT_DATA, load_dataset
    assert DEFAULT_DATA.resolve().is_relative_to(target), DEFAULT_DATA
    assert load_dataset().items == env.items  # what `forecast baselines` without --data reads

    try:
        import verifiers.v1 as vf
    except ImportError:
        print("loaded", len(env.items), "without verifiers")
        raise SystemExit(0)
    import calibrated_forecasting
    assert Path(calibrated_forecasting.__file__).resolve().is_relative_to(target), calibrated_forecasting.__file__
    environment = vf.load_environment(vf.resolve_env_config({"taskset": {"id": "calibrated-forecasting"}}))
    tasks = list(environment.taskset)
    assert [t.data.item for t in tasks] == env.items
    print("loaded", len(tasks), "through verifiers")
""")


@pytest.mark.slow
def test_wheel_ships_default_data_and_the_verifiers_plugin(tmp_path):
    # Build from a copy: an in-tree build writes build/ and egg-info where other runs may be reading.
    source = tmp_path / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, source / name)
    shutil.copytree(ROOT / "src", source / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    wheels = tmp_path / "wheels"
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--no-input"]
    built = subprocess.run([*pip, "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-q", "-w", str(wheels),
                            str(source)], capture_output=True, text=True, timeout=240)
    assert built.returncode == 0, built.stderr
    (wheel,) = wheels.glob("reasonforge-*.whl")
    target = tmp_path / "site"
    installed = subprocess.run([*pip, "install", "--no-deps", "--no-index", "-q", "--target", str(target), str(wheel)],
                               capture_output=True, text=True, timeout=240)
    assert installed.returncode == 0, installed.stderr
    shutil.rmtree(source)  # nothing of the source tree is left to import from
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(target), "HOME": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", CHECK, str(target)], capture_output=True, text=True, timeout=240,
                         cwd=elsewhere, env=env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("loaded 240"), out.stdout
