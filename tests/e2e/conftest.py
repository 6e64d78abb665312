"""Built bots and test certificates, made once per test session and shared by every module that
runs the TypeScript or C++ bot or needs TLS."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from ..conftest import ROOT
from .certificates import TestCA

CPP_PACKAGES = "g++ cmake pkg-config libgrpc++-dev libprotobuf-dev protobuf-compiler protobuf-compiler-grpc"
TYPESCRIPT_DIR = ROOT / "clients" / "typescript"


@pytest.fixture(scope="session")
def typescript_bot() -> list[str]:
    """Installs and builds the TypeScript bot the way its README says; returns the command that runs it."""
    for tool in ("node", "npm"):
        if shutil.which(tool) is None:
            pytest.fail(f"`{tool}` is not on PATH: the TypeScript bot test needs Node.js 20+ and npm")
    for command in (["npm", "ci", "--no-audit", "--no-fund"], ["npm", "run", "build"]):
        done = subprocess.run(command, cwd=TYPESCRIPT_DIR, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, f"`{' '.join(command)}` failed in {TYPESCRIPT_DIR}:\n{done.stdout}\n{done.stderr}"
    return ["node", str(TYPESCRIPT_DIR / "dist" / "main.js")]


@pytest.fixture(scope="session")
def cpp_bot(tmp_path_factory) -> Path:
    """clients/cpp configured and built into a temporary directory, as a C++ team would build it."""
    missing = [tool for tool in ("c++", "cmake", "pkg-config", "protoc", "grpc_cpp_plugin") if not shutil.which(tool)]
    if not missing and subprocess.run(["pkg-config", "--exists", "grpc++", "protobuf"]).returncode != 0:
        missing.append("the grpc++ and protobuf pkg-config modules")
    if missing:
        pytest.fail(f"the C++ toolchain for clients/cpp is missing ({', '.join(missing)}): install the Debian "
                    f"packages {CPP_PACKAGES} (.ci/run does)")
    build = tmp_path_factory.mktemp("cpp-build")
    for command in (["cmake", "-S", str(ROOT / "clients" / "cpp"), "-B", str(build)],
                    ["cmake", "--build", str(build), "-j2"]):
        done = subprocess.run(command, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, f"{' '.join(command)} failed:\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}"
    return build / "arena-bot"


@pytest.fixture(scope="session")
def pki(tmp_path_factory):
    """A test CA with a server certificate for localhost, a client certificate, and a client
    certificate from another CA."""
    folder = tmp_path_factory.mktemp("pki")
    ca = TestCA(folder)
    stranger = TestCA(folder, "Some Other CA")
    return {"ca": ca, "server": ca.issue("localhost", server=True), "client": ca.issue("peer-lab", server=False),
            "stranger": stranger.issue("impostor", server=False)}
