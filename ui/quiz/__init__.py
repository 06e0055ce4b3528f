"""The check-your-understanding quiz, shared by the pages that ask it (Quirks, Vocabulary size).

`questions` is pure (the questions, their grading, the arithmetic answer computed with the
Vocabulary size page's calculator); `widgets` draws a question, folded until its box is
opened. A page asks its questions in one line: `ask_quiz("vocab_size")`.
"""
