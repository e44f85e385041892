#!/usr/bin/env bash
# A 3-node MariaDB Galera cluster on this machine, for testing placement
# on several writers at once: three mariadbd processes on 127.0.0.1, SQL
# ports 3311-3313 (override with GALERA_BASE_PORT), private data
# directories under $GALERA_DIR (default /tmp/placement-galera). It never
# touches the machine's own MariaDB (3306).
#
#   tools/galera_cluster.sh start    install packages if needed, start
#   tools/galera_cluster.sh status   wsrep_cluster_size seen by each node
#   tools/galera_cluster.sh stop     stop the nodes, remove the data
#
# Each node runs as the mysql user (the rsync state transfer needs a
# non-root daemon) and lets root in without a password over TCP (grant
# tables skipped); a database "placement" is created on node 1 and
# replicated.
set -euo pipefail

DIR=${GALERA_DIR:-/tmp/placement-galera}
BASE_PORT=${GALERA_BASE_PORT:-3311}
NODES=(1 2 3)

sql_port() { echo $((BASE_PORT + $1 - 1)); }
group_port() { echo $((BASE_PORT + 1260 + $1 - 1)); }  # 4571.. by default
ist_port() { echo $((BASE_PORT + 1270 + $1 - 1)); }
sst_port() { echo $((BASE_PORT + 1280 + $1 - 1)); }

install_packages() {
    if [ ! -e /usr/lib/galera/libgalera_smm.so ] \
            || ! command -v mariadbd >/dev/null || ! command -v rsync >/dev/null; then
        apt-get update -q
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
            mariadb-server galera-4 rsync
    fi
}

cluster_address() {
    local addresses=()
    for n in "${NODES[@]}"; do addresses+=("127.0.0.1:$(group_port "$n")"); done
    local IFS=,
    echo "gcomm://${addresses[*]}"
}

write_config() {
    local n=$1 node=$DIR/node$1
    mkdir -p "$node"
    cat > "$node/my.cnf" <<EOF
[mariadbd]
datadir=$node/data
port=$(sql_port "$n")
socket=$node/mysqld.sock
pid-file=$node/mysqld.pid
log-error=$node/error.log
bind-address=127.0.0.1
user=mysql
skip-grant-tables
skip-name-resolve
innodb_buffer_pool_size=64M
innodb_log_file_size=32M
binlog_format=ROW
default_storage_engine=InnoDB
innodb_autoinc_lock_mode=2
wsrep_on=ON
wsrep_provider=/usr/lib/galera/libgalera_smm.so
wsrep_cluster_name=placement_test
wsrep_cluster_address=$(cluster_address)
wsrep_node_name=node$n
wsrep_node_address=127.0.0.1:$(group_port "$n")
wsrep_provider_options="gmcast.listen_addr=tcp://127.0.0.1:$(group_port "$n");ist.recv_addr=127.0.0.1:$(ist_port "$n");gcache.size=64M"
wsrep_sst_method=rsync
# Reads wait until the node has applied every write the cluster had
# committed when they started: a GET on any node sees what another node
# acknowledged (placement's clients read their own writes).
wsrep_sync_wait=1
wsrep_sst_receive_address=127.0.0.1:$(sst_port "$n")
EOF
}

ready() {
    mariadb -h127.0.0.1 -P"$(sql_port "$1")" -uroot -N -e \
        "SHOW STATUS LIKE 'wsrep_ready'" 2>/dev/null | grep -q ON
}

start_node() {
    local n=$1 node=$DIR/node$1
    shift
    nohup mariadbd --defaults-file="$node/my.cnf" "$@" \
        >"$node/stdout.log" 2>&1 &
    for _ in $(seq 1 60); do
        if ready "$n"; then return 0; fi
        sleep 1
    done
    echo "node$n did not become ready; see $node/error.log" >&2
    return 1
}

start() {
    install_packages
    if [ -d "$DIR" ]; then
        echo "$DIR exists: run '$0 stop' first" >&2
        return 1
    fi
    for n in "${NODES[@]}"; do
        write_config "$n"
        chown -R mysql:mysql "$DIR"
        mariadb-install-db --defaults-file="$DIR/node$n/my.cnf" \
            --auth-root-authentication-method=normal --skip-test-db \
            >"$DIR/node$n/install.log" 2>&1
    done
    start_node 1 --wsrep-new-cluster
    for n in "${NODES[@]:1}"; do start_node "$n"; done
    mariadb -h127.0.0.1 -P"$(sql_port 1)" -uroot \
        -e 'CREATE DATABASE IF NOT EXISTS placement'
    status
}

status() {
    for n in "${NODES[@]}"; do
        printf 'node%s port %s: ' "$n" "$(sql_port "$n")"
        mariadb -h127.0.0.1 -P"$(sql_port "$n")" -uroot -N -e \
            "SHOW STATUS LIKE 'wsrep_cluster_size'" 2>/dev/null \
            | awk '{print "cluster size", $2}' || echo down
    done
}

stop() {
    for n in "${NODES[@]}"; do
        local pid_file=$DIR/node$n/mysqld.pid
        if [ -f "$pid_file" ]; then
            kill "$(cat "$pid_file")" 2>/dev/null || true
        fi
    done
    for n in "${NODES[@]}"; do
        local pid_file=$DIR/node$n/mysqld.pid
        for _ in $(seq 1 60); do
            [ -f "$pid_file" ] && kill -0 "$(cat "$pid_file")" 2>/dev/null \
                || break
            sleep 1
        done
    done
    rm -rf "$DIR"
}

case ${1:-} in
    start) start ;;
    status) status ;;
    stop) stop ;;
    *) echo "usage: $0 start|status|stop" >&2; exit 2 ;;
esac
