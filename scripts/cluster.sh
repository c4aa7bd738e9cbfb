#!/usr/bin/env bash
# Two instances of the built service (dist/main.js) on this host, sharing one MariaDB database
# and one Redis: the topology of deploy/docker-compose.yml without containers and without the
# load balancer (clients pick an instance; put any balancer with sticky sessions in front).
#
#   scripts/cluster.sh [start]   create the database if needed, start both instances, print their URLs
#   scripts/cluster.sh stop      SIGTERM both (they drain), SIGKILL what is left after the drain
#   scripts/cluster.sh status    which instances run, and their readiness
#   scripts/cluster.sh clean     stop, drop the database and remove the state directory
#
# Settings (environment; defaults in brackets):
#   CLUSTER_DB_HOST [127.0.0.1]  CLUSTER_DB_PORT [3306]  CLUSTER_DB_USER [root]
#   CLUSTER_DB_PASSWORD []       CLUSTER_DB_NAME [im_cluster]
#   CLUSTER_REDIS_URL [redis://127.0.0.1:6379]
#   CLUSTER_PORTS ["3001 3002"]  CLUSTER_HOST [127.0.0.1] (the address the printed URLs use;
#                                the service listens on every interface)
#   CLUSTER_DIR [./data/cluster] pid files, logs, generated secrets, shared MEDIA_DIR
#   CLUSTER_NODE_ENV [production]
# Every other variable of the service (SDK_SECRET, JWT_SECRET, RTC_*, MEDIA_STORAGE, MEDIA_S3_*,
# LOG_LEVEL, ...) is passed through; missing secrets are generated once into
# $CLUSTER_DIR/secrets.env (mode 0600) so both instances, and later restarts, share them.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DB_HOST="${CLUSTER_DB_HOST:-127.0.0.1}"
DB_PORT="${CLUSTER_DB_PORT:-3306}"
DB_USER="${CLUSTER_DB_USER:-root}"
DB_PASSWORD="${CLUSTER_DB_PASSWORD:-}"
DB_NAME="${CLUSTER_DB_NAME:-im_cluster}"
REDIS="${CLUSTER_REDIS_URL:-redis://127.0.0.1:6379}"
read -r -a PORTS <<<"${CLUSTER_PORTS:-3001 3002}"
HOST="${CLUSTER_HOST:-127.0.0.1}"
STATE="${CLUSTER_DIR:-$ROOT/data/cluster}"
ENTRY="$ROOT/dist/main.js"
SECRETS="$STATE/secrets.env"

die() {
  echo "cluster.sh: $*" >&2
  exit 1
}

[[ "$DB_NAME" =~ ^[A-Za-z0-9_]{1,64}$ ]] || die "CLUSTER_DB_NAME must be letters, digits and underscores"
[[ "${#PORTS[@]}" -ge 1 ]] || die "CLUSTER_PORTS is empty"

# The connection URL the service reads; the password is URL-encoded and never printed.
database_url() {
  node -e 'const [u, p, h, port, db] = process.argv.slice(1); const auth = p ? `${encodeURIComponent(u)}:${encodeURIComponent(p)}` : encodeURIComponent(u); process.stdout.write(`mysql://${auth}@${h}:${port}/${db}`);' \
    "$DB_USER" "$DB_PASSWORD" "$DB_HOST" "$DB_PORT" "$DB_NAME"
}

# One statement against the server (mysql2 from the project's own dependencies: no client needed).
db_statement() {
  (cd "$ROOT" && DB_PASSWORD="$DB_PASSWORD" node -e '
    const mysql = require("mysql2/promise");
    const [host, port, user, sql] = process.argv.slice(1);
    mysql.createConnection({ host, port: Number(port), user, password: process.env.DB_PASSWORD || undefined, connectTimeout: 5000 })
      .then((c) => c.query(sql).then(() => c.end()))
      .catch((e) => { console.error(`MariaDB at ${host}:${port}: ${e.code || e.message}`); process.exit(1); });
  ' "$DB_HOST" "$DB_PORT" "$DB_USER" "$1")
}

redis_ping() {
  (cd "$ROOT" && node -e '
    const Redis = require("ioredis");
    const r = new Redis(process.argv[1], { lazyConnect: true, connectTimeout: 3000, maxRetriesPerRequest: 0, retryStrategy: () => null });
    r.on("error", () => undefined);
    r.connect().then(() => r.ping()).then(() => { r.disconnect(); }).catch((e) => { console.error(`Redis: ${e.message}`); process.exit(1); });
  ' "$REDIS")
}

pid_file() { echo "$STATE/instance-$1.pid"; }

# The PID of instance $1 when it is running this service (a stale file or a reused PID is not).
running_pid() {
  local file pid
  file="$(pid_file "$1")"
  [[ -f "$file" ]] || return 1
  pid="$(cat "$file")"
  [[ "$pid" =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q "dist/main.js" || return 1
  echo "$pid"
}

# Answers the HTTP status of GET $1 (000 when nothing answers).
http_status() {
  node -e 'fetch(process.argv[1], { signal: AbortSignal.timeout(2000) }).then((r) => console.log(r.status)).catch(() => console.log("000"))' "$1"
}

port_free() {
  node -e 'const s = require("node:net").createServer(); s.once("error", () => process.exit(1)); s.listen(Number(process.argv[1]), () => s.close());' "$1"
}

wait_ready() {
  local n="$1" port="$2" deadline=$((SECONDS + 90))
  while ((SECONDS < deadline)); do
    [[ "$(http_status "http://$HOST:$port/health/ready")" == 200 ]] && return 0
    running_pid "$n" >/dev/null || die "instance $n exited during start; see $STATE/instance-$n.log"
    sleep 0.5
  done
  die "instance $n not ready within 90 s; see $STATE/instance-$n.log"
}

load_secrets() {
  mkdir -p "$STATE"
  if [[ ! -f "$SECRETS" ]]; then
    (umask 077 && node -e '
      const { randomBytes, randomInt } = require("node:crypto");
      const s = () => randomBytes(32).toString("base64url");
      process.stdout.write(`SDK_SECRET=${s()}\nJWT_SECRET=${s()}\nRTC_SDK_APP_ID=${1400000000 + randomInt(99999999)}\nRTC_CALLBACK_SECRET=${s()}\n`);
    ' >"$SECRETS")
  fi
  # Added to a file written before calls existed (a production boot refuses to start without it).
  if ! grep -q '^RTC_SECRET_KEY=' "$SECRETS"; then
    (umask 077 && node -e 'process.stdout.write(`RTC_SECRET_KEY=${require("node:crypto").randomBytes(32).toString("hex")}\n`)' >>"$SECRETS")
  fi
  local name value
  while IFS='=' read -r name value; do
    [[ -n "$name" && -z "${!name:-}" ]] && export "$name=$value"
  done <"$SECRETS"
}

start() {
  [[ -f "$ENTRY" ]] || die "$ENTRY is missing: run \`npm run build\` first"
  local i
  for i in "${!PORTS[@]}"; do
    if running_pid $((i + 1)) >/dev/null; then die "instance $((i + 1)) is already running (scripts/cluster.sh stop first)"; fi
    port_free "${PORTS[$i]}" || die "port ${PORTS[$i]} is in use"
  done
  redis_ping || die "Redis is not reachable at the configured CLUSTER_REDIS_URL"
  db_statement "CREATE DATABASE IF NOT EXISTS \`$DB_NAME\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin" || die "could not create the database"
  load_secrets
  mkdir -p "$STATE/media"
  local url
  url="$(database_url)"
  for i in "${!PORTS[@]}"; do
    local n=$((i + 1)) port="${PORTS[$i]}"
    (
      cd "$ROOT"
      export NODE_ENV="${CLUSTER_NODE_ENV:-production}" PORT="$port" DATABASE_URL="$url" REDIS_URL="$REDIS"
      export PUBLIC_BASE_URL="${PUBLIC_BASE_URL:-http://$HOST:$port}" MEDIA_DIR="${MEDIA_DIR:-$STATE/media}"
      nohup node dist/main.js >>"$STATE/instance-$n.log" 2>&1 &
      echo $! >"$(pid_file "$n")"
    )
    # The first instance runs the migrations alone; the others start on the migrated schema.
    wait_ready "$n" "$port"
  done
  echo "database: $DB_NAME on $DB_HOST:$DB_PORT; redis: $REDIS (credentials not shown)"
  for i in "${!PORTS[@]}"; do
    echo "instance $((i + 1)): http://$HOST:${PORTS[$i]}  (socket.io: ws://$HOST:${PORTS[$i]}/socket.io/, pid $(running_pid $((i + 1))), log $STATE/instance-$((i + 1)).log)"
  done
  echo "secrets: $SECRETS (SDK_SECRET issues tokens: POST /app/sdk/token)"
}

stop() {
  local i pid stopped=0
  for i in "${!PORTS[@]}"; do
    local n=$((i + 1))
    if pid="$(running_pid "$n")"; then
      kill -TERM "$pid"
      # The service drains requests in flight (SHUTDOWN_TIMEOUT_MS, 10 s by default) and exits.
      local deadline=$((SECONDS + 20))
      while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.2; done
      if kill -0 "$pid" 2>/dev/null; then
        kill -KILL "$pid"
        echo "instance $n (pid $pid): killed after the drain deadline"
      else
        echo "instance $n (pid $pid): stopped"
      fi
      stopped=$((stopped + 1))
    fi
    rm -f "$(pid_file "$n")"
  done
  ((stopped > 0)) || echo "no instance was running"
}

status() {
  local i pid
  for i in "${!PORTS[@]}"; do
    local n=$((i + 1))
    if pid="$(running_pid "$n")"; then
      echo "instance $n: http://$HOST:${PORTS[$i]} pid $pid, /health/ready $(http_status "http://$HOST:${PORTS[$i]}/health/ready")"
    else
      echo "instance $n: not running"
    fi
  done
}

clean() {
  stop
  db_statement "DROP DATABASE IF EXISTS \`$DB_NAME\`" && echo "database $DB_NAME dropped"
  rm -rf "$STATE"
}

case "${1:-start}" in
  start) start ;;
  stop) stop ;;
  status) status ;;
  clean) clean ;;
  *) die "usage: scripts/cluster.sh [start|stop|status|clean]" ;;
esac
