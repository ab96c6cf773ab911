import sys, json, yaml, collections
sys.path.insert(0, "/work/staging-blind9/src")
import extract_py, extract_js, extract_oas
X = "/work/staging-blind9/pkgs/x/"
SOURCES = [
 ("pypi:mcp-atlassian==0.23.1", "MIT", "py", "mcp_atlassian-0.23.1-py3-none-any"),
 ("pypi:awslabs.aws-dataprocessing-mcp-server==0.2.2", "Apache-2.0", "py", "awslabs_aws_dataprocessing_mcp_server-0.2.2-py3-none-any"),
 ("pypi:awslabs.aws-healthomics-mcp-server==0.1.5", "Apache-2.0", "py", "awslabs_aws_healthomics_mcp_server-0.1.5-py3-none-any"),
 ("pypi:awslabs.cloudwatch-mcp-server==0.3.1", "Apache-2.0", "py", "awslabs_cloudwatch_mcp_server-0.3.1-py3-none-any"),
 ("pypi:awslabs.dynamodb-mcp-server==2.1.8", "Apache-2.0", "py", "awslabs_dynamodb_mcp_server-2.1.8-py3-none-any"),
 ("pypi:awslabs.ecs-mcp-server==0.1.37", "Apache-2.0", "py", "awslabs_ecs_mcp_server-0.1.37-py3-none-any"),
 ("pypi:awslabs.eks-mcp-server==0.2.1", "Apache-2.0", "py", "awslabs_eks_mcp_server-0.2.1-py3-none-any"),
 ("pypi:awslabs.iam-mcp-server==1.1.2", "Apache-2.0", "py", "awslabs_iam_mcp_server-1.1.2-py3-none-any"),
 ("pypi:awslabs.redshift-mcp-server==0.1.2", "Apache-2.0", "py", "awslabs_redshift_mcp_server-0.1.2-py3-none-any"),
 ("pypi:awslabs.s3-tables-mcp-server==0.1.1", "Apache-2.0", "py", "awslabs_s3_tables_mcp_server-0.1.1-py3-none-any"),
 ("pypi:mcp-clickhouse==0.7.0", "Apache-2.0", "py", "mcp_clickhouse-0.7.0-py3-none-any"),
 ("npm:mcp-server-kubernetes@4.1.7", "MIT", "js", "mcp-server-kubernetes-4.1.7/package"),
 ("npm:@modelcontextprotocol/server-github@2025.4.8", "MIT", "js", "modelcontextprotocol-server-github-2025.4.8/package"),
 ("npm:@modelcontextprotocol/server-slack@2025.4.25", "MIT", "js", "modelcontextprotocol-server-slack-2025.4.25/package"),
 ("npm:@modelcontextprotocol/server-brave-search@0.6.2", "MIT", "js", "modelcontextprotocol-server-brave-search-0.6.2/package"),
 ("npm:@modelcontextprotocol/server-puppeteer@2025.5.12", "MIT", "js", "modelcontextprotocol-server-puppeteer-2025.5.12/package"),
 ("npm:firecrawl-mcp@3.22.2", "MIT", "js", "firecrawl-mcp-3.22.2/package"),
 ("npm:@notionhq/notion-mcp-server@2.5.2 (scripts/notion-openapi.json)", "MIT", "oas", "notionhq-notion-mcp-server-2.5.2/package/scripts/notion-openapi.json"),
]
groups, stats = [], []
allt = collections.Counter()
for src, lic, kind, path in SOURCES:
    if kind == "py": tools = extract_py.extract(X + path)
    elif kind == "js": tools = extract_js.extract(X + path)
    else: tools = extract_oas.extract(X + path)
    seen, out = set(), []
    for t in tools:
        t.pop("_file", None)
        key = json.dumps(t, sort_keys=True)
        if key in seen or not t["description"]:
            continue
        seen.add(key); out.append(t)
    texts = set()
    for t in out:
        texts.add(t["description"]); texts.update(t["parameters"].values())
    allt.update(texts)
    groups.append({"source": src, "licence": lic, "tools": out})
    stats.append((src, lic, len(out), sum(1 + len(t["parameters"]) for t in out), len(texts)))
hdr = ("# Real MCP tool / API operation descriptions, unseen by TS206's authors (issue 37 false-alarm check).\n"
       "# Extracted statically (Python AST, JS string literals, OpenAPI JSON; no package code run) on 2026-12-05 by the\n"
       "# blind9 helper from PyPI/npm packages under MIT or Apache-2.0 licences (see README.md). Not a training set.\n"
       "# JS parameter grouping is heuristic (a description is attached to the nearest preceding key).\n")
open("/work/staging-blind9/real_unseen.yaml", "w", encoding="utf-8").write(hdr + yaml.safe_dump(groups, allow_unicode=True, sort_keys=False, width=4096))
for s in stats: print("| %s | %s | %d | %d | %d |" % s)
print("TOTAL tools", sum(s[2] for s in stats), "descriptions", sum(s[3] for s in stats), "distinct-per-source-sum", sum(s[4] for s in stats), "distinct overall", len(allt))
