"""The web app in a real browser: Playwright drives Debian's Chromium (/usr/bin/chromium;
no browser download) against a live `jabba serve`. A situation set up by clicking gets
the command line's answer, on the one advice page for every game (Jabba's Palace at /,
classic Love Letter, the Han Solo card game and Battle at Sarlacc's Pit, its board drawn,
at /?game=NAME, the game picker between them); a phone-sized screen needs no sideways
scrolling; a refused situation shows its message; a seeded round is played to the end.

Skipped, with the reason, where Chromium or Playwright is missing, unless
JABBA_REQUIRE_BROWSER is set (.ci/run sets it: there a missing browser fails).

    python tests/test_web_browser.py --screenshot docs/img/advice.png   # the README's picture
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from solver.hint.answer import without_wall_times

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
TINY = "0.000001"  # rollout seconds: the hint's minimum of 64 rollouts, the same every run
ITERATIONS = "8"  # the search's: exactly so many, the same answer every run
README_FLAGS = ["--seat", "1", "--hand", "jabba,guard", "--face-up", "crumb,bib,merc",
                "--area", "0=han"]


def _missing() -> str | None:
    if not Path(CHROMIUM).exists():
        return f"no Chromium at {CHROMIUM} (apt-get install chromium)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright package is not installed (pip install -e '.[test]')"
    return None


if _missing() and not os.environ.get("JABBA_REQUIRE_BROWSER"):
    pytest.skip(_missing(), allow_module_level=True)


def start_server():
    """`jabba serve` on a free port, warmed up: (process, base URL)."""
    server = subprocess.Popen([sys.executable, "-m", "cli.main", "serve", "--port", "0"],
                              cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True)
    url = server.stdout.readline().split()[1]
    deadline = time.time() + 300
    while time.time() < deadline:
        with urllib.request.urlopen(url + "api/status", timeout=10) as r:
            if json.load(r)["state"] != "warming":
                return server, url
        time.sleep(0.5)
    server.kill()
    raise RuntimeError("the server did not warm up in 300 s")


@pytest.fixture(scope="module")
def server_url():
    server, url = start_server()
    yield url
    server.terminate()
    server.wait(timeout=60)


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM)
        yield chromium
        chromium.close()


def open_page(browser, url: str, width: int = 1000, height: int = 1200):
    page = browser.new_page(viewport={"width": width, "height": height})
    errors = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    page.goto(url)
    page.wait_for_selector("body[data-loaded=yes]")
    return page, errors


def click_readme_situation(page) -> None:
    """The README's worked hint, by clicking: seat 1; hand Jabba and Guard; face-up
    Salacious Crumb, Bib Fortuna, Mercenary; seat 0 played Han Solo."""
    page.select_option("#seat", "1")
    for card in ("jabba", "guard"):  # the hand is where cards go first
        page.click(f'#cards [data-card="{card}"]')
    page.click('[data-field="face_up"] .field-name')
    for card in ("crumb", "bib", "mercenary"):
        page.click(f'#cards [data-card="{card}"]')
    page.click('[data-field="area:0"] .field-name')
    page.click('#cards [data-card="han"]')
    page.click("summary:has-text('Options')")
    page.fill("#seconds", TINY)
    page.fill("#search-iterations", ITERATIONS)


def ask(page) -> None:
    page.click("#ask")
    page.wait_for_function("() => !document.querySelector('#ask').disabled")


def cli_answer(*flags: str, situation=README_FLAGS) -> dict:
    from typer.testing import CliRunner

    from cli.main import app

    result = CliRunner().invoke(app, ["hint", *situation, "--seconds", TINY, *flags,
                                      "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def timeless(answer: dict) -> dict:
    return without_wall_times(json.loads(json.dumps(answer)))


def test_a_situation_set_up_by_clicking_gets_the_command_lines_answer(browser, server_url,
                                                                      tmp_path):
    page, errors = open_page(browser, server_url)
    click_readme_situation(page)
    ask(page)
    shown = page.evaluate("window.lastAnswer")
    expected = cli_answer("--search-iterations", ITERATIONS)
    assert timeless(shown) == timeless(expected)
    assert expected["policy"]["search"]["used"]
    assert page.inner_text("#recommendation") == \
        f"Recommended: {expected['recommendation']['action']}"
    # The search's probability and value beside the table's probability and the EV.
    assert headings(page) == ["play", "search", "search EV", "table", "EV", "vs best"]
    rows = page.locator("#plays tbody tr")
    assert rows.count() == len(expected["plays"])
    for i, play in enumerate(expected["plays"]):
        cells = rows.nth(i).locator("td").all_inner_texts()
        assert cells[0] == play["full_action"]
        assert cells[1] == f"{math.floor(100 * play['search_probability'] + 0.5)}%"  # JS round
        assert cells[2] == f"{play['search_value']:+.3f}"
    assert f"{ITERATIONS} iterations" in page.inner_text("#search-note")
    bars = page.locator("#opponents .bar")
    assert bars.count() >= 3 and "Mercenary" in bars.nth(0).inner_text()
    page.screenshot(path=str(tmp_path / "advice.png"), full_page=True)
    # Without the search: the table's answer, and the reason the search did not run.
    page.uncheck("#search")
    ask(page)
    expected = cli_answer("--no-search")
    assert timeless(page.evaluate("window.lastAnswer")) == timeless(expected)
    assert headings(page) == ["play", "table", "EV", "vs best"]
    assert page.inner_text("#search-note") == \
        f"Search not used: {expected['policy']['search']['reason']}."
    assert not errors


def headings(page) -> list[str]:
    return [h.split(" (")[0] for h in page.locator("#plays thead th").all_inner_texts()]


def test_a_phone_sized_screen_needs_no_sideways_scrolling(browser, server_url):
    page, errors = open_page(browser, server_url, width=390, height=844)
    click_readme_situation(page)
    ask(page)
    assert page.inner_text("#recommendation").startswith("Recommended: play Guard")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert not errors


def test_a_refused_situation_shows_the_reason(browser, server_url):
    page, errors = open_page(browser, server_url)
    page.click('#cards [data-card="jabba"]')  # one card in hand, no face-up cards
    ask(page)
    message = page.inner_text("#error")
    assert message.startswith("impossible situation:") and "Traceback" not in message
    page.click("#tab-log")
    page.fill("#log", "p0 dances")
    ask(page)
    assert "is not an event" in page.inner_text("#error")
    assert not errors


def test_a_seeded_round_is_played_to_the_end(browser, server_url, tmp_path):
    from solver.play.log import replay

    page, errors = open_page(browser, server_url + "play")
    page.fill("#seed", "3")
    page.fill("#threshold", "0.05")
    page.select_option("#against", "search")
    page.click("summary:has-text('Search')")
    page.fill("#opponent-iterations", "4")
    page.fill("#coach-iterations", "4")
    page.click("#start")
    page.wait_for_selector("#board:not([hidden])")
    choices = 0
    while not page.is_visible("#round-over"):
        page.locator("#legal button").first.click()
        choices += 1
        page.wait_for_function("() => !document.querySelector('#round-over').hidden || "
                               "(document.querySelector('#legal button') && "
                               "!document.querySelector('#legal button').disabled)")
        assert choices < 40
    ended = page.inner_text("#round-over")
    view = page.evaluate("window.lastView")
    assert ended.startswith(f"Round 1 over ({view['result']['end']})")
    for seat in view["seats"]:  # every hand shown
        assert f"hand {', '.join(seat['hand']) or '-'}" in ended
    assert "Coach:" in ended and page.is_visible("#verdict")
    verdict = page.inner_text("#verdict")
    assert "The search recommends" in verdict or "not coached" in verdict, verdict
    log = tmp_path / "game.jsonl"
    with page.expect_download() as download:
        page.click("#download")
    download.value.save_as(log)
    lines = [json.loads(x) for x in log.read_text().splitlines()]
    assert sum(x.get("by") == "you" for x in lines) == choices
    assert lines[0]["against"] == "search" and lines[0]["opponent_search_iterations"] == 4
    assert any(x.get("by") == "search" for x in lines)
    assert replay(log).over
    assert not errors


HAN_SOLO_FLAGS = ["--game", "han_solo", "--seat", "1", "--hand", "green +4,red -2", "--pot",
                  "green,gold", "--log", "flip green +9; p0 draw; p0 discard red -2",
                  "--rollouts", "300", "--seed", "2"]


def test_a_han_solo_situation_set_up_by_clicking_gets_the_command_lines_answer(
        browser, server_url):
    """The Han Solo form: seat 1, hand green +4 and red -2, a green +9 turned up, p0 drew
    and put down a red -2; the answer is `jabba hint --game han_solo --json`'s."""
    page, errors = open_page(browser, server_url + "han-solo")  # redirected to the page
    assert page.url.endswith("/?game=han_solo")
    assert page.inner_text("#title") == "Han Solo card game"
    assert page.eval_on_selector("#game", "s => s.value") == "han_solo"
    page.select_option("#seat", "1")
    for card in ("green +4", "red -2"):
        page.click(f'#cards [data-card="{card}"]')
    page.click("#flip")
    page.click('#cards [data-card="green +9"]')
    page.select_option("#actor", "0")
    page.click('[data-move="draw"]')
    page.click('[data-move="discard"]')
    page.click('#cards [data-card="red -2"]')
    page.click("summary:has-text('Options')")
    page.fill("#rollouts", "300")
    page.fill("#seed", "2")
    assert page.locator("#log li").all_inner_texts() == [
        "flip green +9", "p0 draw", "p0 discard red -2"]
    ask(page)
    shown = page.evaluate("window.lastAnswer")
    from typer.testing import CliRunner

    from cli.main import app

    result = CliRunner().invoke(app, ["hint", *HAN_SOLO_FLAGS, "--json"])
    assert result.exit_code == 0, result.output
    expected = json.loads(result.stdout)
    assert timeless(shown) == timeless(expected)
    assert page.inner_text("#recommendation") == \
        f"Recommended: {expected['recommendation']['action']}"
    rows = page.locator("#plays tbody tr")
    assert rows.count() == len(expected["plays"]) == 3  # draw, take, stand
    for i, play in enumerate(expected["plays"]):
        cells = rows.nth(i).locator("td").all_inner_texts()
        assert cells[0] == play["action"]
        assert cells[3].startswith(f"{play['ev']:+.3f}")
    (p0,) = expected["opponents"]
    assert page.locator("#opponents .bar").count() == min(8, len(p0["total"]))
    # A move the rules do not allow (a stand after a draw, H2) is refused with the reason.
    page.click("#undo")
    page.click('[data-move="stand"]')
    ask(page)
    assert page.inner_text("#error") == ("impossible situation: event 7 'p0 stand': p0 has "
                                         "to discard a card or keep here (H2)")
    assert not errors


def test_a_four_player_han_solo_situation_gets_the_command_lines_answer(browser,
                                                                       server_url):
    """The Han Solo form at 4 players (seat 2, a pot of four tokens, two seats before
    mine drew and put down a card), picked from the game picker: the command line's
    answer."""
    page, errors = open_page(browser, server_url)
    page.select_option("#game", "han_solo")
    page.wait_for_url("**/?game=han_solo")
    page.wait_for_selector("body[data-loaded=yes]")
    page.select_option("#players", "4")
    page.select_option("#seat", "2")
    pot = ["green", "gold", "red", "blue"]
    for i, token in enumerate(pot):
        page.select_option(f'[data-pot="{i}"]', token)
    for card in ("green +4", "red -2"):
        page.click(f'#cards [data-card="{card}"]')
    page.click("#flip")
    page.click('#cards [data-card="green +9"]')
    for seat, card in (("0", "red -2"), ("1", "green +7")):
        page.select_option("#actor", seat)
        page.click('[data-move="draw"]')
        page.click('[data-move="discard"]')
        page.click(f'#cards [data-card="{card}"]')
    page.click("summary:has-text('Options')")
    page.fill("#rollouts", "200")
    page.fill("#seed", "5")
    ask(page)
    from typer.testing import CliRunner

    from cli.main import app

    log = "flip green +9; p0 draw; p0 discard red -2; p1 draw; p1 discard green +7"
    assert page.locator("#log li").all_inner_texts() == log.split("; ")
    result = CliRunner().invoke(app, [
        "hint", "--game", "han_solo", "--players", "4", "--seat", "2", "--hand",
        "green +4,red -2", "--pot", ",".join(pot), "--log", log, "--rollouts", "200",
        "--seed", "5", "--json"])
    assert result.exit_code == 0, result.output
    expected = json.loads(result.stdout)
    assert timeless(page.evaluate("window.lastAnswer")) == timeless(expected)
    assert expected["situation"]["players"] == 4
    assert page.inner_text("#recommendation") == \
        f"Recommended: {expected['recommendation']['action']}"
    assert page.locator("#opponents .opponent").count() == 3
    assert not errors


LOVE_LETTER_FLAGS = ["--game", "love_letter", "--seat", "1", "--hand", "guard,baron",
                     "--face-up", "guard,guard,handmaid", "--area", "0=spy"]


def test_a_love_letter_situation_set_up_by_clicking_gets_the_command_lines_answer(
        browser, server_url):
    """Classic Love Letter on the one advice page, picked from Jabba's Palace's: its own
    cards (no Jabba's Palace card, no agenda); seat 1, hand Guard and Baron, face-up two
    Guards and a Handmaid, seat 0 played the Spy; the answer is `jabba hint --game
    love_letter --json`'s."""
    page, errors = open_page(browser, server_url)
    assert page.inner_text("#title") == "Jabba's Palace"
    page.select_option("#game", "love_letter")
    page.wait_for_url("**/?game=love_letter")
    page.wait_for_selector("body[data-loaded=yes]")
    assert page.inner_text("#title") == "classic Love Letter"
    assert not page.is_visible("#agenda")
    shorts = page.eval_on_selector_all("#cards [data-card]", "bs => bs.map(b => b.dataset.card)")
    assert shorts[:3] == ["spy", "guard", "priest"] and "jabba" not in shorts
    page.select_option("#seat", "1")
    for card in ("guard", "baron"):
        page.click(f'#cards [data-card="{card}"]')
    page.click('[data-field="face_up"] .field-name')
    for card in ("guard", "guard", "handmaid"):
        page.click(f'#cards [data-card="{card}"]')
    page.click('[data-field="area:0"] .field-name')
    page.click('#cards [data-card="spy"]')
    page.click("summary:has-text('Options')")
    page.fill("#seconds", TINY)
    page.fill("#search-iterations", ITERATIONS)
    ask(page)
    shown = page.evaluate("window.lastAnswer")
    expected = cli_answer("--search-iterations", ITERATIONS, situation=LOVE_LETTER_FLAGS)
    assert timeless(shown) == timeless(expected)
    assert shown["situation"]["game"] == "love_letter"
    assert page.inner_text("#recommendation") == \
        f"Recommended: {expected['recommendation']['action']}"
    rows = page.locator("#plays tbody tr")
    assert rows.count() == len(expected["plays"])
    assert page.locator("#plays tbody tr").first.locator("td").first.inner_text() == \
        expected["plays"][0]["full_action"]
    # A Jabba's Palace card is refused with the classic cards named.
    page.click("#clear")
    page.click("#tab-log")
    page.fill("#log", "p1 hand:[Jabba the Hutt,Guard] | p0 gets ? (deal)")
    ask(page)
    assert "not of classic Love Letter" in page.inner_text("#error")
    assert not errors


SARLACC_FLAGS = ["--game", "sarlaccs_pit", "--positions", "c2,a3", "--defeated", "left2",
                 "--points", "0,1", "--hand", "2,4,force,change_places", "--discard", "3,5",
                 "--rollouts", "8", "--seed", "5"]


def test_a_sarlaccs_pit_position_set_on_the_board_gets_the_command_lines_answer(
        browser, server_url):
    """The board form: the Sail Barge drawn (every space of the board, the guards on
    their posts), the heroes, a defeated guard, the hand and the discard pile set by
    clicking; the answer is `jabba hint --game sarlaccs_pit --json`'s, every full action
    listed with its EV, and the recommended move drawn as a path to its end."""
    page, errors = open_page(browser, server_url + "?game=sarlaccs_pit")
    assert page.inner_text("#title") == "Battle at Sarlacc's Pit"
    assert page.locator("#board [data-space]").count() == 49 + 1  # and the Detention Area
    assert page.locator("#board .guard").count() == 12 - 1  # the example's left2 is down
    page.click("#clear")
    assert page.locator("#board .guard").count() == 12
    page.click('[data-tool="hero:0"]')
    page.click('#board [data-space="c2"]')
    page.click('[data-tool="hero:1"]')
    page.click('#board [data-space="a3"]')
    page.click('[data-tool="guards"]')
    page.click('#board [data-space="left2"]')
    assert page.locator("#board .guard").count() == 11
    page.fill('[data-points="1"]', "1")
    for card in ("2", "4", "force", "change_places"):
        page.click(f'#cards [data-card="{card}"]')
    page.click("#to-discard")
    for card in ("3", "5"):
        page.click(f'#cards [data-card="{card}"]')
    page.click("summary:has-text('Options')")
    page.fill("#rollouts", "8")
    page.fill("#seed", "5")
    page.click("#ask")
    page.wait_for_function("() => !document.querySelector('#ask').disabled",
                           timeout=300_000)  # the first sarlaccs_pit hint loads its kernels
    shown = page.evaluate("window.lastAnswer")
    from typer.testing import CliRunner

    from cli.main import app

    result = CliRunner().invoke(app, ["hint", *SARLACC_FLAGS, "--json"])
    assert result.exit_code == 0, result.output
    expected = json.loads(result.stdout)
    assert timeless(shown) == timeless(expected)
    rec = expected["recommendation"]["action"]
    assert page.inner_text("#recommendation") == f"Recommended: {rec}"
    rows = page.locator("#plays tbody tr")
    assert rows.count() == len(expected["full_actions"])
    best = max(expected["full_actions"], key=lambda p: p["ev"])
    cells = rows.nth(0).locator("td").all_inner_texts()
    assert cells[0] == best["action"] and cells[2].startswith(f"{best['ev']:+.3f}")
    # the recommended full action drawn; a move's path runs from p0's space to its end
    assert page.locator("#board .path").count() >= 1
    for action in (rec, next(p["action"] for p in expected["full_actions"]
                             if "challenge" in p["action"] and p["action"] != rec)):
        page.click(f'#plays tbody tr[data-action="{action}"]')
        steps = action.split(", ")
        end = next((w.removeprefix("move to ") for w in steps if w.startswith("move to")),
                   None)
        if end is not None:
            route = page.get_attribute("#board polyline.path", "data-path").split()
            assert route[0] == "c2" and route[-1] == end
        assert page.locator("#board .challenge").count() == any(
            w.startswith("challenge") for w in steps)
    # two heroes on one space: refused with the reason
    page.click('[data-tool="hero:1"]')
    page.click('#board [data-space="c2"]')
    assert page.inner_text("#where").startswith("p0 c2, p1 c2;")
    page.click("#ask")
    page.wait_for_function("() => !document.querySelector('#ask').disabled")
    assert "p0 and p1 both on 'c2'" in page.inner_text("#error")
    # a Jabba card drawn (S8): p1 back on a3, the Force card played, Jabba on the discard
    page.click('#board [data-space="a3"]')
    page.click('#hand .chip:has-text("Change Places")')
    page.click("#to-hand")
    page.click('#cards [data-card="jabba"]')  # refused in the hand
    assert "never stays in a hand" in page.inner_text("#error")
    page.click("#to-discard")
    page.click('#cards [data-card="jabba"]')
    page.select_option("#decision", "jabba_move")
    ask(page)
    flags = [f for f in SARLACC_FLAGS]
    flags[flags.index("--hand") + 1] = "2,4,force"
    flags[flags.index("--discard") + 1] = "3,5,jabba"
    result = CliRunner().invoke(app, ["hint", *flags, "--decision", "jabba_move", "--json"])
    assert result.exit_code == 0, result.output
    expected = json.loads(result.stdout)
    assert timeless(page.evaluate("window.lastAnswer")) == timeless(expected)
    assert page.inner_text("#recommendation").startswith("Recommended: Jabba to grey_")
    assert page.locator("#board .jabba-move").count() == 1
    assert not errors


def test_an_unknown_game_is_refused_on_the_page(browser, server_url):
    page, errors = open_page(browser, server_url + "?game=chess")
    assert page.inner_text("#error") == ("game: unknown game 'chess': the games are "
                                         "jabbas_palace, love_letter, han_solo, "
                                         "sarlaccs_pit")
    assert not errors


def screenshot(path: Path) -> None:
    """The advice page on the README's situation (default rollouts and search), for docs/."""
    from playwright.sync_api import sync_playwright

    server, url = start_server()
    try:
        with sync_playwright() as p:
            chromium = p.chromium.launch(executable_path=CHROMIUM)
            page, _ = open_page(chromium, url, width=900, height=1000)
            click_readme_situation(page)
            page.fill("#seconds", "0.25")
            page.fill("#search-iterations", "")  # the search's default 1 s
            page.click("summary:has-text('Options')")  # closed again
            page.click('[data-field="hand"] .field-name')  # no editor open
            if page.is_visible("#editor"):
                page.click("#editor button:has-text('Done')")
            ask(page)
            page.screenshot(path=str(path), full_page=True)
            chromium.close()
    finally:
        server.terminate()
        server.wait(timeout=60)


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] != "--screenshot":
        sys.exit(__doc__)
    if _missing():
        sys.exit(_missing())
    screenshot(Path(sys.argv[2]))
    print(f"wrote {sys.argv[2]}")
