"""Class mode of the Train page: an instructor steps, students follow and answer together.

- `logic`: pure helpers (the class snapshot, the question's options and grading, the
  join links, the QR code, the tally chart); no Streamlit, tested directly;
- `session`: this browser tab's part in a class (session state "class.*") and every call
  to the class store (`classroom`), each turning a store error into a message;
- `panels`: what the pages draw (the instructor's panel, the student's banner that polls
  the store, the start control, the join page).

The Train page calls in at three places: `panels.train_banner` after the run is known,
`hooks.after_step` from its step fragment (the instructor's step goes to the class) and
`panels.start_control` below the step area. The store is the one `classroom.open_store`
chooses (BPE_CLASS_STORE), made once per process.
"""
