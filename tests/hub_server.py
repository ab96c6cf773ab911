"""A loopback HTTP server speaking the Hugging Face Hub's file API, for ``toolsearch model pull``.

The real ``huggingface_hub`` client (pointed here by ``HF_ENDPOINT``) talks to it as to the Hub:

* ``GET /api/models/{repo}[/revision/{rev}]``: the model's info (``sha``, ``siblings``);
* ``GET /api/models/{repo}/tree/{rev}``: its files (``type``, ``path``, ``size``, ``oid``);
* ``HEAD``/``GET /{repo}/resolve/{rev}/{path}``: a file, with the headers the client reads
  (``X-Repo-Commit``, ``ETag``, ``Content-Length``).

An unknown repository or revision is a 404 with the Hub's ``X-Error-Code``. Every request
(method, path, headers) is kept for assertions.
"""

from __future__ import annotations

import hashlib
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import unquote, urlsplit


class HubServer:
    def __init__(self, repos: dict[str, dict[str, bytes]]) -> None:
        """``repos``: repository id -> {path in the repository: content}."""
        self.repos = repos
        self.requests: list[dict[str, Any]] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def do_HEAD(self) -> None:  # noqa: N802 - the http.server API
                self._answer(body=False)

            def do_GET(self) -> None:  # noqa: N802
                self._answer(body=True)

            def _answer(self, body: bool) -> None:
                path = unquote(urlsplit(self.path).path)
                headers = {k.lower(): v for k, v in self.headers.items()}
                owner.requests.append({"method": self.command, "path": path, "headers": headers})
                if path.startswith("/api/models/"):
                    return self._api(path[len("/api/models/") :], body)
                parts = path.lstrip("/").split("/")
                if len(parts) >= 5 and parts[2] == "resolve":
                    repo, rev, file = f"{parts[0]}/{parts[1]}", parts[3], "/".join(parts[4:])
                    files = self._repo(repo, rev, body)
                    if files is None:
                        return None
                    if file not in files:
                        return self._error(404, "EntryNotFound", f"{file} not found", body)
                    content = files[file]
                    self.send_response(200)
                    self.send_header("Content-Type", "application/octet-stream")
                    self.send_header("Content-Length", str(len(content)))
                    self.send_header("ETag", f'"{owner.oid(content)}"')
                    self.send_header("X-Repo-Commit", owner.sha(repo))
                    self.end_headers()
                    if body:
                        self.wfile.write(content)
                    return None
                return self._error(404, "NotFound", "no such route", body)

            def _api(self, rest: str, body: bool) -> None:
                if rest.count("/") == 1:  # /api/models/{repo}: the info of its main revision
                    rest += "/revision/main"
                for kind in ("/revision/", "/tree/"):
                    if kind in rest:
                        repo, rev = rest.split(kind, 1)
                        files = self._repo(repo, rev, body)
                        if files is None:
                            return None
                        if kind == "/revision/":
                            payload: Any = {
                                "id": repo,
                                "modelId": repo,
                                "sha": owner.sha(repo),
                                "private": False,
                                "tags": [],
                                "siblings": [{"rfilename": f} for f in sorted(files)],
                            }
                        else:
                            folders = sorted({f.rsplit("/", 1)[0] for f in files if "/" in f})
                            payload = [{"type": "directory", "path": d, "oid": "0" * 40, "size": 0} for d in folders]
                            payload += [
                                {"type": "file", "path": f, "size": len(c), "oid": owner.oid(c)}
                                for f, c in sorted(files.items())
                            ]
                        return self._json(200, payload, body)
                return self._error(404, "NotFound", "no such route", body)

            def _repo(self, repo: str, rev: str, body: bool) -> dict[str, bytes] | None:
                if repo not in owner.repos:
                    self._error(404, "RepoNotFound", f"Repository {repo} not found", body)
                    return None
                if rev not in ("main", owner.sha(repo)):
                    self._error(404, "RevisionNotFound", f"Invalid rev id: {rev}", body)
                    return None
                return owner.repos[repo]

            def _error(self, status: int, code: str, message: str, body: bool) -> None:
                raw = json.dumps({"error": message}).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.send_header("X-Error-Code", code)
                self.send_header("X-Error-Message", message)
                self.end_headers()
                if body:
                    self.wfile.write(raw)

            def _json(self, status: int, payload: Any, body: bool) -> None:
                raw = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                if body:
                    self.wfile.write(raw)

        class Quiet(ThreadingHTTPServer):
            daemon_threads = True

            def handle_error(self, request: Any, client_address: Any) -> None:
                pass

        self.httpd = Quiet(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @staticmethod
    def oid(content: bytes) -> str:
        """The git blob id of ``content``, as the Hub gives a file's ``oid``."""
        return hashlib.sha1(b"blob %d\0" % len(content) + content).hexdigest()  # noqa: S324 - git's id

    def sha(self, repo: str) -> str:
        """The repository's one commit: a hash of its files."""
        digest = hashlib.sha1(repo.encode())  # noqa: S324 - an id, not security
        for path, content in sorted(self.repos[repo].items()):
            digest.update(path.encode() + b"\0" + content)
        return digest.hexdigest()

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}"

    def fetched(self) -> list[str]:
        """The repository files whose content was sent (GET on a resolve URL), in order."""
        return [r["path"].split("/resolve/", 1)[1].split("/", 1)[1] for r in self.requests
                if r["method"] == "GET" and "/resolve/" in r["path"]]  # fmt: skip

    def __enter__(self) -> HubServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=5)
