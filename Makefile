# Two commands matter: `make run` and `make test` (see README). Everything they need is installed
# by the scripts in scripts/, so a fresh Debian/Ubuntu machine needs nothing else.

GO_TAGS     := webkit2_41
DESKTOP_BIN := build/bin/gantry
FRONTEND_SRC := $(shell find frontend/src frontend/build frontend/index.html frontend/vite.config.ts frontend/package.json -type f 2>/dev/null)
GO_SRC      := $(shell find . -name '*.go' -not -path './frontend/*' 2>/dev/null) go.mod go.sum
WAILS       := $(shell go env GOPATH)/bin/wails

.PHONY: run build deps test test-deps frontend bench clean

run: deps build
	./$(DESKTOP_BIN)

deps:
	scripts/install-deps.sh

build: $(DESKTOP_BIN)

frontend/node_modules/.package-lock.json: frontend/package.json frontend/package-lock.json
	cd frontend && npm ci --no-audit --no-fund

frontend/dist/index.html: frontend/node_modules/.package-lock.json $(FRONTEND_SRC)
	cd frontend && npm run build

frontend: frontend/dist/index.html

# -skipbindings: the frontend calls the bound services through its own typed wrappers
# (frontend/src/lib), so Wails' generated JS bindings are not used.
$(DESKTOP_BIN): frontend/dist/index.html $(GO_SRC)
	$(WAILS) build -s -skipbindings -tags $(GO_TAGS) -ldflags "-X main.version=$$(git describe --always --dirty 2>/dev/null || echo dev)"

test-deps:
	scripts/install-deps.sh --test

test: test-deps frontend
	scripts/test.sh

bench: test-deps
	scripts/bench.sh

clean:
	rm -rf build/bin frontend/dist test-output
