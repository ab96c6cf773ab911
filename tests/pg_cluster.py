"""A throwaway PostgreSQL cluster on loopback for the registry tests (issue 23).

:func:`start_cluster` runs ``initdb`` into a temporary folder and ``pg_ctl start`` on a free
127.0.0.1 port (its Unix socket in that folder). PostgreSQL refuses to run as root: run as root,
the cluster runs as an unprivileged user through ``runuser`` (``$TOOLSEARCH_TEST_PG_USER``, else
``toolsearch-ci`` as ``.ci/run`` creates it, else ``toolsearch-pg``, created with ``useradd`` when
missing). The superuser ``postgres`` has a password (over TCP, SCRAM) so the tests see how
credentials in URLs are handled.

Where PostgreSQL or psycopg is absent the tests that need them skip, except in CI (``CI=true``
when the tests started, or ``TOOLSEARCH_TEST_REQUIRE_POSTGRES=1``, which ``.ci/run`` sets): there
an absent server is a failure, never a silent skip.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

PASSWORD = "s3cret-Pg-Passw0rd"
REQUIRE_VAR = "TOOLSEARCH_TEST_REQUIRE_POSTGRES"


def required(environ_ci: str | None) -> bool:
    """Whether an absent PostgreSQL must fail the tests (CI) rather than skip them."""
    if (os.environ.get(REQUIRE_VAR) or "").strip() not in ("", "0"):
        return True
    return (environ_ci or "").strip().lower() in ("true", "1", "yes")


def bin_dir() -> Path | None:
    """The folder of ``initdb`` / ``pg_ctl``: on the PATH, else Debian's newest versioned folder."""
    found = shutil.which("initdb")
    if found and shutil.which("pg_ctl"):
        return Path(found).resolve().parent  # (Debian links initdb alone into /usr/local/bin)
    versions = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4] or 0))
    return Path(versions[-1]).parent if versions else None


def unavailable() -> str | None:
    """Why the registry tests cannot run here, or ``None``."""
    try:
        import psycopg  # noqa: F401
    except ImportError:
        return "psycopg is not installed (pip install 'toolsearch-cli[registry]')"
    if bin_dir() is None:
        return "PostgreSQL's server programs (initdb, pg_ctl) are not installed"
    if os.geteuid() == 0 and shutil.which("runuser") is None:
        return "run as root without runuser: PostgreSQL cannot run as root"
    return None


def skip_or_fail(reason: str, ci: str | None) -> None:
    if required(ci):
        pytest.fail(f"PostgreSQL is required in CI: {reason}", pytrace=False)
    pytest.skip(reason)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _service_user() -> str | None:
    """The unprivileged user the cluster runs as when we are root (``None``: ourselves)."""
    if os.geteuid() != 0:
        return None
    for name in (os.environ.get("TOOLSEARCH_TEST_PG_USER"), "toolsearch-ci", "toolsearch-pg"):
        if not name:
            continue
        try:
            pwd.getpwnam(name)
            return name
        except KeyError:
            continue
    subprocess.run(
        ["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", "toolsearch-pg"],
        check=True,
        capture_output=True,
    )
    return "toolsearch-pg"


@dataclass
class Cluster:
    """One running server: ``url(db)`` reaches it over TCP with the password."""

    root: Path
    data: Path
    port: int
    user: str | None
    bins: Path
    children: list[Cluster] = field(default_factory=list)

    def url(self, db: str = "postgres", *, password: bool = True, **params: str) -> str:
        auth = f"postgres:{PASSWORD}" if password else "postgres"
        query = "&".join(f"{k}={v}" for k, v in params.items())
        return f"postgresql://{auth}@127.0.0.1:{self.port}/{db}" + (f"?{query}" if query else "")

    def run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        command = [str(self.bins / args[0]), *args[1:]]
        if self.user:
            command = ["runuser", "-u", self.user, "--", *command]
        return subprocess.run(command, check=check, capture_output=True, text=True, timeout=120)

    def start(self) -> None:
        options = (
            f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.root} -c fsync=off "
            "-c synchronous_commit=off -c full_page_writes=off -c max_connections=100 "
            "-c wal_level=replica -c max_wal_senders=4"
        )
        self.run("pg_ctl", "-D", str(self.data), "-o", options, "-l", str(self.root / "server.log"), "-w", "start")

    def stop(self, mode: str = "fast") -> None:
        self.run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop", check=False)

    def sql(self, statement: str, db: str = "postgres") -> list[tuple]:
        """Run one statement as the superuser (autocommit); its rows, if any."""
        import psycopg

        with psycopg.connect(self.url(db), autocommit=True) as conn:
            cur = conn.execute(statement)
            return cur.fetchall() if cur.description else []

    def create_database(self, name: str) -> str:
        self.sql(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def replica(self) -> Cluster:
        """A streaming replica of this server (``pg_basebackup -R``) on another free port."""
        root = Path(tempfile.mkdtemp(prefix="toolsearch-pg-replica-"))
        os.chmod(root, 0o700)
        if self.user:
            shutil.chown(root, self.user)
        replica = Cluster(root, root / "data", free_port(), self.user, self.bins)
        self.run(
            "pg_basebackup", "-h", str(self.root), "-p", str(self.port), "-U", "postgres",
            "-D", str(replica.data), "-R", "-X", "stream", "--no-sync", "--checkpoint=fast",
        )  # fmt: skip
        replica.start()
        self.children.append(replica)
        return replica

    def destroy(self) -> None:
        for child in self.children:
            child.destroy()
        self.stop("immediate")
        remove_later(self.root)


def remove_later(folder: Path) -> None:
    """Remove ``folder`` in a process of its own, not waited for. Removing a stopped cluster's data
    at the end of the session took 12-15 s after the registry tests alone, 71 s and 86 s after the
    whole suite (while the folder of a replica of the same size went in 0.5 s): time the last test's
    teardown spent on nothing it checks. Where no shell can be started, it is removed here."""
    try:
        # sh starts rm in the background and ends at once: nothing is left for this process to reap
        subprocess.run(
            ["sh", "-c", 'rm -rf -- "$1" </dev/null >/dev/null 2>&1 &', "sh", str(folder)],
            check=True, timeout=30, start_new_session=True,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        shutil.rmtree(folder, ignore_errors=True)


def start_cluster() -> Cluster:
    bins = bin_dir()
    assert bins is not None
    user = _service_user()
    root = Path(tempfile.mkdtemp(prefix="toolsearch-pg-"))
    os.chmod(root, 0o700)
    if user:
        shutil.chown(root, user)
    pwfile = root / "pw"
    pwfile.write_text(PASSWORD + "\n", encoding="utf-8")
    if user:
        shutil.chown(pwfile, user)
    cluster = Cluster(root, root / "data", free_port(), user, bins)
    cluster.run(
        "initdb", "-D", str(cluster.data), "-U", "postgres", f"--pwfile={pwfile}", "-E", "UTF8",
        "--locale=C", "--auth-local=trust", "--auth-host=scram-sha-256", "--no-sync",
    )  # fmt: skip
    with open(cluster.data / "pg_hba.conf", "a", encoding="utf-8") as hba:
        hba.write("local replication all trust\n")
    pwfile.unlink()
    for attempt in range(3):
        try:
            cluster.start()
            break
        except subprocess.CalledProcessError:  # the port was taken between free_port() and start
            if attempt == 2:
                log = (root / "server.log").read_text(errors="replace") if (root / "server.log").exists() else ""
                shutil.rmtree(root, ignore_errors=True)
                raise RuntimeError(f"PostgreSQL did not start: {log[-2000:]}") from None
            cluster.port = free_port()
            time.sleep(0.2)
    return cluster


@contextlib.contextmanager
def running_cluster():
    cluster = start_cluster()
    try:
        yield cluster
    finally:
        cluster.destroy()
