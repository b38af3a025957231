"""Cutting long sources into windows: pure rules over a token counter."""

import pytest

from localsumm.errors import ContextOverflowError
from localsumm.summarization.windows import Window, passages, share_questions, split_source


def words(text: str) -> int:
    return len(text.split())


def test_a_source_that_fits_is_one_window():
    source = "One short sentence. Another one."
    assert split_source(source, 100, words) == [Window(0, 0, len(source), 5, source)]


def test_windows_cover_the_source_fit_the_room_and_overlap():
    source = " ".join(f"Sentence {i} has exactly six words." for i in range(50))
    windows = split_source(source, 60, words)
    assert len(windows) > 5
    assert windows[0].start == 0 and windows[-1].end == len(source)
    for w in windows:
        assert w.text == source[w.start : w.end] and w.tokens == words(w.text) <= 60
        assert w.text.rstrip().endswith("words.")  # whole sentences
    for a, b in zip(windows, windows[1:]):
        assert a.start < b.start < a.end  # each window moves on, and repeats the end of the last one
    assert [w.index for w in windows] == list(range(len(windows)))


def test_a_sentence_longer_than_a_window_is_cut_between_words():
    source = "Short one. " + " ".join(f"w{i}" for i in range(100)) + ". Short two."
    windows = split_source(source, 30, words)
    assert all(w.tokens <= 30 for w in windows)
    assert windows[-1].end == len(source)
    assert "w99." in " ".join(w.text for w in windows)


def test_newlines_end_sentences_too():
    source = "\n".join(f"Item {i} of a list" for i in range(40))
    windows = split_source(source, 20, words)
    assert all(w.tokens <= 20 for w in windows) and len(windows) > 8


def test_no_room_is_an_error():
    with pytest.raises(ContextOverflowError):
        split_source("Anything at all.", 0, words)


@pytest.mark.parametrize(
    "sizes, n, expected",
    [
        ([100], 10, [10]),
        ([300, 100], 10, [8, 2]),  # 7.5 / 2.5: ties go to the earlier window
        ([100, 100, 100], 10, [4, 3, 3]),
        ([100] * 12, 10, [1] * 10 + [0, 0]),
        ([250, 250, 10], 5, [3, 2, 0]),
    ],
)
def test_questions_are_shared_in_proportion_to_window_length(sizes, n, expected):
    windows = [Window(i, 0, 0, size, "") for i, size in enumerate(sizes)]
    assert share_questions(windows, n) == expected
    assert sum(share_questions(windows, n)) == n


def test_passages_are_consecutive_whole_sentences_of_about_equal_size():
    source = " ".join(f"Sentence {i} has exactly six words." for i in range(12))
    parts = passages(source, 3, words)
    assert "".join(parts) == source
    assert [words(p) for p in parts] == [24, 24, 24]
    assert all(p.rstrip().endswith("words.") for p in parts)
    assert passages(source, 1, words) == [source]


def test_a_text_of_fewer_sentences_than_passages_gives_one_passage_per_sentence():
    parts = passages("One here. Two here.", 5, words)
    assert [p.strip() for p in parts] == ["One here.", "Two here."] and "".join(parts) == "One here. Two here."
    assert passages("", 3, words) == []
