"""The first hint after installing: what numba compiles for it and how long each part
takes, in a fresh clone of this checkout (no numba cache), as a new user's first
`jabba hint` runs.

numba's "numba:compile" events give each compiled function's wall time, nested (a
function compiles the functions it calls first); the table lists the top-level ones
(those that compiled while no other was compiling) and the functions whose own time
(less what they compiled inside) is largest. Then the same hint again in a new process,
the cache warm.

    python benchmarks/first_hint.py [--out FILE] [--keep DIR]

The hint is the README's quick start: `jabba hint --hand jabba,guard --face-up
crumb,bib,merc --area 0=han --seat 1`.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import add_output_args, guard_outputs, markdown_table, write_json_atomic

ROOT = Path(__file__).resolve().parent.parent
HINT = ["hint", "--hand", "jabba,guard", "--face-up", "crumb,bib,merc", "--area", "0=han",
        "--seat", "1"]

# Run inside the fresh clone: the hint through the command line's own entry point, with a
# listener on numba's compile events; prints one JSON line of what it saw.
_PROBE = r"""
import json, sys, time
import numba.core.event as ev

spans, stack = [], []

class Listener(ev.Listener):
    def on_start(self, event):
        stack.append((event.data["dispatcher"].py_func.__qualname__,
                      event.data["dispatcher"].py_func.__module__, time.perf_counter()))

    def on_end(self, event):
        name, module, start = stack.pop()
        spans.append({"function": f"{module}.{name}", "seconds": time.perf_counter() - start,
                      "depth": len(stack)})

ev.register("numba:compile", Listener())
start = time.perf_counter()
from typer.testing import CliRunner
from cli.main import app
result = CliRunner().invoke(app, sys.argv[1:])
total = time.perf_counter() - start
print(json.dumps({"seconds": total, "exit": result.exit_code, "output": result.output,
                  "spans": spans}))
"""


def run_probe(clone: Path) -> dict:
    out = subprocess.run([sys.executable, "-c", _PROBE, *HINT], cwd=clone,
                         env={**os.environ, "PYTHONPATH": str(clone)},
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def own_times(spans: list[dict]) -> dict[str, float]:
    """Each function's compile time less the time of what it compiled inside it."""
    own: dict[str, float] = {}
    inner = [0.0] * 64
    for span in spans:  # ends come children first
        d = span["depth"]
        own[span["function"]] = own.get(span["function"], 0.0) + span["seconds"] - inner[d + 1]
        inner[d + 1] = 0.0
        inner[d] += span["seconds"]
    return own


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", metavar="DIR", help="clone into DIR and keep it")
    add_output_args(parser)
    args = parser.parse_args()
    guard_outputs(parser, args.out)
    with tempfile.TemporaryDirectory() as tmp:
        clone = Path(args.keep) if args.keep else Path(tmp) / "clone"
        subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
        start = time.perf_counter()
        first = run_probe(clone)
        first_wall = time.perf_counter() - start
        start = time.perf_counter()
        run_probe(clone)  # the cache warm: its wall time is what is reported
        second_wall = time.perf_counter() - start
    recommended = [line for line in first["output"].splitlines()
                   if line.startswith("Recommended")]
    top = [s for s in first["spans"] if s["depth"] == 0]
    own = sorted(own_times(first["spans"]).items(), key=lambda kv: -kv[1])
    print(f"first hint: {first_wall:.1f} s ({sum(s['seconds'] for s in top):.1f} s "
          f"compiling, {len(first['spans'])} functions); {recommended}")
    print(f"second hint (cache warm): {second_wall:.1f} s")
    print(markdown_table(["top-level compile", "seconds"],
                         [[s["function"], s["seconds"]] for s in
                          sorted(top, key=lambda s: -s["seconds"])]))
    print(markdown_table(["function (own compile time)", "seconds"],
                         [[name, t] for name, t in own[:15]]))
    if args.out:
        write_json_atomic(args.out, {
            "first_seconds": first_wall, "second_seconds": second_wall,
            "compiling_seconds": sum(s["seconds"] for s in top),
            "functions_compiled": len(first["spans"]), "recommended": recommended,
            "top_level": top, "own": own[:40]})


if __name__ == "__main__":
    main()
