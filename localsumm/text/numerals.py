"""Numbers as a text writes them, in Arabic digits or Chinese numerals, reduced to keys that compare.

"二〇二一" and "2021", "五百" and "500", "五亿" and "5亿" and "500000000" are one
number each: every number gets the set of keys it can be read as, and two
numbers match when their sets meet.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

from .chinese import in_numeral_words

# A number grouped in thousands ("1,023", tokenised "2 , 000"), else digits with decimals. A group
# of more than three digits never starts one, so "in 2016, 500 people" stays two numbers.
_ARABIC = re.compile(r"\d{1,3}(?:\s?,\s?\d{3})+(?!\d)|\d+(?:\.\d+)*")
_MAGNITUDE = re.compile(r"\s?([万亿]+)")
_NUMERAL_RUN = re.compile(r"[〇零一二两三四五六七八九十百千万亿]+")
_DIGITS = {"〇": 0, "零": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_SMALL_UNITS = {"十": 10, "百": 100, "千": 1000}
_BIG_UNITS = {"万": 10**4, "亿": 10**8}


def number_keys(text: str, *, every_numeral: bool = True) -> list[tuple[str, set[str]]]:
    """Each number of ``text`` as written, with the keys it compares by, in order of appearance.

    Arabic numbers keep their digits as written, thousands separators removed ("1,023" -> "1023"), and,
    followed by 万 or 亿, also their value ("5亿" -> "5", "500000000"). A run of Chinese numerals has its
    value. With ``every_numeral=False`` numerals that are part of other words (统一, 十分) and a lone 一 (一个,
    一些) are left out, as English number words are: that is how a claim is read. Its source is read with
    every numeral, so that a claim's "5月" finds the source's "五月".
    """
    found: list[tuple[int, str, set[str]]] = []
    for match in _ARABIC.finditer(text):
        shown = match.group()
        digits = re.sub(r"[\s,]", "", shown)
        keys = {digits}
        magnitude = _MAGNITUDE.match(text, match.end())
        if magnitude:
            scaled = _scaled(digits, magnitude.group(1))
            if scaled is not None:
                keys.add(scaled)
                shown += magnitude.group()
        found.append((match.start(), shown, keys))
    for match in _NUMERAL_RUN.finditer(text):
        run = match.group()
        # A magnitude right after Arabic digits ("5亿") belongs to them, above.
        if match.start() and text[match.start() - 1].isdigit() and all(c in _BIG_UNITS for c in run):
            continue
        if not every_numeral and not _reads_as_number(text, match.start(), match.end()):
            continue
        found.append((match.start(), run, numeral_keys(run)))
    return [(shown, keys) for _, shown, keys in sorted(found, key=lambda f: f[0])]


def numeral_value(run: str) -> int:
    """The value of a run of Chinese numerals: positional with units (三千五百 = 3500, 五亿 = 500000000),
    digit by digit without them (二〇二一 = 2021)."""
    if not any(c in _SMALL_UNITS or c in _BIG_UNITS for c in run):
        return int("".join(str(_DIGITS[c]) for c in run))
    total = section = digit = 0
    for c in run:
        if c in _DIGITS:
            digit = _DIGITS[c]
        elif c in _SMALL_UNITS:
            section += (digit or 1) * _SMALL_UNITS[c]  # 十八: a leading 十 is one ten
            digit = 0
        elif c == "万":
            total += (section + digit) * _BIG_UNITS[c]
            section = digit = 0
        else:  # 亿 scales everything before it: 三亿五千万 = 3 * 10^8 + 5000 * 10^4
            total = (total + section + digit) * _BIG_UNITS[c]
            section = digit = 0
    return total + section + digit


def numeral_keys(run: str) -> set[str]:
    """The value of a numeral run, and for two digits without a unit (五六个: five or six) each digit too."""
    keys = {str(numeral_value(run))}
    if len(run) == 2 and not any(c in _SMALL_UNITS or c in _BIG_UNITS for c in run):
        keys |= {str(_DIGITS[c]) for c in run}
    return keys


def _reads_as_number(text: str, start: int, end: int) -> bool:
    # 一 alone is the article as often as the number (一个, 一些); any other numeral counts only within
    # numeral words, not when it is part of another word (统一, 十分).
    return text[start:end] != "一" and in_numeral_words(text, start, end)


def _scaled(digits: str, magnitudes: str) -> str | None:
    try:
        value = Decimal(digits)
    except InvalidOperation:  # "1.2.3": a version, not an amount
        return None
    for c in magnitudes:
        value *= _BIG_UNITS[c]
    return format(value.normalize(), "f")
