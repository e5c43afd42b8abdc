# Helpers the benchmark scripts source (not run on its own).

# The process id of the server (Tide or redis-server) listening on loopback port $1, from its INFO: whatever the jar's
# name (TIDE_JAR) or the launcher's command line.
server_pid() { redis-cli -p "$1" info server | awk -F: '/^process_id:/ {print $2}' | tr -d '\r'; }
