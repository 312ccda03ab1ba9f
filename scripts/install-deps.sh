#!/usr/bin/env bash
# Installs what building (and with --test, testing) Gantry needs and is missing. Safe to re-run:
# it only installs what is absent. Uses sudo for apt when not root.
set -euo pipefail

want_test=0
[[ "${1:-}" == "--test" ]] && want_test=1

sudo_cmd=()
if [[ $(id -u) -ne 0 ]]; then sudo_cmd=(sudo); fi

# bubblewrap: the optional sandbox for the agent's commands (Settings → Tools), and its tests.
apt_packages=(build-essential pkg-config libgtk-3-dev libwebkit2gtk-4.1-dev bubblewrap)
if [[ $want_test -eq 1 ]]; then
  # xvfb/xdotool/imagemagick: the desktop smoke test; python3-gi + gir GTK: its drag source;
  # chromium: browser end-to-end tests (driven by playwright-core, never a downloaded browser).
  apt_packages+=(xvfb xdotool imagemagick chromium python3-gi gir1.2-gtk-3.0 x11-utils)
  # clangd: one of the language servers the code intelligence tests run.
  apt_packages+=(clangd)
fi
command -v node >/dev/null || apt_packages+=(nodejs)
command -v npm >/dev/null || apt_packages+=(npm)

missing=()
for p in "${apt_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [[ ${#missing[@]} -gt 0 ]]; then
  echo "Installing: ${missing[*]}"
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if ! command -v go >/dev/null; then
  echo "Go is not installed. Install Go 1.26 or newer from https://go.dev/dl/ and run this again." >&2
  exit 1
fi

# Pinned: @latest resolves to an old CLI that does not build with current Go.
wails="$(go env GOPATH)/bin/wails"
if ! "$wails" version 2>/dev/null | grep -q "v2.15.0"; then
  echo "Installing the Wails CLI v2.15.0"
  go install github.com/wailsapp/wails/v2/cmd/wails@v2.15.0
fi

if [[ ! -f frontend/node_modules/.package-lock.json ]]; then
  (cd frontend && npm ci --no-audit --no-fund)
fi

# The language servers the tests run against (the app finds them the same way, on PATH or in its
# own tools folder): gopls from the Go module proxy, the TypeScript and Python servers from npm,
# pinned, into a folder of their own outside the repository, reused by later runs and clones.
if [[ $want_test -eq 1 ]]; then
  tools="${GANTRY_TOOLS_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/gantry/tools}"
  mkdir -p "$tools"
  if ! "$tools/bin/gopls" version 2>/dev/null | grep -q "v0.23.0"; then
    echo "Installing gopls v0.23.0 into $tools/bin"
    GOFLAGS= GOBIN="$tools/bin" go install golang.org/x/tools/gopls@v0.23.0
  fi
  if [[ ! -x $tools/node_modules/.bin/typescript-language-server || ! -x $tools/node_modules/.bin/pyright-langserver ]] ||
    ! grep -q '"version": "5.3.0"' "$tools/node_modules/typescript-language-server/package.json" 2>/dev/null; then
    echo "Installing typescript-language-server, typescript and pyright into $tools"
    npm install --prefix "$tools" --no-audit --no-fund --silent \
      typescript-language-server@5.3.0 typescript@5.9.3 pyright@1.1.414 >/dev/null
  fi
  # The MCP servers of the integration tests, pinned, in a folder of their own: installing them
  # must not rewrite the language servers' node_modules while another checkout's tests use it.
  if ! grep -q '"version": "2026.8.31"' "$tools/mcp/node_modules/@modelcontextprotocol/server-filesystem/package.json" 2>/dev/null; then
    echo "Installing @modelcontextprotocol/server-filesystem into $tools/mcp"
    npm install --prefix "$tools/mcp" --no-audit --no-fund --silent \
      @modelcontextprotocol/server-filesystem@2026.8.31 >/dev/null
  fi
fi
