"""The Tokenize page's pure helpers: analysis, limits, ids, hover text, URL, and HTML.

No Streamlit here: ui/tokenize/logic.py and ui/tokenize/html.py are plain functions.
The HTML checks parse the output with the standard library's HTMLParser, so "nothing
the user typed becomes markup" is checked structurally, not by searching for strings.
"""
from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bpe_core import TrainerSettings, WordTable, train
from bpe_core.pretrained import openai_tokenizer
from ui.tokenize.html import (
    TOKENIZE_CSS, chip_for_id, ids_html, pieces_html, replay_html, replay_rows, symbol_text, text_html,
)
from ui.tokenize.logic import (
    COUNT_LIMIT_BYTES, DRAW_LIMIT_BYTES, EXAMPLES, PREVIEW_CHARS, URL_TEXT_LIMIT, PANELS, analyse,
    default_replay_token, hex_bytes, human_bytes, parse_ids, pieces_of, read_url, size_tier,
    special_in_text, token_rank, token_title, top_tokens, url_for,
)
from ui.shared.chips import PALETTE

NAMES = ("gpt2", "cl100k_base", "o200k_base")


@pytest.fixture(scope="module")
def toy_run():
    return train(WordTable.from_word_counts("low 5\nlower 2\nnewest 6\nwidest 3"),
                 TrainerSettings(end_of_word="separate", merges=10))


# ---- limits and analysis ----------------------------------------------------------------
def test_size_tiers_at_their_boundaries():
    assert size_tier(0) == size_tier(DRAW_LIMIT_BYTES) == "draw"
    assert size_tier(DRAW_LIMIT_BYTES + 1) == size_tier(COUNT_LIMIT_BYTES) == "summary"
    assert size_tier(COUNT_LIMIT_BYTES + 1) == "too_big"
    assert human_bytes(DRAW_LIMIT_BYTES) == "150 kB" and human_bytes(COUNT_LIMIT_BYTES) == "2 MB"


@pytest.mark.parametrize("name", NAMES)
def test_analysis_of_drawn_text(name):
    tok = openai_tokenizer(name)
    text = EXAMPLES["Multilingual"]
    a = analyse(tok, text)
    assert a.tier == "draw" and a.complete
    assert list(a.ids) == tok.encode(text)
    assert a.n_chars == len(text) and a.n_bytes == len(text.encode())
    assert a.n_pieces == len(tok.pieces(text))
    assert a.chars_per_token == pytest.approx(len(text) / len(a.ids))


def _long_texts():
    line = "Hello there, it's 2024!\n"
    yield line * (DRAW_LIMIT_BYTES // len(line) + 1)                      # newlines everywhere
    yield "word " * (DRAW_LIMIT_BYTES // 5 + 1)                            # no newline at all
    yield ("a" * (PREVIEW_CHARS - 3) + "   \n\n  x ") * 40                # whitespace runs at the cut
    yield ("日本語のテキスト👍🏽 " * 20000)                                  # multibyte, no newline
    yield ("x<|endoftext|>" * 12000)                                        # special tokens all along


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("allow", [False, True])
def test_drawn_text_makes_its_first_spans_at_once_and_the_rest_when_asked(name, allow):
    """A paste of drawn text (up to 150 kB) makes the spans of its first ~8,000 characters,
    enough for the first chips; all of them (most of a paste's server time) only when a
    view asks for `spans`. What the page sees is what token_spans gives, offsets and all."""
    tok = openai_tokenizer(name)
    special = "all" if allow else ()
    for text in ("The cat sat.\n" * 6000, "日本語 <|endoftext|> 12345\n\n  x" * 2500):
        assert size_tier(len(text.encode())) == "draw"
        ref = tok.token_spans(text, allowed_special=special)
        a = analyse(tok, text, allow_special=allow)
        assert "spans" not in vars(a)  # not made yet
        assert a.complete and a.n_spans == a.n_tokens == len(ref)
        assert list(a.ids) == [s.id for s in ref]
        assert a.n_pieces == len({s.piece for s in ref})
        assert 1000 <= len(a.first_spans) < len(ref)
        assert list(a.first(1000)) == ref[:1000] and "spans" not in vars(a)
        assert list(a.first(len(ref) - 1)) == ref[:-1] and list(a.spans) == ref


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("allow", [False, True])
def test_long_text_is_counted_in_full_and_previewed_exactly(name, allow):
    tok = openai_tokenizer(name)
    for text in _long_texts():
        a = analyse(tok, text, allow_special=allow)
        assert a.tier == "summary" and not a.complete
        special = "all" if allow else ()
        assert list(a.ids) == tok.encode(text, allowed_special=special)
        # The preview is a prefix of the real token sequence, with correct offsets.
        assert 0 < len(a.spans) < len(a.ids)
        assert [s.id for s in a.spans] == list(a.ids[: len(a.spans)])
        assert b"".join(s.token_bytes for s in a.spans) == text.encode()[: sum(len(s.token_bytes) for s in a.spans)]
        # Pieces are counted the same way drawn text counts them.
        small = text[:3000]
        assert analyse(tok, small, allow_special=allow).n_pieces == len(
            {s.piece for s in tok.token_spans(small, allowed_special=special)})
        if not allow:
            assert a.n_pieces == len(tok.pieces(text))


def test_text_over_the_count_limit_is_refused():
    with pytest.raises(ValueError, match="2 MB.*python -m bpe_core encode --tokenizer gpt2"):
        analyse(openai_tokenizer("gpt2"), "a" * (COUNT_LIMIT_BYTES + 1))


def test_unpaired_surrogates_are_a_clear_error():
    with pytest.raises(ValueError, match="surrogate"):
        analyse(openai_tokenizer("gpt2"), "ok \ud83d")


def test_unknown_characters_of_a_character_vocabulary(toy_run):
    tok = toy_run.tokenizer(10)
    a = analyse(tok, "lowest xyz")
    assert a.n_unknown == 3 and None in a.ids
    long = "lowest xyz " * (DRAW_LIMIT_BYTES // 11 + 1)
    b = analyse(tok, long)
    assert b.tier == "summary" and b.n_unknown == 3 * (DRAW_LIMIT_BYTES // 11 + 1)


def test_special_in_text_and_top_tokens():
    tok = openai_tokenizer("o200k_base")
    assert special_in_text(tok, "no specials") == []
    assert special_in_text(tok, "<|endofprompt|> then <|endoftext|>") == ["<|endofprompt|>", "<|endoftext|>"]
    assert top_tokens([3, 1, 3, 2, 1, 3], 5) == [(3, 3), (1, 2), (2, 1)]


def test_default_replay_token_is_the_longest_non_special():
    tok = openai_tokenizer("cl100k_base")
    spans = tok.token_spans("<|endoftext|> a tokenization of<|endoftext|>", allowed_special="all")
    longest = max(len(s.token_bytes) for s in spans if not s.special)
    best = default_replay_token(spans)
    assert len(spans[best].token_bytes) == longest and not spans[best].special
    assert all(len(s.token_bytes) < longest for s in spans[:best] if not s.special)  # the first such
    assert default_replay_token([]) == 0


# ---- pieces ------------------------------------------------------------------------------
@pytest.mark.parametrize("name", NAMES)
def test_pieces_tile_the_text(name):
    tok = openai_tokenizer(name)
    text = EXAMPLES["Code"] + EXAMPLES["Emoji"]
    pieces = pieces_of(text, tok.token_spans(text))
    assert "".join(p.text for p in pieces) == text
    assert [p.text for p in pieces] == [p for p, _ in tok.pieces(text)]
    assert sum(p.n_tokens for p in pieces) == len(tok.encode(text))


def test_special_pieces_are_marked():
    tok = openai_tokenizer("gpt2")
    text = "a<|endoftext|>b"
    pieces = pieces_of(text, tok.token_spans(text, allowed_special="all"))
    assert [(p.text, p.special) for p in pieces] == [("a", False), ("<|endoftext|>", True), ("b", False)]


# ---- ids -----------------------------------------------------------------------------------
@pytest.mark.parametrize("raw, ids", [
    ("1,2,3", [1, 2, 3]), ("1 2 3", [1, 2, 3]), ("[1, 2, 3]", [1, 2, 3]), ("(1;2)", [1, 2]),
    ("  7\n8\t9  ", [7, 8, 9]), ("", []), ("[]", []), ("+5", [5]), ("1,,2", [1, 2]),
])
def test_parse_ids(raw, ids):
    assert parse_ids(raw) == ids


@pytest.mark.parametrize("raw, message", [
    ("1, a", "'a' is not a token id"), ("1.5", "'1.5' is not a token id"),
    ("-3", "never negative"), ("0x10", "'0x10'"),
])
def test_parse_ids_errors_name_the_bad_value(raw, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        parse_ids(raw)


# ---- hover text ----------------------------------------------------------------------------
def test_token_rank_and_title_for_a_rank_table():
    tok = openai_tokenizer("cl100k_base")
    assert token_rank(tok, 1917) == 1917
    assert token_rank(tok, tok.special_tokens["<|endoftext|>"]) is None
    assert token_title(tok, 1917, tok.token_bytes(1917)) == "id 1917\nbytes 20 77 6F 72 6C 64\nrank 1917"
    special = token_title(tok, 100257, b"<|endoftext|>")
    assert "special token" in special and "not made by merges" in special


def test_token_rank_and_title_for_a_trained_tokenizer(toy_run):
    tok = toy_run.tokenizer(10)
    for ev in toy_run.events:
        assert token_rank(tok, ev.token_id) == min(e.step for e in toy_run.events if e.token_id == ev.token_id)
    base = 0
    assert token_rank(tok, base) is None
    assert "base symbol" in token_title(tok, base, b"")
    ev = toy_run.events[2]
    assert f"learned at training step {ev.step}" in token_title(tok, ev.token_id, b"est")
    assert "not in the vocabulary" in token_title(tok, None, b"x")


def test_hex_bytes_shortens_long_tokens():
    assert hex_bytes(b"") == ""
    assert hex_bytes(bytes(range(30)), limit=3) == "00 01 02 … (30 bytes)"


# ---- URL -----------------------------------------------------------------------------------
@pytest.mark.parametrize("view", list(PANELS))
def test_url_round_trip(view):
    params = url_for(tokenizer="o200k_base", text="héllo <|endoftext|>", special=True, view=view, token=3,
                     compare=["gpt2", "yours"], ids="1, 2")
    found, warnings = read_url(params)
    assert not warnings
    assert found["tokenizer"] == "o200k_base" and found["text"] == "héllo <|endoftext|>" and found["special"] is True
    assert found.get("view", "ids") == view
    if view == "replay":
        assert found["token"] == 3
    if view == "compare":
        assert found["compare"] == ["gpt2", "yours"]
    if view == "decode":
        assert found["ids"] == "1, 2"


def test_url_ignores_bad_values():
    found, warnings = read_url({"tokenizer": "x", "view": "nope", "token": "-1", "compare": "a,b",
                                "text": "t" * (URL_TEXT_LIMIT + 50)})
    assert set(found) == {"text"} and len(found["text"]) == URL_TEXT_LIMIT
    assert len(warnings) == 1 and "'x'" in warnings[0]
    assert read_url({"token": "0"})[0] == {} and read_url({"special": "0"})[0] == {"special": False}


def test_url_leaves_out_long_text_and_defaults():
    assert url_for(tokenizer="gpt2", text="a" * (URL_TEXT_LIMIT + 1), special=False, view="ids") == {"tokenizer": "gpt2"}
    assert url_for(tokenizer="gpt2", text="", special=False, view="ids") == {"tokenizer": "gpt2"}


# ---- HTML ----------------------------------------------------------------------------------
class _Structure(HTMLParser):
    """Collects tags, attributes and text, to check what the browser would build, and
    each chip's colour as TOKENIZE_CSS gives it: by position inside a `.bpe-oK` run
    (`nth-of-type` rules)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.attrs: set[str] = set()
        self.text: list[str] = []
        self.backgrounds: list[str] = []  # each chip's colour, in order
        self._stack: list[list] = []  # [tag, class names, spans seen inside]
        self._in_style = False

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self._in_style = tag == "style"
        classes = []
        for k, v in attrs:
            self.attrs.add(k)
            if k == "class":
                classes = v.split()
        if tag == "span":
            parent = self._stack[-1] if self._stack else None
            run = [int(c[5:]) for c in (parent[1] if parent else []) if re.fullmatch(r"bpe-o\d", c)]
            if run:
                parent[2] += 1
                self.backgrounds.append(_RUN_COLOURS[run[0], (parent[2] - 1) % len(PALETTE) + 1])
        if tag not in ("wbr", "br"):
            self._stack.append([tag, classes, 0])

    def handle_endtag(self, tag):
        self._in_style = False
        if self._stack and self._stack[-1][0] == tag:
            self._stack.pop()

    def handle_data(self, data):
        if not self._in_style:
            self.text.append(data)


#: (run offset K, nth-of-type J) -> colour, as TOKENIZE_CSS has them.
_RUN_COLOURS = {
    (int(k), int(j)): colour
    for k, n, j, colour in re.findall(r"\.bpe-o(\d) > span:nth-of-type\((\d)n\+(\d)\) \{ background: (#[0-9A-F]{6}); \}",
                                      TOKENIZE_CSS)
}


def structure(html: str) -> _Structure:
    p = _Structure()
    p.feed(html)
    p.close()
    return p


_UNSAFE = st.lists(st.sampled_from(list("<>&\"'/= abcimgscript\n\t") + ["<img src=x onerror=alert(1)>",
                                                                     "<script>", "&amp;", "日", "👍🏽"]),
                   max_size=30).map("".join)


@settings(max_examples=150, deadline=None)
@given(text=_UNSAFE)
def test_text_html_never_turns_user_text_into_markup(text):
    tok = openai_tokenizer("cl100k_base")
    spans = tok.token_spans(text)
    s = structure(text_html(text, spans, tok, show_whitespace=False, css=False))
    assert set(s.tags) <= {"style", "div", "span", "i"}
    assert s.attrs <= {"class", "style", "title", "tabindex"}  # tabindex: tap a chip for its popover
    # All of it shown, as text; tokens that are part of a character show their bytes.
    # A token's newlines are drawn after its chip (no chip holds a line break), so the
    # text matches once newlines are set apart, and every newline is still drawn.
    parts = re.split(r"<([0-9A-F]{2})>", "".join(s.text))
    shown = b"".join(bytes.fromhex(p) if i % 2 else p.encode() for i, p in enumerate(parts))
    assert shown.replace(b"\n", b"") == text.encode().replace(b"\n", b"")
    assert shown.count(b"\n") == text.count("\n")


@pytest.mark.parametrize("name", NAMES)
def test_one_chip_per_token_and_neighbours_differ(name):
    tok = openai_tokenizer(name)
    text = EXAMPLES["Multilingual"]
    s = structure(text_html(text, tok.token_spans(text), tok))
    assert len(s.backgrounds) == len(tok.encode(text))
    assert all(a != b for a, b in zip(s.backgrounds, s.backgrounds[1:]))
    assert set(s.backgrounds) <= set(PALETTE)
    assert set(_RUN_COLOURS.values()) == set(PALETTE) and len(_RUN_COLOURS) == len(PALETTE) ** 2


def test_long_text_is_cut_into_blocks_at_newlines_and_colours_run_on():
    tok = openai_tokenizer("cl100k_base")
    text = "".join(f"line {k}: the quick brown fox, jumps over\n" for k in range(400))
    html = text_html(text, tok.token_spans(text), tok, css=False)
    s = structure(html)
    assert html.count('<div class="bpe-block') > 5
    assert len(s.backgrounds) == len(tok.encode(text))
    assert all(a != b for a, b in zip(s.backgrounds, s.backgrounds[1:]))
    # every block but the last ends right after a newline (the line break after a "↵" chip)
    assert html.count('↵</span>\n</div><div class="bpe-block') == html.count('<div class="bpe-block') - 1
    assert "".join(s.text).replace("·", " ").replace("↵", "") == text  # nothing lost or added


def test_partial_tokens_are_separate_chips_labelled_with_bytes():
    tok = openai_tokenizer("gpt2")
    text = "日"  # three bytes; GPT-2 has no single token for it
    ids = tok.encode(text)
    html = text_html(text, tok.token_spans(text), tok, css=False)
    assert html.count('<span class="bpe-tok partial"') == len(ids) >= 2
    assert "&lt;E6&gt;" in html


def test_highlight_outlines_one_chip():
    tok = openai_tokenizer("gpt2")
    html = text_html("a b c", tok.token_spans("a b c"), tok, highlight=1, css=False)
    assert html.count('class="bpe-tok hl"') == 1


def test_whitespace_dropped_by_the_pretokenizer_is_a_dim_gap(toy_run):
    tok = toy_run.tokenizer(10)
    text = "low  newest"
    html = text_html(text, tok.token_spans(text), tok, css=False)
    s = structure(html)
    assert 'class="bpe-gap"' in html and "·" in "".join(s.text)
    assert "&lt;/w&gt;" in html  # end-of-word markers are drawn on their tokens


def test_preview_leaves_out_the_rest():
    tok = openai_tokenizer("gpt2")
    spans = tok.token_spans("one two three")[:1]
    assert "three" not in text_html("one two three", spans, tok, complete=False)


def test_chip_for_id_kinds(toy_run):
    gpt2 = openai_tokenizer("gpt2")
    assert chip_for_id(gpt2, None).classes == ("unk",)
    assert chip_for_id(gpt2, 50256).text == "<|endoftext|>"
    trained = toy_run.tokenizer(10)
    marker_ids = [i for i, (body, eow) in trained.tokens.items() if eow]
    assert all(chip_for_id(trained, i).marker == "</w>" for i in marker_ids)
    assert symbol_text(trained, marker_ids[0]).endswith("</w>")


def test_pieces_and_ids_html():
    tok = openai_tokenizer("o200k_base")
    text = "Hi there, <b>friend</b>!"
    pieces = pieces_of(text, tok.token_spans(text))
    s = structure(pieces_html(pieces, css=False))
    assert len(s.backgrounds) == len(pieces) and "".join(s.text).replace("·", " ") == text
    ids = tok.encode(text)
    s = structure(ids_html(tok, ids, show_whitespace=False, css=False))
    assert len(s.backgrounds) == len(ids) and "".join(s.text) == text


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("piece", [" tokenization", "日本語", "123", "👩‍💻", " a", "\n\n"])
def test_replay_ladder(name, piece):
    tok = openai_tokenizer(name)
    replay = tok.replay(piece)
    assert [p for p, _ in tok.pieces(piece)] == [piece]  # a real piece, so encode agrees
    rows = replay_rows(replay)
    assert rows[0] == (None, tuple(replay.base), None)
    assert list(rows[-1][1]) == tok.encode(piece)
    for k in range(len(rows)):
        html = replay_html(tok, replay, k, css=False)
        assert html.count('class="bpe-row') == k + 1
        assert html.count('class="bpe-row now"') == 1
        assert html.count(" hl") == k  # one new token outlined per merge row
    if replay.steps:
        assert f"rank {replay.steps[0].rank:,}" in replay_html(tok, replay, 1, css=False)


def test_replay_ladder_of_a_trained_tokenizer_names_training_steps(toy_run):
    tok = toy_run.tokenizer(10)
    replay = tok.replay("lowest")
    html = replay_html(tok, replay, len(replay.steps), trained=True, css=False)
    for step in replay.steps:
        assert f"training step {step.rank}" in html


def test_a_token_link_with_a_superscript_digit_is_ignored():
    from ui.tokenize.logic import read_url

    values, _ = read_url({"token": "²"})
    assert "token" not in values
