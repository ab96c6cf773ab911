"""What a cached ``hybrid`` search costs against a ``default`` one: wall time and peak memory.

Runs ``toolsearch search`` as a child process on the demo catalog, alternating the variants
round by round (their order rotates), and prints medians and ratios to ``default``:

* ``default``: the lexical ranker, the same request every round;
* ``hybrid, repeated request``: the catalog's tool vectors and the request's vector come from
  the on-disk cache (a user repeating or re-running a search): no model is loaded;
* ``hybrid, new request``: the tool vectors are cached, the request is new every round, so the
  model is loaded and embeds it (a user typing a new search).

Peak memory is the child's maximum resident set (``os.wait4``'s ``ru_maxrss``); CPU time is its
user + system time from the same call (steadier than wall time on a shared machine). Every child
uses a fresh cache folder (``TOOLSEARCH_CACHE_DIR``) filled by warm-up runs of each (a first
use also writes the model's prepared copy there), so the vector store holds this catalog's
vectors alone. ``--phases`` also prints, from two children per model (the first use, which makes
the prepared copy, and a later one), what loading a model costs step by step (imports, session,
first vector). ``--before CHECKOUT`` adds a new request run by another checkout's code (e.g. the
main branch) to the same rounds: a before/after under the same load.

    python -m benchmarks hybrid-cost --embed-model ~/models/all-MiniLM-L6-v2-onnx \
        [--embed-model ~/models/all-MiniLM-L6-v2-int8] [--runs 11] [--phases] [--before ../main]

Target (issue 19, item 5): a cached ``hybrid`` search at most 2x the wall time and at most
150 MB peak of a ``default`` search. Exit 1 when the repeated-request case misses it.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks import options

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
QUERY = "remember that Alice works at Acme"
NAMES = ["Alice", "Bob", "Carol", "Dave", "Erin", "Frank", "Grace", "Heidi", "Ivan", "Judy", "Mallory", "Niaj"]
COMPANIES = ["Acme", "Globex", "Initech", "Umbrella", "Hooli", "Stark", "Wayne", "Tyrell", "Cyberdyne", "Wonka"]

PHASES = r"""
import json, sys, time
from pathlib import Path

def peak():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM"):
            return int(line.split()[1]) / 1024
    return 0.0

out = []
t = time.perf_counter()
def step(name):
    global t
    now = time.perf_counter()
    out.append((name, now - t, peak()))
    t = now

import toolsearch_cli.search.hybrid
step("toolsearch's search modules")
from toolsearch_cli.search.embed import import_numpy
import_numpy()
step("numpy (as a dense search imports it)")
import onnxruntime, tokenizers
step("onnxruntime + tokenizers")
from toolsearch_cli.search import prepared
from toolsearch_cli.search.embed import load_local
model = load_local(sys.argv[1])
step("model identity (hash of the files, remembered after the first use)")
prepared.session_file(model.model_file)
step("prepared copy found and checked (made, on first use)")
model._load(light=True)
step("onnxruntime session (light, as for a new request)")
model.embed(["remember that Alice works at Acme"])
step("first vector (the request's words' tokenizer + inference)")
model.embed(["send an email to Bob"])
step("second vector")
print(json.dumps(out))
"""


def run(args: list[str], env: dict[str, str], root: str | None = None) -> tuple[float, float, float]:
    """Wall seconds, peak resident MB and CPU seconds (user + system) of one child (running the
    code of ``root`` when given: another checkout, measured in the same rounds)."""
    if root is not None:
        env = dict(env, PYTHONPATH=root)
    began = time.perf_counter()
    # run in the checkout: ``python -m`` puts the working folder first on the path
    child = subprocess.Popen(args, env=env, cwd=root or ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert child.stderr is not None
    err = child.stderr.read()
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - began
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed ({child.returncode}): {err.decode(errors='replace')[-500:]}")
    return wall, usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime  # ru_maxrss: KiB on Linux


def main() -> int:
    parser = options.parser(__doc__)
    parser.add_argument("--embed-model", action="append", required=True, help="a model folder (repeatable)")
    parser.add_argument("--catalog", default=str(ROOT / "catalogs" / "demo"))
    parser.add_argument("--runs", type=int, default=11, help="rounds (each runs every variant once)")
    parser.add_argument("--phases", action="store_true", help="also time a model's loading step by step")
    parser.add_argument(
        "--before",
        metavar="CHECKOUT",
        help="also run the new request with another checkout's code (e.g. the main branch), in the same rounds",
    )
    args = parser.parse_args()

    exe = [sys.executable, "-m", "toolsearch_cli"]
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="hybrid-cost-") as cache:
        env = dict(os.environ, TOOLSEARCH_CACHE_DIR=cache, PYTHONPATH=str(ROOT))
        env.pop("TOOLSEARCH_EMBED_MODEL", None)
        base = [*exe, "search", "--catalog", args.catalog, "-n", "5"]
        variants: dict[str, object] = {"default": [*base, QUERY]}
        roots: dict[str, str] = {}
        for i, model in enumerate(args.embed_model):
            tag = Path(model).name if len(args.embed_model) > 1 else ""
            hybrid = [*base, "--ranker", "hybrid", "--embed-model", model]
            variants[f"hybrid {tag}, repeated request".replace(" ,", ",")] = [*hybrid, QUERY]
            variants[f"hybrid {tag}, new request".replace(" ,", ",")] = (hybrid, i)
            if args.before:
                name = f"hybrid {tag}, new request, before".replace(" ,", ",")
                variants[name], roots[name] = (hybrid, i + len(args.embed_model)), args.before
        for name, spec in variants.items():  # warm-up: catalog cache, tool vectors, the repeated request's vector
            command = spec if isinstance(spec, list) else [*spec[0], f"warm up {spec[1]}"]  # type: ignore[index]
            run(command, env, roots.get(name))
        for name, spec in variants.items():  # a second new request each: a first use may prepare the model
            if not isinstance(spec, list):
                run([*spec[0], f"warm up again {spec[1]}"], env, roots.get(name))  # type: ignore[index]
        times: dict[str, list[float]] = {name: [] for name in variants}
        peaks: dict[str, list[float]] = {name: [] for name in variants}
        cpus: dict[str, list[float]] = {name: [] for name in variants}
        names = list(variants)
        for r in range(args.runs):
            order = names[r % len(names) :] + names[: r % len(names)]
            for name in order:
                spec = variants[name]
                if isinstance(spec, list):
                    command = spec
                else:  # a request no run has made: its vector must be embedded
                    hybrid, i = spec  # type: ignore[misc]
                    who = NAMES[(r + 3 * i) % len(NAMES)]
                    where = COMPANIES[(r * 7 + i) % len(COMPANIES)]
                    command = [*hybrid, f"remember that {who} works at {where} (round {r}, model {i})"]
                wall, peak, cpu = run(command, env, roots.get(name))
                times[name].append(wall)
                peaks[name].append(peak)
                cpus[name].append(cpu)

    base_time = statistics.median(times["default"])
    base_peak = statistics.median(peaks["default"])
    base_cpu = statistics.median(cpus["default"])
    load_after = os.getloadavg()
    print(
        f"{args.runs} alternating rounds, catalog {args.catalog}, medians; load average (1, 5, 15 min) "
        f"before {' '.join(f'{x:.1f}' for x in load_before)}, after {' '.join(f'{x:.1f}' for x in load_after)}\n"
    )
    print("| variant | wall s | × default | CPU s | × default | peak MB | × default |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name in names:
        t, p, c = statistics.median(times[name]), statistics.median(peaks[name]), statistics.median(cpus[name])
        print(
            f"| {name} | {t:.3f} | {t / base_time:.2f} | {c:.3f} | {c / base_cpu:.2f} | {p:.0f} | {p / base_peak:.2f} |"
        )
    ok = True
    print()
    for name in names:
        if name == "default":
            continue
        t, p = statistics.median(times[name]), statistics.median(peaks[name])
        met = t <= 2 * base_time and p <= 150
        if "repeated" in name:
            ok &= met
        print(
            f"- {name}: {t / base_time:.2f}x the wall time (target 2x), {p:.0f} MB peak (target 150) — "
            f"{'met' if met else 'NOT met'}"
        )

    if args.phases:
        for model in args.embed_model:
            import json

            with tempfile.TemporaryDirectory(prefix="hybrid-cost-") as cache:
                env = dict(os.environ, PYTHONPATH=str(ROOT), TOOLSEARCH_CACHE_DIR=cache)
                steps = []
                # the first child makes the prepared copy; the files' hashes are remembered once the
                # files are 2 s old (search/file_hashes.py): a child in between, after that, does it
                for when in ("first use", "remembering", "later"):
                    if when == "remembering":
                        time.sleep(2.1)
                    done = subprocess.run(
                        [sys.executable, "-c", PHASES, model], env=env, cwd=ROOT, capture_output=True, text=True
                    )
                    if done.returncode != 0:
                        print(done.stderr[-500:], file=sys.stderr)
                        return 2
                    if when != "remembering":
                        steps.append(json.loads(done.stdout))
            print(f"\nLoading {model} step by step (peak = VmHWM after the step), first use and later:\n")
            print("| step | first use: s | peak MB | later: s | peak MB |")
            print("|---|---:|---:|---:|---:|")
            for (step, s1, p1), (_, s2, p2) in zip(*steps, strict=True):
                print(f"| {step} | {s1:.3f} | {p1:.0f} | {s2:.3f} | {p2:.0f} |")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
