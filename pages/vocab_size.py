"""Placeholder until the page lands."""
import streamlit as st

st.title("vocab_size")
st.info("This page is being built.")
