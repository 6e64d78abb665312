"""The name rule of API keys' agents: plain names as before, and "lab/agent" for another lab's agent
that plays on this server with a federated key (issue 19, phase 2)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from arena_server import auth
from arena_server.federation.keys import init_key
from arena_server.store import Store

from ..conftest import ROOT


@pytest.mark.parametrize("name", ["beta/bob", "b-2.x/my_bot", "B/b", f"{'l' * 64}/{'a' * 64}"])
def test_a_federated_name_has_one_slash_between_two_valid_names(name):
    auth.validate_federated_agent_name(name, own_lab="alpha")
    auth.validate_federated_agent_name(name, own_lab=None)


@pytest.mark.parametrize("name", ["beta/bob/x", "/bob", "beta/", "/", "beta//bob", "be ta/bob", "beta/-bob",
                                  f"{'l' * 65}/bob", "beta/bob!", "-beta/bob"])
def test_other_shapes_are_refused_in_one_line(name):
    with pytest.raises(ValueError) as refused:
        auth.validate_federated_agent_name(name, own_lab="alpha")
    assert "\n" not in str(refused.value) and "lab/agent" in str(refused.value)


def test_plain_names_keep_their_rule_and_the_own_lab_is_refused():
    auth.validate_federated_agent_name("bob", own_lab="alpha")
    for bad in ("", "-bob", "b" * 65, "bo b"):
        with pytest.raises(ValueError, match="invalid agent name"):
            auth.validate_federated_agent_name(bad, own_lab="alpha")
    with pytest.raises(ValueError, match="own lab alpha: give its plain name 'bob'"):
        auth.validate_federated_agent_name("alpha/bob", own_lab="alpha")


def test_create_key_takes_a_federated_name_only_when_asked(tmp_path):
    store = Store(tmp_path / "arena.db")
    with pytest.raises(ValueError, match="invalid agent name 'beta/bob'"):
        auth.create_key(store, agent_name="beta/bob", scopes=["play"])        # the RPC's path: plain names only
    key, _ = auth.create_key(store, agent_name="beta/bob", scopes=["play"], federated=True, own_lab="alpha")
    principal = auth.authenticate(store, key)
    assert principal.agent_name == "beta/bob" and principal.allows("play")
    assert store.get_agent("beta/bob") is not None
    with pytest.raises(ValueError, match="own lab"):
        auth.create_key(store, agent_name="alpha/bob", scopes=["play"], federated=True, own_lab="alpha")
    store.close()


def keys_create(db, agent: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "arena_server.cli", "keys", "create", "--db", str(db), "--agent", agent,
                           "--create-db"], capture_output=True, text=True, cwd=ROOT, timeout=60)


def test_keys_create_issues_a_federated_key_and_refuses_the_servers_own_lab(tmp_path):
    db = tmp_path / "arena.db"
    init_key(tmp_path / "arena.db.lab-key", "alpha")
    issued = keys_create(db, "beta/bob")
    assert issued.returncode == 0, issued.stderr
    assert issued.stdout.startswith("ak_") and "agent beta/bob" in issued.stderr
    own = keys_create(db, "alpha/bob")
    assert own.returncode == 2 and own.stdout == ""
    assert own.stderr.strip().count("\n") == 0 and "own lab alpha" in own.stderr
    shape = keys_create(db, "beta/bob/x")
    assert shape.returncode == 2 and "invalid federated agent name 'beta/bob/x'" in shape.stderr
    store = Store(db)
    assert [row["agent_name"] for row in store.list_keys()] == ["beta/bob"]
    store.close()
