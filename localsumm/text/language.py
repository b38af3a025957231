"""The language of a text, offline: by its script for Chinese, Japanese and Korean, else by ``py3langid``.

The script decides first because it is certain where it applies (kana means
Japanese, Hangul Korean, Han characters alone Chinese), and a statistical
detector is weakest on short text, where a summary often is. A text too short
or too ambiguous to tell is taken to be in the ``default`` language.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

# The languages a prompt can name. py3langid is restricted to these, so every answer has a name.
LANGUAGE_NAMES: dict[str, str] = {
    "en": "English",
    "zh": "Chinese",
    "ja": "Japanese",
    "ko": "Korean",
    "fr": "French",
    "de": "German",
    "es": "Spanish",
    "pt": "Portuguese",
    "it": "Italian",
    "nl": "Dutch",
    "sv": "Swedish",
    "da": "Danish",
    "no": "Norwegian",
    "fi": "Finnish",
    "pl": "Polish",
    "cs": "Czech",
    "ro": "Romanian",
    "hu": "Hungarian",
    "el": "Greek",
    "tr": "Turkish",
    "ru": "Russian",
    "uk": "Ukrainian",
    "ar": "Arabic",
    "he": "Hebrew",
    "fa": "Persian",
    "hi": "Hindi",
    "id": "Indonesian",
    "vi": "Vietnamese",
    "th": "Thai",
}

HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_KANA = re.compile(r"[\u3040-\u30ff\u31f0-\u31ff\uff66-\uff9f]")
_HANGUL = re.compile(r"[\uac00-\ud7af\u1100-\u11ff\u3130-\u318f]")
_LETTER = re.compile(r"[^\W\d_]")
# Below this many letters the statistical detector guesses (it called "Yes." Kabyle).
_MIN_LETTERS = 24
_MIN_CONFIDENCE = 0.9


# One evaluation asks about the same texts many times (each verdict's reason splits its window).
@lru_cache(maxsize=1024)
def detect_language(text: str, default: str = "en") -> str:
    """The ISO 639-1 code of ``text``'s language (a key of ``LANGUAGE_NAMES``), or ``default``."""
    letters = len(_LETTER.findall(text))
    if not letters:
        return default
    han, kana, hangul = (len(p.findall(text)) for p in (HAN, _KANA, _HANGUL))
    cjk = han + kana + hangul
    # A Chinese text quoting an English name is still Chinese: a CJK character carries a word's worth of
    # meaning, so a third of the letters is already most of the text.
    if cjk and cjk * 3 >= letters:
        if kana * 5 >= cjk:
            return "ja"
        return "ko" if hangul > han else "zh"
    if letters < _MIN_LETTERS:
        return default
    code, confidence = _identifier().classify(text)
    return code if confidence >= _MIN_CONFIDENCE and code in LANGUAGE_NAMES else default


def language_name(code: str) -> str:
    try:
        return LANGUAGE_NAMES[code]
    except KeyError:
        raise ValueError(f"unknown language {code!r}; known: {', '.join(sorted(LANGUAGE_NAMES))}") from None


@lru_cache(maxsize=1)
def _identifier() -> Any:
    # Loaded on first use: the model takes a fifth of a second to unpack and most texts never need it.
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    identifier = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    identifier.set_languages(sorted(set(LANGUAGE_NAMES) & set(identifier.nb_classes)))
    return identifier
