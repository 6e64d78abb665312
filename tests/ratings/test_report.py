"""Exports: CSV, PNG plot, HTML report; and `arena-server leaderboard --local` writing them."""

from __future__ import annotations

import csv
import subprocess
import sys

from arena_server.ratings import BTOptions, LeaderboardQuery, compute_leaderboard
from arena_server.ratings.report import html_report, pairwise_scores, plot_ratings, write_csv
from arena_server.store import Store

from .helpers import gamebench_records, newcomer_log, record

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


class _GrowingServer:
    """A stand-in for the server stub whose log gains a match after every call, as when matches keep
    finishing while the command runs."""

    def __init__(self, records, extra):
        self.log, self.extra, self.calls = list(records), list(extra), []

    def _grow(self):
        if self.extra:
            self.log.append(self.extra.pop(0))

    def ListMatches(self, request, metadata=None):
        from arena.v1 import arena_service_pb2 as pb

        from arena_server import convert

        self.calls.append("ListMatches")
        page = pb.ListMatchesResponse(matches=[convert.match_info(m, reveal_seed=True) for m in reversed(self.log)])
        self._grow()
        return page

    def GetLeaderboard(self, request, metadata=None):
        from arena_server.service.arena import leaderboard_query, leaderboard_response

        self.calls.append("GetLeaderboard")
        board = leaderboard_response(compute_leaderboard(self.log, leaderboard_query(request)))
        self._grow()
        return board


def _run_cli(monkeypatch, capsys, server, *argv):
    from arena_server.cli import leaderboard as cli_leaderboard
    from arena_server.cli import main

    monkeypatch.setattr(cli_leaderboard, "stubs", lambda args: (server, []))
    assert main(["leaderboard", *argv]) == 0
    return capsys.readouterr().out


def test_one_snapshot_feeds_the_console_csv_and_html_of_one_command(tmp_path, monkeypatch, capsys):
    records = newcomer_log()
    extra = [record(f"late{k}", ["newbie", "strong"], [1, 0], ended=10_000 + k) for k in range(3)]
    server = _GrowingServer(records, extra)
    out = _run_cli(monkeypatch, capsys, server, "--method", "bradley-terry", "--resamples", "100",
                   "--csv", str(tmp_path / "b.csv"), "--html", str(tmp_path / "b.html"))
    assert server.calls == ["ListMatches"]                       # fetched once, nothing asked again
    assert f"Bradley–Terry leaderboard ({len(records)} matches)" in out
    html_text = (tmp_path / "b.html").read_text()
    assert f"{len(records)} finished matches" in html_text
    console = [line.split()[1] for line in out.splitlines() if line[:4].strip().isdigit()]
    with open(tmp_path / "b.csv") as f:
        assert [line["agent"] for line in csv.DictReader(f)] == console
    table = html_text[html_text.index("<h2>Leaderboard</h2>"):html_text.index("<img")]
    assert [table.index(f"<td>{a}</td>") for a in console] == sorted(table.index(f"<td>{a}</td>") for a in console)
    newbie = next(line for line in out.splitlines() if " newbie " in line)
    assert "?" in newbie and " 5 " in newbie                     # provisional, its 5 matches beside the rating

    # Without --html the server's answer feeds the console and the exports: one call.
    server = _GrowingServer(records, extra)
    _run_cli(monkeypatch, capsys, server, "--method", "elo", "--csv", str(tmp_path / "e.csv"))
    assert server.calls == ["GetLeaderboard"]


def test_methods_without_an_interval_print_and_export_no_interval_columns(tmp_path, monkeypatch, capsys):
    server = _GrowingServer(newcomer_log(), [])
    out = _run_cli(monkeypatch, capsys, server, "--method", "nra", "--csv", str(tmp_path / "n.csv"),
                   "--html", str(tmp_path / "n.html"))
    header = next(line for line in out.splitlines() if line.lstrip().startswith("rank"))
    assert "lower" not in header and "upper" not in header and "matches" in header
    assert "lower" not in (tmp_path / "n.csv").read_text().splitlines()[0]
    assert "<th>interval</th>" not in (tmp_path / "n.html").read_text()
    out = _run_cli(monkeypatch, capsys, server, "--method", "elo", "--csv", str(tmp_path / "e.csv"))
    header = next(line for line in out.splitlines() if line.lstrip().startswith("rank"))
    assert "lower" in header and "upper" in header
    with open(tmp_path / "e.csv") as f:
        assert all(float(r["lower"]) < float(r["upper"]) for r in csv.DictReader(f))


def test_magic_radar_draws_each_agents_abilities_and_the_html_report_carries_it(tmp_path):
    from arena_server.ratings import LeaderboardRow
    from arena_server.ratings.report import MAGIC_ABILITIES, has_abilities, plot_radar

    full = {key: 10.0 * (k + 1) for k, (key, _) in enumerate(MAGIC_ABILITIES)}
    partial = {key: v for key, v in full.items() if key != "coordination"}     # not measured: a gap
    rows = [LeaderboardRow("gpt-x", 50, 50, 50, extra=full), LeaderboardRow("defender", 40, 40, 40, extra=partial)]
    assert has_abilities(rows) and not has_abilities([LeaderboardRow("a", 1, 1, 1, extra={"win_rate": 3.0})])
    plot_radar(rows, tmp_path / "a.png", title="MAgIC")
    higher = [LeaderboardRow("gpt-x", 50, 50, 50, extra={**full, "judgement": 95.0}), rows[1]]
    plot_radar(higher, tmp_path / "b.png", title="MAgIC")
    a, b = (tmp_path / "a.png").read_bytes(), (tmp_path / "b.png").read_bytes()
    assert a[:8] == b"\x89PNG\r\n\x1a\n" and a != b          # the values are what is drawn

    matches = [record("m1", ["gpt-x", "defender"], [1.0, 0.0])]
    board = compute_leaderboard(matches, LeaderboardQuery(method="bradley_terry"))
    page = html_report(matches, tmp_path / "plain.html", board=board)
    assert "Abilities" not in page
    board.rows[0].extra.update(full)
    page = html_report(matches, tmp_path / "magic.html", board=board)
    assert "<h2>Abilities</h2><img alt='radar plot of the seven MAgIC abilities' src='data:image/png;base64," in page
