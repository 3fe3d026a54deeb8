#!/usr/bin/env bash
# Install what the build and the tests need, skipping what is already there.
# Sourced by scripts/test and scripts/demo; safe to run any number of times.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

say() { printf '\033[1m[setup]\033[0m %s\n' "$*"; }

export PATH="$HOME/.cargo/bin:$PATH"

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  say "rustup target add wasm32-unknown-unknown"
  rustup target add wasm32-unknown-unknown
fi

# wasm-bindgen-cli must be exactly the wasm-bindgen of Cargo.lock (wasm-pack
# would otherwise try to download one, which fails here).
wb_version=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
if ! wasm-bindgen --version 2>/dev/null | grep -qx "wasm-bindgen $wb_version"; then
  say "cargo install wasm-bindgen-cli $wb_version"
  cargo install wasm-bindgen-cli --version "=$wb_version" --locked
fi
if ! command -v wasm-pack >/dev/null; then
  say "cargo install wasm-pack"
  cargo install wasm-pack --version "=0.15.1" --locked
fi

if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; then
  say "apt-get install chromium chromium-driver"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null
fi

# npm packages, wasm-opt (npm's binaryen@132: Debian's wasm-opt 108 breaks
# wasm-bindgen 0.2.130 output) and workerd among them, from the committed lockfile.
if [ ! -f js/node_modules/.package-lock.json ] || [ js/package-lock.json -nt js/node_modules/.package-lock.json ]; then
  say "npm ci (js/)"
  npm --prefix js ci --no-audit --no-fund --loglevel=error
fi

export CHROMEDRIVER=/usr/bin/chromedriver
