"""The Quirks page: real tokenizers on the texts that trip models up, the source texts'
worked examples reproduced exactly, and the check-your-understanding quiz.

`logic` is pure (no Streamlit) and `widgets` draws it; `quiz` holds the questions, which
other pages ask through `widgets.quiz_question`.
"""
