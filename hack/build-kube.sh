#!/usr/bin/env bash
# Builds the control-plane binaries the live tests and hack/local-cluster.sh run:
# kube-apiserver, kube-controller-manager, kube-scheduler, etcd and kwok, all
# from the Go module proxy with nothing but Go. Binaries land in a cache outside
# the checkout, keyed by the versions, so a second run (or a second clone) costs
# nothing. Prints the bin directory as its last line.
#
# Usage: hack/build-kube.sh [--print-dir]
#   --print-dir   print the bin directory and exit without building
#
# Environment:
#   SPINDLE_KUBE_BIN    use this bin directory instead of the versioned cache
#   XDG_CACHE_HOME      cache root (default $HOME/.cache)
set -euo pipefail

KUBE_VERSION=v1.37.2   # kube-apiserver, kube-scheduler, kube-controller-manager
STAGING_VERSION=v0.37.2 # the published k8s.io/<staging> modules of the same release
ETCD_VERSION=v3.7.0    # the etcd release Kubernetes 1.37.2 pins (build/dependencies.yaml)
KWOK_VERSION=v0.8.0

goos=$(go env GOOS)
goarch=$(go env GOARCH)
key="kube-${KUBE_VERSION}-etcd-${ETCD_VERSION}-kwok-${KWOK_VERSION}-${goos}-${goarch}"
cache_root="${XDG_CACHE_HOME:-$HOME/.cache}/spindle/${key}"
bin="${SPINDLE_KUBE_BIN:-${cache_root}/bin}"
# Sources (wrapper modules) and kwok's stage files live next to bin.
base=$(dirname "$bin")

if [ "${1:-}" = "--print-dir" ]; then
  echo "$bin"
  exit 0
fi
if [ $# -gt 0 ]; then
  echo "usage: $0 [--print-dir]" >&2
  exit 2
fi

mkdir -p "$bin" "$base/src"
log() { printf '[build-kube %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }

# The first build takes 7 to 26 minutes on 2 cores, depending on what else
# the machine runs; resolving modules and linking print nothing of their own.
# While a step runs, a heartbeat says every 30 s that it still works and for
# how long, so a long build is never silent. heartbeat_start STEP starts it
# (the PID is kept in $heartbeat), heartbeat_stop ends it.
heartbeat=""
heartbeat_start() {
  local what=$1 t0=$SECONDS
  heartbeat_stop
  (
    while sleep 30; do log "$what: still working, $((SECONDS - t0))s so far"; done
  ) &
  heartbeat=$!
}
heartbeat_stop() {
  if [ -n "$heartbeat" ]; then
    kill "$heartbeat" 2>/dev/null || true
    wait "$heartbeat" 2>/dev/null || true
    heartbeat=""
  fi
}
trap heartbeat_stop EXIT

# Counts the packages `go build -v` reports and prints a line every 100, so a
# several-minute build visibly moves without flooding the terminal.
progress() {
  local name=$1 n=0 line t0=$SECONDS
  while IFS= read -r line; do
    case "$line" in
      *" "*|"") printf '%s\n' "$line" >&2 ;; # errors and warnings pass through
      *) n=$((n + 1)); if [ $((n % 100)) -eq 0 ]; then log "$name: $n packages compiled ($((SECONDS - t0))s)"; fi ;;
    esac
  done
  log "$name: $n packages compiled in total; linking done ($((SECONDS - t0))s)"
}

# build NAME MODULE_DIR PACKAGE [LDFLAGS]: go build PACKAGE inside the wrapper
# module MODULE_DIR into $bin/NAME, unless it is already there. The binary is
# written under a temporary name and moved, so an interrupted build never
# leaves a half-written file that a later run would take as built.
build() {
  local name=$1 dir=$2 pkg=$3 ldflags=${4:-}
  if [ -x "$bin/$name" ]; then
    log "$name: already built"
    return
  fi
  log "$name: building $pkg (first build takes minutes; progress every 100 packages)"
  local start=$SECONDS
  heartbeat_start "$name"
  if ! (cd "$dir" && CGO_ENABLED=0 go build -v -trimpath -ldflags "-s -w $ldflags" -o "$bin/.$name.tmp" "$pkg") 2>&1 | progress "$name" ||
    [ ! -f "$bin/.$name.tmp" ]; then
    heartbeat_stop
    log "$name: build failed"
    exit 1
  fi
  heartbeat_stop
  mv "$bin/.$name.tmp" "$bin/$name"
  log "$name: done in $((SECONDS - start))s"
}

# wrapper DIR REQUIRE... : a throwaway module that only requires the given
# module versions and blank-imports the commands, so `go mod tidy` resolves them.
wrapper() {
  local dir=$1; shift
  mkdir -p "$dir"
  {
    echo "module spindle.invalid/kubebuild"
    echo
    echo "go 1.24.0"
    echo
    echo "require ("
    local m
    for m in "$@"; do echo "	$m"; done
    echo ")"
  } >"$dir/go.mod"
}

total_start=$SECONDS

# --- etcd ---------------------------------------------------------------------
etcd_dir="$base/src/etcd"
if [ ! -x "$bin/etcd" ]; then
  if [ ! -f "$etcd_dir/.tidy-ok" ]; then
    log "etcd: resolving go.etcd.io/etcd/server/v3@$ETCD_VERSION"
    wrapper "$etcd_dir" "go.etcd.io/etcd/server/v3 $ETCD_VERSION"
    cat >"$etcd_dir/tools.go" <<'EOF'
//go:build tools

package kubebuild

import _ "go.etcd.io/etcd/server/v3"
EOF
    heartbeat_start "go mod tidy in etcd"
    (cd "$etcd_dir" && go mod tidy) && touch "$etcd_dir/.tidy-ok"
    heartbeat_stop
  fi
  build etcd "$etcd_dir" go.etcd.io/etcd/server/v3
else
  log "etcd: already built"
fi

# --- Kubernetes ---------------------------------------------------------------
kube_dir="$base/src/kube"
kube_cmds="kube-apiserver kube-controller-manager kube-scheduler"
need_kube=0
for c in $kube_cmds; do [ -x "$bin/$c" ] || need_kube=1; done
if [ $need_kube -eq 1 ] && [ ! -f "$kube_dir/.tidy-ok" ]; then
  log "kubernetes: fetching k8s.io/kubernetes@$KUBE_VERSION's go.mod"
  kgomod=$(go mod download -json "k8s.io/kubernetes@$KUBE_VERSION" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",*$/\1/p')
  if [ -z "$kgomod" ] || [ ! -f "$kgomod" ]; then
    log "kubernetes: could not download k8s.io/kubernetes@$KUBE_VERSION"
    exit 1
  fi
  # Every `k8s.io/<m> => ./staging/src/k8s.io/<m>` becomes a replace by the
  # published module of the same release.
  staging=$(sed -n 's#^[[:space:]]*\(k8s\.io/[a-z0-9-]*\)[[:space:]]*=>[[:space:]]*\./staging/.*#\1#p' "$kgomod" | sort -u)
  if [ -z "$staging" ]; then
    log "kubernetes: no staging replaces found in $kgomod"
    exit 1
  fi
  wrapper "$kube_dir" "k8s.io/kubernetes $KUBE_VERSION"
  {
    echo
    echo "replace ("
    for m in $staging; do echo "	$m => $m $STAGING_VERSION"; done
    echo ")"
  } >>"$kube_dir/go.mod"
  {
    echo "//go:build tools"
    echo
    echo "package kubebuild"
    echo
    echo "import ("
    for c in $kube_cmds; do echo "	_ \"k8s.io/kubernetes/cmd/$c\""; done
    echo ")"
  } >"$kube_dir/tools.go"
  log "kubernetes: resolving dependencies ($(echo "$staging" | wc -l) staging modules replaced by $STAGING_VERSION)"
  heartbeat_start "go mod tidy in kube"
  (cd "$kube_dir" && go mod tidy) && touch "$kube_dir/.tidy-ok"
  heartbeat_stop
fi
minor=${KUBE_VERSION#v1.}; minor=${minor%%.*}
kube_ldflags=""
for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  kube_ldflags+=" -X $p.gitVersion=$KUBE_VERSION -X $p.gitMajor=1 -X $p.gitMinor=$minor"
  kube_ldflags+=" -X $p.gitTreeState=clean -X $p.buildDate=1970-01-01T00:00:00Z"
done
for c in $kube_cmds; do
  build "$c" "$kube_dir" "k8s.io/kubernetes/cmd/$c" "$kube_ldflags"
done

# --- kwok and its stage files -------------------------------------------------
kwok_dir="$base/src/kwok"
if [ ! -x "$bin/kwok" ] && [ ! -f "$kwok_dir/.tidy-ok" ]; then
  log "kwok: resolving sigs.k8s.io/kwok@$KWOK_VERSION"
  wrapper "$kwok_dir" "sigs.k8s.io/kwok $KWOK_VERSION"
  cat >"$kwok_dir/tools.go" <<'EOF'
//go:build tools

package kubebuild

import _ "sigs.k8s.io/kwok/cmd/kwok"
EOF
  heartbeat_start "go mod tidy in kwok"
  (cd "$kwok_dir" && go mod tidy) && touch "$kwok_dir/.tidy-ok"
  heartbeat_stop
fi
build kwok "$kwok_dir" sigs.k8s.io/kwok/cmd/kwok
stages="$base/kwok-stages"
if [ ! -d "$stages" ]; then
  kwok_mod=$(go mod download -json "sigs.k8s.io/kwok@$KWOK_VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",*$/\1/p')
  if [ -z "$kwok_mod" ] || [ ! -d "$kwok_mod/kustomize/stage" ]; then
    log "kwok: stage files not found in the module cache"
    exit 1
  fi
  mkdir -p "$stages.tmp"
  cp -R "$kwok_mod/kustomize/stage/." "$stages.tmp/"
  chmod -R u+w "$stages.tmp"
  mv "$stages.tmp" "$stages"
  log "kwok: standard stages copied to $stages"
fi

log "all binaries ready in $((SECONDS - total_start))s"
echo "$bin"
