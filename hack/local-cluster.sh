#!/usr/bin/env bash
# A real Kubernetes control plane on 127.0.0.1 with kwok's fake nodes, for
# trying spindle live: etcd, kube-apiserver, kube-controller-manager, kwok and
# optionally kube-scheduler, built once by hack/build-kube.sh.
#
#   hack/local-cluster.sh up [--nodes N] [--node-cpu C] [--node-memory M] [--node-pods P] [--with-scheduler]
#   hack/local-cluster.sh status
#   hack/local-cluster.sh down
#
# up prints `export KUBECONFIG=<file>` as a line of its output; a second up
# while the cluster runs changes nothing and prints it again. down stops
# exactly the processes up started, by the PIDs in the state directory.
# State (PKI, kubeconfig, etcd data, logs, pidfiles) lives outside the
# checkout in $SPINDLE_CLUSTER_DIR, default one directory per checkout:
# ${XDG_STATE_HOME:-$HOME/.local/state}/spindle/clusters/<checkout>-<hash>,
# so that two checkouts run two clusters and a down in one leaves the other.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
# The checkout's path, hashed: two clones named alike still get two dirs.
checkout_id="$(basename "$repo")-$(printf '%s' "$repo" | cksum | cut -d' ' -f1)"
state="${SPINDLE_CLUSTER_DIR:-${XDG_STATE_HOME:-$HOME/.local/state}/spindle/clusters/$checkout_id}"
# Absolute and without a trailing slash: the Go half runs from the checkout,
# and pid_of looks for "$state/" in each component's command line.
case "$state" in /*) ;; *) state="$PWD/$state" ;; esac
while [ "${state%/}" != "$state" ] && [ "$state" != / ]; do state=${state%/}; done
marker="$state/.spindle-local-cluster"
# Stop order: the reverse of the start order.
components="kwok kube-scheduler kube-controller-manager kube-apiserver etcd"

usage() {
  sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'
}

# alive PID: the process exists and is not a zombie (an orphan whose
# adopter has not reaped it yet has finished all the same).
alive() {
  kill -0 "$1" 2>/dev/null || return 1
  if [ -r "/proc/$1/stat" ]; then
    case "$(cut -d')' -f2 "/proc/$1/stat" 2>/dev/null)" in " Z"*) return 1 ;; esac
  fi
  return 0
}

# pid_of NAME: the PID recorded for NAME, if that process still runs, is
# still NAME (a PID can be reused once the process is gone) and is this
# cluster's own: every component's command line names a file in this state
# directory, so a PID reused by another cluster's component is not taken.
pid_of() {
  local name=$1 pid cmd
  [ -f "$state/$name.pid" ] || return 1
  pid=$(cat "$state/$name.pid")
  alive "$pid" || return 1
  if [ -r "/proc/$pid/cmdline" ]; then
    cmd=$(tr '\0' ' ' <"/proc/$pid/cmdline")
  else
    cmd=$(ps -o args= -p "$pid" 2>/dev/null || true)
  fi
  case "$cmd" in
    */"$name"\ *|*/"$name") ;;
    *) return 1 ;;
  esac
  case "$cmd" in
    *"$state/"*) echo "$pid" ;;
    *) return 1 ;;
  esac
}

print_export() {
  echo "export KUBECONFIG=$state/kubeconfig"
}

cmd_status() {
  local any=0 name pid
  for name in etcd kube-apiserver kube-controller-manager kube-scheduler kwok; do
    if pid=$(pid_of "$name"); then
      printf '%-24s running  pid %s\n' "$name" "$pid"
      any=1
    elif [ -f "$state/$name.pid" ]; then
      printf '%-24s stopped  (log %s)\n' "$name" "$state/$name.log"
    fi
  done
  if [ $any -eq 0 ]; then
    echo "no local cluster running (state dir $state)"
    return 1
  fi
  print_export
}

cmd_down() {
  local name pid stopped=0 i
  for name in $components; do
    if pid=$(pid_of "$name"); then
      # The PID is also the process group: each component runs in a session
      # of its own, so this reaches anything it forked and nothing else.
      kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
      for i in $(seq 1 100); do
        alive "$pid" || break
        sleep 0.1
      done
      if alive "$pid"; then
        kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
      fi
      echo "stopped $name (pid $pid)"
      stopped=1
    fi
    rm -f "$state/$name.pid"
  done
  if [ $stopped -eq 0 ]; then
    echo "no local cluster was running (state dir $state)"
  fi
}

cmd_up() {
  local nodes=3 cpu=32 memory=256Gi pods=110 scheduler=""
  while [ $# -gt 0 ]; do
    case "$1" in
      --nodes) nodes=${2:?--nodes needs a value}; shift 2 ;;
      --node-cpu) cpu=${2:?--node-cpu needs a value}; shift 2 ;;
      --node-memory) memory=${2:?--node-memory needs a value}; shift 2 ;;
      --node-pods) pods=${2:?--node-pods needs a value}; shift 2 ;;
      --with-scheduler) scheduler=-with-scheduler; shift ;;
      -h|--help) usage; exit 0 ;;
      *) echo "local-cluster.sh up: unknown flag $1" >&2; usage >&2; exit 2 ;;
    esac
  done
  case "$nodes" in ''|*[!0-9]*) echo "local-cluster.sh up: --nodes must be a whole number, got '$nodes'" >&2; exit 2 ;; esac

  local name running=""
  for name in $components; do
    if pid_of "$name" >/dev/null; then running="$running $name"; fi
  done
  if [ -n "$running" ]; then
    if pid_of kube-apiserver >/dev/null; then
      echo "local cluster already running (state dir $state); nothing to do"
      cmd_status
      return 0
    fi
    echo "local-cluster.sh up: a partial cluster is running ($running ); run '$0 down' first" >&2
    exit 1
  fi

  if [ -d "$state" ] && [ -n "$(ls -A "$state")" ] && [ ! -f "$marker" ]; then
    echo "local-cluster.sh up: $state exists and is not a local-cluster state directory; set SPINDLE_CLUSTER_DIR" >&2
    exit 1
  fi
  local bin
  bin=$("$repo/hack/build-kube.sh")
  # A cluster that is not running leaves only old logs and data: start afresh.
  rm -rf "$state"
  mkdir -p "$state"
  touch "$marker"
  echo "starting etcd, kube-apiserver, kube-controller-manager, kwok${scheduler:+, kube-scheduler} with $nodes nodes of cpu=$cpu memory=$memory"
  (cd "$repo" && go run ./hack/localcluster -dir "$state" -bin "$bin" -nodes "$nodes" \
    -node-cpu "$cpu" -node-memory "$memory" -node-pods "$pods" $scheduler)
  echo "logs and pidfiles in $state; stop with: $0 down"
  print_export
}

case "${1:-}" in
  up) shift; cmd_up "$@" ;;
  down) cmd_down ;;
  status) cmd_status ;;
  -h|--help|help) usage ;;
  *) usage >&2; exit 2 ;;
esac
