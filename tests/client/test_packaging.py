"""The SDK stands alone: it imports without the server's dependencies, and its CLI starts."""

from __future__ import annotations

import subprocess
import sys
import textwrap

BLOCKED = ("arena_server", "arena_engines", "numpy", "trueskill", "structlog", "choix")

IMPORT_WITHOUT_SERVER_DEPENDENCIES = textwrap.dedent(f'''
    import importlib.abc
    import sys

    BLOCKED = {BLOCKED!r}

    class Block(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path, target=None):
            if name.partition(".")[0] in BLOCKED:
                raise ImportError(f"{{name}} is blocked: the SDK must not need it")
            return None

    sys.meta_path.insert(0, Block())
    import arena_client, arena_client.cli, arena_client.agents

    leaked = sorted(m for m in sys.modules if m.partition(".")[0] in BLOCKED)
    assert not leaked, leaked
''')


def test_importing_the_sdk_needs_none_of_the_servers_dependencies():
    done = subprocess.run([sys.executable, "-c", IMPORT_WITHOUT_SERVER_DEPENDENCIES], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_cli_help():
    for args in (["--help"], ["random", "--help"]):
        done = subprocess.run([sys.executable, "-m", "arena_client.cli", *args], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
    assert "--game GAME_ID" in done.stdout and "--seed" in done.stdout


def test_cli_without_a_key_explains_how_to_give_one():
    env = {"PATH": "/usr/bin:/bin"}
    done = subprocess.run([sys.executable, "-m", "arena_client.cli", "random", "--game", "tic_tac_toe"],
                          capture_output=True, text=True, env=env)
    assert done.returncode == 2 and "ARENA_API_KEY" in done.stderr
