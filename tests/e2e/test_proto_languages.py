"""The .proto files name where each language's generated code lives, the same in every file, so
the usual generators work from the files alone: protoc's own Java, C#, PHP, Ruby and Objective-C
generators, and protoc-gen-go without any M mapping flag."""

from __future__ import annotations

import importlib
import shutil
import subprocess
from pathlib import Path

import pytest

from ..conftest import ROOT

PROTO_ROOT = ROOT / "proto"
FILES = sorted((PROTO_ROOT / "arena" / "v1").glob("*.proto"))
GO_MODULE = "github.com/arena-eval/arena"
OPTIONS = {
    "go_package": f"{GO_MODULE}/gen/go/arena/v1;arenav1",
    "java_package": "io.github.arenaeval.arena.v1",
    "java_multiple_files": True,
    "csharp_namespace": "Arena.V1",
    "php_namespace": "Arena\\V1",
    "ruby_package": "Arena::V1",
    "objc_class_prefix": "AXX",
}


def test_every_file_of_the_package_names_the_same_place_for_each_language():
    assert len(FILES) == 6
    for file in FILES:
        options = importlib.import_module(f"arena.v1.{file.stem}_pb2").DESCRIPTOR.GetOptions()
        assert {name: getattr(options, name) for name in OPTIONS} == OPTIONS, file.name
        # One outer class per file, named after it (AgentServiceProto): it never clashes with a
        # message or service of the file, as the default name would for agent_service.proto.
        assert options.java_outer_classname == file.stem.title().replace("_", "") + "Proto"


def _protoc(*arguments: str) -> None:
    if shutil.which("protoc") is None:
        pytest.fail("`protoc` is not on PATH: install the Debian package protobuf-compiler (.ci/run does, for the "
                    "C++ bot)")
    done = subprocess.run(["protoc", f"-I{PROTO_ROOT}", *arguments, *map(str, FILES)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("language, path, declaration", [
    ("java", "io/github/arenaeval/arena/v1/Hello.java", "package io.github.arenaeval.arena.v1;"),
    ("csharp", "AgentService.cs", "namespace Arena.V1 {"),
    ("php", "Arena/V1/Hello.php", "namespace Arena\\V1;"),
    ("ruby", "arena/v1/agent_service_pb.rb", "module Arena"),
    ("objc", "arena/v1/AgentService.pbobjc.h", "@interface AXXHello"),
])
def test_protocs_own_generators_put_the_code_where_the_options_say(tmp_path: Path, language, path, declaration):
    _protoc(f"--{language}_out={tmp_path}")
    assert declaration in (tmp_path / path).read_text()


def test_protoc_gen_go_needs_no_mapping_flags(tmp_path: Path):
    plugins = [p for p in ("protoc-gen-go", "protoc-gen-go-grpc") if shutil.which(p)]
    assert plugins == ["protoc-gen-go", "protoc-gen-go-grpc"], \
        "scripts/test-tools.sh installs Debian's protoc-gen-go and protoc-gen-go-grpc"
    outputs = [f"--{p.removeprefix('protoc-gen-')}_out={tmp_path}" for p in plugins]
    _protoc(*outputs, *(f"--{p.removeprefix('protoc-gen-')}_opt=module={GO_MODULE}" for p in plugins))
    generated = tmp_path / "gen" / "go" / "arena" / "v1"
    assert "package arenav1" in (generated / "agent_service.pb.go").read_text()
    if "protoc-gen-go-grpc" in plugins:
        assert "func NewAgentServiceClient(" in (generated / "agent_service_grpc.pb.go").read_text()
