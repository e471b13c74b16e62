#!/usr/bin/env bash
# Black-box test of the Debian package (ctest blackbox.deb_package; docs/deploy.md):
#   1. cpack builds engram_<version>_amd64.deb from BUILD_DIR into a temporary directory;
#   2. its files, control fields, conffiles, maintainer scripts and Depends (a package for
#      every shared library the binary loads) are what docs/deploy.md says;
#   3. its systemd units pass `systemd-analyze verify` (copies whose engram is the extracted
#      one), and every option its units and /etc/default/engram use is one engram has;
#   4. it is installed and run: as root (or with passwordless sudo) `dpkg -i` for real, the
#      system user engram and /var/lib/engram checked, the server started as engram.service's
#      ExecStart says (as engram, with /etc/default/engram's variables, on a free loopback
#      port), a memory written and read back over HTTP, the server stopped, engram-maintain's
#      command run, and `dpkg --purge` checked to leave no file or data behind. Without root
#      or sudo the same happens in an alternate root (dpkg --instdir/--admindir under
#      fakeroot, scripts chrootless with DPKG_ROOT), running the binary from there.
# The package never stays installed: an exit for any reason purges it, and removes the user
# engram if this test created it. An engram installed before the test (the package, or the
# data and config a removed one left) is left alone: the test then uses the alternate root.
#   scripts/deb_test.sh BUILD_DIR
# Needs cpack, dpkg-dev (dpkg-shlibdeps), fakeroot, systemd (systemd-analyze), python3.
set -euo pipefail
if [ $# -ne 1 ] || [ ! -f "$1/CPackConfig.cmake" ] || [ ! -x "$1/engram" ]; then
  echo "usage: $0 BUILD_DIR (a configured and built build directory)" >&2
  exit 2
fi
BUILD=$(cd "$1" && pwd)
export LC_ALL=C PATH="/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

step() { echo; echo "== $*"; }
ok() { echo "ok: $*"; }
fail() { echo "deb_test: FAIL: $*" >&2; exit 1; }

TMP=$(mktemp -d /tmp/engram-deb.XXXXXX)
SUDO=""
MODE=""               # real (dpkg -i on this machine) or altroot
INSTALLED=""          # set once dpkg -i ran (real mode): the exit trap purges
CREATED_USER=""       # set when the user engram did not exist before (real mode)
SERVER_PID=""
ALT="$TMP/root"       # the alternate root
FAKEROOT_STATE="$TMP/fakeroot.state"

cleanup() {
  local rc=$?
  set +e
  if [ -n "$SERVER_PID" ]; then $SUDO kill -KILL "$SERVER_PID" 2>/dev/null; fi
  if [ -n "$INSTALLED" ]; then
    echo "cleanup: dpkg --purge engram"
    $SUDO dpkg --purge engram >/dev/null
  fi
  if [ -n "$CREATED_USER" ] && getent passwd engram >/dev/null; then
    echo "cleanup: userdel engram (created by this test)"
    $SUDO userdel engram
    getent group engram >/dev/null && $SUDO groupdel engram
  fi
  $SUDO rm -rf "$TMP"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# ---- 1. the package ----
step "cpack"
VERSION=$("$BUILD/engram" --version | awk '{ print $2 }')
[ -n "$VERSION" ] || fail "engram --version printed no version"
cpack --config "$BUILD/CPackConfig.cmake" -B "$TMP/pkg" >"$TMP/cpack.log" 2>&1 ||
  { cat "$TMP/cpack.log" >&2; fail "cpack failed"; }
DEB="$TMP/pkg/engram_${VERSION}_amd64.deb"
[ -f "$DEB" ] || { ls "$TMP/pkg" >&2; fail "no $(basename "$DEB")"; }
ok "$(basename "$DEB"), $(stat -c %s "$DEB") bytes"

# ---- 2. contents and control ----
step "contents and control fields"
dpkg-deb -c "$DEB" | awk '{ print $2, $6 }' >"$TMP/contents"
for path in ./usr/bin/engram ./usr/share/man/man1/engram.1 ./usr/share/engram/prompts/extract-v4.txt \
  ./usr/share/engram/prompts/decide-v1.txt ./lib/systemd/system/engram.service \
  ./lib/systemd/system/engram-maintain.service ./lib/systemd/system/engram-maintain.timer \
  ./etc/default/engram; do
  grep -q " $path\$" "$TMP/contents" || fail "$path not in the package"
done
if grep -v '^root/root ' "$TMP/contents"; then fail "files not owned by root/root"; fi
if grep -q ' \./usr/local' "$TMP/contents"; then fail "files under /usr/local"; fi
ok "binary, man page, prompts, units and /etc/default/engram, all root's"

field() { dpkg-deb -f "$DEB" "$1"; }
[ "$(field Package)" = engram ] || fail "Package: $(field Package)"
[ "$(field Version)" = "$VERSION" ] || fail "Version: $(field Version), binary says $VERSION"
[ "$(field Architecture)" = amd64 ] || fail "Architecture: $(field Architecture)"
DEPENDS=$(field Depends)
echo "Depends: $DEPENDS"
dpkg-deb -I "$DEB" >"$TMP/info"
for script in postinst prerm postrm; do
  grep -Eq "^ +[0-9]+ bytes, +[0-9]+ lines +\* +$script " "$TMP/info" ||
    fail "no executable $script in the control archive"
done
dpkg-deb -e "$DEB" "$TMP/control"
[ "$(cat "$TMP/control/conffiles")" = /etc/default/engram ] || fail "conffiles: $(cat "$TMP/control/conffiles")"
for script in postinst prerm postrm; do sh -n "$TMP/control/$script" || fail "$script: syntax"; done

# Depends names the package of every shared library the binary loads (dpkg-shlibdeps).
dpkg-deb -x "$DEB" "$TMP/x"
depends_pkgs=$(echo "$DEPENDS" | tr ',' '\n' | awk '{ print $1 }')
echo "$depends_pkgs" | grep -qx adduser || fail "Depends lacks adduser (postinst)"
echo "$depends_pkgs" | grep -qx libsqlite3-0 || fail "Depends lacks libsqlite3-0"
needed=$(readelf -d "$TMP/x/usr/bin/engram" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
[ "$(echo "$needed" | wc -l)" -ge 8 ] || fail "engram needs only: $needed"
ldd "$TMP/x/usr/bin/engram" >"$TMP/ldd"
paths=()
for soname in $needed; do
  lib=$(awk -v n="$soname" '$1 == n && $2 == "=>" { print $3 }' "$TMP/ldd")
  [ -n "$lib" ] || fail "ldd does not find $soname"
  paths+=("$lib" "${lib#/usr}" "/usr$lib")  # dpkg knows a file by /lib or /usr/lib
done
dpkg-query -S "${paths[@]}" 2>/dev/null >"$TMP/owners" || true  # one call: it is slow
for soname in $needed; do
  pkg=$(awk -v n="/$soname" 'substr($NF, length($NF) - length(n) + 1) == n { print $1 }' \
    "$TMP/owners" | cut -d: -f1 | head -1)
  [ -n "$pkg" ] || fail "no package owns $soname"
  echo "$depends_pkgs" | grep -qx "$pkg" || fail "Depends lacks $pkg (for $soname)"
done
ok "Depends covers the $(echo "$needed" | wc -l) shared libraries engram links (DT_NEEDED)"

# ---- 3. the units ----
step "systemd units"
UNITS="$TMP/x/lib/systemd/system"
# The unit's directive, the first one named (Key=value lines only).
directive() { sed -n "s/^$2=//p" "$1" | head -1; }
[ "$(directive "$UNITS/engram.service" ExecStart)" = "/usr/bin/engram serve" ] ||
  fail "engram.service ExecStart: $(directive "$UNITS/engram.service" ExecStart)"
[ "$(directive "$UNITS/engram-maintain.service" ExecStart)" = "/usr/bin/engram maintain" ] ||
  fail "engram-maintain.service ExecStart"
for kv in User=engram Group=engram EnvironmentFile=-/etc/default/engram StateDirectory=engram \
  WorkingDirectory=/var/lib/engram NoNewPrivileges=yes ProtectSystem=strict ProtectHome=yes \
  PrivateTmp=yes ReadWritePaths=/var/lib/engram Restart=on-failure WantedBy=multi-user.target; do
  grep -qx "$kv" "$UNITS/engram.service" || fail "engram.service lacks $kv"
done
for kv in User=engram EnvironmentFile=-/etc/default/engram Type=oneshot NoNewPrivileges=yes \
  ProtectSystem=strict; do
  grep -qx "$kv" "$UNITS/engram-maintain.service" || fail "engram-maintain.service lacks $kv"
done
for kv in OnCalendar=daily Persistent=true Unit=engram-maintain.service WantedBy=timers.target; do
  grep -qx "$kv" "$UNITS/engram-maintain.timer" || fail "engram-maintain.timer lacks $kv"
done
# verify needs ExecStart's binary to exist: copies that run the extracted one; MANPATH lets it
# check Documentation=man:engram(1) against the packaged page. Warnings count as failures.
mkdir "$TMP/units"
for unit in engram.service engram-maintain.service engram-maintain.timer; do
  sed "s|=/usr/bin/engram |=$TMP/x/usr/bin/engram |" "$UNITS/$unit" >"$TMP/units/$unit"
done
if ! MANPATH="$TMP/x/usr/share/man" systemd-analyze verify "$TMP/units/engram.service" \
  "$TMP/units/engram-maintain.service" "$TMP/units/engram-maintain.timer" >"$TMP/verify.log" 2>&1 ||
  [ -s "$TMP/verify.log" ]; then
  cat "$TMP/verify.log" >&2
  fail "systemd-analyze verify"
fi
ok "systemd-analyze verify: no error, no warning"

# Every command and variable the package uses is one engram has.
"$TMP/x/usr/bin/engram" serve --help >/dev/null || fail "engram serve --help"
"$TMP/x/usr/bin/engram" maintain --help >/dev/null || fail "engram maintain --help"
{ "$TMP/x/usr/bin/engram" serve --help; "$TMP/x/usr/bin/engram" help flags; } >"$TMP/help.txt"
vars=$(sed -n 's/^#\{0,1\}\(ENGRAM_[A-Z_]*\)=.*/\1/p' "$TMP/x/etc/default/engram")
[ "$(echo "$vars" | wc -l)" -ge 10 ] || fail "/etc/default/engram names only: $vars"
for v in $vars; do grep -qw "$v" "$TMP/help.txt" || fail "/etc/default/engram: engram has no $v"; done
ok "serve and maintain exist; the $(echo "$vars" | wc -l) ENGRAM_* variables of /etc/default/engram are engram's"

# ---- 4. installed and run ----
# Runs a command as root: directly, with sudo, or under fakeroot (alternate root).
as_root() {
  if [ "$MODE" = altroot ]; then
    fakeroot -i "$FAKEROOT_STATE" -s "$FAKEROOT_STATE" -- "$@"
  else
    $SUDO "$@"
  fi
}
dpkg_() {
  if [ "$MODE" = altroot ]; then
    # Its empty database has none of the Depends (checked against this machine's instead).
    as_root dpkg --instdir="$ALT" --admindir="$ALT/var/lib/dpkg" --force-not-root \
      --force-script-chrootless --force-depends --log=/dev/null "$@"
  else
    $SUDO dpkg "$@"
  fi
}
status_of() {
  if [ "$MODE" = altroot ]; then
    dpkg-query --admindir="$ALT/var/lib/dpkg" -W -f='${Status}' engram 2>/dev/null || true
  else
    dpkg-query -W -f='${Status}' engram 2>/dev/null || true
  fi
}
passwd_line() {  # the user engram's passwd entry, in the root the package went to
  if [ "$MODE" = altroot ]; then grep '^engram:' "$ALT/etc/passwd" || true
  else getent passwd engram || true; fi
}

if [ "$(id -u)" -eq 0 ]; then
  MODE=real
elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
  MODE=real SUDO="sudo -n"
else
  MODE=altroot
fi
# An engram this test did not install (a package, or a removed one's data and config, which
# a purge would delete) is left alone: the alternate root is used instead.
if [ "$MODE" = real ]; then
  prior=$(dpkg-query -W -f='${Status}' engram 2>/dev/null || true)
  case "$prior" in "" | *" not-installed") prior="" ;; esac
  for f in /var/lib/engram /var/log/engram /etc/default/engram; do
    if [ -e "$f" ]; then prior="$prior $f"; fi
  done
  if [ -n "$prior" ]; then
    echo "engram is on this machine already ($prior): left alone, an alternate root used"
    MODE=altroot SUDO=""
  fi
fi
# What the package depends on is installed here (the alternate root relies on this).
for pkg in $depends_pkgs; do
  dpkg-query -W -f='${Status}\n' "$pkg" 2>/dev/null | grep -qx "install ok installed" ||
    fail "Depends: $pkg is not installed on this machine"
done
R=""  # the root the package is installed in: "" or $ALT
if [ "$MODE" = altroot ]; then
  R="$ALT"
  mkdir -p "$ALT/var/lib/dpkg/info" "$ALT/var/lib/dpkg/updates" "$ALT/etc"
  touch "$ALT/var/lib/dpkg/status" "$FAKEROOT_STATE"
  # useradd --prefix writes the user there; the host's accounts keep its uids taken.
  cp /etc/passwd /etc/group "$ALT/etc/"
fi
step "install ($MODE${SUDO:+, with sudo}${R:+: $R})"
if [ "$MODE" = real ] && ! getent passwd engram >/dev/null; then CREATED_USER=1; fi
if [ "$MODE" = real ]; then INSTALLED=1; fi
dpkg_ -i "$DEB" >"$TMP/dpkg-install.log" 2>&1 || { cat "$TMP/dpkg-install.log" >&2; fail "dpkg -i"; }
[ "$(status_of)" = "install ok installed" ] || fail "dpkg status after install: $(status_of)"
if [ "$MODE" = real ]; then
  out=$(dpkg -V engram) || fail "dpkg -V engram: $out"
  [ -z "$out" ] || fail "installed files differ from the package: $out"
fi
for f in /usr/bin/engram /usr/share/man/man1/engram.1 /etc/default/engram \
  /lib/systemd/system/engram.service /lib/systemd/system/engram-maintain.timer; do
  [ -f "$R$f" ] || fail "$R$f not installed"
done
ok "installed: status 'install ok installed', files in place"

entry=$(passwd_line)
[ -n "$entry" ] || fail "no user engram after install"
IFS=: read -r _ _ uid gid _ home shell <<<"$entry"
[ "$home" = /var/lib/engram ] || fail "engram's home is $home"
[ "$shell" = /usr/sbin/nologin ] || fail "engram's shell is $shell"
[ "$uid" -lt 1000 ] || fail "engram is not a system user (uid $uid)"
perm=$(as_root stat -c '%u:%g %a' "$R/var/lib/engram")
[ "$perm" = "$uid:$gid 750" ] || fail "/var/lib/engram is '$perm', not '$uid:$gid 750'"
ok "system user engram (uid $uid, home /var/lib/engram, nologin) owns /var/lib/engram (0750)"
if command -v deb-systemd-helper >/dev/null; then
  link="$R/etc/systemd/system/multi-user.target.wants/engram.service"
  [ -L "$link" ] || fail "engram.service not enabled ($link)"
  [ -L "$R/etc/systemd/system/timers.target.wants/engram-maintain.timer" ] ||
    fail "engram-maintain.timer not enabled"
  ok "engram.service and engram-maintain.timer enabled (deb-systemd-helper)"
fi

# The unit's environment: EnvironmentFile's VAR=value lines as systemd reads them (comments
# and blank lines skipped, one layer of quotes removed).
env_file=$(directive "$R/lib/systemd/system/engram.service" EnvironmentFile)
env_file="$R${env_file#-}"
ENV_VARS=()
while IFS= read -r line; do
  line="${line#"${line%%[![:space:]]*}"}"
  case "$line" in '' | '#'* | ';'*) continue ;; esac
  key="${line%%=*}" value="${line#*=}"
  value="${value%\"}" value="${value#\"}"
  # In the alternate root the absolute paths of the data directory move under it.
  if [ -n "$R" ]; then value="${value//\/var\/lib\/engram/$R/var/lib/engram}"; fi
  ENV_VARS+=("$key=$value")
done <"$env_file"
db=""
for kv in "${ENV_VARS[@]}"; do if [ "${kv%%=*}" = ENGRAM_DB ]; then db="${kv#*=}"; fi; done
[ "$db" = "$R/var/lib/engram/engram.db" ] || fail "ENGRAM_DB is '$db'"

PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# Runs a unit's Exec line (directive $2 of unit $1) as systemd would: as its User (in the
# alternate root: as this user), in its WorkingDirectory with its UMask, with a clean
# environment of EnvironmentFile's variables plus $3...; systemd's `$$` is a `$` to the shell.
# The pid that execs it is written to $TMP/$1.pid first.
run_as_unit() {
  local name=$1 unit="$R/lib/systemd/system/$1" cmd wd um
  cmd=$(directive "$unit" "$2") wd=$R$(directive "$unit" WorkingDirectory)
  um=$(directive "$unit" UMask)
  shift 2
  cmd=${cmd//\$\$/\$}
  if [ -n "$R" ]; then cmd=${cmd/#\/usr\/bin\/engram /$R/usr/bin/engram }; fi
  local drop=()
  if [ "$MODE" = real ]; then
    drop=(setpriv "--reuid=$(directive "$unit" User)" "--regid=$(directive "$unit" Group)"
          --init-groups --no-new-privs)
  fi
  $SUDO sh -c 'echo $$ >"$1"; shift; exec "$@"' sh "$TMP/$name.pid" "${drop[@]}" \
    env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin "${ENV_VARS[@]}" "$@" \
    sh -c 'cd "$1" && umask "$2" && eval "exec $3"' sh "$wd" "$um" "$cmd"
}

step "start the server as engram.service does (port $PORT)"
run_as_unit engram.service ExecStart ENGRAM_PORT="$PORT" >"$TMP/server.log" 2>&1 &
BG=$!
http() {  # http METHOD PATH [JSON]: prints the body; exit status 1 unless 2xx
  python3 - "$1" "http://127.0.0.1:$PORT$2" "${3:-}" <<'EOF'
import sys, urllib.request, urllib.error
method, url, body = sys.argv[1], sys.argv[2], sys.argv[3]
req = urllib.request.Request(url, method=method, data=body.encode() if body else None,
                             headers={"Content-Type": "application/json"})
try:
    with urllib.request.urlopen(req, timeout=10) as r:
        print(r.read().decode())
except (urllib.error.URLError, OSError) as e:
    print(e, file=sys.stderr)
    sys.exit(1)
EOF
}
for _ in $(seq 1 100); do
  http GET /readyz >/dev/null 2>&1 && break
  kill -0 "$BG" 2>/dev/null || { cat "$TMP/server.log" >&2; fail "the server exited"; }
  sleep 0.1
done
http GET /readyz >/dev/null || { cat "$TMP/server.log" >&2; fail "/readyz never answered"; }
SERVER_PID=$(cat "$TMP/engram.service.pid")
[ "$(ps -o comm= -p "$SERVER_PID")" = engram ] || fail "pid $SERVER_PID is not engram"
if [ "$MODE" = real ]; then
  [ "$(ps -o user= -p "$SERVER_PID")" = engram ] || fail "the server does not run as engram"
fi
ok "/readyz answers; the server (pid $SERVER_PID) runs as $(ps -o user= -p "$SERVER_PID")"

body='{"user_id":"deb-test","content":"The package test was here","infer":false}'
http POST /v1/memories "$body" >"$TMP/add.json" || fail "POST /v1/memories"
id=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["results"][0]["id"])' "$TMP/add.json")
http GET "/v1/memories/$id?user_id=deb-test" | grep -q "The package test was here" || fail "GET /v1/memories/$id"
http GET "/v1/memories?user_id=deb-test" | grep -q "$id" || fail "the memory is not listed"
# Created by the server with the unit's UMask 0027, owned by its user.
runner=$([ "$MODE" = real ] && echo engram || id -un)
perm=$($SUDO stat -c '%U %a' "$db")  # not fakeroot's: the real owner
[ "$perm" = "$runner 640" ] || fail "$db is '$perm', not '$runner 640'"
ok "memory $id written and read back; $db owned by $runner, mode 0640"

$SUDO kill -TERM "$SERVER_PID"
rc=0
wait "$BG" || rc=$?
SERVER_PID=""
[ "$rc" -eq 0 ] || { tail -20 "$TMP/server.log" >&2; fail "the server exited $rc on SIGTERM"; }
ok "stopped cleanly on SIGTERM"

step "engram-maintain.service's condition and command"
run_as_unit engram-maintain.service ExecCondition || fail "ExecCondition skips with a database"
run_as_unit engram-maintain.service ExecStart >"$TMP/maintain.log" 2>&1 ||
  { cat "$TMP/maintain.log" >&2; fail "engram maintain"; }
ok "engram maintain: $(head -1 "$TMP/maintain.log")"

step "purge"
dpkg_ --purge engram >"$TMP/dpkg-purge.log" 2>&1 || { cat "$TMP/dpkg-purge.log" >&2; fail "dpkg --purge"; }
INSTALLED=""
[ -z "$(status_of | grep ' installed')" ] || fail "still installed: $(status_of)"
for f in /usr/bin/engram /usr/share/man/man1/engram.1 /usr/share/engram /etc/default/engram \
  /lib/systemd/system/engram.service /lib/systemd/system/engram-maintain.timer \
  /var/lib/engram /var/log/engram /etc/systemd/system/multi-user.target.wants/engram.service \
  /etc/systemd/system/timers.target.wants/engram-maintain.timer; do
  if [ -e "$R$f" ] || [ -L "$R$f" ]; then fail "$R$f is left after purge"; fi
done
ok "purged: files, units' links, the database and /var/lib/engram gone"
[ -n "$(passwd_line)" ] || fail "purge removed the user engram (postrm keeps it, as documented)"
ok "the system user engram stays (docs/deploy.md)"
echo
echo "deb_test: all passed ($MODE)"
