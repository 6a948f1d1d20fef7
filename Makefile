# jupyterlab-bookshelf: set-up, demo, tests and benchmarks.
#
#   make demo    S3 server + JupyterLab with the extension, ready to use
#   make test    lint, jest, pytest and the Galata UI tests
#   make bench   benchmarks (not part of make test)
#   make bench-large  200 MB and 1 GB notebooks both ways, with the tab's memory
#
# Everything is installed inside the repo (.venv, node_modules); a second run
# reuses it.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

VENV := .venv
BIN := $(CURDIR)/$(VENV)/bin
PYTHON := $(BIN)/python
JLPM := $(BIN)/jlpm
export PATH := $(BIN):$(PATH)
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD := 1
export PIP_DISABLE_PIP_VERSION_CHECK := 1

BOOKSHELF_S3_PORT ?= 9000
BOOKSHELF_LAB_PORT ?= 8888
export BOOKSHELF_S3_PORT BOOKSHELF_LAB_PORT

# The versions the project builds and tests against (Notebook 7.6.3 is the
# newest whose JupyterLab requirement matches the pinned 4.6.4).
PY_DEV_DEPS := "jupyterlab==4.6.4" "notebook==7.6.3" "jupyter-builder>=1.2,<2" "hatchling>=1.5" \
	"hatch-nodejs-version>=0.3.2" "hatch-jupyter-builder>=0.5" "editables"

STAMP_PY := $(VENV)/.deps-installed
STAMP_DEV := $(VENV)/.extension-installed
STAMP_JS := node_modules/.deps-installed
STAMP_UI := ui-tests/node_modules/.deps-installed
BUILT := jupyterlab_bookshelf/labextension/package.json
# Debian's Chromium for the benchmarks (the browser people use), and its
# headless shell for the UI tests: the same Blink, V8 and network stack
# without the browser's own interface, the build Playwright runs headless
# tests in. A Lab page load costs 1.7 s of CPU in the shell against 2.4 s in
# the full browser (median of 10), and the UI tests load Lab about 200 times.
CHROMIUM := /usr/bin/chromium
HEADLESS_SHELL := /usr/bin/chromium-headless-shell
# nginx, for the UI tests of clones behind a proxy with a body size limit,
# and openssl, for the certificate of the one that ends TLS.
NGINX := /usr/sbin/nginx
OPENSSL := /usr/bin/openssl
FRONTEND_SOURCES := $(shell find src style schema buildutils -type f 2>/dev/null) package.json tsconfig.json webpack.config.js

.PHONY: help setup demo demo-hub test bench bench-large screenshots lint clean

help:
	@echo "make demo   start the S3 server and JupyterLab with the extension"
	@echo "make demo-hub  the same on a local JupyterHub with two users (ana, bob)"
	@echo "make test   lint, jest, pytest and the Galata UI tests"
	@echo "make bench  benchmarks"
	@echo "make bench-large  200 MB and 1 GB notebooks both ways"
	@echo "make screenshots  the README's pictures"

setup: $(STAMP_DEV)

$(PYTHON):
	python3 -m venv $(VENV)

# uv installs the 170 packages in about 4 s where pip takes 40 (the same
# versions: it resolves and unpacks in parallel, from a cache of unpacked wheels).
$(STAMP_PY): pyproject.toml | $(PYTHON)
	$(PYTHON) -m pip install -q uv
	# The project's own dependencies and dev and test extras, without building it yet.
	$(PYTHON) -c 'import tomllib; d = tomllib.load(open("pyproject.toml", "rb")); \
	  o = d["project"]["optional-dependencies"]; \
	  print("\n".join(d["project"]["dependencies"] + o["dev"] + o["test"]))' > $(VENV)/requirements.txt
	$(BIN)/uv pip install -q --python $(PYTHON) --upgrade-package pip pip $(PY_DEV_DEPS) -r $(VENV)/requirements.txt
	touch $@

$(STAMP_JS): package.json yarn.lock .yarnrc.yml | $(STAMP_PY)
	$(JLPM) install --immutable
	touch $@

$(BUILT): $(FRONTEND_SOURCES) $(STAMP_JS)
	$(JLPM) build:prod

# An editable install whose labextension is a link to the build output, as
# the extension template's development install does.
$(STAMP_DEV): $(STAMP_PY) $(BUILT) pyproject.toml
	SKIP_JUPYTER_BUILDER=1 $(PYTHON) -m pip install -q --no-deps --no-build-isolation -e .
	$(BIN)/jupyter labextension develop --overwrite . > /dev/null
	$(BIN)/jupyter server extension enable jupyterlab_bookshelf > /dev/null
	touch $@

$(STAMP_UI): ui-tests/package.json ui-tests/yarn.lock | $(STAMP_PY)
	cd ui-tests && $(JLPM) install --immutable
	touch $@

$(CHROMIUM) $(HEADLESS_SHELL) $(NGINX) $(OPENSSL):
	@if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $(notdir $@) > /dev/null

# One apt-get at a time: dpkg takes a lock.
$(NGINX): | $(HEADLESS_SHELL)
$(CHROMIUM): | $(NGINX)
$(OPENSSL): | $(CHROMIUM)

demo: setup
	$(PYTHON) scripts/serve.py --mode demo --s3-port $(BOOKSHELF_S3_PORT) --lab-port $(BOOKSHELF_LAB_PORT)

# A local JupyterHub (two users, ana and bob) with the extension and the S3 server.
demo-hub: setup $(STAMP_UI)
	$(PYTHON) scripts/hub_fixture.py --port $${BOOKSHELF_HUB_PORT:-8000} --s3-port $(BOOKSHELF_S3_PORT)

lint: $(STAMP_JS)
	$(JLPM) lint:check

# The set-up steps side by side where they can be (the two npm installs, the
# build and chromium need only the virtualenv), each step's output in one piece.
# The UI tests run in Chromium's headless shell, and in the full Chromium
# where only it will do (tests/local-network.spec.ts).
test:
	$(MAKE) -j3 --output-sync=target setup $(STAMP_UI) $(HEADLESS_SHELL) $(NGINX) $(CHROMIUM) $(OPENSSL)
	$(PYTHON) scripts/run_tests.py

bench: setup $(STAMP_UI) $(CHROMIUM)
	$(PYTHON) bench/run.py
	$(PYTHON) bench/server_side.py

bench-large: setup $(STAMP_UI) $(CHROMIUM)
	$(PYTHON) bench/run.py --large

# The README's pictures (docs/images/), from the UI tests' servers.
screenshots: setup $(STAMP_UI) $(HEADLESS_SHELL)
	cd ui-tests && $(JLPM) playwright test -c screenshots.config.js

clean:
	rm -rf lib tsconfig.tsbuildinfo jupyterlab_bookshelf/labextension .run .test-results
