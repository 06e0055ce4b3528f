"""Class mode in a real browser: two browser contexts (two people), one server.

The instructor (a 1920x1080 projector-sized window) opens the Train page and starts a
class; the student (a 390x844 phone) opens the join link; the instructor clicks Step and
the student's page shows the new step by itself, without a reload (its fragment polls the
class every second). Then the instructor asks which pair merges next, the student
answers, and the instructor reveals. Screenshots in test-artifacts/: class-projector.png
(the join code and QR code as the room sees them), class-student-phone.png,
class-student-question.png and class-instructor-reveal.png.
"""
from __future__ import annotations

import re

from playwright.sync_api import Page, expect

PROJECTOR = {"width": 1920, "height": 1080}
PHONE = {"width": 390, "height": 844}


def idle(page: Page) -> None:
    expect(page.get_by_test_id("stApp")).to_have_attribute("data-test-script-state", "notRunning", timeout=30_000)


def click(page: Page, key: str) -> None:
    idle(page)
    page.locator(f".st-key-{key} button:visible").click()


def expect_step(page: Page, k: int, timeout: float = 30_000) -> None:
    """The page shows step k (a follower's poll comes every second; the timeout only
    allows for a busy machine)."""
    expect(page.locator(".st-key-train_w_step:not([data-stale=true])")).to_contain_text(f"Step {k} of", timeout=timeout)


def settled(page: Page) -> None:
    """Every widget's code has loaded (Streamlit draws skeletons until then)."""
    expect(page.get_by_test_id("stSkeleton")).to_have_count(0, timeout=60_000)


def _expect_qr_reads(path, link: str) -> None:
    """A real QR reader finds exactly the join link in the projector screenshot."""
    try:
        import zxingcpp
        from PIL import Image
    except ImportError:  # requirements-dev.txt pins zxing-cpp; without it only the size is checked
        return
    assert [r.text for r in zxingcpp.read_barcodes(Image.open(path))] == [link]


def test_student_follows_the_instructor_without_reload(browser, app_url, artifacts):
    teacher_ctx = browser.new_context(viewport=PROJECTOR)
    student_ctx = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True, device_scale_factor=2)
    try:
        teacher = teacher_ctx.new_page()
        teacher.set_default_timeout(20_000)
        teacher.goto(f"{app_url}/train-bpe?preset=sennrich")
        settled(teacher)
        expect_step(teacher, 0, timeout=60_000)
        idle(teacher)
        teacher.get_by_text("Class mode", exact=False).first.click()
        # opening the box reruns the page, which draws the button: click it once that run is over
        expect(teacher.locator(".st-key-class_btn_start button")).to_be_visible(timeout=30_000)
        click(teacher, "class_btn_start")
        panel = teacher.locator(".st-key-class_instructor_panel")
        expect(panel.get_by_test_id("class-code")).to_have_text(re.compile(r"^[0-9A-Z]{4}-[0-9A-Z]{4}$"))
        link = panel.locator("code", has_text="join?class=").first.inner_text().strip()
        assert link.startswith(app_url + "/join?class=")
        expect(panel.locator("img").first).to_be_visible()
        idle(teacher)
        panel.evaluate("e => e.scrollIntoView({block: 'start'})")
        teacher.screenshot(path=str(artifacts / "class-projector.png"))
        box = panel.locator("img").first.bounding_box()
        assert box["width"] >= 330, box  # big enough to scan from the back of a room
        _expect_qr_reads(artifacts / "class-projector.png", link)

        student = student_ctx.new_page()
        student.set_default_timeout(20_000)
        student.goto(link)
        expect(student.locator(".st-key-class_student_banner")).to_contain_text("you follow the instructor", timeout=60_000)
        settled(student)
        expect_step(student, 0)
        reloads = []
        student.on("load", lambda _: reloads.append(1))

        click(teacher, "train_w_btn_step")
        expect_step(teacher, 1)
        expect_step(student, 1)  # within the timeout, by polling: no reload, no click
        click(teacher, "train_w_btn_step")
        expect_step(teacher, 2)
        expect_step(student, 2)
        assert not reloads
        expect(student.locator(".st-key-class_student_banner")).to_contain_text("you follow the instructor")
        idle(student)
        student.screenshot(path=str(artifacts / "class-student-phone.png"), full_page=False)

        # predict together
        click(teacher, "class_btn_ask")
        question = student.locator(".st-key-class_question")
        expect(question).to_contain_text("Which pair merges next (merge 3)?", timeout=30_000)
        idle(student)
        question.get_by_role("radio").first.check(force=True)
        idle(student)
        click(student, "class_btn_answer")
        expect(question).to_contain_text("You answered")
        # answered: the form is gone (not left faded under the answer), even after ticks
        expect(student.locator(".st-key-class_btn_answer")).to_have_count(0)
        idle(student)
        expect(question.get_by_role("radio")).to_have_count(0)
        student.screenshot(path=str(artifacts / "class-student-question.png"))
        expect(teacher.get_by_text(re.compile(r"— 1 answer \("))).to_be_visible(timeout=30_000)
        click(teacher, "class_btn_reveal")
        expect(question).to_contain_text(re.compile(r"right|not this time"), timeout=30_000)
        idle(teacher)
        teacher.screenshot(path=str(artifacts / "class-instructor-reveal.png"), full_page=True)
        assert not reloads
    finally:
        student_ctx.close()
        teacher_ctx.close()


def test_the_instructor_link_takes_control_and_leaves_no_token_in_the_address(browser, app_url, artifacts):
    """Issue 27, defect 1: the instructor link crashed (an AttributeError on the page) after
    taking the role, before the token was cleared, so the secret stayed in the address bar.
    A second device opens the link: it controls the class, shows no exception, and its
    address ends without `teach=`; a wrong token gives no control and is cleared too."""
    teacher_ctx = browser.new_context(viewport=PROJECTOR)
    laptop_ctx = browser.new_context(viewport={"width": 1440, "height": 900})
    try:
        teacher = teacher_ctx.new_page()
        teacher.set_default_timeout(20_000)
        teacher.goto(f"{app_url}/train-bpe?preset=sennrich")
        settled(teacher)
        expect_step(teacher, 0, timeout=60_000)
        idle(teacher)
        teacher.get_by_text("Class mode", exact=False).first.click()
        expect(teacher.locator(".st-key-class_btn_start button")).to_be_visible(timeout=30_000)
        click(teacher, "class_btn_start")
        panel = teacher.locator(".st-key-class_instructor_panel")
        expect(panel.get_by_test_id("class-code")).to_be_visible()
        idle(teacher)
        panel.get_by_text("Instructor link: keep it private").click()
        teach_link = panel.locator("code", has_text="teach=").first.inner_text().strip()
        assert "teach=" in teach_link and teach_link.startswith(app_url + "/join?")

        laptop = laptop_ctx.new_page()
        laptop.set_default_timeout(20_000)
        laptop.goto(teach_link.replace("teach=", "teach=x"))  # a wrong token first
        expect(laptop.get_by_role("heading", name="Join a class", exact=True)).to_be_visible(timeout=60_000)
        idle(laptop)
        expect(laptop.get_by_test_id("stException")).to_have_count(0)
        assert "teach=" not in laptop.url, laptop.url
        expect(laptop.locator(".st-key-class_instructor_panel")).to_have_count(0)

        laptop.goto(teach_link)
        expect(laptop.locator(".st-key-class_instructor_panel").get_by_test_id("class-code")).to_be_visible(timeout=60_000)
        settled(laptop)
        idle(laptop)
        expect(laptop.get_by_test_id("stException")).to_have_count(0)
        assert "teach=" not in laptop.url, laptop.url
        laptop.screenshot(path=str(artifacts / "class-instructor-link.png"))
        click(laptop, "train_w_btn_step")  # the second device steps the class
        expect_step(laptop, 1)
        idle(laptop)
        assert "teach=" not in laptop.url, laptop.url
    finally:
        laptop_ctx.close()
        teacher_ctx.close()


def start_class(teacher: Page, url: str) -> str:
    """Open the Train page at `url`, start a class; returns the join link."""
    teacher.goto(url)
    settled(teacher)
    expect_step(teacher, 0, timeout=60_000)
    idle(teacher)
    teacher.get_by_text("Class mode", exact=False).first.click()
    expect(teacher.locator(".st-key-class_btn_start button")).to_be_visible(timeout=30_000)
    click(teacher, "class_btn_start")
    panel = teacher.locator(".st-key-class_instructor_panel")
    expect(panel.get_by_test_id("class-code")).to_be_visible()
    return panel.locator("code", has_text="join?class=").first.inner_text().strip()


def test_a_reload_and_a_restarted_browser_keep_the_instructors_control(browser, app_url, artifacts):
    """Issue 27, defect 3: F5 on the instructor's page dropped control. The page keeps the
    token in a cookie its own script writes (never in a link): a reload, and a new browser
    context with the same storage (a restarted browser), show the class panel again at the
    class's step and step the class; a browser without that storage gets no control."""
    teacher_ctx = browser.new_context(viewport=PROJECTOR)
    contexts = [teacher_ctx]
    try:
        teacher = teacher_ctx.new_page()
        teacher.set_default_timeout(20_000)
        start_class(teacher, f"{app_url}/train-bpe?preset=sennrich")
        click(teacher, "train_w_btn_step")
        expect_step(teacher, 1)
        click(teacher, "train_w_btn_step")
        expect_step(teacher, 2)
        idle(teacher)
        code = teacher.get_by_test_id("class-code").inner_text()
        cookies = {c["name"]: c for c in teacher_ctx.cookies()}
        assert "bpe_class_teach" in cookies and cookies["bpe_class_teach"]["sameSite"] == "Strict"
        assert cookies["bpe_class_teach"]["expires"] > 0  # kept across a browser restart
        assert "teach=" not in teacher.url

        teacher.reload()
        expect(teacher.get_by_test_id("class-code")).to_have_text(code, timeout=60_000)
        settled(teacher)
        expect_step(teacher, 2)
        idle(teacher)
        expect(teacher.get_by_test_id("stException")).to_have_count(0)
        teacher.screenshot(path=str(artifacts / "class-instructor-after-reload.png"))
        click(teacher, "train_w_btn_step")
        expect_step(teacher, 3)

        restarted_ctx = browser.new_context(viewport=PROJECTOR, storage_state=teacher_ctx.storage_state())
        contexts.append(restarted_ctx)
        again = restarted_ctx.new_page()
        again.set_default_timeout(20_000)
        again.goto(f"{app_url}/train-bpe")
        expect(again.get_by_test_id("class-code")).to_have_text(code, timeout=60_000)
        settled(again)
        expect_step(again, 3)

        stranger_ctx = browser.new_context(viewport=PROJECTOR)
        contexts.append(stranger_ctx)
        stranger = stranger_ctx.new_page()
        stranger.goto(f"{app_url}/train-bpe?preset=sennrich")
        settled(stranger)
        expect_step(stranger, 0, timeout=60_000)
        idle(stranger)
        expect(stranger.locator(".st-key-class_instructor_panel")).to_have_count(0)
    finally:
        for ctx in contexts:
            ctx.close()
