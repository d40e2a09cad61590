"""The HTML replay (``Trajectory.to_html``) in a real headless browser: the page loads offline
without console errors, moving the time slider moves the bodies, and screenshots of two frames
differ. Skipped where plotly, selenium, chromium or chromedriver is missing."""

from __future__ import annotations

import os
import shutil
import time

import numpy as np
import pytest

from contactmodel import CoulombCone
from contactmodel.simulation import simulate
from tests.simulation.scenes import box_on_incline

pytest.importorskip("plotly")
webdriver = pytest.importorskip("selenium.webdriver")

BROWSER = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
DRIVER = shutil.which("chromedriver")
pytestmark = pytest.mark.skipif(not (BROWSER and DRIVER), reason="no chromium and chromedriver installed")

#: the screenshot of the last frame is kept here when set (for a look by eye)
SCREENSHOT_ENV = "CONTACTMODEL_REPLAY_SCREENSHOT"


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    system, planes, _ = box_on_incline(np.radians(35.0))
    traj = simulate(system, t_end=0.4, dt=1e-2, planes=planes, friction=CoulombCone(0.3))
    assert traj.ok
    path = tmp_path_factory.mktemp("replay") / "run.html"
    traj.to_html(path, fps=10)
    return traj, path


@pytest.fixture(scope="module")
def driver():
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    options = Options()
    options.binary_location = BROWSER
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--use-gl=swiftshader",
        "--window-size=900,800",
    ):
        options.add_argument(arg)
    options.add_argument("--enable-unsafe-swiftshader")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    drv = webdriver.Chrome(service=Service(DRIVER), options=options)
    yield drv
    drv.quit()


def _body_vertices(driver) -> np.ndarray:
    xs = driver.execute_script(
        "const gd = document.querySelector('.plotly-graph-div'); "
        "return ['x', 'y', 'z'].map((c) => Array.from(gd._fullData[0][c]));"
    )
    return np.array(xs, dtype=float)


def _wait_idle(driver, seconds: float = 10.0) -> None:
    end = time.time() + seconds
    while time.time() < end:
        busy = driver.execute_script(
            "const gd = document.querySelector('.plotly-graph-div'); return !gd || !gd._fullLayout || "
            "(gd._transitionData && (gd._transitionData._frameQueue || []).length > 0);"
        )
        if not busy:
            time.sleep(0.5)
            return
        time.sleep(0.1)


def test_replay_page_loads_and_the_slider_moves_the_bodies(page, driver, tmp_path):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By

    traj, path = page
    driver.get(path.as_uri())
    _wait_idle(driver)
    errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    assert errors == [], errors
    assert driver.execute_script("return typeof Plotly") == "object"  # embedded: no network used
    frames = driver.execute_script(
        "return document.querySelector('.plotly-graph-div')._transitionData._frames.length"
    )
    assert frames >= 5
    before = _body_vertices(driver)
    np.testing.assert_allclose(before.mean(axis=1), traj.positions[0, 0], atol=1e-9)
    first = tmp_path / "first.png"
    driver.save_screenshot(str(first))

    rail = driver.find_element(By.CSS_SELECTOR, ".slider-rail-rect")
    width = rail.size["width"]
    # click near the right end of the slider's rail: the slider jumps to a late frame
    ActionChains(driver).move_to_element_with_offset(rail, int(width / 2) - 3, 0).click().perform()
    _wait_idle(driver)
    after = _body_vertices(driver)
    moved = np.linalg.norm(after.mean(axis=1) - before.mean(axis=1))
    travelled = np.linalg.norm(traj.positions[-1, 0] - traj.positions[0, 0])
    assert moved > 0.5 * travelled > 0, (moved, travelled)
    active = driver.execute_script(
        "const s = document.querySelector('.plotly-graph-div')._fullLayout.sliders[0]; "
        "return s.steps[s.active].label;"
    )
    assert float(active) > 0.3
    last = tmp_path / "last.png"
    driver.save_screenshot(str(last))
    assert first.read_bytes() != last.read_bytes()
    keep = os.environ.get(SCREENSHOT_ENV)
    if keep:
        shutil.copy(last, keep)
    errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    assert errors == [], errors
