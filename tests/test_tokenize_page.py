"""The Tokenize page under AppTest: every control, every tokenizer, the URL, the limits.

Counts and ids shown on the page are checked against tiktoken built offline from the
same files (never tiktoken.get_encoding: it downloads), or against the engine for the
session's own tokenizer. Each test opens the app at app.py (so the router and sidebar
run) and switches to the page.
"""
from __future__ import annotations

import html
import re
from collections import Counter

import pytest
import tiktoken
from streamlit.testing.v1 import AppTest

from bpe_core import TrainerSettings, WordTable, train
from bpe_core.pretrained.openai_files import load_openai_encoding
from bpe_core.pretrained import PRETRAINED, load_pretrained, openai_tokenizer
from ui.shared.state import LABEL_KEY, RUN_KEY, STEP_KEY
from ui.shared.tables import read_table
from ui.tokenize.logic import COUNT_LIMIT_BYTES, DRAW_LIMIT_BYTES, EXAMPLES, URL_TEXT_LIMIT, PANELS, has_merges

APP = "../app.py"
PAGE = "views/tokenize.py"
NAMES = ("gpt2", "cl100k_base", "o200k_base")
MULTILINGUAL = "Hello, 世界! Доброе утро. नमस्ते 👩‍💻 café e\u0301 12345 I'LL we'll\r\n\tend"

_REFS: dict[str, tiktoken.Encoding] = {}


def reference(name: str) -> tiktoken.Encoding:
    if name not in _REFS:
        f = load_openai_encoding(name)
        _REFS[name] = tiktoken.Encoding(name, pat_str=f.pattern, mergeable_ranks=f.mergeable_ranks,
                                        special_tokens=f.special_tokens)
    return _REFS[name]


def open_page(*, params: dict | None = None, state: dict | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    for key, value in (state or {}).items():
        at.session_state[key] = value
    at.run()
    for key, value in (params or {}).items():
        at.query_params[key] = value
    at.switch_page(PAGE).run()
    assert not at.exception, at.exception
    return at


COUNT = re.compile(r'<div class="bpe-count" data-label="([^"]*)">.*?<div class="bpe-count-value">([^<]*)</div>')


def metrics(at: AppTest) -> dict[str, str]:
    """The counts above the chips (one HTML block, ui/tokenize/html.py counts_html), by label."""
    found = {}
    for h in at.get("html"):
        found.update((html.unescape(label), html.unescape(value)) for label, value in COUNT.findall(h.proto.body))
    return found


def number(text: str) -> int:
    return int(text.replace(",", ""))


def ok(at: AppTest) -> AppTest:
    assert not at.exception, at.exception
    return at


def set_text(at: AppTest, text: str) -> AppTest:
    return ok(at.text_area(key="tokenize_w_text").input(text).run())


def choose(at: AppTest, name: str) -> AppTest:
    return ok(at.segmented_control(key="tokenize_w_tokenizer").set_value(name).run())


def view(at: AppTest, name: str) -> AppTest:
    return ok(at.segmented_control(key="tokenize_w_view").set_value(name).run())


def n_chips(html: str) -> int:
    """Chips in a drawing: every span but the end-of-word markers inside chips."""
    return len(re.findall(r'<span(?! class="mk")[ >]', html))


def token_html(at: AppTest) -> str:
    """The main token display (the first html element with chips)."""
    return next(h.value for h in at.html if 'class="bpe-tokens bpe-scroll' in h.value)


def trained_run(units: str = "char"):
    corpus = "low 5\nlower 2\nnewest 6\nwidest 3" if units == "char" else None
    if corpus:
        return train(WordTable.from_word_counts(corpus), TrainerSettings(end_of_word="separate", merges=10))
    table = WordTable.from_text("the cat sat on the mat with the hat, 你好 你好 the end " * 3, "gpt2")
    return train(table, TrainerSettings(units="byte", merges=40))


def session_with(run, step=None, label="toy corpus") -> dict:
    return {RUN_KEY: run, STEP_KEY: run.steps if step is None else step, LABEL_KEY: label}


# ---- the default view and every OpenAI tokenizer --------------------------------------
def test_page_opens_with_an_example_and_counts():
    at = open_page()
    m = metrics(at)
    ids = reference("cl100k_base").encode_ordinary(EXAMPLES["English"])
    assert number(m["Tokens"]) == len(ids)
    assert number(m["Characters"]) == len(EXAMPLES["English"])
    assert at.text[0].value == ", ".join(map(str, ids))


@pytest.mark.parametrize("name", NAMES)
def test_counts_and_ids_equal_tiktoken(name):
    at = choose(open_page(), name)
    set_text(at, MULTILINGUAL)
    ref = reference(name)
    ids = ref.encode_ordinary(MULTILINGUAL)
    m = metrics(at)
    assert number(m["Tokens"]) == len(ids)
    assert number(m["Characters"]) == len(MULTILINGUAL)
    assert number(m["Bytes"]) == len(MULTILINGUAL.encode("utf-8"))
    assert m["Characters per token"] == f"{len(MULTILINGUAL) / len(ids):.2f}"
    assert number(m["Pieces"]) == len(openai_tokenizer(name).pieces(MULTILINGUAL))
    assert at.text[0].value == ", ".join(map(str, ids))
    html = token_html(at)
    assert n_chips(html) == len(ids)  # one chip per token, partial ones too
    # most frequent tokens: a static HTML table, no data grid on the page's first load
    top = read_table(next(h.value for h in at.html if 'aria-label="Most frequent tokens"' in h.value))
    assert [(int(r["id"]), int(r["count"])) for r in top][:3] == Counter(ids).most_common(3)
    assert top[0]["share"] == f"{Counter(ids).most_common(1)[0][1] / len(ids):.1%}"
    assert at.download_button[0].proto.label == "Download all ids (JSON)"
    # made on click (a deferred download: no file kept, nothing fetched at each draw); the
    # browser test clicks it and reads the file
    button = at.download_button[0].proto
    assert button.deferred_file_id and not button.url
    assert len(at.dataframe) == 0 and len(at.code) == 0  # no grid, no code block: the token table
    at.session_state["tokenize_w_token_table"] = True    # is drawn once its expander opens
    table = ok(at.run()).dataframe[0].value  # the token table
    assert list(table["id"]) == ids[:2000]


def test_a_rerun_does_not_send_the_text_back_to_the_browser():
    """The text area's value goes back to the browser only when the page changed it (an
    example, a link), not at each rerun: that echo was the whole paste, 100 kB, set
    again in the text area after every Ctrl+Enter."""
    at = set_text(open_page(), "a pasted text")
    assert not at.text_area(key="tokenize_w_text").proto.set_value
    assert not ok(at.toggle(key="tokenize_w_show_ids").set_value(True).run()).text_area(
        key="tokenize_w_text").proto.set_value
    at.pills(key="tokenize_w_example").set_value("Code").run()
    box = ok(at).text_area(key="tokenize_w_text")
    assert box.proto.set_value and box.value == EXAMPLES["Code"]


def test_tokens_that_are_part_of_a_character_get_their_own_chip_with_bytes():
    at = choose(open_page(), "gpt2")
    set_text(at, "日本")  # GPT-2 splits these characters into byte tokens
    ids = reference("gpt2").encode_ordinary("日本")
    html = token_html(at)
    assert n_chips(html) == len(ids) > 2
    assert "bpe-tok partial" in html and re.search(r"&lt;[0-9A-F]{2}&gt;", html)


def test_hover_shows_id_bytes_and_rank():
    at = choose(open_page(), "gpt2")
    set_text(at, "Hello world")
    html = token_html(at)
    assert 'title="id 995\nbytes 20 77 6F 72 6C 64\nrank 995"' in html


def test_show_whitespace_toggle():
    at = open_page()
    set_text(at, "a b\nc")
    assert "·" in token_html(at) and "↵" in token_html(at)
    ok(at.toggle(key="tokenize_w_show_ws").set_value(False).run())
    assert "·" not in token_html(at) and "↵" not in token_html(at)


@pytest.mark.parametrize("label", list(EXAMPLES))
def test_example_buttons_load_their_text(label):
    at = open_page()
    ok(at.pills(key="tokenize_w_example").set_value(label).run())
    assert at.text_area(key="tokenize_w_text").value == EXAMPLES[label]
    assert number(metrics(at)["Tokens"]) == len(reference("cl100k_base").encode_ordinary(EXAMPLES[label]))
    assert at.pills(key="tokenize_w_example").value is None  # ready to be clicked again


def test_pasted_html_is_shown_as_text():
    at = open_page()
    set_text(at, "<img src=x onerror=alert(1)><script>window.__pwned=1</script>")
    from ui.shared.a11y import A11Y_CSS, A11Y_SCRIPT
    from ui.shared.guard import GUARD_HTML

    for h in at.html:
        if h.value in (GUARD_HTML, A11Y_CSS + A11Y_SCRIPT):
            continue  # the app's own constant scripts (ui/shared/guard.py, ui/shared/a11y.py)
        assert "<img" not in h.value and "<script" not in h.value
    assert "&lt;img" in token_html(at)


def test_empty_text_asks_for_text():
    at = set_text(open_page(), "")
    assert any("Type or paste" in i.value for i in at.info)
    assert not metrics(at)


# ---- special tokens --------------------------------------------------------------------
@pytest.mark.parametrize("name", NAMES)
def test_special_tokens_one_id_versus_several(name):
    text = "Hi<|endoftext|>there"
    at = set_text(choose(open_page(), name), text)
    eot = reference(name).special_tokens_set and openai_tokenizer(name).special_tokens["<|endoftext|>"]
    as_text = reference(name).encode(text, disallowed_special=())
    assert at.text[0].value == ", ".join(map(str, as_text)) and str(eot) not in at.text[0].value.split(", ")
    assert any("ordinary text" in i.value and "injection" in i.value for i in at.info)
    ok(at.checkbox(key="tokenize_w_special").check().run())
    allowed = reference(name).encode(text, allowed_special="all")
    assert at.text[0].value == ", ".join(map(str, allowed)) and allowed.count(eot) == 1
    assert number(metrics(at)["Tokens"]) == len(allowed) < len(as_text)
    assert any("allowed" in w.value and "injection" in w.value for w in at.warning)
    assert "bpe-tok special" in token_html(at)


def test_no_special_notice_without_special_text():
    at = open_page()
    assert not any("injection" in i.value for i in at.info)


# ---- pieces ----------------------------------------------------------------------------
def test_pieces_view_draws_each_piece():
    at = view(set_text(choose(open_page(), "cl100k_base"), MULTILINGUAL), "pieces")
    pieces = openai_tokenizer("cl100k_base").pieces(MULTILINGUAL)
    html = next(h.value for h in at.html if "piece 1 ·" in h.value)
    assert n_chips(html) == len(pieces)
    assert any(openai_tokenizer("cl100k_base").pattern == c.value for c in at.code)


# ---- replay ----------------------------------------------------------------------------
def test_replay_steps_through_every_merge():
    at = view(set_text(choose(open_page(), "gpt2"), "a tokenizer"), "replay")
    sel = at.selectbox(key="tokenize_w_token")
    assert sel.value == 1 and "token" in sel.format_func(sel.value)  # the longest token
    replay = openai_tokenizer("gpt2").replay(" tokenizer")  # the token's whole piece
    n = len(replay.steps)
    assert "bpe-tok hl" in token_html(at)  # the token is outlined in the text

    def ladder() -> str:
        return next(h.value for h in at.html if '<div class="bpe-ladder">' in h.value)

    assert ladder().count('class="bpe-row') == 1  # base symbols only
    ok(at.button(key="tokenize_w_next").click().run())
    assert ladder().count('class="bpe-row') == 2
    assert any(f"rank {replay.steps[0].rank:,}" in h.value and "Merge 1 of" in h.value for h in at.html)
    ok(at.button(key="tokenize_w_last").click().run())
    assert ladder().count('class="bpe-row') == n + 1
    assert at.button(key="tokenize_w_next").disabled
    assert any("ends as 2 tokens; the one you picked is number 1" in c.value for c in at.caption)
    ok(at.button(key="tokenize_w_prev").click().run())
    assert ladder().count('class="bpe-row') == n
    ok(at.slider(key="tokenize_w_replay_step").set_value(1).run())
    assert ladder().count('class="bpe-row') == 2
    ok(at.button(key="tokenize_w_first").click().run())
    assert ladder().count('class="bpe-row') == 1
    table = at.dataframe[-1].value
    assert list(table["rank"]) == [s.rank for s in replay.steps]


def test_replay_another_token_restarts_at_the_base_symbols():
    at = view(set_text(choose(open_page(), "o200k_base"), "unbelievable tokenization"), "replay")
    ok(at.button(key="tokenize_w_next").click().run())
    ok(at.selectbox(key="tokenize_w_token").set_value(0).run())
    assert at.slider(key="tokenize_w_replay_step").value == 0
    assert at.selectbox(key="tokenize_w_token").value == 0


def test_replay_a_typed_word():
    at = view(open_page(), "replay")
    ok(at.segmented_control(key="tokenize_w_replay_source").set_value("typed").run())
    ok(at.text_input(key="tokenize_w_typed").input(" tokenization").run())
    replay = openai_tokenizer("cl100k_base").replay(" tokenization")
    ok(at.button(key="tokenize_w_last").click().run())
    ladder = next(h.value for h in at.html if '<div class="bpe-ladder">' in h.value)
    assert ladder.count('class="bpe-row') == len(replay.steps) + 1
    ok(at.text_input(key="tokenize_w_typed").input("hello world").run())
    assert any("2 pieces" in c.value for c in at.caption)


def test_replay_of_a_special_token_explains_it_is_not_merged():
    at = set_text(open_page(), "<|endoftext|>")
    ok(at.checkbox(key="tokenize_w_special").check().run())
    view(at, "replay")
    assert any("not built by merges" in i.value for i in at.info)


# ---- compare ---------------------------------------------------------------------------
def compare_table(at: AppTest) -> list[dict[str, str]]:
    """The Compare view's table (a static HTML table, ui/shared/tables.py), row by row."""
    return read_table(next(h.value for h in at.html if 'aria-label="Token counts by tokenizer"' in h.value))


def test_compare_counts_equal_tiktoken_and_mistral_is_compared_by_default():
    """By default Compare shows the three OpenAI tokenizers and Mistral 7B (its count is the
    engine's, checked against sentencepiece in tests/test_sentencepiece.py); each full
    title is in the table, never cut."""
    at = view(set_text(open_page(), MULTILINGUAL), "compare")
    table = compare_table(at)
    counts = [number(row["tokens"]) for row in table]
    assert counts[:3] == [len(reference(n).encode_ordinary(MULTILINGUAL)) for n in NAMES]
    assert counts[3] == len(load_pretrained("mistral-7b-v1").encode(MULTILINGUAL))
    assert [row["tokenizer"] for row in table] == [PRETRAINED[n].title for n in (*NAMES, "mistral-7b-v1")]
    drawn = [h.value for h in at.html if 'class="bpe-tokens bpe-scroll' in h.value]
    assert len(drawn) == 1 + 4
    ok(at.multiselect(key="tokenize_w_compare").set_value(["gpt2"]).run())
    assert any("at least two" in i.value for i in at.info)
    ok(at.multiselect(key="tokenize_w_compare").set_value(["gpt2", "o200k_base"]).run())
    assert len(compare_table(at)) == 2


# ---- decode ----------------------------------------------------------------------------
def test_decode_typed_ids():
    at = view(choose(open_page(), "gpt2"), "decode")
    ok(at.text_area(key="tokenize_w_ids").input("[15496, 995]").run())
    assert at.code[-1].value == "Hello world"
    ok(at.text_area(key="tokenize_w_ids").input("15496 995\n0").run())
    assert at.code[-1].value == "Hello world!"


def test_decode_bad_ids_show_the_engines_message():
    at = view(choose(open_page(), "gpt2"), "decode")
    ok(at.text_area(key="tokenize_w_ids").input("15496, hello").run())
    assert any("'hello' is not a token id" in e.value for e in at.error)
    ok(at.text_area(key="tokenize_w_ids").input("15496, 99999999").run())
    with pytest.raises(ValueError) as engine:
        openai_tokenizer("gpt2").decode([15496, 99999999])
    assert [e.value for e in at.error] == [str(engine.value)]


def test_decode_part_of_a_character_shows_bytes():
    ids = reference("gpt2").encode_ordinary("日")
    at = view(choose(open_page(), "gpt2"), "decode")
    ok(at.text_area(key="tokenize_w_ids").input(str(ids[0])).run())
    assert any("middle of a character" in w.value for w in at.warning)
    assert re.fullmatch(r"(<[0-9A-F]{2}>)+", at.code[-1].value)


def test_decode_fill_button_round_trips():
    at = view(set_text(choose(open_page(), "o200k_base"), MULTILINGUAL), "decode")
    ok(at.button(key="tokenize_w_fill").click().run())
    assert at.code[-1].value == MULTILINGUAL


# ---- your own tokenizer ------------------------------------------------------------------
def test_yours_without_training_links_to_the_train_page():
    at = choose(open_page(), "yours")
    assert any("not trained" in i.value for i in at.info)
    assert any("train" in link.proto.page for link in at.get("page_link"))
    assert not metrics(at)


def test_yours_counts_equal_the_engine_and_mark_unknown_characters():
    run = trained_run("char")
    at = choose(open_page(state=session_with(run)), "yours")
    text = "lowest newer widest"
    set_text(at, text)
    tok = run.tokenizer(run.steps)
    assert number(metrics(at)["Tokens"]) == len(tok.encode(text))
    assert at.text[0].value == ", ".join(map(str, tok.encode(text)))
    assert "&lt;/w&gt;" in token_html(at)  # the end-of-word marker is drawn
    assert "step 10" in at.caption[0].value
    set_text(at, "lowest xyz")
    assert any("not in your tokenizer" in w.value for w in at.warning)
    assert "bpe-tok unk" in token_html(at)


def test_yours_replay_links_each_merge_to_its_training_step():
    run = trained_run("char")
    at = view(set_text(choose(open_page(state=session_with(run)), "yours"), "lowest"), "replay")
    ok(at.button(key="tokenize_w_next").click().run())
    replay = run.tokenizer(run.steps).replay("lowest")
    first = replay.steps[0].rank
    assert any(f"training step {first}" in h.value for h in at.html)
    button = at.button(key="tokenize_w_to_train")
    assert f"step {first}" in button.label
    ok(button.click().run())
    assert any(t.value == "Train" or "Train" in t.value for t in at.title)  # now on the Train page
    # The request for the Train page: pending, or already taken (then it published that step).
    ss = at.session_state
    assert (("shared.goto_step" in ss and ss["shared.goto_step"] == first)
            or ss[STEP_KEY] == first)


def test_yours_byte_level_tokenizer_and_compare():
    run = trained_run("byte")
    at = choose(open_page(state=session_with(run)), "yours")
    text = "the cat 你好"
    set_text(at, text)
    tok = run.tokenizer(run.steps)
    assert number(metrics(at)["Tokens"]) == len(tok.encode(text))
    view(at, "compare")
    ok(at.multiselect(key="tokenize_w_compare").set_value(["yours", "gpt2"]).run())
    assert [number(r["tokens"]) for r in compare_table(at)] == [len(tok.encode(text)),
                                                                len(reference("gpt2").encode_ordinary(text))]


# ---- state and the URL -------------------------------------------------------------------
def test_url_reproduces_the_view():
    at = open_page(params={"tokenizer": "gpt2", "text": "a tokenizer", "view": "replay", "token": "2"})
    assert at.segmented_control(key="tokenize_w_tokenizer").value == "gpt2"
    assert at.text_area(key="tokenize_w_text").value == "a tokenizer"
    assert at.selectbox(key="tokenize_w_token").value == 1
    assert dict(at.query_params) == {"tokenizer": ["gpt2"], "text": ["a tokenizer"], "view": ["replay"], "token": ["2"]} or \
        at.query_params["tokenizer"] == "gpt2"


def test_url_follows_the_settings_and_leaves_out_long_text():
    at = choose(open_page(), "o200k_base")
    set_text(at, "short")
    ok(at.checkbox(key="tokenize_w_special").check().run())
    assert at.query_params["tokenizer"] == "o200k_base"
    assert at.query_params["text"] == "short"
    assert at.query_params["special"] == "1"
    set_text(at, "x" * (URL_TEXT_LIMIT + 1))
    assert "text" not in at.query_params


def test_unknown_tokenizer_in_url_warns():
    at = open_page(params={"tokenizer": "bert-base"})
    assert any("bert-base" in w.value for w in at.warning)
    assert at.segmented_control(key="tokenize_w_tokenizer").value == "cl100k_base"


def test_settings_survive_a_visit_to_another_page():
    at = choose(open_page(), "gpt2")
    set_text(at, "keep me")
    view(at, "pieces")
    ok(at.switch_page("views/home.py").run())
    ok(at.switch_page(PAGE).run())
    assert at.text_area(key="tokenize_w_text").value == "keep me"
    assert at.segmented_control(key="tokenize_w_tokenizer").value == "gpt2"
    assert at.segmented_control(key="tokenize_w_view").value == "pieces"


# ---- size limits -------------------------------------------------------------------------
def test_text_over_the_draw_limit_is_counted_and_previewed():
    line = "The quick brown fox jumps over the lazy dog. 1234567\n"
    text = line * (DRAW_LIMIT_BYTES // len(line) + 10)
    at = set_text(open_page(), text)
    ids = reference("cl100k_base").encode_ordinary(text)
    assert number(metrics(at)["Tokens"]) == len(ids)
    assert any("only the first" in i.value and "150 kB" in i.value for i in at.info)
    drawn = n_chips(token_html(at))
    assert 0 < drawn < len(ids)


def test_text_over_the_count_limit_is_refused_with_a_reason():
    at = set_text(open_page(), "a" * (COUNT_LIMIT_BYTES + 1))
    assert any("2 MB" in e.value and "python -m bpe_core encode" in e.value for e in at.error)
    assert not metrics(at)


def test_replay_of_a_very_long_piece_is_refused_with_a_reason():
    """A run of 3,000 digits is one GPT-2 piece; replaying it step by step would redraw
    3,000 symbols per merge, so the page says why it stops at 1,000 bytes."""
    at = view(set_text(choose(open_page(), "gpt2"), "7" * 3000), "replay")
    assert not at.exception
    assert any("Replay shows pieces of up to 1,000" in i.value for i in at.info)


@pytest.mark.parametrize("name", list(PRETRAINED))
def test_every_registry_tokenizer_is_offered_and_every_view_opens(name):
    """The choices come from the registry: each real tokenizer counts and draws the text;
    views that need a merge list say so for a SentencePiece model instead of failing."""
    text = "Hello world, 你好! 👩\u200d💻\n\n\nend"
    at = open_page(params={"tokenizer": name, "text": text})
    assert at.segmented_control(key="tokenize_w_tokenizer").value == name
    tok = load_pretrained(name)
    assert number(metrics(at)["Tokens"]) == len(tok.encode(text))
    assert n_chips(token_html(at)) == len(tok.encode(text))
    for v in PANELS:
        view(at, v)
    if not has_merges(tok):
        # a SentencePiece BPE model replays by piece score (its own words, its own pieces);
        # a tokenizer.json BPE by its own merges
        view(at, "replay")
        assert not any("no merge list" in i.value for i in at.info)
        if PRETRAINED[name].kind == "sentencepiece":
            assert any("SentencePiece BPE" in m.value for m in at.markdown)
        assert "bpe-ladder" in " ".join(h.proto.body for h in at.get("html"))


def test_typing_helper_watches_the_text_box_and_marks_the_tokens():
    """The page mounts the typing helper (ui/shared/live_text.py) after the tokens, told
    which text area to apply, which box to mark "Updating…", and how long (in UTF-16
    units, as the browser counts) the text it drew is; the page's CSS has the mark's look."""
    import json

    from ui.shared.live_text import utf16_length

    text = "typed 😀 text"
    at = open_page(params={"tokenizer": "cl100k_base", "text": text})
    helper = [h for h in at.get("bidi_component") if h.proto.component_name == "bpe_live_text"]
    assert len(helper) == 1
    data = json.loads(helper[0].proto.json)
    assert data["input"] == "tokenize_w_text" and data["output"] == "tokenize-tokens"
    assert data["length"] == utf16_length(text) == len(text) + 1
    assert at.text_area(key="tokenize_w_text").value == text
    css = "".join(h.proto.body for h in at.get("html"))
    assert ".st-key-tokenize-tokens[data-bpe-stale]" in css and "Updating…" in css
    first_run = data["run"]
    at.text_area(key="tokenize_w_text").input("other").run()
    assert not at.exception
    data = json.loads(next(h for h in at.get("bidi_component") if h.proto.component_name == "bpe_live_text").proto.json)
    assert data["length"] == 5 and data["run"] > first_run  # a new run: the helper is called again


def test_chips_open_their_replay():
    """The page mounts the chip listener (ui/shared/chip_pick.py) for its text's drawing
    only (the run in a scroll box inside "tokenize-tokens"); what a pick then does is
    checked in the browser (tests/browser/test_tokenize_browser.py), and what the browser
    may send by pick_of's doctest."""
    import json

    at = open_page(params={"tokenizer": "gpt2", "text": "unbelievable tokenization"})
    helper = [h for h in at.get("bidi_component") if h.proto.component_name == "bpe_chip_pick"]
    assert len(helper) == 1
    assert json.loads(helper[0].proto.json) == {"scope": "tokenize-tokens", "runs": ".bpe-tokens.bpe-scroll"}
    assert "Tab to it and press Enter) to replay" in "".join(h.value for h in at.html)
