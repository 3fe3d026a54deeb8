#!/usr/bin/env bash
# Install what the build and the tests need, skipping what is already there.
# Sourced by scripts/test and scripts/demo; safe to run any number of times.
#
# Cargo tools go to CARGO_INSTALL_ROOT (default ~/.cargo), whose bin/ is put
# first on PATH: .ci/run points it at an empty directory, so every CI run
# proves the install steps instead of finding tools a machine already has.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

say() { printf '\033[1m[setup]\033[0m %s\n' "$*"; }

tools_root="${CARGO_INSTALL_ROOT:-$HOME/.cargo}"
export PATH="$tools_root/bin:$HOME/.cargo/bin:$PATH"

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  say "rustup target add wasm32-unknown-unknown"
  rustup target add wasm32-unknown-unknown
fi

# `cargo install NAME --version =V`, pinned. --locked first (the tool's own
# lockfile); when the registry no longer serves a crate that lockfile names
# (seen: webpki-roots 1.0.11 for wasm-bindgen-cli 0.2.130), resolution fails
# at once and we resolve afresh within the tool's own semver ranges.
cargo_install() {
  local name=$1 version=$2 bin=$3
  shift 3 # any more: flags for `cargo install`
  if "$tools_root/bin/$bin" --version 2>/dev/null | grep -q " $version\$"; then return; fi
  say "cargo install $name $version (into $tools_root)"
  if ! cargo install "$name" --version "=$version" --root "$tools_root" --locked --quiet "$@"; then
    say "$name $version: its lockfile no longer resolves here; installing without --locked"
    cargo install "$name" --version "=$version" --root "$tools_root" --quiet "$@"
  fi
  "$tools_root/bin/$bin" --version >/dev/null
}

# wasm-bindgen-cli must be exactly the wasm-bindgen of Cargo.lock (wasm-pack
# would otherwise try to download one, which fails here).
wb_version=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
cargo_install wasm-bindgen-cli "$wb_version" wasm-bindgen
cargo_install wasm-pack 0.15.1 wasm-pack

if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; then
  say "apt-get install chromium chromium-driver"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null
fi

# Browser engines beyond Chromium, for js/engines and `wasm-pack test --firefox`
# / `--safari`: Firefox ESR with geckodriver (built from crates.io: its prebuilt
# downloads fail here), WebKitGTK's WebKitWebDriver (which starts MiniBrowser,
# Safari's engine), and Xvfb for WebKit's window. GECKODRIVER is never exported:
# wasm-bindgen-test-runner would then send every browser run to Firefox.
if [ ! -x /usr/bin/firefox-esr ] || [ ! -x /usr/bin/WebKitWebDriver ] || ! command -v xvfb-run >/dev/null || ! command -v xauth >/dev/null; then
  say "apt-get install firefox-esr webkit2gtk-driver xvfb xauth"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq firefox-esr webkit2gtk-driver xvfb xauth >/dev/null
fi
# --debug: a driver that relays HTTP to the browser needs no optimizing, and
# builds in about half the CPU time (2 min 20 s against 4 min 7 s here).
cargo_install geckodriver 0.37.1 geckodriver --debug

# npm packages, wasm-opt (npm's binaryen@132: Debian's wasm-opt 108 breaks
# wasm-bindgen 0.2.130 output) and workerd among them, from the committed lockfile.
if [ ! -f js/node_modules/.package-lock.json ] || [ js/package-lock.json -nt js/node_modules/.package-lock.json ]; then
  say "npm ci (js/)"
  npm --prefix js ci --no-audit --no-fund --loglevel=error
fi

# The View frameworks (js/views, a lockfile of its own): their tests, and the
# peer types (vue, svelte, solid-js, preact, @angular/core) that the build's
# type check of pkg-template reads (js/tsconfig.pkg.json).
if [ ! -f js/views/node_modules/.package-lock.json ] || [ js/views/package-lock.json -nt js/views/node_modules/.package-lock.json ]; then
  say "npm ci (js/views/)"
  npm --prefix js/views ci --no-audit --no-fund --loglevel=error
fi

export CHROMEDRIVER=/usr/bin/chromedriver

# The publish checks' tools (publint, @arethetypeswrong/cli, TypeDoc) and the
# TypeScript versions the package's types are checked with (6.0, 7.0): a
# lockfile of their own (js/publish/), so that they never move the build's.
if [ ! -f js/publish/node_modules/.package-lock.json ] || [ js/publish/package-lock.json -nt js/publish/node_modules/.package-lock.json ]; then
  say "npm ci (js/publish/)"
  npm --prefix js/publish ci --no-audit --no-fund --loglevel=error
fi

# ---- hosts of other projects for www/e2e ---------------------------------------
# The mcp-use Inspector (@mcp-use/inspector, run on npm node >= 22.22), the
# MCPJam Inspector (@mcpjam/inspector: about 1,150 packages, 1.2 GB, most of
# this step's time) and @mcp-ui/client's AppRenderer, from their own lockfile
# in www/third-party.
if [ ! -f www/third-party/node_modules/.package-lock.json ] || [ www/third-party/package-lock.json -nt www/third-party/node_modules/.package-lock.json ]; then
  say "npm ci (www/third-party: @mcp-use/inspector, @mcpjam/inspector, @mcp-ui/client)"
  npm --prefix www/third-party ci --no-audit --no-fund --loglevel=error
fi

# The demo's View in six frameworks (www/views: Vite, each framework's own Vite
# plugin, Angular's compiler) and ext-apps 1.x beside it (www/views/ext-apps-1),
# from their own lockfiles; www/views/build.mjs adds the packed tarball.
for project in www/views www/views/ext-apps-1; do
  if [ ! -f "$project/node_modules/.package-lock.json" ] || [ "$project/package-lock.json" -nt "$project/node_modules/.package-lock.json" ]; then
    say "npm ci ($project)"
    npm --prefix "$project" ci --no-audit --no-fund --loglevel=error
  fi
done
