#!/usr/bin/env bash
# A throw-away Postgres cluster in a temp folder, for tests and demos (never for data you keep).
#   eval "$(bash deploy/pg-throwaway.sh start)"   # exports PG_THROWAWAY_DIR and DATABASE_URL_TEST
#   bash deploy/pg-throwaway.sh stop "$PG_THROWAWAY_DIR"
# Runs as the `postgres` user when started as root (initdb refuses root); listens on a free TCP
# port on 127.0.0.1 and on a unix socket inside the folder; trust authentication (local only).
set -euo pipefail

bin_dir() {
  local d
  d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
  if [ -z "$d" ] || [ ! -x "$d/initdb" ]; then
    echo "pg-throwaway: Postgres server binaries not found: apt-get install -y postgresql" >&2
    exit 1
  fi
  echo "$d"
}

as_pg() {
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

case "${1:-}" in
  start)
    BIN=$(bin_dir)
    DIR=$(mktemp -d /tmp/palabre-pg.XXXXXX)
    chmod 0755 "$DIR"
    [ "$(id -u)" -eq 0 ] && chown postgres: "$DIR"
    PORT=$(node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
    as_pg "$BIN/initdb" -D "$DIR/data" -U postgres -A trust -E UTF8 --no-locale >"$DIR/initdb.log" 2>&1 \
      || { cat "$DIR/initdb.log" >&2; exit 1; }
    as_pg "$BIN/pg_ctl" -D "$DIR/data" -l "$DIR/server.log" -w -t 30 \
      -o "-p $PORT -k $DIR -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200" start >/dev/null \
      || { cat "$DIR/server.log" >&2; exit 1; }
    echo "export PG_THROWAWAY_DIR=$DIR"
    echo "export DATABASE_URL_TEST=postgres://postgres@127.0.0.1:$PORT/postgres"
    ;;
  stop)
    DIR=${2:?usage: pg-throwaway.sh stop DIR}
    BIN=$(bin_dir)
    as_pg "$BIN/pg_ctl" -D "$DIR/data" -m immediate -w stop >/dev/null 2>&1 || true
    rm -rf "$DIR"
    ;;
  *)
    echo "usage: pg-throwaway.sh start | stop DIR" >&2
    exit 2
    ;;
esac
