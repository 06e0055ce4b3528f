"""The Vocabulary size page's HTML blocks (ui/vocab/blocks.py): the figure rows that
replaced st.metric, headings and captions. Every text is escaped; a change is told by an
arrow and a sign (and a word for screen readers), never by colour alone."""
import re

import pytest

from ui.vocab.blocks import BLOCKS_CSS, Stat, caption_html, heading_html, signed, stats_html

HOSTILE = '<img src=x onerror=alert(1)>"&\'[x](http://127.0.0.1:9/)'


def test_every_text_of_a_figure_is_escaped():
    block = stats_html([Stat(HOSTILE, HOSTILE, delta=HOSTILE, up=True, better=True, help=HOSTILE)], label=HOSTILE)
    assert "<img" not in block and "onerror=alert(1)>" not in block
    assert block.count("&lt;img src=x onerror=alert(1)&gt;") == 5  # label, value, delta, help, group name
    assert 'aria-label="&lt;img' in block  # the quote cannot close the attribute
    assert '&quot;&amp;&#x27;' in block


@pytest.mark.parametrize("up, better, arrow, word, tone", [
    (False, True, "▼ ", " (better)", " vc-good"),
    (True, False, "▲ ", " (worse)", " vc-bad"),
    (True, True, "▲ ", " (better)", " vc-good"),
    (None, None, "", "", ""),
])
def test_a_change_has_an_arrow_a_sign_and_a_word(up, better, arrow, word, tone):
    block = stats_html([Stat("Corpus", "1,075 tokens", delta="−2,190 vs no merges", up=up, better=better)],
                       label="At 629")
    assert (f'<div class="vc-delta{tone}"><span aria-hidden="true">{arrow}</span>−2,190 vs no merges'
            f'<span class="vc-sr">{word}</span></div>') in block


def test_a_figure_without_change_or_help_draws_neither():
    block = stats_html([Stat("Vocabulary size", "629")], label="x")
    assert "vc-delta" not in block and "vc-figure-help" not in block
    assert re.fullmatch(r'<div class="vc-figures" role="group" aria-label="x"><div class="vc-figure">'
                        r'<div class="vc-figure-label">Vocabulary size</div>'
                        r'<div class="vc-figure-value">629</div></div></div>', block)


def test_signed_numbers_always_show_their_sign():
    assert [signed(n) for n in (5, -5, 0, 1_234_567)] == ["+5", "−5", "0", "+1,234,567"]
    assert signed(0.004, ".2f") == "0.00" and signed(-0.35, ".2f") == "−0.35"


def test_headings_are_real_headings_and_escaped():
    assert heading_html(3, "At <real> sizes", "a") == '<h3 class="vc-h" id="a">At &lt;real&gt; sizes</h3>'
    with pytest.raises(ValueError, match="heading level 1"):
        heading_html(1, "title")


def test_captions_and_notes():
    assert caption_html("x").startswith('<p class="vc-caption">')
    assert caption_html("x", note=True) == '<p class="vc-note">x</p>'


def test_the_figures_wrap_on_a_phone():
    """Two figures a row at 390 px (9.5rem columns), values that break rather than overflow."""
    assert "repeat(auto-fit, minmax(9.5rem, 1fr))" in BLOCKS_CSS
    assert "overflow-wrap: anywhere" in BLOCKS_CSS
