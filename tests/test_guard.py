"""The surrogate guard's script (ui/shared/guard.py) survives st.html's sanitizer and runs
in the page itself, not in a frame. Its behaviour in a browser: tests/browser/test_untrusted_browser.py."""
import re
from pathlib import Path

from streamlit.testing.v1 import AppTest

from ui.shared.guard import GUARD_HTML

APP = str(Path(__file__).resolve().parents[1] / "app.py")


def test_the_script_holds_nothing_the_sanitizer_drops_it_for():
    """DOMPurify (st.html) removes a <script> whose text holds "<" followed by "!", "/" or a
    letter; the lookbehind in the guard's pattern had one, and the guard silently never ran."""
    body = GUARD_HTML.split("<script>", 1)[1].rsplit("</script>", 1)[0]
    assert re.findall(r"<[/\w!]", body) == []
    assert "window.parent" not in body  # it runs in the page, not in a frame


def test_every_page_installs_it_as_html_with_javascript_not_as_a_frame():
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    guards = [h for h in at.sidebar.get("html") if "__bpeSurrogateGuard" in h.value]
    assert len(guards) == 1 and guards[0].proto.unsafe_allow_javascript
    assert not at.get("iframe") and not at.sidebar.get("iframe")
