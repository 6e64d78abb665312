#!/usr/bin/env bash
# Installs what the tests need beyond Python: the C++ toolchain and gRPC from Debian's packages
# (the C++ bot's test builds clients/cpp), and the Go protoc plugins (the proto's per-language
# options are checked with them). Node.js and npm come with the machine.
set -euo pipefail
packages="g++ cmake pkg-config libgrpc++-dev libprotobuf-dev protobuf-compiler protobuf-compiler-grpc
              protoc-gen-go protoc-gen-go-grpc"
if ! dpkg -s $packages >/dev/null 2>&1; then
  echo "installing the C++ toolchain and protoc plugins (Debian packages)..." >&2
  as_root=""; [ "$(id -u)" -eq 0 ] || as_root="sudo"
  $as_root apt-get update -qq
  $as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $packages
fi
