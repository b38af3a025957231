"""The token constraint against outlines-core's own list of allowed tokens."""

from __future__ import annotations

import numpy as np
from outlines_core import Guide, Index, Vocabulary

from localsumm.backends.grammar import TokenConstraint

# Token 33 sits in the second 32-bit word of the mask, and 39 past the vocabulary's last id.
VOCABULARY = Vocabulary(39, {"a": [0], "b": [1], "ab": [33], '"': [3], "c": [4]})
REGEX = '"a+b"'


def finite(logits: np.ndarray) -> list[int]:
    return np.flatnonzero(np.isfinite(logits)).tolist()


def test_the_mask_allows_exactly_the_guides_tokens_at_every_step():
    index = Index(REGEX, VOCABULARY)
    constraint, reference = TokenConstraint(index, 40), Guide(index)
    for token in (3, 0, 0, 33, 3):
        logits = constraint.mask(np.zeros(40))
        assert finite(logits) == sorted(reference.get_tokens())
        assert token in finite(logits)
        constraint.advance(token)
        reference.advance(token_id=token, return_tokens=False)
    assert finite(constraint.mask(np.zeros(40))) == [39]  # the JSON is complete: only end of text


def test_a_new_constraint_starts_at_the_beginning():
    index = Index(REGEX, VOCABULARY)
    first = TokenConstraint(index, 40)
    first.advance(3)
    assert finite(TokenConstraint(index, 40).mask(np.zeros(40))) == [3]
