"""The Quirks page: real tokenizers on the texts that trip models up, the source texts'
worked examples reproduced exactly, and the check-your-understanding quiz.

`logic` is pure (no Streamlit) and `widgets` draws it. The quiz lives in `ui.quiz`
(questions and their drawing), which this page and Vocabulary size both ask.
"""
