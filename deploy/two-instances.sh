#!/usr/bin/env bash
# Demo: two `palabre serve` instances on one Postgres behind HAProxy, on this machine.
#
#   bash deploy/two-instances.sh            # runs until Ctrl-C; prints the URL to open
#   bash deploy/two-instances.sh --check    # starts everything, shows the balancing, stops
#
# DATABASE_URL=postgres://… uses that server; otherwise a throw-away cluster is started in a temp
# folder (deploy/pg-throwaway.sh, Debian's postgresql). Both instances share SESSION_SECRET and
# JWT_SECRET (a cookie or token signed by one must verify on the other) and run with TRUST_PROXY=1
# behind HAProxy. SURFACES defaults to docs,corrections,t2 (the surfaces whose state is in Postgres).
set -euo pipefail
cd "$(dirname "$0")/.."

CHECK=""
[ "${1:-}" = "--check" ] && CHECK=1
free_port() { node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }

WORK=$(mktemp -d /tmp/palabre-two.XXXXXX)
PIDS=()
PG_DIR=""
cleanup() {
  for p in "${PIDS[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
  [ -n "$PG_DIR" ] && bash deploy/pg-throwaway.sh stop "$PG_DIR"
  rm -rf "$WORK"
}
trap cleanup EXIT

if [ -z "${DATABASE_URL:-}" ]; then
  eval "$(bash deploy/pg-throwaway.sh start)"
  PG_DIR=$PG_THROWAWAY_DIR
  DATABASE_URL=$DATABASE_URL_TEST
fi
export DATABASE_URL
export SESSION_SECRET=${SESSION_SECRET:-$(node -e 'console.log(require("crypto").randomBytes(24).toString("hex"))')}
export JWT_SECRET=${JWT_SECRET:-$(node -e 'console.log(require("crypto").randomBytes(24).toString("hex"))')}
export ADMIN_PASSWORD=${ADMIN_PASSWORD:-demo-admin-password}
export SURFACES=${SURFACES:-docs,corrections,t2}
export TRUST_PROXY=1 LOG_FORMAT=json
# One recordings folder for both (a shared volume in a real deployment): a dead instance's T2
# session is repaired and graded by the other.
export T2_RECORDINGS_DIR=${T2_RECORDINGS_DIR:-$WORK/shared-audio}

FRONT=${FRONT_PORT:-$(free_port)}
PORT_A=$(free_port); PORT_B=$(free_port)
for name in a b; do
  port=$PORT_A; [ "$name" = b ] && port=$PORT_B
  INSTANCE_ID=$name PORT=$port HOST=127.0.0.1 MQTT_EMBEDDED_PORT=0 DATA_DIR="$WORK/$name" \
    node bin/palabre.js serve >"$WORK/$name.log" 2>&1 &
  PIDS+=($!)
done
# /readyz, not /healthz: /healthz answers 200 (status "warming") while the surfaces still start.
for port in $PORT_A $PORT_B; do
  for _ in $(seq 1 300); do
    curl -fsS "http://127.0.0.1:$port/readyz" >/dev/null 2>&1 && break
    sleep 0.2
  done
  curl -fsS "http://127.0.0.1:$port/readyz" >/dev/null || { echo "instance on $port did not become ready; its log:" >&2; cat "$WORK"/*.log >&2; exit 1; }
done

HAPROXY_BIND=127.0.0.1:$FRONT PALABRE_A=127.0.0.1:$PORT_A PALABRE_B=127.0.0.1:$PORT_B \
  haproxy -f deploy/haproxy.cfg -db >"$WORK/haproxy.log" 2>&1 &
PIDS+=($!)
# HAProxy marks an instance up after 2 good checks (1 s apart): wait until both are.
for _ in $(seq 1 50); do curl -fsS "http://127.0.0.1:$FRONT/readyz" >/dev/null 2>&1 && break; sleep 0.2; done
sleep 2

echo "palabre behind HAProxy: http://127.0.0.1:$FRONT  (instances a :$PORT_A, b :$PORT_B; store $(echo "$DATABASE_URL" | sed -E 's#//([^:@/]+):[^@/]*@#//\1:***@#'))"
echo "admin: http://127.0.0.1:$FRONT/admin/chat/params  (password: ADMIN_PASSWORD)"
if [ -n "$CHECK" ]; then
  echo "six /healthz through HAProxy (no cookie: balanced) (instance, store, ready):"
  for _ in 1 2 3 4 5 6; do
    curl -fsS "http://127.0.0.1:$FRONT/healthz" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const h=JSON.parse(s);console.log(`  ${h.instance}  ${h.store} ${h.storeLatencyMs} ms  ready=${h.ready}`)})'
  done
  echo "draining b (SIGTERM): HAProxy marks it down, requests go to a"
  kill -TERM "${PIDS[1]}"
  sleep 3
  for _ in 1 2 3; do
    curl -fsS "http://127.0.0.1:$FRONT/healthz" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log("  "+JSON.parse(s).instance))'
  done
  exit 0
fi
echo "Ctrl-C stops everything (logs in $WORK until then)"
wait "${PIDS[0]}"
