"""Static extraction of MCP tool definitions from Python packages (FastMCP style), by AST only."""
import ast, pathlib

def _str(node):
    try:
        v = ast.literal_eval(node)
    except Exception:
        return None
    return v if isinstance(v, str) else None

def _field_desc(node):
    # Field(..., description='...') or Annotated[T, Field(description=...)] / 'doc string' metadata
    if isinstance(node, ast.Call):
        fn = node.func
        fname = fn.attr if isinstance(fn, ast.Attribute) else getattr(fn, "id", "")
        if fname in ("Field", "Param", "Parameter"):
            for kw in node.keywords:
                if kw.arg == "description":
                    return _str(kw.value)
    if isinstance(node, ast.Subscript):
        base = node.value
        bname = base.attr if isinstance(base, ast.Attribute) else getattr(base, "id", "")
        if bname == "Annotated":
            sl = node.slice
            elts = sl.elts if isinstance(sl, ast.Tuple) else [sl]
            for e in elts[1:]:
                d = _field_desc(e)
                if d:
                    return d
                s = _str(e)
                if s:
                    return s
    return None

def _params(fn):
    out = {}
    a = fn.args
    args = a.posonlyargs + a.args
    defaults = [None] * (len(args) - len(a.defaults)) + list(a.defaults)
    pairs = list(zip(args, defaults)) + list(zip(a.kwonlyargs, a.kw_defaults))
    for arg, default in pairs:
        if arg.arg in ("self", "ctx", "context", "cls"):
            continue
        d = None
        if default is not None:
            d = _field_desc(default)
        if not d and arg.annotation is not None:
            d = _field_desc(arg.annotation)
        if d:
            out[arg.arg] = d.strip()
    return out

def _is_tool_call(call):
    return isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "tool"

def _kw(call, name):
    for kw in call.keywords:
        if kw.arg == name:
            return _str(kw.value)
    return None

def extract(root):
    tools = []
    trees = []
    for path in sorted(pathlib.Path(root).rglob("*.py")):
        try:
            trees.append((path, ast.parse(path.read_text(encoding="utf-8"))))
        except Exception:
            continue
    gfuncs = {}
    for path, tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                gfuncs.setdefault(node.name, node)
    for path, tree in trees:
        funcs = dict(gfuncs)
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                funcs[node.name] = node
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                v = node.value
                if isinstance(v, ast.Call) and v.args and isinstance(v.args[0], ast.Name) and v.args[0].id in funcs:
                    funcs.setdefault(node.targets[0].id, funcs[v.args[0].id])
        def add(fn, call):
            name = (_kw(call, "name") if call is not None else None) or fn.name
            desc = (_kw(call, "description") if call is not None else None) or ast.get_docstring(fn) or ""
            tools.append({"name": name, "description": desc.strip(), "parameters": _params(fn), "_file": str(path.relative_to(root))})
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for dec in node.decorator_list:
                    if _is_tool_call(dec):
                        add(node, dec)
                    elif isinstance(dec, ast.Attribute) and dec.attr == "tool":
                        add(node, None)
            elif isinstance(node, ast.Call) and _is_tool_call(node.func) and node.args:
                target = node.args[0]
                tname = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", None)
                if tname in funcs:
                    add(funcs[tname], node.func)
            elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and "register" in node.func.id
                  and "tool" in node.func.id and len(node.args) >= 2 and _str(node.args[0])
                  and isinstance(node.args[1], ast.Name) and node.args[1].id in funcs):
                fn = funcs[node.args[1].id]
                desc = ast.get_docstring(fn) or ""
                tools.append({"name": _str(node.args[0]), "description": desc.strip(), "parameters": _params(fn), "_file": str(path.relative_to(root))})
            elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                  and node.func.attr in ("tool", "from_function") and node.args):
                target = node.args[0]
                tname = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", None)
                if tname in funcs:
                    add(funcs[tname], node)
    return tools
