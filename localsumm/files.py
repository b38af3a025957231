"""Reading the user's text files, with errors that say which file and what is wrong."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from .errors import InputError


def read_text(path: str, what: str) -> str:
    """The UTF-8 text of ``path`` (``-`` is stdin); ``what`` names the file in errors."""
    if path == "-":
        data = sys.stdin.buffer.read()
        name = f"{what} (stdin)"
    else:
        p = Path(path)
        name = f"{what} file {path}"
        if not p.exists():
            raise InputError(f"{name} does not exist")
        if p.is_dir():
            raise InputError(f"{name} is a directory, not a text file")
        try:
            data = p.read_bytes()
        except OSError as e:
            raise InputError(f"{name} cannot be read: {e.strerror or e}") from None
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


def json_object(line: str, where: str, what: str = "an object", hint: str = "") -> dict[str, Any]:
    """One line of a JSONL file that must hold a JSON object; ``where`` ("FILE: line N") names it in errors,
    ``what`` says what it should be and ``hint`` follows a line that is not JSON."""
    try:
        data = json.loads(line)
    except json.JSONDecodeError as e:
        raise InputError(f"{where} is not JSON ({e.msg} at column {e.colno}){hint}") from None
    if not isinstance(data, dict):
        raise InputError(f"{where} is a JSON {type(data).__name__}, not {what}")
    return data


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """The objects of a JSONL file that localsumm wrote or a benchmark reads as given (blank lines skipped).

    Not for the user's input: ``runs.records.read_records`` reads that, with errors that name the line.
    """
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
