"""Placeholder until the page lands."""
import streamlit as st

st.title("tokenize")
st.info("This page is being built.")
