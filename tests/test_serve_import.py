"""The batch command never imports the service (Starlette, uvicorn): it is an optional extra."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_batch_cli_does_not_import_the_service(tmp_path: Path) -> None:
    config = ROOT / "examples" / "label-studio" / "iaa-gate.yaml"
    code = (
        "import sys\n"
        "from iaa_gate.cli import main\n"
        f"main(['run', '--config', {str(config)!r}, '--out', {str(tmp_path)!r}, '--quiet'])\n"
        "loaded = [m for m in sys.modules if m.split('.')[0] in ('starlette', 'uvicorn')"
        " or m.startswith('iaa_gate.serve')]\n"
        "print(loaded)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    assert done.stdout.strip().splitlines()[-1] == "[]", done.stderr
    assert (tmp_path / "report.json").is_file()
