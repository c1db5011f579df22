#!/usr/bin/env bash
# make lint, second half: govulncheck against a local copy of the Go
# vulnerability database. vuln.go.dev may be out of reach (CI sandboxes, the
# module proxy only), so the database is built from the golang.org/x/vulndb
# module, which the module proxy serves: its data/osv holds one OSV file per
# report, and its cmd/indexdb writes the layout govulncheck's -db file://
# reads (index/db.json, index/modules.json, index/vulns.json, ID/GO-….json).
# Built once per vulndb version into VULNDB_DIR; bump VULNDB_VERSION to pick
# up newer reports. When the module cannot be fetched, govulncheck runs
# against vuln.go.dev; when that is out of reach too, a SKIP line says so.
set -euo pipefail

GO=${GO:-go}
GOVULNCHECK=${GOVULNCHECK:-govulncheck}
# The standard library the check judges is the one releases are built with
# (RELEASE_GO, fetched through the module proxy by GOTOOLCHAIN; see
# .goreleaser.yaml), not whatever Go this machine has. govulncheck must be
# built by that toolchain too, or it cannot read its sources.
RELEASE_GO=${RELEASE_GO:-}
if [ -n "$RELEASE_GO" ]; then
	export GOTOOLCHAIN=$RELEASE_GO
	bin=${XDG_CACHE_HOME:-$HOME/.cache}/itr/govulncheck-$RELEASE_GO
	if [ ! -x "$bin/govulncheck" ]; then
		echo "vulncheck: building govulncheck v1.9.0 with $RELEASE_GO into $bin"
		GOBIN=$bin GOFLAGS=-buildvcs=false "$GO" install golang.org/x/vuln/cmd/govulncheck@v1.9.0 ||
			{ echo "SKIP govulncheck: $RELEASE_GO or govulncheck could not be fetched through the module proxy"; exit 0; }
	fi
	GOVULNCHECK=$bin/govulncheck
	echo "vulncheck: judging the standard library of $("$GO" env GOVERSION), the release toolchain"
fi
VULNDB_VERSION=${VULNDB_VERSION:-v0.0.0-20261105234957-e22db6528018}
VULNDB_DIR=${VULNDB_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/itr/vulndb/$VULNDB_VERSION}

if ! command -v "$GOVULNCHECK" >/dev/null 2>&1; then
	echo "vulncheck: $GOVULNCHECK not found; install it with" >&2
	echo "  go install golang.org/x/vuln/cmd/govulncheck@v1.9.0" >&2
	exit 1
fi

root=$(pwd)
build_db() {
	local work src
	work=$(mktemp -d)
	# Outside the module: the vulndb module is a tool's input, not a dependency.
	src=$(cd "$work" && "$GO" mod download -json "golang.org/x/vulndb@$VULNDB_VERSION" |
		sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p') || return 1
	[ -d "$src/data/osv" ] || { echo "vulncheck: golang.org/x/vulndb@$VULNDB_VERSION has no data/osv" >&2; return 1; }
	echo "vulncheck: building the database from golang.org/x/vulndb@$VULNDB_VERSION ($(ls "$src/data/osv" | wc -l) reports) into $VULNDB_DIR"
	(cd "$work" && GOFLAGS=-buildvcs=false "$GO" run "golang.org/x/vulndb/cmd/indexdb@$VULNDB_VERSION" \
		-vulns "$src/data/osv" -out "$work/db") || return 1
	# The reports' modified dates come from vulndb's git history, which the
	# module zip lacks (they read 0001-01-01); the database as a whole is as
	# new as the vulndb commit, which the pseudo-version names.
	local ts
	ts=$(echo "$VULNDB_VERSION" | sed -n 's/^v[0-9.]*-\([0-9]\{4\}\)\([0-9]\{2\}\)\([0-9]\{2\}\)\([0-9]\{2\}\)\([0-9]\{2\}\)\([0-9]\{2\}\)-.*/\1-\2-\3T\4:\5:\6Z/p')
	if [ -n "$ts" ]; then
		printf '{"modified":"%s"}' "$ts" > "$work/db/index/db.json"
		gzip -n -c "$work/db/index/db.json" > "$work/db/index/db.json.gz"
	fi
	mkdir -p "$(dirname "$VULNDB_DIR")"
	rm -rf "$VULNDB_DIR"
	mv "$work/db" "$VULNDB_DIR"
	rm -rf "$work"
}

if [ -f "$VULNDB_DIR/index/db.json" ] || build_db; then
	cd "$root"
	echo "vulncheck: govulncheck -db file://$VULNDB_DIR ./..."
	exec "$GOVULNCHECK" -db "file://$VULNDB_DIR" ./...
fi

cd "$root"
echo "vulncheck: no local database; trying vuln.go.dev"
set +e
out=$("$GOVULNCHECK" ./... 2>&1)
rc=$?
set -e
if [ $rc -ne 0 ] && echo "$out" | grep -Eqi 'vuln.go.dev|dial tcp|no such host|connection refused|i/o timeout|TLS handshake'; then
	echo "$out" | tail -3
	echo "SKIP govulncheck: the vulnerability database (vuln.go.dev) cannot be reached and golang.org/x/vulndb@$VULNDB_VERSION could not be built"
	exit 0
fi
echo "$out"
exit $rc
