"""Run a batch of hostile cases in this process (see :mod:`tests.hostile_cases`).

``python tests/hostile_driver.py RESULTS MEMORY_LIMIT`` reads the cases as JSON on stdin, limits the
address space, runs ``toolsearch`` in-process on each (in a fresh folder holding the case's files,
each case under an alarm) and appends one JSON line per case to RESULTS as it finishes.
"""

from __future__ import annotations

import base64
import io
import json
import os
import resource
import signal
import sys
import tempfile

#: Seconds one case may take before it counts as a hang.
CASE_TIMEOUT = 20


class CaseTimeout(BaseException):
    """Raised by the alarm; a BaseException so the CLI's own handler cannot swallow it."""


def _alarm(signum: int, frame: object) -> None:
    raise CaseTimeout


def main() -> None:
    results_path, limit = sys.argv[1], int(sys.argv[2])
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    cases = json.loads(sys.stdin.buffer.read())
    from toolsearch_cli.cli.app import main as toolsearch

    signal.signal(signal.SIGALRM, _alarm)
    out, err = io.StringIO(), io.StringIO()
    real_out, real_err = sys.stdout, sys.stderr
    home = os.getcwd()
    with open(results_path, "a", encoding="utf-8") as results:
        for case in cases:
            folder = tempfile.mkdtemp(dir=home)
            for name, data in case["files"].items():
                with open(os.path.join(folder, name), "wb") as handle:
                    handle.write(base64.b64decode(data))
            os.chdir(folder)
            out.seek(0), out.truncate(0), err.seek(0), err.truncate(0)
            sys.stdout, sys.stderr = out, err
            signal.alarm(CASE_TIMEOUT)
            try:
                toolsearch(case["args"])
                code: object = 0
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            except CaseTimeout:
                code = f"no answer within {CASE_TIMEOUT} s"
            except BaseException as exc:  # noqa: BLE001 - what escaped the CLI is the finding
                code = f"escaped: {type(exc).__name__}"
            finally:
                signal.alarm(0)
                sys.stdout, sys.stderr = real_out, real_err
                os.chdir(home)
            stdout = out.getvalue()
            try:
                json.loads(stdout)
                json_ok = True
            except ValueError:
                json_ok = False
            # each line's start kept (a message quoting a 100,000-character value must still show
            # its "error: "), then the last 5,000 characters
            shown_err = "".join(line[:500] + "\n" for line in err.getvalue().splitlines())[-5_000:]
            raw = first_hidden(stdout + err.getvalue())
            record = {
                "code": code, "stdout": stdout[-2_000:], "json": json_ok, "stderr": shown_err,
                "hidden": f"U+{ord(raw):04X}" if raw else None,
            }  # fmt: skip
            results.write(json.dumps(record) + "\n")
            results.flush()


def first_hidden(text: str) -> str | None:
    """The first character a terminal would not show as itself: a control but newline and tab, a
    format character (zero-width, bidi, tags, BOM, soft hyphen), a line or paragraph separator, a
    lone surrogate. Judged by Unicode categories here, not by the program's own escaping table,
    so a character that table forgets is found; a joiner between two non-ASCII characters (an
    emoji sequence, Persian) is text."""
    import unicodedata

    for i, char in enumerate(text):
        if char in "\n\t" or char.isascii() and char.isprintable():
            continue
        if unicodedata.category(char) in ("Cc", "Cf", "Zl", "Zp", "Cs"):
            joined = char in "\u200c\u200d" and 0 < i < len(text) - 1
            if joined and not text[i - 1].isascii() and not text[i + 1].isascii():
                continue
            return char
    return None


if __name__ == "__main__":
    main()
