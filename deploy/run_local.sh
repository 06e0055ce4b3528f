#!/usr/bin/env bash
# Start the app as several Streamlit processes behind nginx, sharing classes through Redis,
# all on this machine. Runs in the foreground; Ctrl-C (or SIGTERM) stops everything it
# started. See deploy/README.md for the layout and for running it across machines.
#
#   bash deploy/run_local.sh                        # nginx :8600 -> app :8601, :8602; redis :8699
#   bash deploy/run_local.sh --processes 3 --port 9000
#
# Options:
#   --port N            nginx listens here (default 8600)
#   --processes N       Streamlit processes on this machine (default 2; 0 = proxy only)
#   --app-ports A,B,..  their ports (default port+1, port+2, ...)
#   --redis URL         use this Redis instead of starting one (e.g. redis://10.0.0.5:6379/0)
#   --redis-port N      port of the Redis started here (default port+99)
#   --upstreams H:P,..  app processes on other machines, added to nginx's list
#   --no-proxy          start no nginx (an app machine in a several-machine layout)
#   --address A         address the Streamlit processes and nginx bind (default 127.0.0.1)
#   --state DIR         logs, pid files, Redis data, the cookie secret (default deploy/state)
#   --debug-backend     nginx adds X-BPE-Backend (the process that answered) to every response
#
# The app processes get BPE_BEHIND_PROXY=1 (limits count the address nginx appends to
# X-Forwarded-For; set BPE_BEHIND_PROXY yourself for more proxies in front). Their ports
# must then be reachable only from the proxy.
set -euo pipefail
cd "$(dirname "$0")/.."

port=8600 processes=2 app_ports="" redis_url="" redis_port="" upstreams="" proxy=1
address=127.0.0.1 state="deploy/state" debug_backend=""
while [ $# -gt 0 ]; do
  case "$1" in
    --port) port=$2; shift 2 ;;
    --processes) processes=$2; shift 2 ;;
    --app-ports) app_ports=$2; shift 2 ;;
    --redis) redis_url=$2; shift 2 ;;
    --redis-port) redis_port=$2; shift 2 ;;
    --upstreams) upstreams=$2; shift 2 ;;
    --no-proxy) proxy=0; shift ;;
    --address) address=$2; shift 2 ;;
    --state) state=$2; shift 2 ;;
    --debug-backend) debug_backend=--debug-backend; shift ;;
    *) echo "unknown option $1 (see the top of $0)" >&2; exit 2 ;;
  esac
done
mkdir -p "$state"
state=$(cd "$state" && pwd)

if [ -z "$app_ports" ]; then
  app_ports=$(seq -s, $((port + 1)) $((port + processes)))
fi
IFS=, read -r -a ports <<< "$app_ports"
[ "$processes" = 0 ] && ports=()

pids=()
stop_all() {
  trap - EXIT INT TERM
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
}
trap stop_all EXIT
trap 'exit 0' INT TERM

wait_until() {  # wait_until SECONDS WHAT COMMAND...: give up early if a process died
  local deadline=$((SECONDS + $1)) what=$2 pid; shift 2
  until "$@" >/dev/null 2>&1; do
    for pid in "${pids[@]}"; do
      kill -0 "$pid" 2>/dev/null || { echo "$what: a process ended; see $state/*.log" >&2; exit 1; }
    done
    if [ $SECONDS -ge $deadline ]; then echo "$what did not come up; see $state/*.log" >&2; exit 1; fi
    sleep 0.2
  done
}
http_ok() { python -c "import sys,urllib.request; sys.exit(urllib.request.urlopen(sys.argv[1], timeout=2).read() != b'ok')" "$1"; }

# Redis: persistence on (appendonly), so a Redis restart keeps the classes.
if [ -z "$redis_url" ]; then
  redis_port=${redis_port:-$((port + 99))}
  mkdir -p "$state/redis"
  redis-server --bind 127.0.0.1 --port "$redis_port" --dir "$state/redis" --appendonly yes \
    --appendfsync everysec --save "" --daemonize no --loglevel warning \
    > "$state/redis.log" 2>&1 &
  pids+=($!)
  redis_url="redis://127.0.0.1:$redis_port/0"
  wait_until 20 "redis-server" redis-cli -p "$redis_port" ping
fi

# One cookie secret for every process, so a browser's signed cookies (XSRF for uploads)
# stay valid whichever process it reaches, and after a restart.
if [ ! -s "$state/cookie_secret" ]; then
  python -c "import secrets; print(secrets.token_urlsafe(32))" > "$state/cookie_secret"
  chmod 600 "$state/cookie_secret"
fi

for p in "${ports[@]}"; do
  BPE_CLASS_STORE="$redis_url" BPE_BEHIND_PROXY="${BPE_BEHIND_PROXY:-1}" \
    STREAMLIT_SERVER_COOKIE_SECRET="$(cat "$state/cookie_secret")" \
    python -m streamlit run app.py \
    --server.address="$address" --server.port="$p" --server.headless=true \
    --browser.gatherUsageStats=false --server.fileWatcherType=none \
    > "$state/app-$p.log" 2>&1 &
  pids+=($!)
done
for p in "${ports[@]}"; do
  wait_until 60 "Streamlit on port $p" http_ok "http://127.0.0.1:$p/_stcore/health"
done

if [ "$proxy" = 1 ]; then
  lines=""
  for p in "${ports[@]}"; do lines+="        server 127.0.0.1:$p;"$'\n'; done
  IFS=, read -r -a others <<< "$upstreams"
  for u in "${others[@]}"; do [ -n "$u" ] && lines+="        server $u;"$'\n'; done
  [ -n "$lines" ] || { echo "no app processes for nginx: give --processes or --upstreams" >&2; exit 2; }
  python deploy/render_nginx.py "$state" "$address:$port" "$lines" $debug_backend
  nginx=$(command -v nginx || echo /usr/sbin/nginx)
  "$nginx" -t -q -c "$state/nginx.conf" -p "$state" 2> "$state/nginx-test.log" \
    || { cat "$state/nginx-test.log" >&2; exit 1; }
  "$nginx" -c "$state/nginx.conf" -p "$state" > "$state/nginx.log" 2>&1 &
  pids+=($!)
  wait_until 20 "nginx" http_ok "http://127.0.0.1:$port/_stcore/health"
  echo "ready: http://$address:$port/  (${#ports[@]} app processes here, classes in $redis_url)"
else
  echo "ready: app processes on ports ${ports[*]} (classes in $redis_url)"
fi

# Stop everything as soon as any one process ends.
wait -n "${pids[@]}"
echo "a process ended; stopping the rest" >&2
exit 1
