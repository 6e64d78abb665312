"""Build steps that pyproject.toml cannot express: protobuf stubs and Cython modules.

The stubs are generated next to the .proto files (proto/arena/v1/*_pb2*.py) so that the Python
package `arena.v1` mirrors the protobuf package `arena.v1`. Neither the stubs nor the compiled
engines are committed.
"""

from pathlib import Path

from Cython.Build import cythonize
from setuptools import Extension, find_packages, setup

ROOT = Path(__file__).parent.resolve()
PROTO_ROOT = ROOT / "proto"


def generate_protocol_stubs() -> None:
    from grpc_tools import protoc
    import grpc_tools

    protos = sorted(str(p.relative_to(PROTO_ROOT)) for p in (PROTO_ROOT / "arena" / "v1").glob("*.proto"))
    well_known = str(Path(grpc_tools.__file__).parent / "_proto")
    args = [
        "grpc_tools.protoc",
        f"-I{PROTO_ROOT}",
        f"-I{well_known}",
        f"--python_out={PROTO_ROOT}",
        f"--pyi_out={PROTO_ROOT}",
        f"--grpc_python_out={PROTO_ROOT}",
        *protos,
    ]
    if protoc.main(args) != 0:
        raise SystemExit("protoc failed on proto/arena/v1")
    for package_dir in (PROTO_ROOT / "arena", PROTO_ROOT / "arena" / "v1"):
        (package_dir / "__init__.py").touch()


def engine_extensions() -> list[Extension]:
    sources = sorted((ROOT / "engines" / "arena_engines").glob("*.pyx"))
    extensions = [
        Extension(f"arena_engines.{src.stem}", [str(src.relative_to(ROOT))], extra_compile_args=["-O3"])
        for src in sources
    ]
    return cythonize(
        extensions,
        include_path=[str(ROOT / "engines")],
        # Bounds and wraparound checks stay on: they cost nothing on the C arrays of the hot loops
        # and keep the Python-level view code memory-safe. C division semantics are what the
        # C-level game code expects.
        compiler_directives={"language_level": 3, "cdivision": True},
        quiet=True,
    )


generate_protocol_stubs()

packages = (
    find_packages(include=["arena_server", "arena_server.*"])
    + [f"arena_client{p[len('arena_client'):]}" for p in ["arena_client"] + [f"arena_client.{s}" for s in find_packages("clients/arena_client")]]
    + ["arena_engines", "arena", "arena.v1"]
)

def server_extensions() -> list[Extension]:
    # The server's one compiled module: observations as protobuf Struct bytes (arena_server/convert.py).
    return cythonize([Extension("arena_server.struct_wire", ["arena_server/struct_wire.pyx"], extra_compile_args=["-O3"])],
                     compiler_directives={"language_level": 3}, quiet=True)


setup(packages=packages, ext_modules=engine_extensions() + server_extensions())
