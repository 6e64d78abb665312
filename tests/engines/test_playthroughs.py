"""Golden playthroughs: a fresh rendering of each game and preset must equal its file under
tests/playthroughs/. After an intended change: python -m arena_engines.playthrough --regenerate"""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest

from arena_engines.playthrough import configurations, golden_path, render

GOLDEN = Path(__file__).resolve().parents[1] / "playthroughs"


def test_every_game_and_preset_has_a_golden_file_and_no_file_is_stale():
    expected = {golden_path(GOLDEN, g, p).name for g, p in configurations()}
    assert {p.name for p in GOLDEN.glob("*.txt")} == expected
    assert {"tic_tac_toe", "connect_four", "guess_two_thirds_average"} <= {g for g, _ in configurations()}


@pytest.mark.parametrize("game_id,preset", configurations())
def test_playthrough_matches_its_golden_file(game_id, preset):
    path = golden_path(GOLDEN, game_id, preset)
    if not path.is_file():
        pytest.fail(f"no golden playthrough {path.name}: run python -m arena_engines.playthrough --regenerate")
    golden = path.read_text()
    fresh = render(game_id, preset)
    if fresh != golden:
        diff = "".join(difflib.unified_diff(golden.splitlines(True), fresh.splitlines(True), "golden", "fresh"))
        pytest.fail(f"{game_id}/{preset} differs from its golden playthrough "
                    f"(regenerate with python -m arena_engines.playthrough --regenerate):\n{diff[:4000]}")


def test_playthroughs_end_with_the_result():
    text = render("guess_two_thirds_average", "gamabench")
    assert '# parameter overrides: {"players": 3, "rounds": 3}' in text
    assert text.count("## Move ") == 3 and "## End after 3 moves" in text
    assert "legal: 0:\"0\" 1:\"1\" 2:\"2\" ... 98:\"98\" 99:\"99\" 100:\"100\" (101 actions)" in text
    board = render("tic_tac_toe", "llmarena")
    assert "summary: " in board and "returns: " in board
