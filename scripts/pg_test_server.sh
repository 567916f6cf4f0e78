#!/usr/bin/env bash
# A throwaway PostgreSQL server for the tests.
#
#   scripts/pg_test_server.sh start    # prints postgresql+psycopg://...@127.0.0.1:PORT/negviz_test
#   scripts/pg_test_server.sh status   # prints the URL and exits 0 if running, else exits 1
#   scripts/pg_test_server.sh stop     # stops it and removes its files
#   scripts/pg_test_server.sh pause    # stops it, keeping its data (a database outage, for tests)
#   scripts/pg_test_server.sh resume   # starts a paused one again on the same port; prints the URL
#
# stdout carries the URL line only; progress and errors go to stderr. When PostgreSQL cannot be
# had at all, `start` prints nothing and exits 0, so the PostgreSQL tests skip instead of failing.
# One server per user (or per NEGVIZ_PG_DIR): `start` reuses a running one, so it is idempotent.
# Missing binaries are installed from Debian's `postgresql` package when running as root.
set -u

STATE=${NEGVIZ_PG_DIR:-${TMPDIR:-/tmp}/negviz-pg-$(id -u)}
DB=negviz_test
ROLE=negviz

log() { printf 'pg_test_server: %s\n' "$*" >&2; }

# Postgres refuses to run as root; as root, run the server as Debian's `postgres` user.
if [ "$(id -u)" = 0 ]; then
  RUN_AS=postgres
  as_owner() { runuser -u "$RUN_AS" -- "$@"; }
else
  RUN_AS=
  as_owner() { "$@"; }
fi

find_bin() {
  local d
  # Newest Debian versioned bin dir first, then PATH.
  for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ] && { echo "$d"; return 0; }
  done
  d=$(command -v pg_ctl 2>/dev/null) && [ -x "$(dirname "$d")/initdb" ] && { dirname "$d"; return 0; }
  return 1
}

install_postgres() {
  [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null || return 1
  log "installing Debian's postgresql package (quietly)"
  export DEBIAN_FRONTEND=noninteractive
  local opts=(-y -q --no-install-recommends -o Dpkg::Options::=--force-confold)
  # A fresh CI image may have no package lists yet: update only when the first try fails.
  apt-get install "${opts[@]}" postgresql >/dev/null 2>&1 && return 0
  apt-get update -q >/dev/null 2>&1 && apt-get install "${opts[@]}" postgresql >/dev/null 2>&1
}

is_running() {
  [ -f "$STATE/url" ] && [ -d "$STATE/data" ] && BIN=$(find_bin) &&
    as_owner "$BIN/pg_ctl" -D "$STATE/data" status >/dev/null 2>&1
}

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

stop_server() {
  # Only ever delete a directory this script made (NEGVIZ_PG_DIR could point anywhere).
  [ -f "$STATE/.negviz-pg" ] || return 0
  if [ -d "$STATE/data" ] && BIN=$(find_bin); then
    as_owner "$BIN/pg_ctl" -D "$STATE/data" -m immediate -w stop >/dev/null 2>&1
  fi
  rm -rf "$STATE"
}

# Durability is pointless for a throwaway server: fsync off makes the tests faster.
run_server() {
  as_owner "$BIN/pg_ctl" -D "$STATE/data" -l "$STATE/server.log" -w -t 60 \
    -o "-p $1 -k $STATE/sock -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
    start >/dev/null 2>&1
}

pause_server() {
  is_running || return 0
  as_owner "$BIN/pg_ctl" -D "$STATE/data" -m fast -w stop >/dev/null 2>&1
}

resume_server() {
  [ -f "$STATE/.negviz-pg" ] && [ -f "$STATE/url" ] || { log "no paused server in $STATE"; return 1; }
  if ! is_running; then
    BIN=$(find_bin) || return 1
    run_server "$(sed -E 's|.*:([0-9]+)/[^/]*$|\1|' "$STATE/url")" || { log "the server did not start again"; return 1; }
  fi
  cat "$STATE/url"
}

start_server() {
  if is_running; then
    cat "$STATE/url"
    return 0
  fi
  BIN=$(find_bin) || { install_postgres && BIN=$(find_bin); } || {
    log "PostgreSQL is not installed and cannot be installed here; PostgreSQL tests will skip"
    return 0
  }
  if [ -n "$RUN_AS" ] && ! id "$RUN_AS" >/dev/null 2>&1; then
    log "running as root but there is no '$RUN_AS' user to run the server as"
    return 0
  fi

  stop_server # leftovers from a crashed run: start clean
  if [ -e "$STATE" ]; then
    log "$STATE exists and was not made by this script; set NEGVIZ_PG_DIR elsewhere"
    return 0
  fi
  mkdir -p -m 700 "$STATE" && mkdir -m 700 "$STATE/data" "$STATE/sock" && touch "$STATE/.negviz-pg" ||
    { log "cannot create $STATE"; return 0; }
  [ -n "$RUN_AS" ] && chown -R "$RUN_AS" "$STATE"

  local password
  password=$(od -An -tx1 -N12 /dev/urandom | tr -d ' \n')
  printf '%s\n' "$password" >"$STATE/pwfile"
  [ -n "$RUN_AS" ] && chown "$RUN_AS" "$STATE/pwfile"
  # TCP needs the password; the unix socket (in a 0700 dir) trusts its owner, for createdb below.
  if ! as_owner "$BIN/initdb" -D "$STATE/data" -U "$ROLE" --pwfile="$STATE/pwfile" \
    --auth-host=scram-sha-256 --auth-local=trust -E UTF8 --locale=C.UTF-8 --no-sync \
    >"$STATE/initdb.log" 2>&1; then
    log "initdb failed:"; tail -n 20 "$STATE/initdb.log" >&2
    return 0
  fi
  rm -f "$STATE/pwfile"

  # Pick a free port; retry if another process takes it between the check and the start.
  local port attempt started=
  for attempt in 1 2 3 4 5; do
    port=$((20000 + RANDOM % 40000))
    port_free "$port" || continue
    if run_server "$port"; then
      started=1
      break
    fi
  done
  if [ -z "$started" ]; then
    log "the server did not start:"; tail -n 20 "$STATE/server.log" >&2 2>/dev/null
    stop_server
    return 0
  fi
  if ! as_owner "$BIN/createdb" -h "$STATE/sock" -p "$port" -U "$ROLE" "$DB" >/dev/null 2>&1; then
    log "createdb failed"
    stop_server
    return 0
  fi
  printf 'postgresql+psycopg://%s:%s@127.0.0.1:%s/%s\n' "$ROLE" "$password" "$port" "$DB" >"$STATE/url"
  chmod 600 "$STATE/url"
  cat "$STATE/url"
}

case "${1:-}" in
  start) start_server ;;
  stop) stop_server ;;
  status) is_running && cat "$STATE/url" ;;
  pause) pause_server ;;
  resume) resume_server ;;
  *) echo "usage: $0 start|stop|status|pause|resume" >&2; exit 2 ;;
esac
