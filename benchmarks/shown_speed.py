"""Issue 20: the cost of printable.shown (every piece of data printed goes through it) on this
checkout and on main, loaded side by side from their files, on 100k English descriptions and
100k with CJK words.

    python benchmarks/shown_speed.py [MAIN_CHECKOUT]        # default /work/main
"""

from __future__ import annotations

import importlib.util
import random
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent


def load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main() -> None:
    other = Path(sys.argv[1] if len(sys.argv) > 1 else "/work/main")
    old = load(other / "toolsearch_cli" / "printable.py", "main")
    new = load(HERE / "toolsearch_cli" / "printable.py", "branch")
    rng = random.Random(1)
    english = "get the weather forecast for a city and return temperature wind humidity send email".split()
    sets = {
        "ASCII": [" ".join(rng.choice(english) for _ in range(25)) for _ in range(100_000)],
        "with CJK": [
            " ".join(rng.choice([*english, "天气", "预报"]) for _ in range(25)) + " 天气" for _ in range(100_000)
        ],
    }
    for label, texts in sets.items():
        for module in (old, new, old, new):
            start = time.perf_counter()
            for text in texts:
                module.shown(text)
            print(f"{label:8} {module.__name__:6} {time.perf_counter() - start:.3f} s / 100k descriptions")


if __name__ == "__main__":
    main()
