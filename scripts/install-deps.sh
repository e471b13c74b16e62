#!/usr/bin/env bash
# Installs the Debian 12 packages Engram builds, tests and runs with — only those missing, so
# a machine that has them all needs no network. Called by `make run` and `make test`.
set -euo pipefail

PACKAGES=(
  g++ cmake ninja-build make pkg-config
  libsqlite3-dev libpq-dev postgresql nlohmann-json3-dev libcli11-dev libssl-dev libsodium-dev openssl
  libgtest-dev libgmock-dev libbenchmark-dev
  libicu-dev libstemmer-dev libhnswlib-dev libcpp-httplib-dev libmicrohttpd-dev libgnutls28-dev
  # The chat proxy reads its upstream streams on one thread with libcurl's multi interface.
  libcurl4-openssl-dev
  python3
  clang libclang-rt-14-dev clang-format
  # The web console's end-to-end tests (scripts/console_test.sh) drive Debian's Chromium with
  # playwright-core (npm ships no browser here); the font draws its Chinese text in screenshots.
  chromium fonts-wqy-microhei
  # The Debian package (cpack; scripts/deb_test.sh): dpkg-shlibdeps computes its Depends, file
  # finds the binaries for it; the test verifies the units (systemd-analyze), installs into an
  # alternate root without root (fakeroot), and the package's postinst needs adduser.
  dpkg-dev file fakeroot systemd adduser
  # Shared state of several replicas (issue 36): Redis and its C client; the routing test puts
  # two replicas behind nginx's consistent hash.
  redis-server libhiredis-dev nginx
  # The knowledge tier (issue 39): Markdown and HTML parsers, and pdftotext for PDF documents
  # (run as a child process by the server and `engram ingest`).
  libcmark-dev libxml2-dev poppler-utils
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
# Node.js and npm run the client SDKs' tests (scripts/clients_test.sh). A machine may have them
# from elsewhere (NodeSource's nodejs bundles npm): then Debian's are not installed over them.
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  missing+=(nodejs npm)
fi
[ ${#missing[@]} -eq 0 ] && exit 0

echo "installing missing packages: ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
  SUDO=sudo
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
