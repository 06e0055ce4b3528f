"""Home: what each page teaches, with links."""
import streamlit as st

# Streamlit draws a page link's label on one line, cut with an ellipsis; these labels
# are sentences, so let them wrap (on a phone they were cut after a few words).
st.html("""<style>
[data-testid="stPageLink-NavLink"] { align-items: flex-start; height: auto; }
[data-testid="stPageLink-NavLink"] span:has(> [data-testid="stMarkdownContainer"]),
[data-testid="stPageLink-NavLink"] [data-testid="stMarkdownContainer"],
[data-testid="stPageLink-NavLink"] [data-testid="stMarkdownContainer"] p {
  white-space: normal; overflow: visible; text-overflow: clip; line-height: 1.5;
}
</style>""")

st.title("Byte-pair encoding, step by step")
st.markdown(
    "Language models do not read letters or words: they read **tokens**. Most of them "
    "learn their tokens with **byte-pair encoding (BPE)**: start from single characters "
    "(or bytes), then again and again merge the most frequent adjacent pair into a new "
    "token. This app lets you watch every merge, and then see how real tokenizers split text."
)

st.page_link("views/train.py", label="**Train** — step through BPE training, merge by merge, "
             "forward and back, on the Sennrich et al. (2016) toy corpus or your own text.",
             icon=":material/model_training:")
st.page_link("views/tokenize.py", label="**Tokenize** — paste text and see how GPT-2, GPT-4 "
             "(cl100k_base), GPT-4o (o200k_base) or your own tokenizer split it; replay every merge.",
             icon=":material/text_fields:")
st.page_link("views/vocab_size.py", label="**Vocabulary size** — what a bigger vocabulary buys "
             "(shorter sequences) and what it costs (embedding parameters, output FLOPs), per language.",
             icon=":material/bar_chart:")
st.page_link("views/algorithms.py", label="**Algorithms** — BPE, WordPiece and Unigram trained on the same "
             "text, side by side; step WordPiece's scores and Unigram's pruning; the course's examples checked.",
             icon=":material/account_tree:")
st.page_link("views/explorer.py", label="**Vocabulary explorer** — look inside a vocabulary: any token's bytes "
             "and merges, search and filters, lengths and scripts, odd tokens such as ' SolidGoldMagikarp', two "
             "vocabularies compared.", icon=":material/manage_search:")
st.page_link("views/quirks.py", label="**Quirks** — why models trip over tokens (letters, numbers, spaces, other "
             "scripts, invisible characters), live with five real tokenizers; the source texts' worked examples.",
             icon=":material/psychology_alt:")

st.page_link("views/teach_class.py", label="**Teach a class** — your students follow your steps on their own "
             "screens, join by QR code, and answer which pair merges next together.", icon=":material/co_present:")
st.page_link("views/join_class.py", label="**Join a class** — type the code on your instructor's screen, "
             "or open their link.", icon=":material/school:")

st.caption("Everything runs on this server, offline: no text you type leaves it.")
