"""Class mode, Streamlit part 2: what the Train page and the join page draw.

- `train_banner` (top of the Train page): for an instructor, the join code, the QR code
  and the join link (sized for a projector), the private instructor link, and a fragment
  that asks the question and shows the answers arriving as a bar chart (every second);
  for a student, a timer fragment that polls the class every second with the version it
  has and draws nothing (a tick that finds nothing new costs a store read), puts the
  instructor's step on the page, and then reruns only what changed
  (`session.rerun_fragments`: the step area's fragment, the class panel's fragment, or
  both; no full rerun per step); the class panel (the banner and the question) is its own
  fragment, so a student's clicks in it rerun it alone;
- `start_control` (below the step area): start a class on the current run;
- `join_page`: join by link or code, or take control with the instructor link.

Every user-made string (nicknames, options built from the corpus's tokens, store
messages quoting a typed code) goes through md_escape or html.escape. Widgets inside the
polling fragments are never set by code, so a tick never overwrites what a student is
choosing or typing.

Left out: store calls (session.py), options, grading, links and charts (logic.py).
"""
from __future__ import annotations

import html
import os
from urllib.parse import urlsplit

import streamlit as st

from classroom import NICKNAME_MAX, CODE_LENGTH, Question
from ui.classmode import logic, session
from ui.shared.markdown import md_error, md_escape
from ui.shared.state import Key, folded
from ui.train import predict as predict
from ui.train import state as train_state
from ui.train.run_view import RunView
from ui.classmode.session import (  # the class panel's keys, declared with the page's others
    FULL_RUN, GO_TRAIN, OPEN, OPENED_FOR, PANEL_SHOWN, PUBLIC, PUBLIC_NOTE, QR_CACHE,
)

W = session.WIDGETS  # widget keys, `class_w_<name>`
NICK_BOX: Key[str | None] = W.key("nick")  # a student's nickname, beside a question
CODE_BOX: Key[str | None] = W.key("code")  # the join page's class code
JOIN_NICK_BOX: Key[str | None] = W.key("join_nick")  # the join page's nickname

#: The QR code's width on screen, in CSS pixels (about 40% of a 1080-pixel projector).
QR_WIDTH = 420

CODE_CSS = """
<style>
.class-code { font: 700 4.2rem/1.1 ui-monospace, SFMono-Regular, Menlo, monospace; letter-spacing: .12em; }
.st-key-class_side .class-code { font-size: 3rem; letter-spacing: .06em; white-space: nowrap; }
.class-join, .class-line { font-size: 1.5rem; line-height: 1.5; }
.class-join code, .class-line code { font-size: 1.3rem; word-break: break-all; }
.class-code-small { font: 700 2rem/1.2 ui-monospace, SFMono-Regular, Menlo, monospace; letter-spacing: .08em; }
.class-unreachable { font-size: 1.25rem; font-weight: 600; color: #8a3b00; }
@media (prefers-color-scheme: dark) { .class-unreachable { color: #ffb077; } }
.st-key-class_instructor_panel [data-testid="stCode"] code { font-size: 1.25rem; }
</style>
"""


# ---- the Train page -------------------------------------------------------------------------
#: The column beside the step (presentation view) that holds the instructor's panel while
#: its QR code is open or a question is asked: both are too tall to sit above the step on
#: a projector (`beside_the_step`).
SIDE_KEY = "class_side"


def beside_the_step() -> bool:
    """Whether the instructor's panel goes beside the step (the presentation view draws it
    in a column of its own, which scrolls inside its own box): the QR code is open, or a
    question is asked or revealed. Folded to one line with no question, it stays above."""
    state = session.current()
    if session.role() != "instructor" or state is None:
        return False
    return not session.qr_folded(state) or state.question is not None


def _beside() -> bool:
    return train_state.LAYOUT.get() == "present" and beside_the_step()


def train_banner(view: RunView) -> None:
    """Top of the Train page (full runs only): the class panel of this tab's role."""
    if session.role() is None and session.resume_saved():
        st.rerun(scope="app")  # this browser runs the class: its corpus, settings and step
    _device_script()
    role = session.role()
    if role is None:
        _ended_note()
        return
    FULL_RUN.set(True)
    try:
        if role == "instructor":
            session.push_step(view, train_state.step())  # retries a step the store missed (an outage)
            _instructor_panel(view)
            q = session.current().question if session.current() else None
            # A timer only while answers can arrive, or while the store is away (to send the
            # step once it is back): a timer tick carries every widget's value from the
            # browser and could undo a step the browser has not drawn yet.
            live = q is not None and q.status == "open"
            every = session.POLL_SECONDS if live else session.PAUSE_SECONDS if session.outage() else None
            st.fragment(run_every=every)(_instructor_fragment)()
        else:
            # Two fragments: a timer that polls the class and draws nothing (a tick that
            # finds nothing new costs a store read, not a redraw), and the class panel,
            # rerun by the timer only when what it shows changed, and by its own widgets.
            st.fragment(run_every=session.poll_seconds())(_student_fragment)()
            st.fragment(_student_panel)()
    finally:
        FULL_RUN.set(False)


def _device_script() -> None:
    """Save (or forget) this browser's instructor cookie: a reload or a restarted browser
    then takes control again (`session.resume_saved`). A script in the page itself
    (st.html with JavaScript on), in a box that takes no room; it holds no user text."""
    script = session.device_script(urlsplit(logic.app_root(st.context.url)).path or "/")
    if script is None:
        return
    st.html("<style>.st-key-class_device { display: none; }</style>")
    with st.container(key="class_device"):
        st.html(script, unsafe_allow_javascript=True)
    if session.DEVICE.get() == "forget":
        session.DEVICE.set(None)


def _ended_note() -> None:
    """This tab's class is over: say why (not as an error: nothing went wrong on this page,
    which keeps its corpus and step) until the reader dismisses it."""
    message = session.ended()
    if message:
        with st.container(border=True, key="class_ended"):
            left, right = st.columns([5, 1], vertical_alignment="center")
            left.info(md_escape(message), icon=":material/school:")
            right.button("OK", key="class_btn_dismiss", on_click=session.dismiss_ended, width="stretch")
    message = session.ERROR.pop()
    if message:
        st.error(md_error(message), icon=":material/school:")


def start_control(view: RunView) -> None:
    """Below the step area: start a class (or say which class this tab is in)."""
    role = session.role()
    state = session.current()
    # Drawn only while open (opening reruns the page): folded, its text, buttons and link
    # were rendered out of sight at every first visit. It opens by itself when a class
    # starts or ends, or has something to say; the reader may fold it again.
    if role is not None and state is not None and train_state.LAYOUT.get() == "present":
        return  # projected: the class's own panel says it all (End the class too), and the page fits
    reason = (role, session.notice())
    if reason != OPENED_FOR.get():
        OPENED_FOR.set(reason)
        # (in the presentation view, a class's own panel at the top says it all: the box
        # stays one line, so the page still fits the projector)
        present = train_state.LAYOUT.get() == "present"
        if (role is not None and not present) or session.notice():
            OPEN.set(True)
    box = folded("**Class mode**: your students follow your steps on their own screens", OPEN)
    if box is None:
        return
    with box:
        if session.notice() and role is None:
            st.error(md_error(session.notice()))
        if role == "instructor" and state is not None:
            st.caption(f"Your class **{state.display_code}** is running (its panel is at the top of the page).")
            st.button("End the class", key="class_btn_end_below", on_click=session.end_class)
            return
        if role == "student" and state is not None:
            st.caption(f"You are in class **{state.display_code}** (its banner is at the top of the page).")
            return
        corpus, _ = train_state.active_corpus()
        st.markdown(
            "Start a class on this corpus and these settings: you get a join code, a link and a QR "
            "code for the projector. Students who join see your step as you move it, and you can "
            "ask them all which pair merges next and show their answers as a chart.")
        if not corpus.shareable:
            st.warning(logic.UNSHAREABLE)
        passphrase_box()
        st.button("Start a class", icon=":material/school:", key="class_btn_start", type="primary",
                  on_click=session.start_class, disabled=not corpus.shareable)
        st.page_link("views/join_class.py", label="Have a code? Join a class", icon=":material/login:")


# ---- the instructor -------------------------------------------------------------------------
def _qr(link: str) -> bytes:
    cached = QR_CACHE.get()
    if cached is None or cached[0] != link:
        cached = (link, logic.qr_png(link))
        QR_CACHE.set(cached)
    return cached[1]


def _join_root() -> str:
    """The address the join link and the QR code use: the one typed in the panel, else
    BPE_PUBLIC_URL, else the address this page was opened at."""
    for candidate in (PUBLIC.get(), os.environ.get(logic.PUBLIC_SETTING)):
        root = logic.public_root(candidate)
        if root:
            return root
    return logic.app_root(st.context.url)


def _network_guess(root: str) -> str | None:
    """This computer's address on its network (the interface a route out would use), with
    the page's port: a guess to offer when the page was opened at localhost. No packet is
    sent (a UDP socket's connect only picks the route)."""
    import socket
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("10.255.255.255", 1))
            ip = s.getsockname()[0]
    except OSError:
        return None
    if ip.startswith("127."):
        return None
    parts = urlsplit(root)
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme or 'http'}://{ip}{port}{parts.path or '/'}"


def _on_public(wk: Key[str | None]) -> None:
    root = logic.public_root(wk.get())
    PUBLIC.set(root)
    PUBLIC_NOTE.set(None if root or not (wk.get() or "").strip() else (
        "That is not an address: type it as http://192.168.1.20:8501 (this computer's address on the "
        "room's network, and the app's port)."))


def _local_warning(root: str) -> None:
    """The join link names this computer only: say so, and take the address to use."""
    guess = _network_guess(root)
    st.warning(
        f"This page was opened at **{md_escape(urlsplit(root).netloc)}**, an address only this computer "
        "can open: students' phones cannot reach the join link or the QR code. Type the address students "
        "can open below" + (f" (this computer seems to be **{md_escape(guess)}** on its network)" if guess else "")
        + f", open this page at that address, or set {logic.PUBLIC_SETTING} when starting the app.",
        icon=":material/wifi_off:")
    _address_input(guess)


def _address_input(guess: str | None = None) -> None:
    wk = W.key("public")
    if not wk.is_set():
        wk.set(guess or "")
    st.text_input("The address students open (http://…)", key=wk, on_change=_on_public, args=(wk,),
                  max_chars=200, placeholder="http://192.168.1.20:8501")
    if PUBLIC_NOTE.get():
        st.error(md_escape(PUBLIC_NOTE.get()))


def _toggle_qr(folded: bool) -> None:
    session.QR_FOLDED.set(folded)


def _instructor_panel(view: RunView) -> None:
    state = session.current()
    if state is None:
        return
    root = _join_root()
    link = logic.join_url(root, state.join_token)
    address = html.escape(root + logic.JOIN_PAGE)
    st.html(CODE_CSS)
    with st.container(border=True, key="class_instructor_panel"):
        folded = session.qr_folded(state)
        session.QR_DRAWN.set(folded)
        if folded:
            if _beside():
                line = button = st.container()
            else:
                line, button = st.columns([5, 1.2], vertical_alignment="center")
            unreachable = ('<div class="class-unreachable">⚠ Students\' devices cannot open this address: '
                           'Show the QR code to set the one they can.</div>') if logic.is_local(root) else ""
            line.html(f'<div class="class-line">Join at <code>{address}</code> &nbsp;code '
                      f'<b class="class-code-small" data-testid="class-code">{html.escape(state.display_code)}</b></div>'
                      + unreachable)
            button.button("Show the QR code", icon=":material/qr_code_2:", key="class_btn_qr_show",
                          on_click=_toggle_qr, args=(False,), width="stretch")
        else:
            if _beside():  # a narrow column: the code under the QR code
                qr = words = st.container()
            else:
                qr, words = st.columns([1, 1.6], vertical_alignment="center")
            with qr:
                st.image(_qr(link), width=QR_WIDTH)
            with words:
                st.html(
                    '<div class="class-join">Join the class: scan the code, or open '
                    f'<code>{address}</code> and type</div>'
                    f'<div class="class-code" data-testid="class-code">{html.escape(state.display_code)}</div>'
                    '<div class="class-join">The join link (the QR code holds it):</div>')
                st.code(link, language=None)
                st.button("Fold the QR code to one line", icon=":material/unfold_less:", key="class_btn_qr_fold",
                          on_click=_toggle_qr, args=(True,))
                with st.expander("Instructor link: keep it private (it controls the class)"):
                    st.caption("Open it on another device to control the class from there too. This browser "
                               "keeps control by itself (through a reload or a restart). Do not project it: "
                               "anyone holding it can step the class.")
                    st.code(logic.instructor_url(root, state.code, session.TOKEN.get()), language=None)
        if folded:
            pass  # one line (its own warning above), nothing more
        elif logic.is_local(root):
            _local_warning(root)
        elif PUBLIC.get() or PUBLIC_NOTE.get():  # typed here: it can be changed here
            with st.expander("The join address (typed here)"):
                _address_input()
    if not session.class_step_applies(view):
        st.warning("Your page now shows another corpus or other settings than the class's: students "
                   "still see the class's run, and your steps are not sent until you go back.",
                   icon=":material/warning:")
        st.button("Back to the class's corpus and settings", key="class_btn_back_to_class",
                  on_click=session.back_to_class_run)


def _instructor_fragment() -> None:
    if session.take_app_rerun():
        st.rerun(scope="app")
    if not FULL_RUN.get() and session.outage():
        session.resend()  # the timer's tick during an outage: is the store back?
        if not session.outage():
            st.rerun(scope="app")  # back (or the class is gone): the panel says so, the timer stops
    state = session.current()
    if state is None:
        if not FULL_RUN.get():
            st.rerun(scope="app")
        return
    if session.outage():
        st.error(session.OUTAGE, icon=":material/cloud_off:")
    elif session.take_back():
        st.success(f"The class store is back: your students see step {state.step} again.",
                   icon=":material/cloud_done:")
    for message in (session.error(), session.notice()):
        if message and message != session.OUTAGE:
            st.error(md_error(message), icon=":material/error:")
    view, k = train_state.current_view(), train_state.step()
    q = state.question
    asking = q is not None and q.status == "open"
    # (beside the step, a narrow column: the two long buttons a row each, then two short ones)
    c = [st.container(), st.container(), *st.columns(2)] if _beside() else st.columns([1.4, 1, 1, 1])
    c[0].button("Ask: which pair merges next?", icon=":material/quiz:", key="class_btn_ask",
                on_click=session.open_question, disabled=asking or k >= view.steps,
                help="Puts the most frequent pairs before the next merge to every student.")
    c[1].button("Reveal the answer", key="class_btn_reveal", on_click=session.reveal,
                disabled=q is None or q.status == "revealed", type="primary" if asking else "secondary")
    c[2].button("Stop answers", key="class_btn_close", on_click=session.close_question, disabled=not asking)
    c[3].button("End the class", key="class_btn_end", on_click=session.end_class)
    if q is None:
        if train_state.LAYOUT.is_set() and train_state.LAYOUT.get() != "present":
            st.caption(f"Class {state.display_code}: step as usual, your students follow within about a second.")
        return
    tally = session.tally()
    if tally is None:
        return
    st.markdown(f"**{md_escape(q.prompt)}** — {tally.total} answer{'s' if tally.total != 1 else ''} "
                f"({'open' if asking else q.status}; asked at step {q.step})")
    st.altair_chart(logic.tally_chart(tally.counts, q.correct), width="stretch")
    if q.status == "revealed":
        _revealed_note(view, state, q)
    if tally.nicknames:
        # not projected unless the instructor asks: a nickname next to a wrong answer, on the wall
        n = len(tally.nicknames)
        if st.toggle(f"Show the {n} named answer{'s' if n != 1 else ''}", key="class_w_show_names"):
            st.markdown("Named answers: " + "; ".join(f"{md_escape(n)}: {md_escape(o)}" for n, o in tally.nicknames))


def _revealed_note(view: RunView, state, q: Question, picked: str | None = None) -> None:
    """After the reveal: the Train page's feedback on a pick (or on the winner)."""
    if not session.class_step_applies(view) or q.step >= view.steps:
        st.success("Right answers: " + ", ".join(md_escape(c) for c in q.correct))
        return
    options = logic.question_options(view, q.step, state.code)
    pair = logic.pair_of(options, picked) if picked else view.run.events[q.step].pair
    if pair is None:
        return
    fb = predict.pair_feedback(view, q.step, pair)
    st.html(f'<div class="tp-fb {"ok" if fb.ok else "bad"}">{fb.html}</div>')


# ---- students -------------------------------------------------------------------------------
def _student_fragment() -> None:
    """The timer (every POLL_SECONDS): poll the class; when it moved, put its step on the
    page; rerun the step area and the class panel only if what they show changed."""
    if session.take_app_rerun():
        st.rerun(scope="app")
    full = bool(FULL_RUN.get())
    state, _changed = session.poll()
    if session.role() is None or state is None:  # the class ended or expired
        st.rerun(scope="app")  # the next full run says why and stops the timer
    session.note_fragment(session.POLL_FRAGMENT)
    session.wake_me()  # the class's next change reruns this session at once (push)
    view = train_state.current_view()
    moved = session.apply_class_step(view)
    if full:
        return  # the class panel and the step area are drawn next in this run
    stale = [session.PANEL_FRAGMENT] if _panel_signature(state, view) != PANEL_SHOWN.get() else []
    # a new step (or one the step area has not drawn yet), or a question opened or revealed
    if moved or session.hidden_changed(view) or session.step_undrawn():
        stale.append(session.STEP_FRAGMENT)
    if stale:
        session.rerun_fragments(stale)


def panel_stale(view: RunView) -> bool:
    """Whether a student's class panel shows something that no longer holds (a following
    student's step area, woken alone, then reruns it: `hooks.after_draw`)."""
    state = session.current()
    return state is not None and _panel_signature(state, view) != PANEL_SHOWN.get()


def _panel_signature(state, view: RunView) -> tuple:
    """Everything the class panel shows depends on (not the class's version: an answer
    arriving changes it, and students do not see the tally)."""
    following = session.following()
    # While following, the banner does not name the step (the sticky step bar below shows
    # it): a new step then reruns the step area alone, not the banner too, for every
    # student of the class at once.
    # (whether the question is about the class's step: once it moves on, the box says so)
    q_now = state.question is not None and state.question.step == state.step
    return (state.code, None if following else state.step, state.question, q_now, following,
            session.error(), session.notice(), session.my_answer(), view.key)


def _student_panel() -> None:
    """The class banner (follow or explore, the class's step) and the question."""
    if session.take_app_rerun():
        st.rerun(scope="app")  # Rejoin: the class's corpus and step go on the whole page
    state = session.current()
    if session.role() != "student" or state is None:
        return
    session.note_fragment(session.PANEL_FRAGMENT)
    view = train_state.current_view()
    shown = _panel_signature(state, view)
    _student_banner(state)
    _student_question(view, state)
    # Recorded once drawn in full: a run cut short (a rerun request arriving mid-draw ends
    # it early, and the browser then clears none of its stale elements, e.g. an answered
    # question's form) leaves the old record, so the next tick draws the panel again.
    PANEL_SHOWN.set(shown)


def _student_banner(state) -> None:
    with st.container(border=True, key="class_student_banner"):
        left, right = st.columns([3, 1.2], vertical_alignment="center")
        if session.following():
            left.markdown(f":material/school: **Class {state.display_code}**: you follow the instructor; "
                          "the step bar below moves with theirs. Click Step or Explore on my own to "
                          "explore alone; you can rejoin any time.")
            right.button("Explore on my own", key="class_btn_detach", on_click=session.detach, width="stretch")
        else:
            left.markdown(f":material/school: **Class {state.display_code}**: the instructor is at step "
                          f"**{state.step}**; you are exploring on your own.")
            right.button(f"Rejoin at step {state.step}", key="class_btn_rejoin", on_click=session.rejoin,
                         type="primary", width="stretch")
        for message in (session.error(), session.notice()):
            if message:
                st.error(md_error(message), icon=":material/error:")


def _student_question(view: RunView, state) -> None:
    q = state.question
    if q is None:
        return
    mine = session.my_answer()
    with st.container(border=True, key="class_question"):
        if state.step != q.step:  # the class moved on: the question is not about this step
            st.info(f"The question about merge {q.step + 1} is over: the class has moved on.",
                    icon=":material/check_circle:")
            return
        st.markdown(f"**{md_escape(q.prompt)}**")
        if q.status == "open" and mine is None:
            wk = W.key(f"pick_{q.number}")
            st.radio("Your answer", list(q.options), key=wk, index=None, format_func=md_escape,
                     horizontal=True)
            st.text_input("Nickname (optional: without one your answer is anonymous)", key=NICK_BOX,
                          max_chars=NICKNAME_MAX, value=session.NICK.get() or "",
                          on_change=_on_nick, args=(NICK_BOX,))
            st.button("Send my answer", key="class_btn_answer", type="primary",
                      on_click=_on_answer, args=(wk,))
        elif q.status != "revealed":
            if mine is not None:
                st.info(f"You answered **{md_escape(mine)}**. The instructor reveals the answer soon.")
            else:
                st.info("Answers are closed; the instructor reveals the answer soon.")
        else:
            right = mine is not None and mine in q.correct
            if mine is None:
                st.info("Right answers: " + ", ".join(md_escape(c) for c in q.correct))
            elif right:
                st.success(f"You answered **{md_escape(mine)}**: right.")
            else:
                st.warning(f"You answered **{md_escape(mine)}**: not this time.")
            _revealed_note(view, state, q, mine)


def _on_nick(wk: Key[str | None]) -> None:
    session.NICK.set((wk.get() or "").strip()[:NICKNAME_MAX] or None)


def _on_answer(wk: Key[str | None]) -> None:
    pick = wk.get()
    if pick is None:
        session.NOTICE.set("Choose a pair, then send your answer.")
        return
    _on_nick(NICK_BOX)
    session.answer(pick)


# ---- the teach page -------------------------------------------------------------------------
TEACH_PRESENT: Key[bool] = W.key("teach_present", True)


def passphrase_box() -> None:
    """The instructor passphrase, where a class is started, when the server asks for one
    (BPE_CLASS_PASSPHRASE); `session.start_class` reads it once and clears it."""
    if session.class_store().needs_passphrase:
        st.text_input("Instructor passphrase (this server asks for one to start a class)",
                      key=session.PASSPHRASE, type="password", max_chars=200)


def teach_page() -> None:
    """Teach a class: start one on the Train page's corpus and settings, or go back to the
    class this browser runs."""
    train_state.init()
    st.title("Teach a class")
    if session.role() is None and session.resume_saved():
        st.switch_page("views/train.py")  # this browser runs a class: back to it
    if GO_TRAIN.pop():
        st.switch_page("views/train.py")
    state = session.current()
    if session.role() == "instructor" and state is not None:
        st.success(f"You are running class **{state.display_code}**.", icon=":material/school:")
        st.page_link("views/train.py", label="Go to your class", icon=":material/arrow_forward:")
        return
    st.markdown(
        "Your students follow your steps on their own screens (a phone is enough): start a class, "
        "project the page, and they join by its QR code or its code. Ask them all which pair merges "
        "next and show their answers as a chart. This browser keeps control of the class, through a "
        "reload or a restart; nobody without its instructor link can step it.")
    view = train_state.ensure_run()
    corpus, settings = train_state.active_corpus()
    st.markdown(f"The class starts on **{md_escape(train_state.describe(corpus, settings))}** at step "
                f"{min(train_state.step(), view.steps)}.")
    st.page_link("views/train.py", label="Choose another corpus or other settings on the Train page first",
                 icon=":material/tune:")
    st.toggle("Presentation view (large type, for a projector)", value=True, key=TEACH_PRESENT)
    if not corpus.shareable:
        st.warning(logic.UNSHAREABLE)
    if session.notice():
        st.error(md_error(session.notice()), icon=":material/error:")
    passphrase_box()
    st.button("Start a class", icon=":material/school:", key="class_btn_teach", type="primary",
              on_click=_on_teach, disabled=not corpus.shareable)
    st.page_link("views/join_class.py", label="A student? Join a class", icon=":material/login:")


def _on_teach() -> None:
    if TEACH_PRESENT.get():
        train_state.LAYOUT.set("present")
    session.start_class()
    if session.role() == "instructor":
        GO_TRAIN.set(True)


# ---- the join page --------------------------------------------------------------------------
def join_page() -> None:
    train_state.init()
    st.title("Join a class")
    params = {k: st.query_params[k] for k in st.query_params}
    tried = session.TRIED.init()
    if "teach" in params:
        took = False
        try:
            attempt = ("teach", params.get("code", ""), params["teach"])
            if attempt not in tried:
                tried.add(attempt)
                took = session.take_control(params.get("code", ""), params["teach"])
        finally:  # the instructor token leaves the address bar (and the history), whatever happened
            st.query_params.clear()
        if took:
            st.switch_page("views/train.py")
    elif "resume" in params:  # deploy/'s nginx answered an instructor link with its cookie
        st.query_params.clear()
        saved = session.saved_control()
        attempt = ("resume", *saved) if saved else ("resume",)
        if attempt not in tried:
            tried.add(attempt)
            if saved is None:
                session.NOTICE.set("This browser sent no instructor cookie: allow cookies for this site, "
                                   "or open the instructor link again.")
            elif session.take_control(*saved):
                st.switch_page("views/train.py")
            else:
                session.forget_device()
    elif "class" in params or "code" in params:
        value = params.get("class") or params.get("code") or ""
        attempt = ("join", value)
        if attempt not in tried:
            tried.add(attempt)
            if session.join(value):
                st.switch_page("views/train.py")
    if GO_TRAIN.pop():
        st.switch_page("views/train.py")
    if session.notice():
        st.error(md_error(session.notice()), icon=":material/error:")
    state = session.current()
    if state is not None:
        st.info(f"You are in class **{state.display_code}**.")
        st.page_link("views/train.py", label="Go to the class", icon=":material/school:")
    st.markdown("Type the code on the instructor's screen (letters and digits; case and dashes "
                "do not matter), or open the link the instructor shared.")
    with st.form("class_join_form", border=True):
        st.text_input("Class code", key=CODE_BOX, max_chars=CODE_LENGTH + 4, placeholder="7K3Q-X9M2")
        st.text_input("Nickname (optional: without one your answers are anonymous)", key=JOIN_NICK_BOX,
                      max_chars=NICKNAME_MAX)
        st.form_submit_button("Join", type="primary", key="class_btn_join", on_click=_on_join)
    _device_script()  # deletes an instructor cookie that a wrong link (through deploy/'s nginx) left


def _on_join() -> None:
    code = (CODE_BOX.get() or "").strip()
    if not code:
        session.NOTICE.set("Type the class code first.")
        return
    if session.join(code, JOIN_NICK_BOX.get()):
        GO_TRAIN.set(True)
