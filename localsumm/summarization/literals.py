"""Names and numbers a claim states that its source never mentions.

SPEC §2's matching rules say names, numbers and dates must match the source
exactly. The 1.5B default judge misses many such swaps (on SummEdits it lets
half of the entity modifications pass, median P(yes) 0.67), yet the check
needs no judge at all: a number, or a capitalised name, that occurs nowhere in
the source cannot be supported by it. So this check can only take support
away, never grant it; a name or number that *is* in the source but attached to
the wrong fact is still the judge's to catch.

Deliberately literal, with the leniency that faithful summaries need:

- case is ignored, and "1,023", "1023" and tokenised "1 , 023" are one number;
  a digit may stand for its word up to twenty ("3" for "three", "1st" for "first");
- a name matches a source word with the same first five letters, so derived
  forms pass ("German" for "Germany", "Kanwishers'" for "Kanwisher") while
  "Mario" for "Maria" or "French" for "Italian" do not;
- single letters (initials, "U.S."), words in capitals ("TV", "CLICK HERE")
  and titles ("Ms") are not taken for names: in the dev sets capitals were
  abbreviations and emphasis far more often than swapped names. Nor is a
  word that opens a sentence or a quotation: its capital says nothing, so a
  name there goes unchecked.
"""

from __future__ import annotations

import re

from ..text import sentences

# A number grouped in thousands ("1,023", tokenised "2 , 000"), else digits with decimals. A group
# of more than three digits never starts one, so "in 2016, 500 people" stays two numbers.
_NUMBER = re.compile(r"\d{1,3}(?:\s?,\s?\d{3})+(?!\d)|\d+(?:\.\d+)*")
_PREFIX = 5
# Titles are capitalised but name nobody; a summary adds them freely ("Ms Kanwisher").
_TITLES = frozenset("mr mrs ms miss mx dr prof sir dame st".split())
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


def _numbers(text: str) -> list[tuple[str, str]]:
    """Each number as written, and as compared: without its thousands separators."""
    return [(m.group(), re.sub(r"[\s,]", "", m.group())) for m in _NUMBER.finditer(text)]


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
            if (
                len(word) > 1 and word[0].isupper() and not word.isupper() and word.lower() not in _TITLES
                and not _OPENING.search(sentence[: match.start()])
            ):
                names.append(word)
    return names


def unmatched_literals(claim: str, source: str) -> list[str]:
    """The numbers and capitalised names of ``claim`` found nowhere in ``source``, each once, in the order
    they first appear in the claim."""
    source_numbers = {key for _, key in _numbers(source)}
    source_words = {w.lower() for w in _LETTERS.findall(source)}
    # A short name must match a whole word; a longer one, a word with its first five letters.
    source_keys = {w[:_PREFIX] for w in source_words}
    unmatched = [shown for shown, key in _numbers(claim) if key not in source_numbers and not _words_for(key) & source_words]
    for name in _capitalised_names(claim):
        key = name.lower()
        if key not in source_words and (len(key) < _PREFIX or key[:_PREFIX] not in source_keys):
            unmatched.append(name)
    return sorted(dict.fromkeys(unmatched), key=claim.find)
