"""Every page renders under AppTest without an exception."""
import pytest
from streamlit.testing.v1 import AppTest

APP = "../app.py"
PAGES = ["views/home.py", "views/train.py", "views/tokenize.py", "views/vocab_size.py", "views/algorithms.py"]


@pytest.mark.parametrize("page", PAGES)
def test_page_renders_without_exception(page):
    at = AppTest.from_file(APP, default_timeout=60)
    at.run()
    at.switch_page(page).run()
    assert not at.exception, at.exception
