"""Placeholder until the page lands."""
import streamlit as st

st.title("train")
st.info("This page is being built.")
