# What this checkout's commands start and must also end: sf-simulator, the apps and extensions, msdk-sim,
# the keyring sessions (dbus-daemon, gnome-keyring-daemon), HAProxy and PostgreSQL of a fleet. Source it.
#
#   our_processes        one line "PID NAME" per live (not zombie) such process
#   new_processes BEFORE the lines of our_processes now that BEFORE did not have, after waiting up to 3 s for
#                        them to go (a daemon told to stop takes a moment)

our_processes() {
  ps -eo pid=,stat=,comm= | awk '$2 !~ /^Z/ && $3 ~ /^(sf-simulator|main-app|extension-widg|extension-noti|msdk-sim|appgroupsim-pro|dbus-daemon|gnome-keyring-d|haproxy|postgres|recents-app|recents-widget)$/ {print $1" "$3}' | sort
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
