"""Router: the pages of the BPE teaching app and the shared sidebar. No logic here."""
import streamlit as st

from ui.shared.a11y import install_a11y
from ui.shared.guard import install_surrogate_guard
from ui.shared.session_message import install as install_session_message
from ui.shared.state import CAPTION_DRAWN, sidebar_caption

install_session_message()  # the theme part of each run's first message, built once per process
st.set_page_config(page_title="BPE, step by step", page_icon="🧩", layout="wide")

PAGES = [
    # The default page is served at "/" (Streamlit ignores its url_path: "/start" was a
    # "Page not found" dialog before the home page).
    st.Page("views/home.py", title="Home", icon=":material/home:", default=True),
    st.Page("views/train.py", title="Train", icon=":material/model_training:", url_path="train-bpe"),
    st.Page("views/tokenize.py", title="Tokenize", icon=":material/text_fields:", url_path="tokenize-text"),
    st.Page("views/vocab_size.py", title="Vocabulary size", icon=":material/bar_chart:", url_path="vocabulary-size"),
    st.Page("views/algorithms.py", title="Algorithms", icon=":material/account_tree:", url_path="algorithms"),
    st.Page("views/explorer.py", title="Vocabulary explorer", icon=":material/manage_search:",
            url_path="vocabulary-explorer"),
    st.Page("views/quirks.py", title="Quirks", icon=":material/psychology_alt:", url_path="tokenizer-quirks"),
    st.Page("views/teach_class.py", title="Teach a class", icon=":material/co_present:", url_path="teach"),
    st.Page("views/join_class.py", title="Join a class", icon=":material/school:", url_path="join"),
]

page = st.navigation(PAGES)
install_surrogate_guard()
install_a11y()
CAPTION_DRAWN.set(False)
page.run()

# After the page, so the caption names the run and step the page has just published
# (the Train page draws it itself, from the fragment that steps).
if not CAPTION_DRAWN.get():
    sidebar_caption()
