"""The documented deployment (deploy/run_local.sh: nginx, two Streamlit processes, Redis)
in a real browser: an instructor link opened on a second device takes control of the
class and leaves no entry with its token in the browser's history (issue 27, defect 1).

Streamlit pushes a new history entry when a page clears its query parameters, so a page
alone cannot keep the link's address out of the history (docs/class_mode.md); deploy/'s
nginx answers the link with a 303 and the instructor cookie, and browsers record only the
address they are redirected to. Screenshot: test-artifacts/deploy-instructor-link.png.
"""
from __future__ import annotations

from playwright.sync_api import expect

from tests.browser.test_class_browser import PROJECTOR, click, expect_step, idle, settled
from tests.test_deploy import deployment  # noqa: F401  (the fixture: run_local.sh on free ports)


def _history(page) -> list[str]:
    """Every address in the tab's session history (Chromium's own list, as Back walks it)."""
    cdp = page.context.new_cdp_session(page)
    try:
        return [e["url"] for e in cdp.send("Page.getNavigationHistory")["entries"]]
    finally:
        cdp.detach()


def test_the_instructor_link_through_the_proxy_leaves_no_token_in_the_history(browser, deployment, artifacts):  # noqa: F811
    base = deployment["base"]
    teacher_ctx = browser.new_context(viewport=PROJECTOR)
    laptop_ctx = browser.new_context(viewport={"width": 1440, "height": 900})
    try:
        teacher = teacher_ctx.new_page()
        teacher.set_default_timeout(20_000)
        teacher.goto(f"{base}/train-bpe?preset=sennrich")
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
        assert teach_link.startswith(base + "/join?") and "teach=" in teach_link
        code = teach_link.split("code=")[1].split("&")[0]
        token = teach_link.split("teach=")[1].split("&")[0]

        laptop = laptop_ctx.new_page()
        laptop.set_default_timeout(20_000)
        laptop.goto(f"{base}/")  # the device had a page open before the link
        expect(laptop.get_by_test_id("stApp")).to_be_visible(timeout=60_000)
        laptop.goto(teach_link)
        expect(laptop.locator(".st-key-class_instructor_panel").get_by_test_id("class-code")).to_be_visible(timeout=60_000)
        settled(laptop)
        idle(laptop)
        expect(laptop.get_by_test_id("stException")).to_have_count(0)
        laptop.screenshot(path=str(artifacts / "deploy-instructor-link.png"))
        cookies = {c["name"]: c for c in laptop_ctx.cookies()}
        assert cookies["bpe_class_teach"]["value"] == f"{code}.{token}"
        assert cookies["bpe_class_teach"]["sameSite"] == "Strict"
        click(laptop, "train_w_btn_step")  # the second device steps the class
        expect_step(laptop, 1)
        idle(laptop)
        history = _history(laptop)
        assert not [u for u in history if token in u or "teach=" in u], history
        assert [u for u in history if u != "about:blank"][0].rstrip("/") == base, history  # all of it
        assert f"{base}/join?resume=1" in history, history
    finally:
        laptop_ctx.close()
        teacher_ctx.close()
