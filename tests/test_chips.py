"""The one chip renderer (ui/shared/chips.py) and the one marks table (bpe_core.display):
one chip per token for every real tokenizer, newline tokens, invisible characters named,
right-to-left isolation, and hostile labels escaped. No browser here; the browser tests
(tests/browser/test_chips_browser.py) check how the chips are laid out."""
from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest

from bpe_core import TokenSpan
from bpe_core.display import INVISIBLE_NAMES, WHITESPACE_MARKS, visible_text
from bpe_core.pretrained import PRETRAINED, load_pretrained
from ui.shared.chips import CHIP_CSS, PALETTE, TokenChip, chip_html, chips_html, span_chip, spans_html

TEXT = "Hello world!\n\n\nمرحبا بالعالم 👩\u200d💻 <b>x</b>\tend\n"


class Chips(HTMLParser):
    """Each chip of a drawing (a span directly inside a run or a block): its classes,
    title and text, and the text between chips (line breaks)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.chips: list[dict] = []
        self.between: list[str] = []
        self.tags: set[str] = set()
        self._stack: list[tuple[str, bool]] = []  # (tag, is it a chip)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.add(tag)
        parent = self._stack[-1] if self._stack else None
        classes = (a.get("class") or "").split()
        in_run = parent is not None and parent[0] in ("div", "span") and parent[1] == "run"
        if tag == "span" and in_run:
            self.chips.append({"classes": classes, "title": a.get("title", ""), "text": ""})
            self._stack.append((tag, "chip"))
        elif "bpe-tokens" in classes or "bpe-block" in classes:
            self._stack.append((tag, "run"))
        else:
            self._stack.append((tag, "other"))

    def handle_endtag(self, tag):
        if self._stack:
            self._stack.pop()

    def handle_data(self, data):
        if any(kind == "chip" for _, kind in self._stack):
            self.chips[-1]["text"] += data
        elif self._stack and self._stack[-1][1] == "run":
            self.between.append(data)


def parse(html: str) -> Chips:
    p = Chips()
    p.feed(html)
    p.close()
    return p


@pytest.mark.parametrize("name", list(PRETRAINED))
def test_one_chip_per_token_for_every_real_tokenizer(name):
    tok = load_pretrained(name)
    spans = tok.token_spans(TEXT)
    drawn = parse(spans_html(TEXT, spans, css=False, scroll=False))
    assert len(drawn.chips) == len(spans) == len(tok.encode(TEXT))
    assert [c["title"].split("\n")[0] for c in drawn.chips] == [f"id {s.id}" for s in spans]


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_a_newline_token_is_one_chip_followed_by_its_line_breaks(name):
    tok = load_pretrained(name)
    spans = tok.token_spans("title\n\n\nbody")
    html = spans_html("title\n\n\nbody", spans, css=False, scroll=False)
    drawn = parse(html)
    assert [c["text"] for c in drawn.chips] == ["title", "↵↵↵", "body"]
    assert "".join(drawn.between) == "\n\n\n"  # the breaks follow the chip, outside it
    assert not any("\n" in c["text"] for c in drawn.chips)


def test_no_chip_holds_a_real_line_break_anywhere():
    """Words and tables (no line_breaks): newlines are marks only; running text: after."""
    chips = [TokenChip("a\n"), TokenChip("\n\n"), TokenChip("b", marker="</w>")]
    inline = chips_html(chips)
    assert "\n" not in inline and inline.count("↵") == 3
    running = parse(chips_html(chips, line_breaks=True))
    assert [c["text"] for c in running.chips] == ["a↵", "↵↵", "b</w>"]
    assert "".join(running.between) == "\n\n\n"
    hidden = parse(chips_html(chips, show_whitespace=False, line_breaks=True))
    assert [c["text"] for c in hidden.chips] == ["a", "", "b</w>"]


@pytest.mark.parametrize("ch, name", [("\u200d", "ZWJ"), ("\u200b", "ZWSP"), ("\ufe0f", "VS16"),
                                      ("\u202e", "RLO"), ("\x00", "NUL"), ("\u00ad", "SHY")])
def test_invisible_characters_are_named_chips(ch, name):
    assert INVISIBLE_NAMES[ord(ch)] == name
    assert visible_text(f"a{ch}b") == f"a⟨{name}⟩b"
    assert chip_html(TokenChip(ch)) == f"<span>⟨{name}⟩</span>"


def test_one_table_of_whitespace_marks_includes_the_ideographic_space():
    assert WHITESPACE_MARKS["\u3000"] == "□" and visible_text(" \n\t\r\u00a0\u3000") == "·↵→␍⍽□"


def test_the_joiner_in_an_emoji_is_named_on_every_tokenizer():
    for name in PRETRAINED:
        tok = load_pretrained(name)
        text = "👩\u200d💻"
        drawn = parse(spans_html(text, tok.token_spans(text), css=False, scroll=False))
        shown = "".join(c["text"] for c in drawn.chips)
        if "\u200d" not in tok.decode(tok.encode(text)):  # its normalizer drops the joiner (Mon Unigram)
            assert "⟨ZWJ⟩" not in shown and "\u200d" not in shown, (name, shown)
            continue
        assert "⟨ZWJ⟩" in shown or "<E2><80><8D>" in shown or "<0xE2>" in shown, (name, shown)


def test_right_to_left_chips_are_isolated_and_the_run_is_left_to_right():
    """Each chip takes its direction from its own first strong character and is isolated
    from its neighbours; the run itself is left to right, so chips stay in token order."""
    rules = dict(re.findall(r"\n(\.bpe-tokens[^{]*)\{([^}]*)\}", CHIP_CSS))
    run = next(v for k, v in rules.items() if k.strip() == ".bpe-tokens")
    chip = next(v for k, v in rules.items() if k.startswith(".bpe-tokens > span,"))
    assert "direction: ltr" in run and "unicode-bidi: isolate" in run
    assert "unicode-bidi: plaintext" in chip  # an isolate whose direction comes from its text
    assert "display: inline-block" in chip  # one box: a line never breaks inside a chip
    tok = load_pretrained("gpt2")
    text = "مرحبا بالعالم"
    drawn = parse(spans_html(text, tok.token_spans(text), css=False, scroll=False))
    labels = [c["text"] for c in drawn.chips]
    assert any(re.fullmatch(r"(<[0-9A-F]{2}>)+", t) for t in labels)  # byte labels, as text
    assert "".join(labels).replace("·", " ") != text  # some tokens are partial letters...
    assert [s.label for s in tok.token_spans(text)] == [
        t.replace("·", " ") for t in labels]  # ...and the chips are in token order


@pytest.mark.parametrize("label", ['<img src=x onerror=alert(1)>', "<script>alert(1)</script>",
                                   '" onmouseover="x', "</span><span>", "&amp;", "<E4>"])
def test_hostile_labels_are_escaped(label):
    span = TokenSpan(7, label.encode(), label, 0, len(label), 0)
    html = spans_html(label, [span], css=False, scroll=False)
    drawn = parse(html)
    assert drawn.tags <= {"div", "span"}
    assert len(drawn.chips) == 1 and drawn.chips[0]["text"] == label.replace(" ", "·")
    titled = parse(chips_html([TokenChip("x", title=label)]))
    assert titled.tags == {"span"} and titled.chips == [{"classes": [], "title": label, "text": "x"}]


def test_neighbours_differ_and_runs_continue_their_colours():
    css_colours = {(int(k), int(j)): c for k, j, c in
                   re.findall(r"\.bpe-o(\d) > span:nth-of-type\(\dn\+(\d)\) \{ background: (#[0-9A-F]{6}); \}", CHIP_CSS)}
    assert len(css_colours) == len(PALETTE) ** 2 and set(css_colours.values()) == set(PALETTE)
    for k in range(len(PALETTE)):
        row = [css_colours[k, j] for j in range(1, len(PALETTE) + 1)]
        assert all(a != b for a, b in zip(row, row[1:] + row[:1]))  # wraps around too
    # a run that starts at colour 3 continues a run of three chips
    assert chips_html([TokenChip("x")], start=3).startswith('<span class="bpe-tokens bpe-o3">')


def test_span_chip_kinds():
    special = TokenSpan(1, b"<|endoftext|>", "<|endoftext|>", 0, 13, 0, True)
    assert span_chip(special).classes == ("special",)
    assert span_chip(TokenSpan(None, b"z", "z", 0, 1, 0), highlight=True).classes == ("hl", "unk")
    assert span_chip(TokenSpan(3, b"\xe4", "<E4>", 0, 1, 0)).classes == ("partial",)
    assert span_chip(TokenSpan(3, b"ab", "ab", 0, 2, 0), marker="</w>").marker == "</w>"
