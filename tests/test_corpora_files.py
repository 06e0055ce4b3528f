"""Checks on the built-in corpora in corpora/ and their index, presets.json."""

import json
from pathlib import Path

import pytest

CORPORA = Path(__file__).resolve().parent.parent / "corpora"
LANGUAGES = ("en", "de", "es", "fr", "ru", "ar", "hi", "zh", "ja", "ko")

KINDS = {"words", "text", "pydoc"}
SETTING_CHOICES = {
    "units": {"char", "byte"},
    "end_of_word": {"none", "separate", "attached"},
    "pretokenizer": {"whitespace", "gpt2", "cl100k", "o200k", "simple", "none"},
    "tie_break": {"first-seen", "lexicographic", "smallest-id"},
}
SETTING_INTS = {"merges", "min_count"}


def load_presets():
    return json.loads((CORPORA / "presets.json").read_text(encoding="utf-8"))


def parse_word_counts(text):
    """Parse a word-count list; raise ValueError on a bad line."""
    table = {}
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        parts = line.split()
        if len(parts) != 2:
            raise ValueError(f"line {number}: expected 'word count', got {raw!r}")
        word, count = parts
        if not count.isdigit() or int(count) <= 0:
            raise ValueError(f"line {number}: count must be an integer > 0, got {count!r}")
        if word in table:
            raise ValueError(f"line {number}: duplicate word {word!r}")
        table[word] = int(count)
    return table


def test_presets_parse_and_have_required_keys():
    presets = load_presets()
    assert isinstance(presets, list) and presets
    assert presets[0]["id"] == "sennrich"
    ids = [p["id"] for p in presets]
    assert len(ids) == len(set(ids))
    for preset in presets:
        assert set(preset) == {"id", "title", "from", "file", "kind", "note", "settings"}, preset
        assert isinstance(preset["from"], str) and preset["from"]  # where it comes from, under the title
        assert preset["kind"] in KINDS
        assert isinstance(preset["title"], str) and preset["title"]
        assert isinstance(preset["note"], str) and preset["note"] and "\n" not in preset["note"]
        if preset["kind"] == "pydoc":
            assert preset["file"] is None
        else:
            assert isinstance(preset["file"], str)
        settings = preset["settings"]
        assert set(settings) <= set(SETTING_CHOICES) | SETTING_INTS | {"marker"}
        for key, choices in SETTING_CHOICES.items():
            if key in settings:
                assert settings[key] in choices, (preset["id"], key)
        for key in SETTING_INTS:
            if key in settings:
                assert isinstance(settings[key], int) and settings[key] >= 0
        if settings.get("end_of_word") in ("separate", "attached"):
            assert isinstance(settings.get("marker"), str) and settings["marker"]


def test_expected_presets_present():
    by_id = {p["id"]: p for p in load_presets()}
    for needed in ("sennrich", "sennrich_figure1", "classroom", "hf_course",
                   "wikipedia", "english", "multilingual", "python_reference"):
        assert needed in by_id
    assert by_id["sennrich"]["settings"]["marker"] == "</w>"
    assert by_id["classroom"]["settings"]["marker"] == "_"
    assert by_id["hf_course"]["settings"]["end_of_word"] == "none"
    assert by_id["wikipedia"]["settings"]["merges"] == 3


@pytest.mark.parametrize("preset", [p for p in load_presets() if p["file"]], ids=lambda p: p["id"])
def test_preset_file_exists_and_is_utf8(preset):
    path = CORPORA / preset["file"]
    assert path.is_file(), path
    text = path.read_bytes().decode("utf-8")  # raises on invalid UTF-8
    assert text.strip()
    if preset["kind"] == "words":
        assert parse_word_counts(text)


def test_every_corpus_file_is_utf8():
    files = [p for p in CORPORA.rglob("*") if p.is_file()]
    assert files
    for path in files:
        path.read_bytes().decode("utf-8")


def test_word_lists_match_their_sources():
    expected = {
        "sennrich_algorithm1.txt": {"low": 5, "lower": 2, "newest": 6, "widest": 3},
        "sennrich_figure1.txt": {"low": 1, "lowest": 1, "newer": 1, "wider": 1},
        "classroom_low_lowest.txt": {"low": 3, "lowest": 2, "newer": 2, "wider": 1},
        "hf_course.txt": {"hug": 10, "pug": 5, "pun": 12, "bun": 4, "hugs": 5},
    }
    for name, table in expected.items():
        text = (CORPORA / name).read_text(encoding="utf-8")
        assert text.splitlines()[0].startswith("#"), f"{name} needs a source header"
        parsed = parse_word_counts(text)
        assert parsed == table
        assert list(parsed) == list(table)  # order of first appearance matters


def test_parse_word_counts_rejects_bad_lines():
    for bad in ("low", "low 0", "low -1", "low five", "low 2 3", "low 1\nlow 2"):
        with pytest.raises(ValueError):
            parse_word_counts(bad)


def test_wikipedia_text_is_exact():
    assert (CORPORA / "wikipedia_aaabdaaabac.txt").read_bytes() == b"aaabdaaabac"


def test_languages_folder_complete():
    folder = CORPORA / "languages"
    for code in LANGUAGES:
        path = folder / f"{code}.txt"
        assert path.is_file(), path
        text = path.read_bytes().decode("utf-8")
        assert text.strip(), path
        assert len(text) < 1000, path
        assert not text.startswith("\ufeff"), f"{path} has a BOM"
        for line in text.splitlines():
            assert line == line.rstrip(), f"{path} has trailing whitespace"


def test_english_sample_size():
    size = len((CORPORA / "english_sample.txt").read_bytes())
    assert size >= 3000


def test_readme_mentions_every_file():
    readme = (CORPORA / "README.md").read_text(encoding="utf-8")
    for path in CORPORA.glob("*.txt"):
        assert path.name in readme, path.name
    assert "languages/" in readme
