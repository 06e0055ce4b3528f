"""Streamlit-aware helpers shared by the pages: token HTML, charts, session state."""
