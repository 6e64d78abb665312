#!/usr/bin/env bash
# Installs what the tests need beyond Python: the C++ toolchain and gRPC from Debian's packages
# (the C++ bot's test builds clients/cpp). Node.js and npm come with the machine.
set -euo pipefail
cpp_packages="g++ cmake pkg-config libgrpc++-dev libprotobuf-dev protobuf-compiler protobuf-compiler-grpc"
if ! dpkg -s $cpp_packages >/dev/null 2>&1; then
  echo "installing the C++ toolchain for clients/cpp (Debian packages)..." >&2
  as_root=""; [ "$(id -u)" -eq 0 ] || as_root="sudo"
  $as_root apt-get update -qq
  $as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $cpp_packages
fi
