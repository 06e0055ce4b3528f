"""Find the session-state keys the app's source uses, without running it.

`Scanner(root, paths).uses()` reads every module and returns each place that names a
session-state key: the widget key of `KEY.widget(...)`, the box key of ui.shared.state's
`folded`, the replay stepper's slider, and every direct use of st.session_state
(`st.session_state[k]`, `.get(k)`, `.pop(k)`, `.setdefault(k)`, `k in st.session_state`, the
same through an alias such as `ss = st.session_state`). Each key is worked out from the source
where it can be: a string, a module's constant (its own or imported, `Key("...")`,
`KeyFamily("...")` and `FAMILY.key("...")` included), a concatenation or an f-string (then
only its fixed start is known: a prefix), or a name assigned once in the same function.
`Scanner.raw_uses()` lists every mention of st.session_state itself. tests/test_state_keys.py
checks the keys against the declared ones, and that only ui/shared/state.py touches
st.session_state.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

#: Calls that take keys, and which arguments are keys: `folded(label, key)`,
#: `STORE.widget(widget_key)`, the replay stepper's slider.
KEY_ARGS = {"folded": (1,), "widget": (0,)}
KEY_KWARGS = {"step_controls": {"slider_key": None}}


@dataclass(frozen=True)
class Resolved:
    text: str
    exact: bool  # False: only the start of the key is known


@dataclass(frozen=True)
class Use:
    path: str
    line: int
    key: Resolved | None  # None: not worked out from the source (a parameter, a call)
    source: str           # the key expression as written
    raw: bool = False     # a direct use of st.session_state (only ui/shared/state.py may)


def module_name(root: Path, path: Path) -> str:
    rel = path.relative_to(root).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


class _Module:
    def __init__(self, name: str, tree: ast.Module):
        self.name = name
        self.tree = tree
        self.assigns: dict[str, ast.expr] = {}
        self.imports: dict[str, tuple[str, str | None]] = {}  # local name -> (module, attribute or None)
        for node in tree.body:
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        self.assigns[target.id] = node.value
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
                self.assigns[node.target.id] = node.value
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                for alias in node.names:
                    self.imports[alias.asname or alias.name] = (node.module, alias.name)
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        self.imports[alias.asname] = (alias.name, None)


class Scanner:
    def __init__(self, root: Path, paths: list[Path]):
        self.root = root
        self.modules: dict[str, _Module] = {}
        self.paths: dict[str, Path] = {}
        for path in paths:
            name = module_name(root, path)
            self.modules[name] = _Module(name, ast.parse(path.read_text(encoding="utf-8"), str(path)))
            self.paths[name] = path

    # ---- working out a key expression ----------------------------------------------------
    def _lookup(self, module: str, name: str, depth: int) -> Resolved | None:
        mod = self.modules.get(module)
        if mod is None or depth > 8:
            return None
        if name in mod.assigns:
            return self.resolve(mod.assigns[name], module, {}, depth + 1)
        if name in mod.imports:
            src, attr = mod.imports[name]
            if attr is None:
                return None
            if f"{src}.{attr}" in self.modules:  # `from pkg import module`: not a value
                return None
            return self._lookup(src, attr, depth + 1)
        return None

    def _module_alias(self, module: str, name: str) -> str | None:
        mod = self.modules[module]
        if name in mod.imports:
            src, attr = mod.imports[name]
            full = src if attr is None else f"{src}.{attr}"
            return full if full in self.modules else None
        return None

    def resolve(self, node: ast.expr, module: str, local: dict[str, ast.expr], depth: int = 0) -> Resolved | None:
        if depth > 12:
            return None
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return Resolved(node.value, True)
        if isinstance(node, ast.Name):
            if node.id in local:
                return self.resolve(local[node.id], module, {}, depth + 1)
            return self._lookup(module, node.id, depth)
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            target = self._module_alias(module, node.value.id)
            return None if target is None else self._lookup(target, node.attr, depth)
        if isinstance(node, ast.Call) and node.args:
            func = node.func
            fname = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
            if fname in ("Key", "KeyFamily"):
                inner = self.resolve(node.args[0], module, local, depth + 1)
                if inner is None:
                    return None
                return Resolved(inner.text, inner.exact and fname == "Key")
            if fname == "key" and isinstance(func, ast.Attribute):  # FAMILY.key(name): family + name
                family = self.resolve(func.value, module, local, depth + 1)
                name = self.resolve(node.args[0], module, local, depth + 1)
                if family is None:
                    return None
                if name is None or not name.exact:
                    return Resolved(family.text + (name.text if name else ""), False)
                return Resolved(family.text + name.text, True)
            return None
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            left = self.resolve(node.left, module, local, depth + 1)
            if left is None:
                return None
            if not left.exact:
                return left
            right = self.resolve(node.right, module, local, depth + 1)
            if right is None:
                return Resolved(left.text, False)
            return Resolved(left.text + right.text, right.exact)
        if isinstance(node, ast.JoinedStr):
            text = ""
            for part in node.values:
                if isinstance(part, ast.Constant) and isinstance(part.value, str):
                    text += part.value
                    continue
                inner = self.resolve(part.value, module, local, depth + 1) if isinstance(part, ast.FormattedValue) else None
                if inner is None or not inner.exact:
                    return Resolved(text + (inner.text if inner else ""), False)
                text += inner.text
            return Resolved(text, True)
        return None

    # ---- finding the uses -----------------------------------------------------------------
    def _state_aliases(self, module: str) -> set[str]:
        out = set()
        for name, value in self.modules[module].assigns.items():
            if _is_session_state(value, set()):
                out.add(name)
        return out

    def uses(self) -> list[Use]:
        found: list[Use] = []
        for module, mod in self.modules.items():
            aliases = self._state_aliases(module)
            path = str(self.paths[module].relative_to(self.root))
            for scope, local in _scopes(mod.tree):
                for node in _walk_scope(scope):
                    raw = _is_raw(node, aliases)
                    for key in _key_nodes(node, aliases):
                        found.append(Use(path, key.lineno, self.resolve(key, module, local), ast.unparse(key), raw))
        return found

    def raw_uses(self) -> list[Use]:
        """Every mention of st.session_state (or of an alias of it), key or not."""
        found: list[Use] = []
        for module, mod in self.modules.items():
            path = str(self.paths[module].relative_to(self.root))
            for node in ast.walk(mod.tree):
                if isinstance(node, ast.Attribute) and node.attr == "session_state":
                    found.append(Use(path, node.lineno, None, ast.unparse(node), True))
        return found


def _is_raw(node: ast.AST, aliases: set[str]) -> bool:
    """Whether a node that names a key is a direct use of st.session_state."""
    if isinstance(node, ast.Subscript):
        return _is_session_state(node.value, aliases)
    if isinstance(node, ast.Compare):
        return True
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return _is_session_state(node.func.value, aliases)
    return False


def _is_session_state(node: ast.AST, aliases: set[str]) -> bool:
    if isinstance(node, ast.Attribute) and node.attr == "session_state":
        return isinstance(node.value, ast.Name) and node.value.id == "st"
    return isinstance(node, ast.Name) and node.id in aliases


def _key_nodes(node: ast.AST, aliases: set[str]) -> list[ast.expr]:
    if isinstance(node, ast.Subscript) and _is_session_state(node.value, aliases):
        return [node.slice]
    if isinstance(node, ast.Call):
        func = node.func
        if (isinstance(func, ast.Attribute) and func.attr in ("get", "pop", "setdefault")
                and _is_session_state(func.value, aliases) and node.args):
            return [node.args[0]]
        fname = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
        if fname in KEY_ARGS:
            return [node.args[i] for i in KEY_ARGS[fname] if i < len(node.args)]
        if fname in KEY_KWARGS:
            wanted = KEY_KWARGS[fname]
            out = [kw.value for kw in node.keywords if kw.arg in wanted]
            out += [node.args[i] for i in wanted.values() if i is not None and i < len(node.args)]
            return out
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.In, ast.NotIn)):
        if _is_session_state(node.comparators[0], aliases):
            return [node.left]
    return []


def _scopes(tree: ast.Module):
    """(scope node, its single assignments to plain names) for the module and each function."""
    yield tree, {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            local: dict[str, ast.expr] = {}
            counts: dict[str, int] = {}
            for sub in _walk_scope(node):
                if isinstance(sub, ast.Assign):
                    for target in sub.targets:
                        if isinstance(target, ast.Name):
                            local[target.id] = sub.value
                            counts[target.id] = counts.get(target.id, 0) + 1
            yield node, {k: v for k, v in local.items() if counts[k] == 1}


def _walk_scope(scope: ast.AST):
    """The nodes of one scope, not of the functions defined inside it."""
    todo = list(ast.iter_child_nodes(scope))
    while todo:
        node = todo.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            todo.extend(ast.iter_child_nodes(node))
