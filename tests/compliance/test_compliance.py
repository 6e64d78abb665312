"""The compliance suite against real servers: ours, started as a separate process (`arena-server serve`
with a lab key, so it federates, and a rate limit the suite can reach), passes every check through
the command line; deliberately broken servers (tests/compliance/fake.py) fail exactly the checks of
the rules they break; the command's bad flags and an unreachable address are one line each."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from arena_server.compliance import Endpoint, Settings, all_checks, run
from arena_server.compliance.runner import select

from ..conftest import ROOT, start_server
from .fake import FakeServer


def cli(*args: str, timeout: float = 240) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "arena_server.cli", *args], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT)


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """Our server, federating as lab 'compliance', with a rate limit of 100 calls a second (bursts of 150)
    and a cap of 2 concurrent matches per agent, which the suite is told."""
    folder = tmp_path_factory.mktemp("compliance")
    done = cli("federation", "init", "--lab", "compliance", "--db", str(folder / "arena.db"))
    assert done.returncode == 0, done.stderr
    server = start_server(folder, "--per-decision", "5", "--house-delay", "0.2", "--rate-limit", "100",
                          "--rate-burst", "150", "--max-concurrent-per-agent", "2")
    yield server, server.create_key("compliance-bot")
    server.stop()


@pytest.fixture(scope="module")
def lax():
    fake = FakeServer("lax")
    yield fake
    fake.stop()


def outcomes(report) -> dict[str, str]:
    return {r.id: r.outcome for r in report.results}


def test_our_server_passes_every_check(lab, tmp_path):
    server, key = lab
    out = tmp_path / "report.json"
    (tmp_path / "play.key").write_text(key + "\n")
    done = cli("compliance", "--server", server.address, "--key", f"@{tmp_path / 'play.key'}", "--admin-key", server.admin_key,
               "--rate-calls", "400", "--max-concurrent-per-agent", "2", "--json", str(out))
    report = json.loads(out.read_text())
    lines = done.stdout.splitlines()
    failed = [c for c in report["checks"] if c["outcome"] == "FAIL"]
    assert done.returncode == 0 and not failed, done.stdout + done.stderr
    assert [c["id"] for c in report["checks"]] == [c.id for c in all_checks()]
    # Given an admin key, a lab key and a reachable rate limit, nothing is left to skip.
    assert [(c["id"], c["reason"]) for c in report["checks"] if c["outcome"] == "SKIP"] == []
    assert report["passed"] == len(all_checks()) >= 40
    assert len(lines) == len(all_checks()) + 1 and lines[-1].startswith(f"{len(all_checks())} passed, 0 failed")
    assert all(line.split()[0] == "PASS" for line in lines[:-1])


def test_without_an_admin_key_matches_come_from_the_ladder_and_only_the_spectate_key_check_skips(lab):
    server, key = lab
    report = run(Settings(Endpoint(server.address), key),
                 select(ids=["handshake.spectate_key", "decisions.legal_move", "resume.mid_match"]))
    assert outcomes(report) == {"handshake.spectate_key": "SKIP", "decisions.legal_move": "PASS",
                                "resume.mid_match": "PASS"}, report.results
    assert report.results[0].reason == "needs --admin-key (to issue a spectate-only key)"


def test_an_aggregators_read_key_runs_the_reads_and_federation_and_skips_what_plays(lab):
    server, _ = lab
    read_key = server.create_key("aggregator", scopes="spectate")
    report = run(Settings(Endpoint(server.address), read_key, read_only=True, require_federation=True),
                 select(["spectating", "reads", "federation"]))
    skipped = {i for i, o in outcomes(report).items() if o == "SKIP"}
    assert skipped == {"spectating.hidden_information", "federation.unfinished_record"}, report.results
    assert report.ok and report.count("PASS") == len(report.results) - 2, report.results


def test_a_server_that_welcomes_everyone_fails_exactly_the_refusals(lax):
    checks = [c for c in select(["handshake"]) if c.id != "handshake.hello_timeout"]
    report = run(Settings(Endpoint(lax.address), "ak_anything", reply_timeout=1.0), checks)
    assert {i for i, o in outcomes(report).items() if o == "FAIL"} == {
        "handshake.no_key", "handshake.bad_key", "handshake.other_agent", "handshake.major_version",
        "handshake.first_not_hello"}, report.results
    assert outcomes(report)["handshake.spectate_key"] == "SKIP"
    reasons = {r.id: r.reason for r in report.results}
    assert "after a Welcome" in reasons["handshake.bad_key"] or "sent Welcome" in reasons["handshake.bad_key"]
    assert "expected FAILED_PRECONDITION" in reasons["handshake.major_version"]


def test_a_server_without_federation_is_not_offered_unless_required(lax):
    checks = select(["federation"])
    report = run(Settings(Endpoint(lax.address), "ak_anything", reply_timeout=2.0), checks)
    assert set(outcomes(report).values()) == {"SKIP"}
    assert {r.reason for r in report.results} == {"not offered: the server has no FederationService (UNIMPLEMENTED)"}
    required = run(Settings(Endpoint(lax.address), "ak_anything", reply_timeout=2.0, require_federation=True), checks)
    assert set(outcomes(required).values()) == {"FAIL"}, required.results


def test_a_record_changed_after_signing_fails_the_signature_check_alone():
    forger = FakeServer("forger")
    try:
        report = run(Settings(Endpoint(forger.address), "ak_anything", reply_timeout=2.0),
                     select(ids=["federation.lab_info", "federation.list_records", "federation.signatures",
                                 "federation.get_record"]))
    finally:
        forger.stop()
    assert outcomes(report) == {"federation.lab_info": "PASS", "federation.list_records": "PASS",
                                "federation.signatures": "FAIL", "federation.get_record": "PASS"}, report.results
    assert report.results[2].reason == ("record of 'm_forged_1': the referee signature does not verify against "
                                        "the published key")


def test_a_server_that_never_welcomes_fails_the_handshake():
    silent = FakeServer("silent")
    try:
        done = cli("compliance", "--server", silent.address, "--key", "ak_anything", "--timeout", "1",
                   "--check", "handshake.welcome", "--check", "handshake.heartbeat", "--check", "decisions.unknown_match")
    finally:
        silent.stop()
    assert done.returncode == 1, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert [line.split()[:2] for line in lines[:-1]] == [
        ["FAIL", "handshake.welcome"], ["FAIL", "handshake.heartbeat"], ["FAIL", "decisions.unknown_match"]]
    assert all("no Welcome within 1 s" in line for line in lines[:-1]), lines
    assert lines[-1].startswith("0 passed, 3 failed, 0 skipped of 3 checks")


def test_an_unreachable_server_is_one_line_and_exit_status_2():
    done = cli("compliance", "--server", "127.0.0.1:1", "--key", "k", "--timeout", "1", timeout=30)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines() == ["error: cannot reach 127.0.0.1:1 within 1 s (this client speaks plaintext: "
                                        "if the server uses TLS, add --tls or --root-certificates)"]


@pytest.mark.parametrize("args, message", [
    (["--server", "127.0.0.1:1"], "error: no API key"),
    (["--key", "k"], "error: --server HOST:PORT is required"),
    (["--server", "a:1", "--key", "k", "--only", "nope"], "error: unknown area nope"),
    (["--server", "a:1", "--key", "k", "--check", "handshake.nope"], "error: unknown check handshake.nope"),
    (["--server", "a:1", "--key", "k", "--rate-calls", "x"], "argument --rate-calls: 'x' is not an integer >= 0"),
    (["--server", "a:1", "--key", "k", "--client-cert", "c.pem"], "error: mutual TLS needs both"),
])
def test_bad_flags_are_one_line(args, message, monkeypatch, capsys):
    from arena_server.cli import main

    monkeypatch.delenv("ARENA_API_KEY", raising=False)
    with pytest.raises(SystemExit) as exited:
        main(["compliance", *args])
    said = capsys.readouterr().err + (exited.value.code if isinstance(exited.value.code, str) else "")
    assert exited.value.code not in (0, None) and message in said, said
    assert "Traceback" not in said


def test_a_card_is_found_as_a_word_only():
    from arena_server.compliance.spectating import _mentions

    assert _mentions("event { text: \"a card is dealt to seat 0\" } Kuhn poker, Kings", {"K", "Q", "J"}) == []
    assert _mentions('data { fields { key: "card" value { string_value: "K" } } }', {"K", "Q"}) == ["K"]
    assert _mentions("seat 1 holds Q.", {"Q"}) == ["Q"]


def test_the_checks_cite_the_proto_and_state_their_rule():
    checks = all_checks()
    assert len({c.id for c in checks}) == len(checks) >= 40
    for c in checks:
        assert c.section and c.rule and c.id.split(".")[0] == c.area
        assert any(source in c.section for source in (".proto", "docs/protocol.md")), c.id


def test_the_checks_speak_only_the_wire_contract():
    """Nothing of the server's internals: the generated arena.v1 stubs, grpc, protobuf, cryptography and the
    standard library, and the compliance package itself."""
    import ast

    allowed = {"arena", "grpc", "google", "cryptography", "__future__"} | set(sys.stdlib_module_names)
    package = ROOT / "arena_server" / "compliance"
    for path in package.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                names = [node.module]
            else:
                continue
            for name in names:
                assert name.split(".")[0] in allowed, f"{path.name} imports {name}"
                assert not name.startswith("arena.") or name.startswith("arena.v1"), f"{path.name} imports {name}"
