"""Reading the user's text files, with errors that say which file and what is wrong."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from .errors import InputError


def read_bytes(path: str, what: str) -> tuple[bytes, str]:
    """The bytes of ``path`` (``-`` is stdin), and the file's name for errors (``what`` says what it is)."""
    if path == "-":
        return sys.stdin.buffer.read(), f"{what} (stdin)"
    p = Path(path)
    name = f"{what} file {path}"
    if not p.exists():
        raise InputError(f"{name} does not exist")
    if p.is_dir():
        raise InputError(f"{name} is a directory, not a text file")
    try:
        return p.read_bytes(), name
    except OSError as e:
        raise InputError(f"{name} cannot be read: {e.strerror or e}") from None


def read_text(path: str, what: str) -> str:
    """The UTF-8 text of ``path`` (``-`` is stdin); ``what`` names the file in errors."""
    data, name = read_bytes(path, what)
    if b"\x00" in data:
        raise InputError(f"{name} looks binary (it contains NUL bytes); give a UTF-8 text file")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise InputError(
            f"{name} is not valid UTF-8: byte 0x{data[e.start]:02x} at line {line} (offset {e.start}); "
            f"convert it to UTF-8"
        ) from None


class _RepeatedKey(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object's pairs as a dict, refusing a key given twice (JSON allows it; which value was meant is unknown)."""
    data = dict(pairs)
    if len(data) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _RepeatedKey(key)
            seen.add(key)
    return data


def json_object(
    line: str, where: str, what: str = "an object", hint: str = "", unique_keys: bool = False
) -> dict[str, Any]:
    """One line of a JSONL file that must hold a JSON object; ``where`` ("FILE: line N") names it in errors,
    ``what`` says what it should be and ``hint`` follows a line that is not JSON. With ``unique_keys``, an object
    that gives a key twice is refused."""
    try:
        data = json.loads(line, object_pairs_hook=_unique_keys if unique_keys else None)
    except json.JSONDecodeError as e:
        raise InputError(f"{where} is not JSON ({e.msg} at column {e.colno}){hint}") from None
    except _RepeatedKey as e:
        raise InputError(f"{where} gives the key {e.key!r} twice in one object; keep one") from None
    except ValueError as e:  # e.g. an integer of more digits than Python converts
        raise InputError(f"{where} cannot be read as JSON: {str(e).split(':')[0]}") from None
    except RecursionError:
        raise InputError(f"{where} is nested too deeply to read") from None
    if not isinstance(data, dict):
        raise InputError(f"{where} is a JSON {type(data).__name__}, not {what}")
    return data


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """The objects of a JSONL file that localsumm wrote or a benchmark reads as given (blank lines skipped).

    Not for the user's input: ``runs.records.read_records`` reads that, with errors that name the line.
    """
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
