"""Text utilities, the bottom layer: sentences, the language of a text, words, numerals, and safe printing.

No judge and no configuration here: pure functions of strings (the segmenter's
and the language detector's data ship inside their packages, so nothing here
reads the network).
"""

from .language import LANGUAGE_NAMES, detect_language, language_name
from .numerals import number_keys
from .rank import MAX_PIECE_CHARS, LexicalIndex, pieces
from .segment import sentence_spans, sentences
from .words import closest_sentence, content_words, printable, repeats, shorten, tokens, unique

__all__ = [
    "LANGUAGE_NAMES",
    "MAX_PIECE_CHARS",
    "LexicalIndex",
    "detect_language",
    "language_name",
    "number_keys",
    "pieces",
    "sentence_spans",
    "sentences",
    "closest_sentence",
    "content_words",
    "printable",
    "repeats",
    "shorten",
    "tokens",
    "unique",
]
