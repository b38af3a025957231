"""The package's layers import only downwards, function-local and type-checking imports included."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "localsumm"

# Lowest first. A module may import from its own layer or any layer below it, never above.
LAYERS: list[tuple[str, ...]] = [
    ("localsumm._version", "localsumm.errors", "localsumm.text", "localsumm.files"),
    ("localsumm.protocol",),
    ("localsumm.config",),
    ("localsumm.models",),
    ("localsumm.backends",),
    ("localsumm.summarization",),
    ("localsumm.runs",),
    ("localsumm.compare",),
    ("localsumm.reports",),
    ("localsumm.bench",),
    ("localsumm.cli", "localsumm"),
]


def layer_of(module: str) -> int:
    """The layer of a module of the package: the most specific prefix in LAYERS wins."""
    best: tuple[int, int] | None = None
    for index, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            if module == prefix or module.startswith(prefix + "."):
                if best is None or len(prefix) > best[1]:
                    best = (index, len(prefix))
    if best is None:
        raise AssertionError(f"{module} is in no layer: add it to LAYERS")
    return best[0]


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(source: str, package: str) -> list[tuple[int, str]]:
    """(line, absolute module) for every import of ``source`` (a module of ``package``), wherever it is written."""
    tree = ast.parse(source)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            # "from . import prompts" imports the module prompts; "from .x import name" imports from module x.
            found += [(node.lineno, target if node.module else f"{target}.{alias.name}") for alias in node.names]
    return [(line, name) for line, name in found if name == "localsumm" or name.startswith("localsumm.")]


MODULES = sorted(PACKAGE.rglob("*.py"))


def file_imports(path: Path) -> list[tuple[int, str]]:
    package = module_name(path) if path.name == "__init__.py" else module_name(path).rpartition(".")[0]
    return imports(path.read_text(encoding="utf-8"), package)


def test_every_module_has_a_layer():
    for path in MODULES:
        layer_of(module_name(path))


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_go_only_downwards(path: Path):
    importer = module_name(path)
    upward = [
        f"line {line}: {importer} (layer {layer_of(importer)}) imports {name} (layer {layer_of(name)})"
        for line, name in file_imports(path)
        if layer_of(name) > layer_of(importer)
    ]
    assert not upward, "\n".join(upward)


def test_the_checker_sees_a_function_local_upward_import():
    """The kind of import that hid the old cycle: relative, inside a function."""
    found = imports("import os\n\ndef f():\n    from ..bench import quality\n", "localsumm.backends")
    assert found == [(4, "localsumm.bench")]
    assert layer_of("localsumm.bench") > layer_of("localsumm.backends.llamacpp")
    assert imports("from . import prompts\n", "localsumm.summarization") == [(1, "localsumm.summarization.prompts")]


def test_the_facade_exports_what_it_lists_and_the_flat_layout_is_gone():
    import importlib

    import localsumm

    for name in localsumm.__all__:
        assert getattr(localsumm, name) is not None, name
    for old in ("localsumm.scorer", "localsumm.judges", "localsumm._compat"):  # removed in 0.3.0
        with pytest.raises(ModuleNotFoundError):
            importlib.import_module(old)
