"""The playground in a real browser: Playwright driving the system chromium (Debian's
/usr/bin/chromium; never a downloaded build) against a live server with a fixed clock. Also the
pages around it: a page on another site and a DNS-rebinding page (names mapped to 127.0.0.1 by
chromium's resolver rules, no DNS) get nothing, and /docs renders from this origin alone.

Skipped without chromium or Playwright, except under CI=true, where .ci/run installs both and
their absence is a failure. A screenshot of the page is left in test-artifacts/ (or
$TEST_ARTIFACTS_DIR) for a person to look at.
"""

from __future__ import annotations

import http.server
import json
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

import pytest
from sqlmodel import select

from app.errors import error_body
from core.models import Task
from support.harness import NOW, TZ, Harness, in_ci
from support.live import serve

CHROMIUM = Path(os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium"))
ARTIFACTS = Path(os.environ.get("TEST_ARTIFACTS_DIR", Path(__file__).resolve().parents[2] / "test-artifacts"))
TIMEOUT_MS = 20_000
# What the page records as it changes (a MutationObserver, installed before the page's own script):
# each stage line with whether its panel was open then, and each change of an answer's text.
RECORDER = """
window.__seen = [];
new MutationObserver((records) => {
  for (const r of records) {
    const target = r.target.nodeType === 1 ? r.target : r.target.parentElement;
    for (const n of r.addedNodes) {
      if (n.nodeType === 1 && n.parentElement && n.parentElement.classList.contains("stages")) {
        window.__seen.push({kind: "stage", open: n.closest("details").open, text: n.textContent});
      }
    }
    if (target && target.classList && target.classList.contains("answer") && target.textContent !== "…") {
      window.__seen.push({kind: "content", text: target.textContent});
    }
  }
}).observe(document, {subtree: true, childList: true, characterData: true});
"""


def _skip_or_fail(reason: str) -> NoReturn:
    if in_ci():
        pytest.fail(f"{reason} (CI=true: .ci/run installs it)")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def playwright() -> Iterator[Any]:
    if not CHROMIUM.exists():
        _skip_or_fail(f"no chromium at {CHROMIUM}")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _skip_or_fail("playwright is not installed")
    with sync_playwright() as p:
        yield p


@pytest.fixture(scope="module")
def browser(playwright: Any) -> Iterator[Any]:
    b = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True)
    yield b
    b.close()


@dataclass
class Site:
    url: str
    harness: Harness


@pytest.fixture
def site(harness: Harness) -> Iterator[Site]:
    with serve(harness.state) as base_url:
        yield Site(base_url.removesuffix("/v1") + "/", harness)


def open_page(browser: Any, site: Site, *, width: int = 1280, height: int = 860) -> Any:
    """A fresh browser profile in the scenario's timezone, its clock at the server's fixed now."""
    context = browser.new_context(viewport={"width": width, "height": height}, timezone_id=TZ, locale="zh-CN")
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()
    page.clock.set_fixed_time(NOW)
    page.add_init_script(RECORDER)
    page.goto(site.url)
    return page


def ask(page: Any, text: str) -> Any:
    """Types `text`, sends it with Enter, waits for its answer; returns the answer's block."""
    before = page.locator(".turn-bot").count()
    page.fill("#input", text)
    page.press("#input", "Enter")
    turn = page.locator(".turn-bot").nth(before)
    turn.locator("details.thinking:not(.live)").wait_for(state="attached")
    return turn


def week_of_tasks(h: Harness, user: str) -> None:
    """Eight tasks due this week (Mon 2026-11-30 .. Sun 12-06), one overdue, one promoted."""
    h.add("整理发票", 3, "2026-11-29 18:00", user=user)  # overdue
    h.add("交季度报告", 2, "2026-12-01 09:00", user=user, threshold="2026-11-30 09:00")  # promoted 2 → 1
    for i, day in enumerate(("01 15:00", "02 10:00", "02 18:00", "03 12:00", "04 09:00", "05 20:00")):
        h.add(f"本周任务{i + 1}", 1 + i % 4, f"2026-12-{day}", user=user)


def save_screenshot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / name), full_page=True)


def test_a_query_streams_its_stages_then_a_follow_up_pages_on(browser: Any, site: Site) -> None:
    week_of_tasks(site.harness, "local")  # keyless mode: the local user
    page = open_page(browser, site)
    tasks = page.locator("#tasks li")
    tasks.first.wait_for()
    assert tasks.count() == 8
    assert page.locator("#tasks li", has_text="整理发票").locator(".badge.overdue").inner_text() == "已逾期"
    assert page.locator("#tasks li", has_text="交季度报告").locator(".badge.promoted").inner_text() == "临近截止提前"
    assert page.locator("#tasks .badge").count() == 2

    sent: list[dict[str, Any]] = []
    page.on("request", lambda r: sent.append(json.loads(r.post_data)) if r.url.endswith("/completions") else None)
    first = ask(page, "这周有什么要交的")
    seen = page.evaluate("window.__seen")
    stages = [s for s in seen if s["kind"] == "stage"]
    first_content = next(i for i, s in enumerate(seen) if s["kind"] == "content")
    # Stage lines arrived one by one into an open panel, all before the answer began.
    assert len(stages) >= 8 and all(s["open"] for s in stages)
    assert all(s["kind"] == "stage" for s in seen[:first_content])
    assert any(s["text"].startswith("plan") and "理解问题" in s["text"] for s in stages)
    # Afterwards the panel is collapsed, and opens on a click.
    panel = first.locator("details.thinking")
    assert panel.get_attribute("open") is None
    assert first.locator(".stages li").first.is_hidden()
    panel.locator("summary").click()
    assert first.locator(".stages li").first.is_visible()
    answer = first.locator(".answer").inner_text()
    assert "1. " in answer and "5. " in answer and "6. " not in answer
    assert "[suikou]" not in answer  # the record is kept, not shown

    second = ask(page, "再来两个")
    more = second.locator(".answer").inner_text()
    assert "共 7 条匹配" in more and "6. " in more and "7. " in more  # numbered on from the first page
    # The whole history went back, the first answer verbatim with its record.
    assert [m["role"] for m in sent[1]["messages"]] == ["user", "assistant", "user"]
    assert '[suikou]: # "q1.' in sent[1]["messages"][1]["content"]
    assert sent[1]["stream"] is True and sent[1]["model"] == "suikou"
    shown = {line.split("（")[0] for line in (answer + "\n" + more).splitlines() if line[:1].isdigit()}
    assert len(shown) == 7  # the follow-up showed two tasks not shown before
    panel.locator("summary").click()  # closed again: the page as it rests
    assert first.locator(".stages li").first.is_hidden()
    save_screenshot(page, "playground.png")

    page.click("#newChat")
    assert page.locator(".turn-bot").count() == 0 and page.locator("#welcome").is_visible()


def test_a_note_appears_in_the_task_list_and_undo_removes_it(browser: Any, site: Site) -> None:
    page = open_page(browser, site)
    page.locator("#tasksNote", has_text="还没有待办").wait_for()
    save_screenshot(page, "playground-welcome.png")  # what a new user sees first
    page.click("#examples button:text-is('帮我记一下明天下午三点交报告')")
    task = page.locator("#tasks li", has_text="交报告")
    task.wait_for()
    assert task.locator(".deadline").inner_text() == "截止 12月1日 周二 15:00"
    assert page.locator(".turn-bot .answer").last.inner_text().startswith("好，已记下：交报告")
    undo = ask(page, "撤销")
    assert "交报告" in undo.locator(".answer").inner_text()
    page.locator("#tasksNote", has_text="还没有待办").wait_for()
    assert page.locator("#tasks li").count() == 0


def test_with_keys_a_wrong_key_is_told_and_the_right_one_works(browser: Any, site: Site) -> None:
    key = site.harness.api_key("alice")
    site.harness.add("买牛奶 <img src=x onerror=alert(1)>", 3, "2026-12-01 20:00")
    page = open_page(browser, site)
    message = page.locator("#keyMessage")
    message.wait_for()
    assert message.inner_text().startswith("需要 API key：")
    assert page.locator("#tasks li").count() == 0

    page.fill("#keyInput", "sk-wrong")
    page.press("#keyInput", "Enter")
    page.locator("#keyMessage", has_text="API key 不正确").wait_for()
    assert "Incorrect API key" in message.inner_text()
    # A message sent with the wrong key comes back to the input, not into a blank page.
    page.fill("#input", "来一个简单的任务")
    page.press("#input", "Enter")
    # Cleared on send; after the 401 the turn is taken back and the words return to the input.
    page.wait_for_function(
        "() => !document.querySelector('.turn-bot') && document.getElementById('input').value === '来一个简单的任务'"
    )
    assert page.locator("#keyPanel").is_visible()

    page.fill("#keyInput", key)
    page.press("#keyInput", "Enter")
    page.locator("#tasks li", has_text="买牛奶").wait_for()
    assert page.locator("#keyPanel").is_hidden()
    assert page.evaluate("localStorage.getItem('suikou.apiKey')") == key
    answer = ask(page, "来一个简单的任务").locator(".answer").inner_text()
    # A title that looks like HTML is shown as the text it is, in the list and in the answer.
    assert "买牛奶 <img src=x onerror=alert(1)>" in answer
    assert page.locator("#tasks .task-title").inner_text() == "买牛奶 <img src=x onerror=alert(1)>"
    assert page.locator("img").count() == 0


def test_a_refusal_that_arrives_after_the_right_key_does_not_ask_again(browser: Any, site: Site) -> None:
    key = site.harness.api_key("alice")
    site.harness.add("交水费", 3, "2026-12-01 20:00", user="alice")
    page = open_page(browser, site)
    page.locator("#keyMessage").wait_for()
    # The chat request sent with the wrong key is refused only once the right key is in.
    held: list[Any] = []
    page.route("**/v1/chat/completions", lambda route: held.append(route))
    page.fill("#keyInput", "sk-wrong")
    page.press("#keyInput", "Enter")
    page.locator("#keyMessage", has_text="API key 不正确").wait_for()
    page.fill("#input", "来一个简单的任务")
    page.press("#input", "Enter")
    # The handler runs when Playwright next dispatches events: wait on it, not on the page.
    for _ in range(500):
        if held:
            break
        page.wait_for_timeout(20)
    assert len(held) == 1
    page.fill("#keyInput", key)
    page.press("#keyInput", "Enter")
    page.locator("#tasks li", has_text="交水费").wait_for()
    held[0].continue_()  # still carries the wrong key: a 401
    page.wait_for_function("() => document.getElementById('input').value === '来一个简单的任务'")
    assert page.locator("#keyPanel").is_hidden()
    assert page.evaluate("localStorage.getItem('suikou.apiKey')") == key


def test_on_a_phone_the_task_list_is_below_the_chat(browser: Any, site: Site) -> None:
    week_of_tasks(site.harness, "local")
    page = open_page(browser, site, width=390, height=844)
    page.locator("#tasks li").first.wait_for()
    ask(page, "来一个简单的任务")
    chat, tasks = page.locator("#chat").bounding_box(), page.locator("aside").bounding_box()
    assert tasks["y"] >= chat["y"] + chat["height"]
    assert chat["width"] <= 390 and tasks["width"] <= 390
    assert page.evaluate("document.documentElement.scrollWidth") <= 390  # nothing sideways
    save_screenshot(page, "playground-phone.png")
    # A new task is lit in the list below, but the page does not jump away from the chat to show it.
    ask(page, "帮我记一下明天下午三点买花")
    page.locator("#tasks li.fresh", has_text="买花").wait_for(state="attached")
    assert page.evaluate("window.scrollY") == 0


# --- composing, following what changed, and errors ---------------------------------------------


def height(page: Any, selector: str) -> float:
    return float(page.locator(selector).bounding_box()["height"])


def test_the_input_grows_with_its_lines_and_enter_sends_unless_composing(browser: Any, site: Site) -> None:
    page = open_page(browser, site)
    one_line = height(page, "#input")
    page.click("#input")
    page.keyboard.type("第一行")
    for line in ("第二行", "第三行"):
        page.keyboard.press("Shift+Enter")  # a new line, not a send
        page.keyboard.type(line)
    assert page.input_value("#input") == "第一行\n第二行\n第三行"
    assert page.locator(".turn-user").count() == 0
    three_lines = height(page, "#input")
    assert three_lines >= one_line + 40  # two more lines of ~24px each

    page.fill("#input", "\n".join(f"第{i}行" for i in range(20)))
    assert height(page, "#input") == 160  # its max-height: past a few lines it scrolls
    assert page.evaluate(
        "(() => { const i = document.getElementById('input'); return i.scrollHeight > i.clientHeight })()"
    )

    # Enter while an IME is composing picks characters: it neither sends nor is swallowed.
    page.fill("#input", "ni")
    taken = page.evaluate(
        """() => {
            const ev = new KeyboardEvent("keydown", {key: "Enter", isComposing: true, bubbles: true, cancelable: true});
            document.getElementById("input").dispatchEvent(ev);
            return ev.defaultPrevented;
        }"""
    )
    assert taken is False and page.locator(".turn-user").count() == 0

    page.fill("#input", "你好\n在吗")
    page.press("#input", "Enter")
    page.locator(".turn-bot details.thinking:not(.live)").wait_for(state="attached")
    assert page.locator(".turn-user").first.inner_text() == "你好\n在吗"
    assert page.input_value("#input") == "" and height(page, "#input") == one_line  # shrinks back once sent


def in_view(page: Any, node: Any, box_selector: str) -> bool:
    inner, outer = node.bounding_box(), page.locator(box_selector).bounding_box()
    return bool(inner["y"] >= outer["y"] - 1 and inner["y"] + inner["height"] <= outer["y"] + outer["height"] + 1)


def test_a_task_a_turn_wrote_is_lit_and_scrolled_into_view(browser: Any, site: Site) -> None:
    for i in range(25):  # due before the new one: it lands far down the list
        site.harness.add(f"今天的事{i + 1}", 2, "2026-11-30 12:00", user="local")
    page = open_page(browser, site)
    page.locator("#tasks li").first.wait_for()
    page.click("#examples button:text-is('帮我记一下明天下午三点交报告')")
    fresh = page.locator("#tasks li.fresh")
    fresh.wait_for()
    assert fresh.count() == 1 and "交报告" in fresh.inner_text()
    assert in_view(page, fresh, "#tasks")
    assert not in_view(page, page.locator("#tasks li").first, "#tasks")  # the list scrolled to it

    # A turn that only reads lights nothing.
    ask(page, "来一个简单的任务")
    page.wait_for_function("() => !document.querySelector('#tasks li.fresh')")


def test_an_opened_thinking_panel_is_brought_into_view(browser: Any, site: Site) -> None:
    week_of_tasks(site.harness, "local")
    page = open_page(browser, site, height=620)
    for text in ("这周有什么要交的", "再来两个", "来一个简单的任务"):
        ask(page, text)
    last = ask(page, "这周有什么要交的")
    # Scrolled back up a little, until the last answer's collapsed panel sits at the chat's bottom edge.
    page.evaluate(
        """() => {
            const log = document.getElementById("log");
            const summaries = document.querySelectorAll(".turn-bot summary");
            const summary = summaries[summaries.length - 1];
            log.scrollTop += summary.getBoundingClientRect().bottom - log.getBoundingClientRect().bottom + 4;
        }"""
    )
    assert page.evaluate("document.getElementById('log').scrollTop") > 0
    last.locator("summary").click()
    assert last.locator(".stages li").count() >= 8
    page.wait_for_function(
        """() => {
            const log = document.getElementById("log").getBoundingClientRect();
            const lists = document.querySelectorAll(".turn-bot .stages");
            const items = lists[lists.length - 1].children;
            return items[items.length - 1].getBoundingClientRect().bottom <= log.bottom + 1;
        }""",
        timeout=3000,
    )
    assert in_view(page, last.locator("summary"), "#log")


def test_the_thinking_panel_says_groups_and_confidence_in_words(browser: Any, site: Site) -> None:
    site.harness.add("交周报", 1, "2026-12-01 15:00", user="local")
    page = open_page(browser, site)
    turn = ask(page, "第一象限的任务")
    turn.locator("summary").click()
    lines = turn.locator(".stages li").all_inner_texts()
    assert any("分组：重要且紧急" in line for line in lines), lines
    route = next(line for line in lines if line.startswith("route"))
    assert "「查任务」" in route and any(word in route for word in ("很确定", "比较确定", "不太确定")), route
    shown = "\n".join(lines)
    for internal in ("置信度", "象限：[", "task_query", "0.8", "0.9"):
        assert internal not in shown, (internal, shown)


LONG = "记" * 20_001  # over the chat endpoint's per-message bound (20,000): a 400 before any answer


def test_a_rejected_message_is_told_in_chinese_marked_not_sent_and_put_back(browser: Any, site: Site) -> None:
    page = open_page(browser, site)
    sent: list[dict[str, Any]] = []
    page.on("request", lambda r: sent.append(json.loads(r.post_data)) if r.url.endswith("/completions") else None)
    page.fill("#input", LONG)
    page.press("#input", "Enter")
    note = page.locator(".turn-user.unsent .unsent-note")
    note.wait_for()
    assert note.inner_text() == "未发送：这条消息太长了，删短一些再发。"
    assert "maximum is 20000" in (note.get_attribute("title") or "")  # the server's words, as the detail
    assert page.locator(".turn-bot").count() == 0
    assert page.input_value("#input") == LONG

    ask(page, "你好")
    assert page.locator(".turn-user.unsent").count() == 0  # sending again clears the not-sent one
    assert [m["content"] for m in sent[-1]["messages"]] == ["你好"]  # and it never joined the history


def test_server_failures_are_told_in_chinese(browser: Any, site: Site) -> None:
    page = open_page(browser, site)
    page.locator("#tasksNote", has_text="还没有待办").wait_for()
    busy = error_body("Rate limit reached.", "rate_limit_error", code="rate_limit_exceeded")
    page.route("**/v1/chat/completions", lambda route: route.fulfill(status=429, json=busy))
    page.fill("#input", "你好")
    page.press("#input", "Enter")
    page.locator(".unsent-note", has_text="未发送：发得太快了，请稍等一会儿再试。").wait_for()

    # A failure after the answer began: the turn stays, its error worded for a person.
    broke = error_body("The model did not answer.", "server_error")
    stream = f"data: {json.dumps(broke)}\n\ndata: [DONE]\n\n"
    page.route(
        "**/v1/chat/completions",
        lambda route: route.fulfill(status=200, body=stream, headers={"Content-Type": "text/event-stream"}),
    )
    answer = ask(page, "你好").locator(".answer.error")
    assert answer.inner_text().startswith("出错了：服务出错了，请稍后再试。")
    assert answer.locator(".error-detail").inner_text() == "The model did not answer."

    down = error_body("The database is unavailable.", "server_error", code="database_unavailable")
    page.route("**/tasks?*", lambda route: route.fulfill(status=503, json=down))
    page.click("#refresh")
    page.locator("#tasksNote.error", has_text="任务列表没有更新：数据库暂时连不上，请稍后再试。").wait_for()


def test_a_late_task_list_does_not_paint_over_a_newer_one(browser: Any, site: Site) -> None:
    """Loads overlap (a turn's refresh and a click on 刷新): the newest one's outcome stays."""
    page = open_page(browser, site)
    page.locator("#tasksNote", has_text="还没有待办").wait_for()
    held: list[Any] = []
    down = error_body("The database is unavailable.", "server_error", code="database_unavailable")

    def tasks(route: Any) -> None:  # the older load's two requests wait; the newer one's fail
        if len(held) < 2:
            held.append(route)
        else:
            route.fulfill(status=503, json=down)

    page.route("**/tasks?*", tasks)
    page.click("#refresh")  # the older load: its requests wait
    while len(held) < 2:  # the open list and the recently done one
        page.wait_for_timeout(20)
    page.click("#refresh")  # the newer load fails
    note = page.locator("#tasksNote.error", has_text="任务列表没有更新：数据库暂时连不上，请稍后再试。")
    note.wait_for()
    with page.expect_response(lambda r: r.request == held[-1].request):
        for route in held:
            route.continue_()  # the older load answers now, 200
    page.wait_for_timeout(300)
    assert note.is_visible()


def test_a_task_is_ticked_done_reopened_and_the_last_change_undone(browser: Any, site: Site) -> None:
    h = site.harness
    report = h.add("交周报", 1, "2026-12-01 15:00", user="local")
    h.add("买猫粮", 3, "2026-12-01 19:00", user="local")
    h.add("上周的事", 2, user="local", completed_at="2026-11-20 09:00")  # done long ago: not listed
    page = open_page(browser, site)
    writes: list[str] = []
    page.on("request", lambda r: writes.append(f"{r.method} {r.url.split('/', 3)[3]}") if r.method != "GET" else None)
    row = page.locator("#tasks li", has_text="交周报")
    row.wait_for()
    assert page.locator("#tasks li").count() == 2

    row.get_by_role("checkbox", name="标记完成：交周报").check()
    page.locator("#tasks li.done", has_text="交周报").wait_for()  # kept, struck through, to be unticked
    save_screenshot(page, "playground-ticked.png")
    assert h.task(report, user="local").is_completed
    assert page.locator("#tasks li").last.inner_text().startswith("交周报")  # done ones go last
    assert "fresh" in (page.locator("#tasks li", has_text="交周报").get_attribute("class") or "")

    page.locator("#tasks li", has_text="交周报").get_by_role("checkbox", name="重新打开：交周报").uncheck()
    page.locator("#tasks li:not(.done)", has_text="交周报").wait_for()
    assert not h.task(report, user="local").is_completed

    page.locator("#tasks li", has_text="交周报").get_by_role("checkbox").check()
    page.locator("#tasks li.done", has_text="交周报").wait_for()
    page.click("#undoLast")
    page.locator("#tasksNote", has_text="已撤销：把「交周报」标记为完成").wait_for()
    page.locator("#tasks li:not(.done)", has_text="交周报").wait_for()
    assert not h.task(report, user="local").is_completed
    last_change = h.changes()[-1].id
    assert writes == [f"PATCH tasks/{report}"] * 3 + [f"POST changes/{last_change}/revert"]


# --- other pages: the attacks of docs/fdr/0022 in a real browser --------------------------------

# Every *.example name resolves to this machine, as an attacker's DNS would answer.
RESOLVE_EXAMPLE_HERE = "--host-resolver-rules=MAP *.example 127.0.0.1"
ATTACK_PAGE = """<!doctype html><meta charset="utf-8"><title>cute cats</title><script>
window.attack = async (target, ids) => {
  for (const id of ids) {
    // A "simple" request: no preflight, no body; the answer is opaque, the effect is not.
    await fetch(`${target}/tasks/${id}/complete`, {method: "POST", mode: "no-cors"}).catch(() => null);
  }
};
</script>"""


@pytest.fixture(scope="module")
def mapped_browser(playwright: Any) -> Iterator[Any]:
    b = playwright.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=[RESOLVE_EXAMPLE_HERE])
    yield b
    b.close()


@contextmanager
def attacker_site() -> Iterator[int]:
    """A page of its own on 127.0.0.1 (another port: another origin); yields its port."""
    body = ATTACK_PAGE.encode()

    class Page(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Page)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def open_tasks(h: Harness) -> int:
    with h.state.session() as session:
        return len([t for t in session.exec(select(Task)).all() if not t.is_completed])


def test_a_page_on_another_site_cannot_complete_the_local_users_tasks(mapped_browser: Any, site: Site) -> None:
    ids = [site.harness.add(f"任务{i}", 2, user="local") for i in range(5)]
    answers: list[int] = []
    with attacker_site() as port:
        page = mapped_browser.new_context().new_page()
        page.on("response", lambda r: answers.append(r.status) if "/complete" in r.url else None)
        page.goto(f"http://cats.example:{port}/")
        page.evaluate("([target, ids]) => window.attack(target, ids)", [site.url.rstrip("/"), ids])
    assert answers == [403] * len(ids)
    assert open_tasks(site.harness) == len(ids)


def test_a_rebinding_page_gets_nothing(mapped_browser: Any, site: Site) -> None:
    # rebind.example now points here: to the browser the page and the API are one origin.
    site.harness.add("交电费", 2, user="local")
    port = site.url.rstrip("/").rsplit(":", 1)[1]
    page = mapped_browser.new_context().new_page()
    landing = page.goto(f"http://rebind.example:{port}/")
    assert landing is not None and landing.status == 421
    seen = page.evaluate(
        """async () => {
            const list = await fetch("/tasks");
            const done = await fetch("/tasks/1/complete", {method: "POST"});
            return [list.status, await list.text(), done.status];
        }"""
    )
    assert seen[0] == 421 and "交电费" not in seen[1] and seen[2] == 421
    assert open_tasks(site.harness) == 1


def test_the_api_reference_renders_from_this_origin_alone(browser: Any, site: Site) -> None:
    page = browser.new_context().new_page()
    problems: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if m.type in ("error", "warning") else None)
    page.on("pageerror", lambda e: problems.append(str(e)))
    requested: list[str] = []
    page.on("request", lambda r: requested.append(r.url))
    page.goto(site.url + "docs")
    page.locator(".opblock-summary-path", has_text="/tasks/{task_id}/complete").first.wait_for(timeout=TIMEOUT_MS)
    assert page.locator(".opblock").count() >= 9
    assert all(url.startswith(site.url) or url.startswith("data:") for url in requested), requested
    assert problems == []  # no CSP refusal, no script error
