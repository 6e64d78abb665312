#!/usr/bin/env bash
# Installs what the tests need beyond Python, from Debian's packages: the C++ toolchain and gRPC
# (the C++ bot's test builds clients/cpp), the Go protoc plugins (the proto's per-language options
# are checked with them), Chromium with its WebDriver (tests/web drives it headless with
# Selenium; nothing downloads a browser), and PostgreSQL (the store tests start throwaway clusters
# of their own with initdb and pg_ctl; nothing is started here). Node.js and npm come with the machine.
set -euo pipefail
packages="g++ cmake pkg-config libgrpc++-dev libprotobuf-dev protobuf-compiler protobuf-compiler-grpc
              protoc-gen-go protoc-gen-go-grpc chromium chromium-driver postgresql"
if ! dpkg -s $packages >/dev/null 2>&1; then
  echo "installing the C++ toolchain, protoc plugins, Chromium and PostgreSQL (Debian packages)..." >&2
  as_root=""; [ "$(id -u)" -eq 0 ] || as_root="sudo"
  $as_root apt-get update -qq
  $as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $packages
fi
