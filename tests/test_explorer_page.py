"""The Vocabulary explorer page under AppTest: the URL examples, every control, every
tokenizer kind (built-in BPE with a rank table and SentencePiece, a trained run at byte
and character level, uploaded files: WordPiece, Unigram, a rank file with no merge list),
hostile text escaped, and the links to the Tokenize and Train pages. Every run checks
`at.exception` is empty."""
from __future__ import annotations

import base64

import pytest
from streamlit.testing.v1 import AppTest
from tokenizers import Tokenizer as HFTokenizer
from tokenizers import models, pre_tokenizers

from bpe_core import TrainerSettings, WordTable, train
from bpe_core.algorithms.wordpiece import WordPieceTokenizer
from bpe_core.formats import load_tokenizer_bytes
from ui.explorer import widgets as xw
from ui.explorer.logic import read_url, url_for
from ui.shared.tables import read_table

APP = "../app.py"
PAGE = "views/explorer.py"
HOSTILE = '<img src=x onerror=alert(1)>[link](http://evil.example) :red[x]'


def _ok(at: AppTest) -> AppTest:
    assert not at.exception, at.exception
    return at


def visit(params: dict | None = None, state: dict | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=180)
    for key, value in (state or {}).items():
        at.session_state[key] = value
    _ok(at.run())
    for key, value in (params or {}).items():
        at.query_params[key] = value
    return _ok(at.switch_page(PAGE).run())


def html_text(at: AppTest) -> str:
    return "".join(h.value for h in at.html)


def captions(at: AppTest) -> str:
    return " ".join(c.value for c in at.caption)


def table(at: AppTest, label: str) -> list[dict[str, str]]:
    """The rows of the token table named `label` (its aria-label), as a reader sees them."""
    found = [h.value for h in at.html if f'aria-label="{label}"' in h.value]
    assert len(found) == 1, [h.value[:200] for h in at.html]
    return read_table(found[0])


def column(rows: list[dict[str, str]], name: str) -> list:
    return [int(r[name]) if r[name].isdigit() else r[name] for r in rows]


@pytest.fixture(scope="module")
def gpt2_page() -> AppTest:
    return visit({"tokenizer": "gpt2", "q": "SolidGoldMagikarp"})


def test_url_search_shows_solidgoldmagikarp(gpt2_page):
    at = gpt2_page
    assert at.session_state["explorer.id"] == 43453
    assert at.number_input(key="explorer_w_id").value == 43453
    assert "·SolidGoldMagikarp" in html_text(at) and "43,453" in html_text(at)
    assert "1 of 50,257 tokens match" in captions(at)
    assert at.query_params["id"] == "43453" and at.query_params["q"] == "SolidGoldMagikarp"
    assert column(table(at, "Search results"), "id") == [43453]
    assert not at.dataframe  # a plain HTML table: the data grid's scripts are not fetched on a first load


def test_url_id_shows_endoftext():
    at = visit({"tokenizer": "gpt2", "id": "50256"})
    page = html_text(at)
    assert "&lt;|endoftext|&gt;" in page and "<|endoftext|>" not in page
    assert "Special token</dt><dd>yes" in page


def test_bad_url_values_warn_and_fall_back():
    at = visit({"tokenizer": "klingon", "id": "12x"})
    warnings = " ".join(w.value for w in at.warning)
    assert "klingon" in warnings and "not a whole number" in warnings
    assert at.session_state["explorer.tokenizer"] == "gpt2"


def test_an_id_beyond_the_vocabulary_is_an_error_not_a_crash():
    at = visit({"tokenizer": "gpt2", "id": "99999"})
    assert "is not in the gpt2 vocabulary" in at.error[0].value
    assert at.session_state["explorer.id"] is None


def test_read_and_write_url():
    assert read_url({"tokenizer": "gpt2", "id": "7"}) == ({"tokenizer": "gpt2", "id": 7}, [])
    assert url_for(tokenizer="gpt2", token_id=None, q="x" * 500)["q"] == "x" * 200


def test_id_box_search_mode_sort_page_and_filters(gpt2_page):
    at = gpt2_page
    _ok(at.number_input(key="explorer_w_id").set_value(50256).run())
    assert "&lt;|endoftext|&gt;" in html_text(at)
    _ok(at.text_input(key="explorer_w_q").set_value("ing").run())
    _ok(at.selectbox(key="explorer_w_mode").set_value("suffix").run())
    first = table(at, "Search results")
    assert len(first) == 25 and all(t.endswith("ing") for t in column(first, "token"))
    _ok(at.selectbox(key="explorer_w_sort").set_value("length").run())
    _ok(at.toggle(key="explorer_w_desc").set_value(True).run())
    longest = column(table(at, "Search results"), "characters")
    assert longest == sorted(longest, reverse=True) and longest[0] > longest[-1]
    _ok(at.number_input(key="explorer_w_page").set_value(2).run())
    assert "page 2 of" in captions(at)
    # the filters, drawn once their box is opened
    at.session_state["explorer_w_filters_open"] = True
    _ok(at.run())
    _ok(at.selectbox(key="explorer_w_script").set_value("Latin").run())
    assert "page 1 of" in captions(at)  # a filter goes back to the first page
    _ok(at.slider(key="explorer_w_chars").set_value((5, 6)).run())
    _ok(at.slider(key="explorer_w_bytes").set_value((6, 6)).run())
    _ok(at.selectbox(key="explorer_w_space").set_value("yes").run())
    rows = table(at, "Search results")
    assert rows and all(t.startswith("·") and b == 6 for t, b in zip(column(rows, "token"), column(rows, "byte count")))
    for key, value in (("digits", "none"), ("fragment", "none"), ("special", "none")):
        _ok(at.selectbox(key=f"explorer_w_{key}").set_value(value).run())
    _ok(at.checkbox(key="explorer_w_whitespace").set_value(True).run())
    assert "0 of 50,257 tokens match" in captions(at)
    _ok(at.checkbox(key="explorer_w_whitespace").set_value(False).run())
    _ok(at.selectbox(key="explorer_w_mode").set_value("pattern").run())
    _ok(at.text_input(key="explorer_w_q").set_value("(").run())
    assert "not a valid regular expression" in at.error[0].value


def test_overview_odd_and_compare_views(gpt2_page):
    at = gpt2_page
    _ok(at.segmented_control(key="explorer_w_view").set_value("overview").run())
    assert len(at.get("vega_lite_chart")) == 2
    assert "Most tokens are" in captions(at)
    _ok(at.radio(key="explorer_w_unit").set_value("bytes").run())
    _ok(at.segmented_control(key="explorer_w_view").set_value("odd").run())
    assert "SolidGoldMagikarp" in " ".join(m.value for m in at.markdown)
    _ok(at.button(key="explorer_w_odd_never").click().run())
    assert "Never produced on the built-in texts" in " ".join(m.value for m in at.markdown)
    _ok(at.segmented_control(key="explorer_w_view").set_value("compare").run())
    _ok(at.selectbox(key="explorer_w_other").set_value("cl100k_base").run())
    assert "share" in captions(at) and len(at.get("vega_lite_chart")) == 1
    _ok(at.radio(key="explorer_w_cmp_by").set_value("bytes").run())


def test_tree_box_and_tokenize_link(gpt2_page):
    at = gpt2_page
    _ok(at.segmented_control(key="explorer_w_view").set_value("search").run())
    _ok(at.number_input(key="explorer_w_id").set_value(43453).run())
    at.session_state["explorer_w_tree_open"] = True
    _ok(at.run())
    assert 'aria-label="Merge tree"' in html_text(at) and "·Solid" in html_text(at)
    links = [p for p in at.get("page_link")]
    assert any("Tokenize this token" in p.proto.label and "tokenize" in p.proto.page for p in links)


def test_tokenizer_menu_every_builtin_kind():
    at = visit()
    for name in ("mistral-7b-v1", "cl100k_base"):
        _ok(at.selectbox(key="explorer_w_tokenizer").set_value(name).run())
        _ok(at.number_input(key="explorer_w_id").set_value(300).run())
        assert "Bytes</dt>" in html_text(at)
    assert "Score</dt>" not in html_text(at)
    _ok(at.selectbox(key="explorer_w_tokenizer").set_value("mistral-7b-v1").run())
    assert at.session_state["explorer.id"] is None  # a new vocabulary: no token chosen yet
    _ok(at.number_input(key="explorer_w_id").set_value(300).run())
    assert "Score</dt>" in html_text(at)


def test_bert_is_in_the_menu_and_shows_its_pieces():
    """The built-in BERT vocabularies (WordPiece) open from the menu and from a link."""
    at = visit({"tokenizer": "bert-base-uncased", "id": "2015"})
    assert at.selectbox(key="explorer_w_tokenizer").value == "bert-base-uncased"
    assert "##s" in html_text(at)
    from bpe_core.pretrained import PRETRAINED

    options = at.selectbox(key="explorer_w_tokenizer").options
    assert all(PRETRAINED[n].title in options
               for n in ("bert-base-uncased", "bert-base-cased", "bert-base-multilingual-cased")), options
    _ok(at.selectbox(key="explorer_w_tokenizer").set_value("bert-base-cased").run())
    _ok(at.number_input(key="explorer_w_id").set_value(8667).run())
    assert "Hello" in html_text(at)


def _published(units: str, end_of_word: str) -> dict:
    run = train(WordTable.from_word_counts("low 5\nlower 2\nnewest 6\nwidest 3"),
                TrainerSettings(units=units, end_of_word=end_of_word, merges=6))
    return {"shared.run": run, "shared.step": 6, "shared.label": "toy"}


@pytest.mark.parametrize("units,eow", [("char", "attached"), ("byte", "none")])
def test_your_trained_tokenizer_links_to_its_training_step(units, eow):
    at = visit({"tokenizer": "yours"}, state=_published(units, eow))
    run = at.session_state["shared.run"]
    third = run.events[2]
    _ok(at.number_input(key="explorer_w_id").set_value(third.token_id).run())
    assert f"Rank</dt><dd>{third.step}" in html_text(at)
    _ok(at.segmented_control(key="explorer_w_view").set_value("odd").run())
    _ok(at.button(key="explorer_w_odd_unreachable").click().run())
    assert "Unreachable: 0 tokens" in " ".join(m.value for m in at.markdown)
    _ok(at.button(key="explorer_w_to_train").click().run())
    assert at.session_state["shared.step"] == 3  # the Train page opened at the step that made the token
    assert any(t.value == "Train a BPE tokenizer" for t in at.title)


def test_no_trained_or_uploaded_tokenizer_yet():
    at = visit({"tokenizer": "yours"})
    assert "No tokenizer trained yet" in " ".join(i.value for i in at.info)
    _ok(at.selectbox(key="explorer_w_tokenizer").set_value("upload").run())
    assert "No tokenizer file uploaded yet" in " ".join(i.value for i in at.info)


def _uploaded(tok) -> dict:
    return {"tokenize.upload": {"key": "k", "tok": tok, "name": HOSTILE, "seconds": 0.0}}


def _hf_wordpiece():
    hf = HFTokenizer(models.WordPiece({"[UNK]": 0, "un": 1, "##aff": 2, "##able": 3, HOSTILE: 4}, unk_token="[UNK]"))
    hf.pre_tokenizer = pre_tokenizers.Whitespace()
    return load_tokenizer_bytes("tokenizer.json", hf.to_str().encode())


def _hf_unigram():
    hf = HFTokenizer(models.Unigram([("<unk>", 0.0), ("▁a", -1.0), ("▁", -2.0), ("a", -2.0)], 0))
    hf.pre_tokenizer = pre_tokenizers.Metaspace()
    return load_tokenizer_bytes("tokenizer.json", hf.to_str().encode())


def _hf_byte_bpe():
    alphabet = pre_tokenizers.ByteLevel.alphabet()
    vocab = {ch: i for i, ch in enumerate(sorted(alphabet))}
    for token in ("Ġl", "Ġlo", "Ġlow"):
        vocab[token] = len(vocab)
    hf = HFTokenizer(models.BPE(vocab, [("Ġ", "l"), ("Ġl", "o"), ("Ġlo", "w")]))
    hf.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    return load_tokenizer_bytes("tokenizer.json", hf.to_str().encode())


def _rank_file():
    ranks = [bytes([b]) for b in range(256)] + [b"ab", b"a b"]
    data = "".join(f"{base64.b64encode(t).decode()} {i}\n" for i, t in enumerate(ranks)).encode()
    return load_tokenizer_bytes("toy.tiktoken", data, pattern=r"\S+|\s+")


@pytest.mark.parametrize("make,token_id,expect", [
    (_hf_wordpiece, 2, "Continues a word (##)</dt><dd>yes"),
    (_hf_unigram, 1, "·a"),
    (_rank_file, 257, "Rank</dt><dd>257"),
    (_hf_byte_bpe, 258, "·low"),
    (lambda: WordPieceTokenizer(["[UNK]", "h", "##s", HOSTILE]), 2, "Continues a word (##)</dt><dd>yes"),
])
def test_uploaded_tokenizers_of_every_kind(make, token_id, expect):
    at = visit({"tokenizer": "upload", "id": str(token_id)}, state=_uploaded(make()))
    assert expect in html_text(at)
    _ok(at.segmented_control(key="explorer_w_view").set_value("odd").run())
    _ok(at.button(key="explorer_w_odd_unreachable").click().run())
    _ok(at.segmented_control(key="explorer_w_view").set_value("overview").run())
    _ok(at.segmented_control(key="explorer_w_view").set_value("compare").run())


def test_hostile_token_text_and_search_are_escaped():
    at = visit({"tokenizer": "upload", "id": "4", "q": HOSTILE}, state=_uploaded(_hf_wordpiece()))
    page = html_text(at)
    assert "<img" not in page and "&lt;img" in page
    for element in list(at.caption) + list(at.markdown) + list(at.warning):
        assert "](http" not in element.value and ":red[" not in element.value


def test_rank_file_unreachable_found_on_the_page():
    at = visit({"tokenizer": "upload"}, state=_uploaded(_rank_file()))
    _ok(at.segmented_control(key="explorer_w_view").set_value("odd").run())
    _ok(at.button(key="explorer_w_odd_unreachable").click().run())
    assert "Unreachable: 1 tokens" in " ".join(m.value for m in at.markdown)
    assert column(table(at, "Unreachable"), "id") == [257]
    _ok(at.selectbox(key="explorer_w_pick_odd_table_unreachable").set_value(257).run())
    assert at.session_state["explorer.id"] == 257 and "Rank</dt><dd>257" in html_text(at)


def test_picking_a_token_under_a_table_shows_it():
    """The menu under a table lists its tokens by id and text; picking one shows its card,
    and the menu then names the token shown (empty when the card's token is not in the table)."""
    at = visit({"tokenizer": "gpt2", "q": "Magikarp"})
    pick = at.selectbox(key="explorer_w_pick_results")
    ids = column(table(at, "Search results"), "id")
    assert list(pick.options) == [f"{i}: {t}" for i, t in zip(ids, column(table(at, "Search results"), "token"))]
    shown = at.session_state["explorer.id"]
    assert len(ids) > 1 and shown in ids and pick.value == shown  # the link's search picked its exact match
    other = next(i for i in ids if i != shown)
    _ok(pick.set_value(other).run())
    assert at.session_state["explorer.id"] == other and f"{other:,}" in html_text(at)
    assert at.query_params["id"] == str(other)
    _ok(at.number_input(key="explorer_w_id").set_value(50256).run())
    assert at.selectbox(key="explorer_w_pick_results").value is None
    # the overview's longest tokens have a menu too
    _ok(at.segmented_control(key="explorer_w_view").set_value("overview").run())
    longest = column(table(at, "The longest tokens"), "id")
    _ok(at.selectbox(key="explorer_w_pick_longest").set_value(longest[0]).run())
    assert at.session_state["explorer.id"] == longest[0]
    assert column(table(at, "Digit groups"), "digits")[:3] == [1, 2, 3]


def test_other_pages_link_here():
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    for source in ("views/home.py", "views/vocab_size.py", "views/quirks.py", "ui/tokenize/widgets.py"):
        assert 'st.page_link("views/explorer.py"' in (root / source).read_text(), source


def _luminance(colour: str) -> float:
    channels = [int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    r, g, b = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def test_compare_chart_parts_differ_by_outline_not_only_colour():
    """The three parts (shared, only in A, only in B) have three colours, and also three
    outline dashes, named in the legend; the outline stands out from every fill (3:1)."""
    from bpe_core.explore import Comparison
    from ui.explorer import charts

    c = Comparison(10, 20, 5, (1,) * 5, (2,) * 15, (("Latin", 10, 20, 5),), ((3, 10, 20, 5),))
    for by in ("script", "bytes"):
        spec = charts.compare_chart(c, "A", "B", by).to_dict()
        dash = spec["encoding"]["strokeDash"]
        assert dash["field"] == spec["encoding"]["color"]["field"] == "part"
        assert dash["scale"]["domain"] == ["shared", "only in A", "only in B"]
        dashes = [tuple(d) for d in dash["scale"]["range"]]
        assert len(set(dashes)) == 3
        assert dash.get("legend") is not None  # the legend shows the dashes beside the colours
        mark = spec["mark"]
        assert mark["stroke"] == charts.OUTLINE and mark["strokeWidth"] >= 1.5
        for fill in spec["encoding"]["color"]["scale"]["range"] + ["#ffffff"]:
            hi, lo = sorted((_luminance(fill), _luminance(charts.OUTLINE)), reverse=True)
            assert (hi + 0.05) / (lo + 0.05) >= 3, fill


@pytest.mark.parametrize("params, shown", [({"tokenizer": "gpt2", "id": "50256"}, "<|endoftext|>"),
                                           ({"tokenizer": "gpt2"}, None)])
def test_a_first_visit_builds_the_index_then_draws_the_page_once(params, shown):
    """The server's first visit for a built-in (its index not built yet) shows the link's
    token or the first tokens while it builds, then clears them: the page ends as on any
    visit, with one card and one results table."""
    from ui.explorer import logic
    from ui.shared.cache import cache_named

    cache_named("explorer.index").pop((logic.builtin_index.__qualname__, (("name", "gpt2"),)))
    assert not logic.builtin_index_ready("gpt2")
    at = visit(params)
    assert logic.builtin_index_ready("gpt2")
    cards = [h.value for h in at.html if 'class="vx-card"' in h.value]
    assert len(cards) == (1 if shown else 0) and (shown is None or "&lt;|endoftext|&gt;" in cards[0])
    assert not at.dataframe and column(table(at, "Search results"), "id")[:3] == [0, 1, 2]
    assert not [e for e in at.get("expandable") if "once per server" in e.label]  # the progress is gone


def test_preview_shows_the_card_or_the_first_tokens(monkeypatch):
    """What the preview draws, caught as it is drawn (the page clears it after)."""
    from bpe_core.pretrained import load_pretrained

    drawn = []
    monkeypatch.setattr(xw.st, "html", lambda body: drawn.append(("html", body)))
    monkeypatch.setattr(xw.st, "caption", lambda text: drawn.append(("caption", text)))
    tok = load_pretrained("gpt2")
    monkeypatch.setattr(xw.st, "session_state", {xw.S["id"]: 43453, xw.S["q"]: ""})
    xw._preview(tok)
    assert drawn[0][0] == "html" and "43,453" in drawn[0][1] and "SolidGoldMagikarp" in drawn[0][1]
    drawn.clear()
    monkeypatch.setattr(xw.st, "session_state", {xw.S["id"]: None, xw.S["q"]: ""})
    xw._preview(tok)
    assert drawn[-1][0] == "html" and column(read_table(drawn[-1][1]), "id") == list(range(xw.PER_PAGE))
    drawn.clear()
    monkeypatch.setattr(xw.st, "session_state", {xw.S["id"]: 10**9, xw.S["q"]: ""})
    xw._preview(tok)  # an id beyond the vocabulary: nothing here (the page's error says so below)
    assert drawn == []


def test_bar_charts_have_room_for_every_label():
    """The script and compare charts are as tall as their bars need (BAR_STEP each), not
    counting title, legend and axis (autosize fit-x), and never drop a y label."""
    from bpe_core.explore import Comparison, Overview
    from ui.explorer import charts

    scripts = tuple((f"Script{i}", 100 - i) for i in range(20))
    o = Overview(2000, 0, 0, (), (), scripts, (), (), (), 0)
    c = Comparison(10, 20, 5, (1,) * 5, (2,) * 15, tuple((f"S{i}", 10, 20, 5) for i in range(12)),
                   tuple((n, 10, 20, 5) for n in range(1, 40)))
    for spec, bars in ((charts.script_chart(o).to_dict(), 13), (charts.compare_chart(c, "A", "B", "script").to_dict(), 12),
                       (charts.compare_chart(c, "A", "B", "bytes").to_dict(), charts.LENGTH_CAP + 1)):
        assert spec["autosize"]["type"] == "fit-x"
        assert spec["height"] == charts.BAR_STEP * bars
        assert spec["encoding"]["y"]["axis"]["labelOverlap"] is False


def test_a_first_visit_whose_file_cannot_be_read_says_so(monkeypatch):
    """A built-in whose package is missing (or whose file is not the pinned one) on its
    first visit: the page says why, in words, and has no exception."""
    from ui.explorer import logic

    def broken(name):
        raise ValueError(f"The {name} file needs the tiktoken package: pip install tiktoken.")

    monkeypatch.setattr(xw, "load_pretrained", broken)
    monkeypatch.setattr(logic, "builtin_index_ready", lambda name: False)
    at = visit({"tokenizer": "gpt2"})
    assert "needs the tiktoken package" in at.error[0].value
    assert not [h for h in at.html if 'class="vx-card"' in h.value or "vx-rows" in h.value]
