#!/usr/bin/env bash
# Make sure a Docker engine answers; start one on Debian (as root) when none does.
#
# Idempotent: when `docker info` answers, it does nothing. Otherwise, as root on Debian, it
# installs docker.io (and mmdebstrap, used to build the sandbox image offline), clears the
# stale pid files and socket of an engine that was killed (only when no live dockerd owns
# them; containerd's pid file too, once its containerd has gone), starts dockerd detached from our stdout/stderr, and waits until it answers.
# Anywhere else it prints how to start an engine and exits 1.
#
# Overridable (used by tests to run a private second engine; never the shared one):
#   DOCKERD_SOCKET    socket path          (default /var/run/docker.sock)
#   DOCKERD_PIDFILE   pid file             (default /var/run/docker.pid)
#   DOCKERD_DATA_ROOT data root            (default: dockerd's own, /var/lib/docker)
#   DOCKERD_EXEC_ROOT exec root            (default: dockerd's own, /var/run/docker)
#   DOCKERD_LOG       log file             (default /var/log/grpo-envs-dockerd.log)
#   DOCKERD_WAIT_S    seconds to wait      (default 60)
set -u

SOCKET=${DOCKERD_SOCKET:-/var/run/docker.sock}
PIDFILE=${DOCKERD_PIDFILE:-/var/run/docker.pid}
LOG=${DOCKERD_LOG:-/var/log/grpo-envs-dockerd.log}
WAIT_S=${DOCKERD_WAIT_S:-60}

say() { echo "ensure-docker: $*" >&2; }

answers() { docker -H "unix://$SOCKET" info >/dev/null 2>&1; }

how_to_start() {
  cat >&2 <<MSG
ensure-docker: no Docker engine answers at unix://$SOCKET and this script cannot start one here.
  Start one yourself, then re-run make:
    - Debian/Ubuntu as root:  apt-get install -y docker.io && dockerd >/var/log/dockerd.log 2>&1 &
    - with systemd:           sudo systemctl start docker
    - Docker Desktop:         start Docker Desktop
  If your engine listens elsewhere, export DOCKER_HOST (e.g. unix:///run/user/1000/docker.sock).
  Check with: docker info   (or: .venv/bin/grpo-envs doctor)
MSG
}

# A DOCKER_HOST pointing elsewhere is the user's engine: check it, never start our own.
if [ -n "${DOCKER_HOST:-}" ] && [ -z "${DOCKERD_SOCKET:-}" ]; then
  if docker info >/dev/null 2>&1; then exit 0; fi
  say "DOCKER_HOST=$DOCKER_HOST does not answer."
  how_to_start
  exit 1
fi

if answers; then exit 0; fi

if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  how_to_start
  exit 1
fi

if ! command -v dockerd >/dev/null 2>&1 || ! command -v mmdebstrap >/dev/null 2>&1; then
  say "installing docker.io and mmdebstrap from Debian (one time)"
  export DEBIAN_FRONTEND=noninteractive
  if ! { apt-get update -qq && apt-get install -y -qq docker.io mmdebstrap >/dev/null; }; then
    say "apt-get install docker.io mmdebstrap failed"
    how_to_start
    exit 1
  fi
fi

# pid_state PID [NAME] -> "live" (a running NAME, default dockerd), "zombie" (exited, not yet
# reaped), or "gone" (no such process, or the pid was reused by something that is not NAME).
pid_state() {
  local pid=$1 name=${2:-dockerd} comm state
  [ -n "$pid" ] && [ -r "/proc/$pid/stat" ] || { echo gone; return; }
  comm=$(cat "/proc/$pid/comm" 2>/dev/null || true)
  state=$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null || true)
  if [ "$state" = Z ] || [ "$state" = X ]; then echo zombie; return; fi
  if [ "$comm" = "$name" ]; then echo live; else echo gone; fi
}

# The containerd that a killed dockerd ran dies with it (dockerd gives it a parent-death
# signal) but may still be exiting, or be a zombie nobody has reaped yet. A new dockerd takes
# any pid in containerd.pid that kill(pid, 0) reaches for a running containerd, waits for it to
# answer and gives up after a minute ("timeout waiting for containerd to start"). So: give the
# old containerd time to go, then remove a pid file that no live containerd owns.
clear_stale_containerd() {
  local file="${DOCKERD_EXEC_ROOT:-/var/run/docker}/containerd/containerd.pid" pid
  [ -e "$file" ] || return 0
  pid=$(tr -dc '0-9' <"$file" 2>/dev/null || true)
  for _ in 1 2 3 4 5 6 7 8 9 10; do
    [ "$(pid_state "$pid" containerd)" = gone ] && break
    sleep 1
  done
  if [ "$(pid_state "$pid" containerd)" != live ]; then
    say "removing stale $file (pid '$pid' is not a running containerd)"
    rm -f "$file"
  fi
}

if [ -e "$PIDFILE" ]; then
  pid=$(tr -dc '0-9' <"$PIDFILE" 2>/dev/null || true)
  for _ in 1 2 3 4 5 6 7 8 9 10; do
    [ "$(pid_state "$pid")" = zombie ] || break
    sleep 1  # an engine killed a moment ago: give its parent time to reap it
  done
  if [ "$(pid_state "$pid")" = live ]; then
    # A live engine owns these files: never touch them. It may still be starting.
    say "dockerd (pid $pid) is running; waiting for it to answer"
    for _ in $(seq 1 "$WAIT_S"); do answers && exit 0; sleep 1; done
    say "dockerd (pid $pid) runs but does not answer at unix://$SOCKET; see its log ($LOG)"
    exit 1
  fi
  # Gone, or a zombie that nobody reaps: either way no engine owns the file any more.
  say "removing stale $PIDFILE (pid '$pid' is not a running dockerd)"
  rm -f "$PIDFILE"
fi
# No live dockerd: the containerd it ran (if any) must not be mistaken for a running one.
clear_stale_containerd

# No pid file (or a stale one removed): a socket left behind has no live owner.
if [ -S "$SOCKET" ] && ! answers; then
  say "removing stale socket $SOCKET"
  rm -f "$SOCKET"
fi

args=(--iptables=false --ip-masq=false --bridge=none --storage-driver=overlay2
      -H "unix://$SOCKET" --pidfile "$PIDFILE")
[ -n "${DOCKERD_DATA_ROOT:-}" ] && args+=(--data-root "$DOCKERD_DATA_ROOT")
[ -n "${DOCKERD_EXEC_ROOT:-}" ] && args+=(--exec-root "$DOCKERD_EXEC_ROOT")

say "starting dockerd (log: $LOG)"
mkdir -p "$(dirname "$LOG")"
# Detached: a daemon holding our stdout would make any piped caller (CI) wait forever.
setsid dockerd "${args[@]}" >"$LOG" 2>&1 </dev/null &

for _ in $(seq 1 "$WAIT_S"); do
  if answers; then say "engine answers"; exit 0; fi
  sleep 1
done
say "dockerd did not answer within ${WAIT_S}s; last lines of $LOG:"
tail -n 20 "$LOG" >&2
exit 1
