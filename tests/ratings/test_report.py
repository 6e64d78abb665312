"""Exports: CSV, PNG plot, HTML report; and `arena-server leaderboard --local` writing them."""

from __future__ import annotations

import csv
import subprocess
import sys

from arena_server.ratings import BTOptions, LeaderboardQuery, compute_leaderboard
from arena_server.ratings.report import html_report, pairwise_scores, plot_ratings, write_csv
from arena_server.store import Store

from .helpers import gamebench_records, record

PNG = b"\x89PNG\r\n\x1a\n"


def test_csv_png_and_html(tmp_path):
    records = gamebench_records()
    board = compute_leaderboard(records, LeaderboardQuery(method="bradley_terry", bt=BTOptions(resamples=200)))
    write_csv(board.rows, tmp_path / "board.csv")
    with open(tmp_path / "board.csv") as f:
        lines = list(csv.DictReader(f))
    assert [line["agent"] for line in lines] == [r.agent_name for r in board.rows]
    assert float(lines[0]["rating"]) == float(f"{board.rows[0].rating:.6g}")
    assert set(lines[0]) >= {"rank", "agent", "rating", "lower", "upper", "matches", "wins", "draws", "losses"}

    plot_ratings(board.rows, tmp_path / "board.png", title="GameBench")
    assert (tmp_path / "board.png").read_bytes().startswith(PNG)

    text = html_report(records, tmp_path / "report.html", title="GameBench <data>",
                       query=LeaderboardQuery(preset="gamebench_code"))
    assert "GameBench &lt;data&gt;" in text and "<h2>Leaderboard</h2>" in text and "Pairwise win matrix" in text
    assert text.count("<h3>") == 9 and "data:image/png;base64," in text
    assert "N/A" in text                                  # agents absent from a game
    assert (tmp_path / "report.html").read_text() == text


def test_pairwise_scores_count_ties_as_half():
    ms = [record("1", ["a", "b"], [1, 0]), record("2", ["a", "b"], [0, 0]), record("3", ["b", "a"], [1, 0])]
    scores = pairwise_scores(ms)
    assert scores[("a", "b")] == (0.5, 3.0) and scores[("b", "a")] == (0.5, 3.0)


def test_cli_leaderboard_local_writes_table_csv_plot_and_html(tmp_path):
    db = tmp_path / "arena.db"
    store = Store(db)
    for r in gamebench_records():
        store.add_match(r)
    store.close()
    out = subprocess.run(
        [sys.executable, "-m", "arena_server.cli", "leaderboard", "--local", "--db", str(db), "--preset",
         "gamebench_code", "--csv", str(tmp_path / "b.csv"), "--plot", str(tmp_path / "b.png"), "--html",
         str(tmp_path / "b.html")], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "Bradley–Terry leaderboard (277 matches)" in out.stdout
    human = next(line for line in out.stdout.splitlines() if " human " in line)
    assert "1.76" in human
    assert (tmp_path / "b.png").read_bytes().startswith(PNG)
    assert "gpt-4-rap" in (tmp_path / "b.csv").read_text() and (tmp_path / "b.html").exists()
    per_game = subprocess.run(
        [sys.executable, "-m", "arena_server.cli", "leaderboard", "--local", "--db", str(db), "--game", "hive",
         "--preset", "gamebench_code"], capture_output=True, text=True, timeout=300)
    assert per_game.returncode == 0, per_game.stderr
    assert "N/A" in next(line for line in per_game.stdout.splitlines() if "gpt-4-rap" in line)
    bad = subprocess.run([sys.executable, "-m", "arena_server.cli", "leaderboard", "--local", "--db", str(db),
                          "--method", "elo", "--preset", "gamebench"], capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "preset" in bad.stderr
