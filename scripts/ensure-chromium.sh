#!/usr/bin/env bash
# The e2e tests drive Debian's Chromium (never a browser downloaded by Playwright). Installs it when missing.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then exit 0; fi
if [ "$(id -u)" = "0" ]; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
else
  echo "Chromium is missing: install it with 'sudo apt-get install -y chromium' (Debian/Ubuntu)." >&2
  exit 1
fi
