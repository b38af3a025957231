"""Names and numbers a claim states that its source never mentions.

SPEC §2's matching rules say names, numbers and dates must match the source
exactly. The 1.5B default judge misses most such swaps (on SummEdits it lets
half of the entity modifications pass, median P(yes) 0.67), yet the check
needs no judge at all: a number, or a capitalised name, that occurs nowhere in
the source cannot be supported by it. So this check can only take support
away, never grant it; a name or number that *is* in the source but attached to
the wrong fact is still the judge's to catch.

Deliberately literal: case is ignored and "1,023" equals "1023"; a digit may
stand for its word ("3" for "three", "1st" for "first") up to twenty. Anything
looser ("France" for "French", "US" for "United States") is refused, as the
matching rules ask.
"""

from __future__ import annotations

import re

from .text import sentences

_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_LETTERS = re.compile(r"[^\W\d_]+")
# A capitalised word at the start of a sentence, of a quotation or after a colon says nothing about
# being a name: what precedes it there is punctuation alone, a colon, or an opening quote.
_OPENING = re.compile(r"""(?:^[\W_]*|[:;]\s+|["“‘(\[]\s*|(?:^|\s)'\s*)$""")
_CARDINALS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
    "sixteen seventeen eighteen nineteen twenty"
).split()
_ORDINALS = (
    "zeroth first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth thirteenth "
    "fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth twentieth"
).split()
_ALWAYS_CAPITALISED = frozenset({"i"})


def _number_key(number: str) -> str:
    """Thousands separators dropped, so "1,023" and "1023" are the same number."""
    return re.sub(r",(?=\d{3}(?:\D|$))", "", number)


def _words_for(number: str) -> set[str]:
    if number.isdigit() and int(number) < len(_CARDINALS):
        return {_CARDINALS[int(number)], _ORDINALS[int(number)]}
    return set()


def _capitalised_names(claim: str) -> list[str]:
    """Capitalised words that are not the first word of a sentence or of a quotation."""
    names = []
    for sentence in sentences(claim):
        for match in _LETTERS.finditer(sentence):
            word = match.group()
            if word[0].isupper() and not _OPENING.search(sentence[: match.start()]) and word.lower() not in _ALWAYS_CAPITALISED:
                names.append(word)
    return names


def unmatched_literals(claim: str, source: str) -> list[str]:
    """The numbers and capitalised names of ``claim`` found nowhere in ``source``, each once, in the order
    they first appear in the claim."""
    source_numbers = {_number_key(n) for n in _NUMBER.findall(source)}
    source_words = {w.lower() for w in _LETTERS.findall(source)}
    unmatched: list[str] = []
    for number in _NUMBER.findall(claim):
        key = _number_key(number)
        if key not in source_numbers and not _words_for(key) & source_words:
            unmatched.append(number)
    unmatched += [name for name in _capitalised_names(claim) if name.lower() not in source_words]
    return sorted(dict.fromkeys(unmatched), key=claim.find)
