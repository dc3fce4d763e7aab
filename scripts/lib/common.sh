# Shared by scripts/demo and scripts/test: install what is missing, then build.
# Source it; it defines functions only.


# Debian packages the project needs at build and run time.
APPGROUPSIM_APT_PACKAGES=(pkg-config libsqlite3-dev libsecret-1-dev gnome-keyring dbus dbus-x11 libsecret-tools python3)

# Only scripts/test needs these: headless Chromium screenshots the widget's HTML card.
APPGROUPSIM_TEST_APT_PACKAGES=(chromium fonts-dejavu-core curl openssl)

# ensure_deps [EXTRA_PACKAGE...]
ensure_deps() {
  local missing=()
  for p in "${APPGROUPSIM_APT_PACKAGES[@]}" "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "==> installing: ${missing[*]}"
    if [ "$(id -u)" -ne 0 ]; then
      echo "error: ${missing[*]} missing and not running as root; install them with: sudo apt-get install ${missing[*]}" >&2
      return 1
    fi
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
  if ! command -v swift >/dev/null 2>&1; then
    echo "error: swift is not on PATH; install the Swift 6.3 toolchain (this machine kind ships it in /opt/swift)" >&2
    return 1
  fi
}


