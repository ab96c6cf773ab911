"""Operations of an OpenAPI 3 document as tools: summary/description + parameter and body-property descriptions."""
import json

def _resolve(doc, node, depth=0):
    while isinstance(node, dict) and "$ref" in node and depth < 20:
        ref = node["$ref"]
        if not ref.startswith("#/"):
            return {}
        cur = doc
        for part in ref[2:].split("/"):
            cur = cur.get(part.replace("~1", "/").replace("~0", "~"), {}) if isinstance(cur, dict) else {}
        node = cur; depth += 1
    return node if isinstance(node, dict) else {}

def _props(doc, schema, out, prefix="", depth=0):
    schema = _resolve(doc, schema)
    if depth > 3:
        return
    for key in ("allOf", "anyOf", "oneOf"):
        for sub in schema.get(key, []) or []:
            _props(doc, sub, out, prefix, depth + 1)
    for name, ps in (schema.get("properties") or {}).items():
        ps = _resolve(doc, ps)
        d = ps.get("description")
        full = prefix + name
        if isinstance(d, str) and d.strip() and full not in out:
            out[full] = d.strip()
        _props(doc, ps, out, full + ".", depth + 1)

def extract(path):
    doc = json.load(open(path, encoding="utf-8"))
    tools = []
    for route, item in (doc.get("paths") or {}).items():
        for method, op in item.items():
            if method not in ("get", "put", "post", "delete", "patch") or not isinstance(op, dict):
                continue
            desc = " ".join(x for x in (op.get("summary"), op.get("description")) if isinstance(x, str) and x.strip())
            params = {}
            for prm in (item.get("parameters") or []) + (op.get("parameters") or []):
                prm = _resolve(doc, prm)
                d = prm.get("description") or _resolve(doc, prm.get("schema", {})).get("description")
                if isinstance(d, str) and d.strip():
                    params[prm.get("name", "?")] = d.strip()
            body = _resolve(doc, op.get("requestBody", {}))
            for ct, media in (body.get("content") or {}).items():
                _props(doc, media.get("schema", {}), params)
            tools.append({"name": op.get("operationId") or f"{method} {route}", "description": desc.strip(), "parameters": params})
    return tools
