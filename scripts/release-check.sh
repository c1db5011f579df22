#!/usr/bin/env bash
# make release-check: validate .goreleaser.yaml, build a snapshot release of
# every archive (nothing is published), and check what a user would unpack:
# the linux/amd64 archive holds the three binaries, stamped with this commit, the
# completions and the man pages; each Windows zip holds itr.exe and
# itr-mcp.exe with them; the .deb and .rpm of linux/amd64 and arm64 hold
# what scripts/package-files.txt lists and every man page, gzipped; the
# Homebrew formula installs the programs, man pages and completions from
# the darwin and linux archives; checksums.txt lists every archive and
# package and matches it.
set -euo pipefail

GORELEASER=${GORELEASER:-goreleaser}
CONFIG=${GORELEASER_CONFIG:-.goreleaser.yaml}
if ! command -v "$GORELEASER" >/dev/null 2>&1; then
	echo "release-check: $GORELEASER not found; install it with" >&2
	echo "  go install github.com/goreleaser/goreleaser/v2@v2.15.1" >&2
	exit 1
fi

cd "$(git rev-parse --show-toplevel)"
start=$(date +%s)
fail() { echo "release-check: FAIL: $*" >&2; exit 1; }

# goreleaser reads the remote's URL (git ls-remote --get-url) and, without
# one, forgets the commit even in a snapshot: a clone without a remote gets
# one for goreleaser's git commands only, from the environment.
if [ -z "$(git remote)" ]; then
	export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=remote.origin.url GIT_CONFIG_VALUE_0=https://github.com/itr-dev/itr.git
fi

"$GORELEASER" check -f "$CONFIG"
"$GORELEASER" release -f "$CONFIG" --snapshot --clean --skip=publish

cd dist
echo "== checksums"
sha256sum -c checksums.txt
archives=$(find . -maxdepth 1 \( -name '*.tar.gz' -o -name '*.zip' \) | sed 's|^\./||' | sort)
[ "$(echo "$archives" | wc -l)" -eq 6 ] || fail "want 6 archives (linux, darwin, windows × amd64, arm64), have: $archives"
packages=$(find . -maxdepth 1 \( -name '*.deb' -o -name '*.rpm' \) | sed 's|^\./||' | sort)
[ "$(echo "$packages" | wc -l)" -eq 4 ] || fail "want 4 packages (deb, rpm × amd64, arm64), have: $packages"
for a in $archives $packages; do
	grep -q "  $a\$" checksums.txt || fail "checksums.txt does not list $a"
done
[ "$(wc -l < checksums.txt)" -eq 10 ] || fail "checksums.txt lists other files than the 6 archives and 4 packages"

echo "== linux/amd64 archive"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tar -xzf ./*_linux_amd64.tar.gz -C "$tmp"
for f in itr itr-mcp itr-hook README.md completions/itr.bash completions/itr.zsh completions/itr.fish completions/itr.ps1; do
	[ -s "$tmp/$f" ] || fail "the archive has no $f"
done
want=$(ls ../docs/man | wc -l)
have=$(ls "$tmp/docs/man" 2>/dev/null | wc -l)
[ "$want" -gt 0 ] && [ "$have" -eq "$want" ] || fail "the archive has $have man pages, docs/man has $want"
cmp -s "$tmp/docs/man/itr.1" ../docs/man/itr.1 || fail "docs/man/itr.1 in the archive differs from the repository's"
want=$(ls ../docs/guide | wc -l)
have=$(ls "$tmp/docs/guide" 2>/dev/null | wc -l)
[ "$want" -gt 0 ] && [ "$have" -eq "$want" ] || fail "the archive has $have guide pages, docs/guide has $want (the README links to them)"

json=$("$tmp/itr" version --json)
echo "$json"
commit=$(git rev-parse HEAD)
echo "$json" | grep -q "\"commit\": \"$commit\"" || fail "itr version: commit is not $commit"
echo "$json" | grep -q '"source": "ldflags"' || fail "itr version: not stamped by the linker"
want_go=${RELEASE_GO:-go1.27.3}
echo "$json" | grep -q "\"go\": \"$want_go\"" || fail "itr version: not built with the release toolchain $want_go"
echo "$json" | grep -Eq '"version": "[0-9]+\.[0-9]+\.[0-9]+' || fail "itr version: no release version"
echo "$json" | grep -q '"date": "' || fail "itr version: no date"
"$tmp/itr-mcp" -version | grep -Eq '^itr-mcp version [0-9]+\.[0-9]+\.[0-9]+' || fail "itr-mcp -version is not stamped"
"$tmp/itr-hook" --version 2>&1 | grep -q '^# itr-hook: append-only check$' || fail "itr-hook --version does not carry the hook's marker"
"$tmp/itr" completion bash | grep -q '__start_itr\|complete ' || fail "itr completion bash printed no completion script"
cmp -s <("$tmp/itr" completion bash) "$tmp/completions/itr.bash" || fail "completions/itr.bash differs from itr completion bash"

echo "== windows archives"
for a in ./*_windows_*.zip; do
	names=$(unzip -Z1 "$a")
	for f in itr.exe itr-mcp.exe README.md completions/itr.ps1 docs/man/itr.1; do
		echo "$names" | grep -qx "$f" || fail "$a has no $f"
	done
	! echo "$names" | grep -Eq '(^|/)itr-hook(\.exe)?$' || fail "$a has itr-hook, which Windows does not use"
	echo "$a: itr.exe, itr-mcp.exe, completions and man pages"
done

echo "== packages"
# The paths a package must hold: package-files.txt and a gzipped page for
# each of docs/man.
want_paths=$( { grep -v '^#' ../scripts/package-files.txt | grep .; for m in ../docs/man/*.1; do echo "/usr/share/man/man1/${m##*/}.gz"; done; } | sort)
check_paths() { # check_paths PACKAGE LISTING
	local missing
	missing=$(comm -23 <(echo "$want_paths") <(echo "$2" | sort -u))
	[ -z "$missing" ] || fail "$1 lacks: $(echo "$missing" | head -5 | tr '\n' ' ')"
}
for d in ./*.deb; do
	[ "$(dpkg-deb -f "$d" Package)" = itr ] || fail "$d: the package is not named itr"
	check_paths "$d" "$(dpkg-deb -c "$d" | awk '{print $NF}' | sed 's|^\./|/|')"
	tmpd=$(mktemp -d "$tmp/deb.XXXX")
	dpkg-deb -x "$d" "$tmpd"
	gzip -t "$tmpd/usr/share/man/man1/itr-checkpoint.1.gz" || fail "$d: itr-checkpoint.1.gz is not gzip"
	cmp -s <(gzip -dc "$tmpd/usr/share/man/man1/itr.1.gz") ../docs/man/itr.1 || fail "$d: itr.1.gz is not docs/man/itr.1"
	case "$d" in *amd64*) "$tmpd/usr/bin/itr" version | grep -q '^itr version ' || fail "$d: its itr does not run";; esac
	echo "$d: $(dpkg-deb -f "$d" Version), $(dpkg-deb -c "$d" | wc -l) entries"
done
if command -v rpm >/dev/null; then
	for r in ./*.rpm; do
		[ "$(rpm -qp --qf '%{NAME}' "$r")" = itr ] || fail "$r: the package is not named itr"
		check_paths "$r" "$(rpm -qlp "$r")"
		echo "$r: $(rpm -qp --qf '%{VERSION}-%{RELEASE}' "$r"), $(rpm -qlp "$r" | wc -l) files"
	done
else
	echo "SKIP: rpm is not installed, so the .rpm files were not listed (apt-get install rpm)"
fi

echo "== Homebrew formula"
formula=homebrew/Formula/itr.rb
[ -s "$formula" ] || fail "no $formula"
for a in ./*_darwin_*.tar.gz ./*_linux_*.tar.gz; do
	a=${a#./}
	sum=$(grep "  $a\$" checksums.txt | cut -d' ' -f1)
	grep -q "$a" "$formula" || fail "$formula does not name $a"
	grep -q "sha256 \"$sum\"" "$formula" || fail "$formula lacks the checksum of $a"
done
for line in 'bin.install "itr", "itr-mcp", "itr-hook"' 'man1.install' 'bash_completion.install' 'zsh_completion.install' 'fish_completion.install' 'depends_on "git"'; do
	grep -qF "$line" "$formula" || fail "$formula has no $line"
done
if command -v ruby >/dev/null; then
	ruby -c "$formula" >/dev/null || fail "$formula is not valid Ruby"
else
	echo "(ruby is not installed: the formula's syntax was not checked)"
fi
echo "$formula: $(grep -c 'url "' "$formula") archives"

echo "== artifacts"
ls -l $archives $packages checksums.txt
echo "release-check: ok in $(( $(date +%s) - start ))s"
