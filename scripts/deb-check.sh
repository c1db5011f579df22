#!/usr/bin/env bash
# make deb-check: build the .deb from the binaries make build put in bin/
# (nfpm, scripts/nfpm.yaml: the files and places of the release's .deb),
# install it with dpkg -i, check that itr runs from /usr/bin, that
# `man itr-checkpoint` finds its page and the completions are where the
# shells look, then remove it with dpkg -r, leaving the machine as it was.
# Skips, saying why, where it cannot: not root, no dpkg, itr already
# installed as a package, or no nfpm (NFPM, on PATH, or go install).
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
skip() { echo "SKIP: deb-check: $*"; exit 0; }
fail() { echo "deb-check: FAIL: $*" >&2; exit 1; }

command -v dpkg >/dev/null || skip "dpkg is not installed (not a Debian-like system)"
[ "$(id -u)" -eq 0 ] || skip "dpkg -i needs root"
if dpkg -s itr >/dev/null 2>&1; then
	skip "a package named itr is already installed; this check would replace it"
fi
NFPM=${NFPM:-$(command -v nfpm || echo "$(go env GOPATH)/bin/nfpm")}
if [ ! -x "$NFPM" ]; then
	go install github.com/goreleaser/nfpm/v2/cmd/nfpm@v2.45.2 >/dev/null 2>&1 ||
		skip "nfpm could not be installed (go install github.com/goreleaser/nfpm/v2/cmd/nfpm@v2.45.2)"
fi
for b in itr itr-mcp itr-hook; do
	[ -x "bin/$b" ] || fail "bin/$b is missing: run make build first"
done

# nfpm reads the staged files from bin/deb (its sources do not take
# variables).
STAGE=bin/deb
rm -rf "$STAGE"
trap 'rm -rf "$STAGE"; if [ -n "${installed:-}" ] && dpkg -s itr >/dev/null 2>&1; then dpkg -r itr >/dev/null; fi' EXIT
mkdir -p "$STAGE/man"
for f in docs/man/*.1; do gzip -9 -n -c "$f" > "$STAGE/man/${f##*/}.gz"; done
for sh in bash zsh fish; do bin/itr completion "$sh" > "$STAGE/itr.$sh"; done
ARCH=$(dpkg --print-architecture)
VERSION=$(bin/itr version --json | sed -n 's/.*"version": "v\{0,1\}\([0-9][^"]*\)".*/\1/p')
[ -n "$VERSION" ] || VERSION=0.0.0~dev
export ARCH VERSION
deb="$STAGE/itr_${VERSION}_${ARCH}.deb"
"$NFPM" package --config scripts/nfpm.yaml --packager deb --target "$deb" >/dev/null

# The same paths as the release's packages.
want=$( { grep -v '^#' scripts/package-files.txt | grep .; for m in docs/man/*.1; do echo "/usr/share/man/man1/${m##*/}.gz"; done; } | sort)
missing=$(comm -23 <(echo "$want") <(dpkg-deb -c "$deb" | awk '{print $NF}' | sed 's|^\./|/|' | sort -u))
[ -z "$missing" ] || fail "the .deb lacks: $missing"

installed=1
dpkg -i "$deb" >/dev/null
echo "installed $(dpkg-query -W -f '${Package} ${Version}' itr)"
[ "$(command -v itr)" = /usr/bin/itr ] || [ -x /usr/bin/itr ] || fail "/usr/bin/itr is not installed"
# Printed with echo, not tee /dev/stderr: reopening /dev/stderr truncates
# a log file the caller sent stderr to (CI's whole log).
version=$(/usr/bin/itr version) || fail "/usr/bin/itr version"
echo "$version"
case "$version" in "itr version "*) ;; *) fail "/usr/bin/itr version printed: $version" ;; esac
/usr/bin/itr-mcp -version | grep -q '^itr-mcp version ' || fail "/usr/bin/itr-mcp -version"
/usr/bin/itr-hook --version 2>&1 | grep -q 'itr-hook' || fail "/usr/bin/itr-hook --version"
for f in $(grep -v '^#' scripts/package-files.txt | grep .); do
	[ -s "$f" ] || fail "$f is not installed"
done
page=/usr/share/man/man1/itr-checkpoint.1.gz
if [ ! -f "$page" ]; then
	if grep -qs 'path-exclude.*/usr/share/man' /etc/dpkg/dpkg.cfg.d/*; then
		echo "SKIP: dpkg is set to leave out man pages here (path-exclude in /etc/dpkg/dpkg.cfg.d); the page was not installed"
	else
		fail "$page is not installed"
	fi
elif command -v man >/dev/null; then
	[ "$(man -w itr-checkpoint)" = "$page" ] || fail "man -w itr-checkpoint: $(man -w itr-checkpoint 2>&1)"
	MANPAGER=cat MANWIDTH=80 man itr-checkpoint 2>/dev/null | grep -q 'itr checkpoint' || fail "man itr-checkpoint shows no page"
	echo "man itr-checkpoint: $page"
else
	gzip -dc "$page" | grep -q '^\.TH' || fail "$page is not a man page"
	echo "(man is not installed: $page checked as a gzipped page)"
fi

dpkg -r itr >/dev/null
installed=
! dpkg -s itr >/dev/null 2>&1 || fail "itr is still installed after dpkg -r"
for f in /usr/bin/itr /usr/bin/itr-mcp /usr/bin/itr-hook $page; do
	[ ! -e "$f" ] || fail "$f is left after dpkg -r"
done
echo "deb-check: ok (installed, run and removed)"
