#!/usr/bin/env bash
# The VS Code extension's tests: the grammar test, then the end-to-end test in a real VS Code
# (code-server 4.100, VS Code 1.100) in a real browser (Debian's chromium, driven by Playwright)
# with the packaged .vsix installed and gradual's server behind it. Installs what it needs:
# chromium (apt, when /usr/bin/chromium is missing), the extension's npm packages (`npm ci`),
# code-server and playwright-core (test/e2e, `npm ci`). Needs `gradual` on PATH (the venv
# where it is installed, activated) or GRADUAL=/path/to/gradual. Arguments go to e2e.mjs.
# Screenshots: editors/vscode/test/artifacts/.
#   e2e.sh --prepare   only installs, runs the grammar test and packages the .vsix (no browser:
#                      CI runs it beside the Python tests, as it waits mostly on the network)
#   e2e.sh --run ...   only the end-to-end test, on what --prepare left
set -euo pipefail
phase=all
case "${1:-}" in
  --prepare) phase=prepare; shift ;;
  --run) phase=run; shift ;;
esac
here=$(cd "$(dirname "$0")" && pwd)
extension=$(dirname "$here")
root=$(cd "$extension/../.." && pwd)
start=$SECONDS
step() { echo "e2e.sh: [$((SECONDS - start)) s] $*"; }

gradual=${GRADUAL:-$(command -v gradual || true)}
if [ -z "$gradual" ] || [ ! -x "$gradual" ]; then
  echo "e2e.sh: gradual not found: activate the environment where it is installed, or set GRADUAL" >&2
  exit 2
fi

prepare() {
  if [ ! -x /usr/bin/chromium ]; then
    step "installing Debian's chromium"
    export DEBIAN_FRONTEND=noninteractive
    if ! { apt-get install -y -q --no-install-recommends chromium >/dev/null ||
      { apt-get update -q >/dev/null && apt-get install -y -q --no-install-recommends chromium >/dev/null; }; }; then
      echo "e2e.sh: /usr/bin/chromium is missing and could not be installed: apt-get install chromium (as root)" >&2
      exit 2
    fi
  fi

  # Install scripts are not run (`--ignore-scripts`): none of the extension's packages needs
  # one, and code-server's would compile VS Code's native modules (minutes, and kerberos needs
  # libkrb5-dev) and download ripgrep from GitHub. Its postinstall is done here instead, with
  # only what serving the editor needs: argon2 (loaded at start) is built; spdlog (the editor's
  # log files, Output channels among them) is replaced by e2e/spdlog.cjs, in JavaScript;
  # node-pty (terminals), native-watchdog, ripgrep (search) and the built-in extensions' shared
  # packages are left out. code-server is installed in the background meanwhile.
  npm_flags=(--ignore-scripts --no-audit --no-fund --loglevel=error)
  vscode="$here/e2e/node_modules/code-server/lib/vscode"
  e2e_log=$(mktemp)
  (
    cd "$here/e2e"
    npm ci "${npm_flags[@]}"
    (cd "$vscode" && npm install --omit=dev "${npm_flags[@]}" && ln -sfn node_modules node_modules.asar)
    cp "$here/e2e/spdlog.cjs" "$vscode/node_modules/@vscode/spdlog/index.js"
    npm rebuild argon2 --loglevel=error
  ) >"$e2e_log" 2>&1 &
  e2e_install=$!
  step "npm ci (the extension; code-server and playwright-core in the background)"
  (cd "$extension" && npm ci "${npm_flags[@]}")
  step "grammar test"
  (cd "$extension" && node --test --test-reporter=dot test/grammar.test.js)
  step "packaging the .vsix"
  (cd "$extension" && npm run -s package >/dev/null)
  step "waiting for code-server's installation"
  if ! wait "$e2e_install"; then
    cat "$e2e_log" >&2
    echo "e2e.sh: installing code-server and playwright-core failed (above)" >&2
    exit 1
  fi
  rm -f "$e2e_log"
}

[ "$phase" = run ] || prepare
[ "$phase" = prepare ] && { step "prepared"; exit 0; }

step "the end-to-end test"
node "$here/e2e/e2e.mjs" \
  --vsix "$extension/gradual.vsix" \
  --gradual "$gradual" \
  --model "$root/tests/data/onnx/examples/mlp_transposed.onnx" \
  "$@"
step "done"
