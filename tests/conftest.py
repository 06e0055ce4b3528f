"""Shared test set-up: the repository root, and one rule for every AppTest run.

Every `AppTest` run (`at.run()`, a widget's `.run()`, a page switch's run) that ends with
an exception on the page fails the test there, with the page's traceback in the message:
an exception Streamlit draws as a red box is a crash a visitor sees, and a test that
forgets to look at `at.exception` must not pass over it. A test that means to raise on
the page (a stand-in for a run cut short, say) says so with
`@pytest.mark.app_exception_expected` and checks `at.exception` itself.
"""
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

EXPECTED_MARK = "app_exception_expected"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", f"{EXPECTED_MARK}: this test's AppTest runs may end with an exception on the page "
        "(the test checks at.exception itself)")


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return ROOT


def page_exceptions(at) -> str:
    """The exceptions an AppTest run left on its page, as one readable message ('' if none)."""
    parts = []
    for exc in at.exception:
        trace = "\n".join(getattr(exc, "stack_trace", None) or [])
        parts.append(f"{exc.message}\n{trace}".strip())
    return "\n---\n".join(parts)


@pytest.fixture(autouse=True)
def _apptest_runs_fail_on_exceptions(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch):
    """Wrap `AppTest._run`, the one place every kind of AppTest run goes through."""
    if request.node.get_closest_marker(EXPECTED_MARK) is not None:
        yield
        return
    try:
        from streamlit.testing.v1.app_test import AppTest
    except ImportError:  # a run without Streamlit: no AppTest to watch
        yield
        return
    original = AppTest._run

    def checked_run(self, *args, **kwargs):
        result = original(self, *args, **kwargs)
        found = page_exceptions(self)
        if found:
            pytest.fail(f"the page raised an exception (mark the test {EXPECTED_MARK} if it "
                        f"means to):\n{found}", pytrace=False)
        return result

    monkeypatch.setattr(AppTest, "_run", checked_run)
    yield
