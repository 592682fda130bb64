#!/usr/bin/env bash
# A local Ballista cluster for anonbox's `-engine ballista://HOST:PORT`: one scheduler and N
# executors on loopback, each its own process of `anonbox-cluster` (anonbox's build of Ballista's
# scheduler and executor, with the codec of anonbox's plans).
#
#   scripts/cluster.sh up [--executors N] [--port P] [--memory-limit SIZE]
#                                  start; prints ballista://127.0.0.1:P
#   scripts/cluster.sh down        stop exactly those processes
#   scripts/cluster.sh status      the address, if it runs
#
# --memory-limit: each executor's memory for its plans (512M, 4G); past it they spill into its
# private work folder. Default: Ballista's, 70% of the machine's memory per executor.
#
# The cluster's state (process ids, logs, the executors' work folder) lives in a private 0700
# folder, $ANONBOX_CLUSTER_STATE (default: $TMPDIR/anonbox-cluster-$UID); the work folder holds
# shuffle files with records' text and is removed by `down`. The binary is
# $ANONBOX_CLUSTER_BIN, else target/release/anonbox-cluster, built when missing
# (cargo build --release --features ballista --bin anonbox-cluster).
set -euo pipefail
cd "$(dirname "$0")/.."

state="${ANONBOX_CLUSTER_STATE:-${TMPDIR:-/tmp}/anonbox-cluster-$(id -u)}"
die() { echo "cluster.sh: $*" >&2; exit 1; }
listening() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
# The next port from $1 on that nothing listens on and we have not handed out.
taken=" "
free_port() {
    local p=$1
    while listening "$p" || [[ "$taken" == *" $p "* ]]; do p=$((p + 1)); done
    taken+="$p "
    echo "$p"
}
ours() { [[ -r "/proc/$1/cmdline" ]] && tr '\0' ' ' <"/proc/$1/cmdline" | grep -q anonbox-cluster; }

down() {
    # Only a folder this script made (it holds the pids file); only what it put there.
    [[ -f "$state/pids" ]] || return 0
    local pids=()
    if [[ -f "$state/pids" ]]; then
        while read -r pid; do ours "$pid" && pids+=("$pid"); done <"$state/pids"
    fi
    if ((${#pids[@]})); then
        kill -TERM "${pids[@]}" 2>/dev/null || true
        for _ in $(seq 50); do
            local alive=0
            for pid in "${pids[@]}"; do ours "$pid" && alive=1; done
            ((alive)) || break
            sleep 0.1
        done
        for pid in "${pids[@]}"; do ours "$pid" && kill -KILL "$pid" 2>/dev/null || true; done
    fi
    rm -rf "$state/work" "$state/logs"
    rm -f "$state/pids" "$state/address"
    rmdir "$state" 2>/dev/null || true
}

up() {
    local executors=2 port=50050 memory=()
    while (($#)); do
        case "$1" in
            --executors) executors="$2"; shift 2 ;;
            --port) port="$2"; shift 2 ;;
            --memory-limit) memory=(--memory-limit "$2"); shift 2 ;;
            *) die "unknown option '$1'; accepted: --executors N, --port P, --memory-limit SIZE" ;;
        esac
    done
    [[ "$executors" =~ ^[1-9][0-9]*$ ]] || die "--executors: a count of at least 1, not '$executors'"
    if [[ -f "$state/address" ]]; then
        die "a cluster already runs at $(cat "$state/address") (scripts/cluster.sh down stops it)"
    fi
    if [[ -e "$state" ]] && [[ -n "$(ls -A "$state" 2>/dev/null)" || ! -d "$state" ]]; then
        die "$state exists and is not empty: set ANONBOX_CLUSTER_STATE to a new folder"
    fi
    local bin="${ANONBOX_CLUSTER_BIN:-target/release/anonbox-cluster}"
    if [[ ! -x "$bin" ]]; then
        echo "cluster.sh: building $bin" >&2
        cargo build --release --features ballista --bin anonbox-cluster >&2
    fi
    (umask 077 && mkdir -p "$state/work" "$state/logs")
    chmod 700 "$state"
    : >"$state/pids"
    trap 'down; exit 1' ERR INT TERM
    port=$(free_port "$port")
    "$bin" scheduler --bind 127.0.0.1 --port "$port" >"$state/logs/scheduler.log" 2>&1 &
    echo $! >>"$state/pids"
    for _ in $(seq 300); do listening "$port" && break; sleep 0.1; done
    listening "$port" || die "the scheduler did not start: $(tail -n 3 "$state/logs/scheduler.log")"
    local next=$((port + 1)) ports=()
    for i in $(seq "$executors"); do
        local flight grpc
        flight=$(free_port "$next"); grpc=$(free_port "$((flight + 1))"); next=$((grpc + 1))
        (umask 077 && mkdir -p "$state/work/executor-$i")
        "$bin" executor --scheduler "127.0.0.1:$port" --port "$flight" --grpc-port "$grpc" \
            --work-dir "$state/work/executor-$i" "${memory[@]}" \
            >"$state/logs/executor-$i.log" 2>&1 &
        echo $! >>"$state/pids"
        ports+=("$grpc")
    done
    for p in "${ports[@]}"; do
        for _ in $(seq 300); do listening "$p" && break; sleep 0.1; done
        listening "$p" || die "an executor did not start: $(tail -n 3 "$state"/logs/executor-*.log)"
    done
    trap - ERR INT TERM
    echo "ballista://127.0.0.1:$port" | tee "$state/address"
}

case "${1:-}" in
    up) shift; up "$@" ;;
    down) down ;;
    status) [[ -f "$state/address" ]] && cat "$state/address" || die "no cluster runs" ;;
    *) die "usage: scripts/cluster.sh up [--executors N] [--port P] [--memory-limit SIZE] | down | status" ;;
esac
