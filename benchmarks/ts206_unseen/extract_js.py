"""Heuristic static extraction of MCP tool definitions from compiled JS (no code is run)."""
import re, pathlib

_ESC = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "0": "\0"}

def read_lit(s, i):
    """Read a JS string literal starting at s[i] (quote char). Return (value, end) or (None, i)."""
    q = s[i]
    if q not in "\"'`":
        return None, i
    out, j = [], i + 1
    while j < len(s):
        c = s[j]
        if c == "\\" and j + 1 < len(s):
            n = s[j + 1]
            if n == "u" and s[j + 2:j + 3] == "{":
                k = s.index("}", j); out.append(chr(int(s[j + 3:k], 16))); j = k + 1; continue
            if n == "u":
                out.append(chr(int(s[j + 2:j + 6], 16))); j += 6; continue
            if n == "x":
                out.append(chr(int(s[j + 2:j + 4], 16))); j += 4; continue
            if n == "\n":
                j += 2; continue
            out.append(_ESC.get(n, n)); j += 2; continue
        if q == "`" and c == "$" and s[j + 1:j + 2] == "{":
            depth, k = 0, j + 1
            while k < len(s):
                if s[k] == "{": depth += 1
                elif s[k] == "}":
                    depth -= 1
                    if depth == 0: break
                k += 1
            out.append(s[j:k + 1]); j = k + 1; continue
        if c == q:
            return "".join(out), j + 1
        out.append(c); j += 1
    return None, i

def read_concat(s, i):
    v, j = read_lit(s, i)
    if v is None:
        return None, i
    parts = [v]
    while True:
        m = re.compile(r"\s*\+\s*").match(s, j)
        if not m or m.end() >= len(s) or s[m.end()] not in "\"'`":
            break
        v2, j2 = read_lit(s, m.end())
        if v2 is None:
            break
        parts.append(v2); j = j2
    return "".join(parts), j

TOOL_RE = re.compile(r"\bname\s*:\s*(?=[\"'`])")
DESC_RE = re.compile(r"\s*,?\s*(?:title\s*:\s*[\"'`][^\"'`]*[\"'`]\s*,\s*)?description\s*:\s*(?=[\"'`])")
ZPARAM_RE = re.compile(r"[\"']?([A-Za-z_$][\w$]*)[\"']?\s*:\s*z\s*\.")
OPARAM_RE = re.compile(r"[\"']?([A-Za-z_$][\w$]*)[\"']?\s*:\s*\{")
DESCRIBE_RE = re.compile(r"\.describe\(\s*(?=[\"'`])")
PDESC_RE = re.compile(r"\bdescription\s*:\s*(?=[\"'`])")
SCHEMA_RE = re.compile(r"(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=\s*z\s*\.\s*object\(")
REF_RE = re.compile(r"zodToJsonSchema\(\s*(?:[\w$]+\.)?([A-Za-z_$][\w$]*)")

def _param_name_before(s, pos, lo):
    """Nearest `key: z.` or `key: {` before pos (not before lo)."""
    best = None
    for rx in (ZPARAM_RE, OPARAM_RE):
        for m in rx.finditer(s, max(lo, pos - 1500), pos):
            if best is None or m.start() > best.start():
                best = m
    return best.group(1) if best else None

def extract(root):
    files = [p for p in sorted(pathlib.Path(root).rglob("*.js")) if "node_modules" not in p.parts and not p.name.endswith(".min.js")]
    schemas = {}   # zod schema name -> {param: desc}
    events = []    # per file ordered
    texts = {p: p.read_text(encoding="utf-8", errors="replace") for p in files}
    for p in files:
        s = texts[p]
        # zod schema blocks
        for m in SCHEMA_RE.finditer(s):
            end = s.find("\n});", m.end())
            end = len(s) if end < 0 else end
            params = {}
            for d in DESCRIBE_RE.finditer(s, m.end(), end):
                v, _ = read_concat(s, d.end())
                name = _param_name_before(s, d.start(), m.end())
                if v and name and name not in params:
                    params[name] = v.strip()
            schemas[m.group(1)] = params
    for p in files:
        s = texts[p]
        # tools and params in order
        tools_here = []
        for m in TOOL_RE.finditer(s):
            name, j = read_lit(s, m.end())
            if not name or not re.fullmatch(r"[A-Za-z0-9_.:/-]{2,80}", name):
                continue
            dm = DESC_RE.match(s, j)
            if not dm:
                dm = PDESC_RE.search(s, j, j + 1500)
                if not dm or re.search(r"inputSchema|properties|parameters\s*:|\bname\s*:", s[j:dm.start()]):
                    continue
            desc, k = read_concat(s, dm.end())
            if not desc:
                continue
            tools_here.append({"name": name, "description": desc.strip(), "parameters": {}, "_pos": m.start(), "_end": k, "_file": str(p.relative_to(root))})
        for idx, t in enumerate(tools_here):
            stop = tools_here[idx + 1]["_pos"] if idx + 1 < len(tools_here) else min(len(s), t["_end"] + 20000)
            seg_lo = t["_end"]
            ref = REF_RE.search(s, seg_lo, stop)
            if ref and ref.group(1) in schemas:
                t["parameters"].update(schemas[ref.group(1)])
                t["_ref"] = ref.group(1)
            for rx in (DESCRIBE_RE, PDESC_RE):
                for d in rx.finditer(s, seg_lo, stop):
                    v, _ = read_concat(s, d.end())
                    name = _param_name_before(s, d.start(), seg_lo)
                    if v and name and name not in t["parameters"] and name not in ("inputSchema", "annotations", "properties", "parameters", "items"):
                        t["parameters"][name] = v.strip()
        events.extend(tools_here)
    # schema-referencing tools whose schema was defined in a later file
    for t in events:
        t.pop("_pos", None); t.pop("_end", None); t.pop("_ref", None)
    return events
