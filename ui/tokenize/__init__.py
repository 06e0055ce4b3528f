"""The Tokenize page: analysis (logic), HTML (html), Streamlit sections (widgets)."""
