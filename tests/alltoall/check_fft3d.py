"""Run mpiscope-bench on the fft3d op with --validate and check the result.

Usage: check_fft3d.py RESULT.json -- COMMAND...
Passes when the command exits 0 and every point of RESULT.json checked
launches (validation.launches_checked > 0) with no failure.
"""

from __future__ import annotations

import json
import subprocess
import sys


def main() -> None:
    path, separator, command = sys.argv[1], sys.argv[2], sys.argv[3:]
    if separator != "--" or not command:
        sys.exit("usage: check_fft3d.py RESULT.json -- COMMAND...")
    run = subprocess.run(command, capture_output=True, text=True, timeout=100, check=False)
    if run.returncode != 0:
        sys.exit(f"check_fft3d: exit {run.returncode}: {run.stderr.strip()}")
    with open(path, encoding="utf-8") as handle:
        points = json.load(handle)["points"]
    if not points:
        sys.exit("check_fft3d: no point")
    for point in points:
        validation = point["validation"]
        if validation["launches_checked"] <= 0 or validation["failures"] != 0:
            sys.exit(f"check_fft3d: {point.get('options')}: {validation}: {run.stderr.strip()}")
    print(f"check_fft3d: {len(points)} points, {[p['validation'] for p in points]}")


if __name__ == "__main__":
    main()
