# Helpers the benchmark scripts source (not run on its own).

# The process id of the server (Tide or redis-server) listening on loopback port $1, from its INFO: whatever the jar's
# name (TIDE_JAR) or the launcher's command line.
server_pid() { redis-cli -p "$1" info server | awk -F: '/^process_id:/ {print $2}' | tr -d '\r'; }

# Waits up to 60 s for the server on loopback port $1 to answer PING with PONG (not LOADING); exits the script if not.
wait_port() {
  for _ in $(seq 1 600); do [[ $(redis-cli -p "$1" ping 2>/dev/null) == PONG ]] && return 0; sleep 0.1; done
  echo "server on $1 did not start" >&2; exit 1
}
