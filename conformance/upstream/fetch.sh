#!/usr/bin/env bash
# Gets Redis's own test suite for exactly the installed redis-server, from Debian's source package:
# enables the matching deb-src entries, installs dpkg-dev (to unpack) and tcl (to run the suite)
# from Debian, and runs `apt-get source redis=<installed version>` into a cache folder outside the
# repository. Nothing else is downloaded. Idempotent: a second run with the source already
# unpacked does nothing. Run as root (apt-get).
#
#   conformance/upstream/fetch.sh            # prints the unpacked source folder on its last line
#
# The cache folder is $KEEL_UPSTREAM_DIR, or build/upstream-src beside the repository's build/.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cache=${KEEL_UPSTREAM_DIR:-$repo/build/upstream-src}

version=$(dpkg-query -W -f='${Version}' redis-server 2>/dev/null || true)
if [ -z "$version" ]; then
  echo "fetch.sh: redis-server is not installed (bash .ci/deps installs it)" >&2
  exit 1
fi
upstream_version=${version#*:}       # 5:7.0.15-1~deb12u10 -> 7.0.15-1~deb12u10
upstream_version=${upstream_version%-*}  # -> 7.0.15
src="$cache/redis-$upstream_version"
stamp="$cache/.fetched-$version"

if [ -f "$stamp" ] && [ -x "$src/runtest" ]; then
  echo "$src"
  exit 0
fi

export DEBIAN_FRONTEND=noninteractive
need=()
for package in dpkg-dev tcl; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" ||
    need+=("$package")
done

# deb-src entries for the suites the deb entries use (bookworm, its updates and its security
# archive, where Debian 12's redis updates come from), on the same mirrors.
list=/etc/apt/sources.list.d/keel-deb-src.sources
updated=no
if ! apt-cache showsrc "redis=$version" 2>/dev/null | grep -q "^Version: $version\$"; then
  if [ ! -f "$list" ]; then
    cat >"$list" <<'EOF'
# Added by Keel's conformance/upstream/fetch.sh: Debian's source packages, for Redis's test suite.
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb-src
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
  fi
  apt-get update -qq
  updated=yes
fi
if [ ${#need[@]} -gt 0 ]; then
  [ "$updated" = yes ] || apt-get update -qq
  echo "fetch.sh: installing ${need[*]}" >&2
  apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

mkdir -p "$cache"
rm -rf "$src"
# apt-get source runs as root here; _apt cannot write into the cache, so download unsandboxed.
(cd "$cache" && apt-get source -qq -o APT::Sandbox::User=root "redis=$version" >&2)
if [ ! -x "$src/runtest" ]; then
  echo "fetch.sh: apt-get source redis=$version did not unpack $src/runtest" >&2
  exit 1
fi
touch "$stamp"
echo "$src"
