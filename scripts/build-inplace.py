"""Rebuilds compiled modules in place, for development in an installed .venv.

    .venv/bin/python scripts/build-inplace.py                   # every engine and the server module
    .venv/bin/python scripts/build-inplace.py nim pig           # only these engines (others untouched)

The editable install imports the engines from engines/arena_engines/, so a module rebuilt here is
the one the tests load. Naming modules builds only those, so a half-edited engine elsewhere in the
tree does not stop the build. Needs Cython in the venv (`.venv/bin/pip install cython`); the
release build is still the plain `pip install`, through setup.py.
"""

from __future__ import annotations

import sys
from pathlib import Path

from Cython.Build import cythonize
from setuptools import Extension, setup

ROOT = Path(__file__).resolve().parents[1]
ENGINES = ROOT / "engines" / "arena_engines"


def main(names: list[str]) -> None:
    sources = [ENGINES / f"{name}.pyx" for name in names] if names else sorted(ENGINES.glob("*.pyx"))
    missing = [str(s) for s in sources if not s.is_file()]
    if missing:
        sys.exit(f"error: no such engine source: {', '.join(missing)}")
    extensions = [Extension(f"arena_engines.{s.stem}", [str(s.relative_to(ROOT))], extra_compile_args=["-O3"])
                  for s in sources]
    if not names:
        extensions.append(Extension("arena_server.struct_wire", ["arena_server/struct_wire.pyx"],
                                    extra_compile_args=["-O3"]))
    modules = cythonize(extensions, include_path=[str(ROOT / "engines")],
                        compiler_directives={"language_level": 3, "cdivision": True}, quiet=True)
    # Module names map to the source folders as in pyproject.toml's package-dir.
    setup(name="arena-inplace", ext_modules=modules, script_args=["-q", "build_ext", "--inplace"],
          package_dir={"arena_engines": "engines/arena_engines", "arena_server": "arena_server"})


if __name__ == "__main__":
    import os
    os.chdir(ROOT)
    main(sys.argv[1:])
