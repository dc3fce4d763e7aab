# What this checkout's commands start and must also end: sf-simulator, the apps and extensions, msdk-sim,
# the keyring sessions (dbus-daemon, gnome-keyring-daemon), HAProxy and PostgreSQL of a fleet. Source it.
#
#   our_processes        one line "PID NAME" per live (not zombie) such process started under this run
#   new_processes BEFORE the lines of our_processes now that BEFORE did not have, after waiting up to 3 s for
#                        them to go (a daemon told to stop takes a moment)
#
# "Under this run": every process inherits APPGROUPSIM_RUN_ID (set here when missing) through its environment,
# daemons included, so that another run on the same machine (another checkout's tests) is never counted.

: "${APPGROUPSIM_RUN_ID:=run-$$-$RANDOM}"
export APPGROUPSIM_RUN_ID

our_processes() {
  local pid name
  ps -eo pid=,stat=,comm= | awk '$2 !~ /^Z/ && $3 ~ /^(sf-simulator|main-app|extension-widg|extension-noti|msdk-sim|appgroupsim-pro|dbus-daemon|gnome-keyring-d|haproxy|postgres|recents-app|recents-widget)$/ {print $1" "$3}' |
    while read -r pid name; do
      # An if, not &&: a last process of another run must not make the loop, and under pipefail the caller, fail.
      if grep -qzx "APPGROUPSIM_RUN_ID=$APPGROUPSIM_RUN_ID" "/proc/$pid/environ" 2>/dev/null; then echo "$pid $name"; fi
    done | sort
}

new_processes() {
  local before=$1 now
  for _ in $(seq 1 30); do
    now=$(comm -13 <(printf '%s\n' "$before") <(our_processes))
    [ -z "$now" ] && return 0
    sleep 0.1
  done
  printf '%s\n' "$now"
}
