# itr — the two set-up commands on a fresh machine with Go: `make demo` and `make test`.
GO        ?= go
BIN       := bin/itr
FUZZTIME  ?= 60s
PKGS      := ./...

.PHONY: all build demo screenshot serve-screenshots docs test vet fmt-check fuzz bench bench-gogit stress clean lint release-check deb-check

all: build

# The version, commit and date are stamped from git (a release stamps its
# tag); the date is the commit's, so two builds of one commit are the same.
VPKG      := github.com/itr-dev/itr/internal/version
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT    ?= $(shell git rev-parse HEAD 2>/dev/null)
DATE      ?= $(shell git log -1 --format=%cI 2>/dev/null)
LDFLAGS   := -X $(VPKG).Version=$(VERSION) -X $(VPKG).Commit=$(COMMIT) -X $(VPKG).Date=$(DATE)

# CGO_ENABLED=0: a static binary; linked against libc (pflag imports net)
# every itr process paid ~1.5 ms in the dynamic loader. itr-hook is the
# pre-commit hook program `itr hooks install` copies from beside itr.
build:
	CGO_ENABLED=0 $(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/itr
	CGO_ENABLED=0 $(GO) build -ldflags "$(LDFLAGS)" -o bin/itr-mcp ./cmd/itr-mcp
	CGO_ENABLED=0 $(GO) build -ldflags "-s -w" -o bin/itr-hook ./cmd/itr-hook

# The man pages (docs/man) and the Markdown command reference (docs/cli),
# generated from the command tree; make test fails when they are not current.
docs:
	ITR_UPDATE_DOCS=1 $(GO) test ./cmd/itr -run '^TestDocsCurrent$$' -count=1

# A scripted session in a fresh temporary git repository: what a user sees.
demo: build
	@bash internal/demo/demo.sh "$(CURDIR)/$(BIN)"

# The picture of `itr report` (docs/report.png): the demo task's report in
# a headless Chromium. The page itself is not kept: it is the template
# (internal/workspace/view/report.tmpl.html) filled in; reportshot's -html
# copies it where you ask.
screenshot: build
	$(GO) run ./internal/reportshot -itr "$(CURDIR)/$(BIN)" -out docs/report.png
	$(GO) run ./internal/reportshot -itr "$(CURDIR)/$(BIN)" -demo checkout -width 1280 -height 1700 -out docs/report-1280.png
	$(GO) run ./internal/reportshot -itr "$(CURDIR)/$(BIN)" -demo checkout -width 1920 -height 1500 -out docs/report-1920.png

# The pictures of `itr serve` (docs/serve-before.png, docs/serve-after.png):
# the demo task's board in a headless Chromium, before and after a
# checkpoint made by another itr process.
serve-screenshots: build
	$(GO) run ./internal/serveshot -itr "$(CURDIR)/$(BIN)" -before docs/serve-before.png -after docs/serve-after.png

# Every test: formatting, vet, and the race-enabled suite (unit, golden,
# property, fuzz seed corpora, real-git and testscript scenarios).
test: fmt-check vet
	$(GO) test -race -count=1 -timeout 30m $(PKGS)

vet:
	$(GO) vet $(PKGS)

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

# Each fuzz target for FUZZTIME, then the advisor's property over many more
# histories than make test runs (ADVICE_HISTORIES random histories in real
# repositories, 50 times as many at the rule book). Not part of `make
# test`; run before resolving.
ADVICE_HISTORIES ?= 200
fuzz:
	@for pkg in $$($(GO) list ./...); do \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg 2>/dev/null | grep '^Fuzz'); do \
	    echo "== $$pkg $$f"; $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
	  done; \
	done
	ITR_ADVICE_HISTORIES=$$(( $(ADVICE_HISTORIES) * 50 )) $(GO) test -count=1 -run '^TestAdviceProperty$$' -v ./reconcile
	ITR_ADVICE_HISTORIES=$(ADVICE_HISTORIES) $(GO) test -count=1 -timeout 120m -run '^TestAdviceRealRepositories$$' -v ./cmd/itr

# itr checkpoints beside git commit, commit -a, gc --auto, pack-refs and
# reflog expire for STRESS_DURATION on each size (0 files and 100,000),
# with and without itr's pre-commit hook (not part of CI, which runs a short
# version in make test; run before resolving).
STRESS_DURATION ?= 5m
STRESS_FILES    ?= 0,100000
stress: build
	ITR_STRESS_DURATION=$(STRESS_DURATION) ITR_STRESS_FILES=$(STRESS_FILES) \
	  $(GO) test -count=1 -timeout 120m -run 'TestStressGitBeside' -v ./cmd/itr/

# Benchmarks against the git CLI measured in the same run (not part of CI).
# itr against the git CLI, then gitstate against go-git (bench-gogit).
bench: build
	$(GO) run ./internal/bench -itr "$(CURDIR)/$(BIN)"
	$(GO) run ./internal/bench -gogit

# gitstate against go-git on the same repositories: time, bytes allocated,
# correctness, and commits lost next to a racing git (docs/guide/architecture.md,
# "How gitstate uses go-git"; about 2 minutes, not part of CI).
bench-gogit:
	$(GO) run ./internal/bench -gogit

# The tools below are not needed for make test; install them with go install
# (they land in $(go env GOPATH)/bin, used when not on PATH).
GOBINDIR  := $(shell $(GO) env GOPATH)/bin
tool       = $(or $(shell command -v $(1) 2>/dev/null),$(GOBINDIR)/$(1))
GOLANGCI_LINT ?= $(call tool,golangci-lint)
GOVULNCHECK   ?= $(call tool,govulncheck)
GORELEASER    ?= $(call tool,goreleaser)
# The Go that releases are built with (and whose standard library govulncheck
# judges): newer than a development machine may have, fetched through the
# module proxy by GOTOOLCHAIN.
RELEASE_GO    ?= go1.27.3

# golangci-lint (.golangci.yml; v2.15.0:
#   go install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@v2.15.0)
# and govulncheck (v1.9.0: go install golang.org/x/vuln/cmd/govulncheck@v1.9.0)
# against a vulnerability database built from the golang.org/x/vulndb module
# (scripts/vulncheck.sh; not part of make test). Both run; either fails it.
lint:
	@status=0; \
	$(GOLANGCI_LINT) run ./... || status=1; \
	GO=$(GO) GOVULNCHECK=$(GOVULNCHECK) RELEASE_GO=$(RELEASE_GO) bash scripts/vulncheck.sh || status=1; \
	exit $$status

# A snapshot release (.goreleaser.yaml; nothing published) of every archive,
# then checked: stamped binaries, completions, man pages, checksums
# (goreleaser v2.15.1; not part of make test).
release-check:
	GORELEASER=$(GORELEASER) RELEASE_GO=$(RELEASE_GO) bash scripts/release-check.sh

# The .deb built by nfpm from bin/ (scripts/nfpm.yaml, the release's files
# and places) installed with dpkg -i, run (itr version, man itr-checkpoint)
# and removed with dpkg -r; CI runs it. Skips, saying why, when not root,
# without dpkg, or when a package named itr is installed already.
deb-check: build
	bash scripts/deb-check.sh

clean:
	rm -rf bin .bench
