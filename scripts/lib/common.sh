# Shared by scripts/demo and scripts/test: install what is missing, then build.
# Source it; it defines functions only.


# Debian packages the project needs at build and run time.
APPGROUPSIM_APT_PACKAGES=(pkg-config libsqlite3-dev libsecret-1-dev libssl-dev gnome-keyring dbus dbus-x11 libsecret-tools python3)

# Only scripts/test needs these: headless Chromium screenshots the widget's HTML card; socat and
# openssl put sf-simulator behind TLS for the PyPI clients, which live in a venv (python3-venv).
APPGROUPSIM_TEST_APT_PACKAGES=(chromium fonts-dejavu-core curl openssl socat python3-venv)

# The PyPI clients the integration scripts drive sf-simulator with, pinned.
APPGROUPSIM_PIP_PACKAGES=(simple-salesforce==1.12.6 requests-oauthlib==2.0.0 cryptography==48.0.0 SecretStorage==3.3.3 aiosalesforce==0.6.2)

# ensure_deps [EXTRA_PACKAGE...]
ensure_deps() {
  local missing=()
  for p in "${APPGROUPSIM_APT_PACKAGES[@]}" "$@"; do
    grep -q "install ok installed" <<< "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" || missing+=("$p")
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



# ensure_python_venv: a venv under .build/ with the PyPI clients; prints its python. Made once, with
# Debian's python3 (not whatever python3 is first on PATH), and again when the pins change.
ensure_python_venv() {
  local root venv stamp
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
  venv="$root/.build/python-venv"
  stamp="${APPGROUPSIM_PIP_PACKAGES[*]}"
  if [ ! -x "$venv/bin/python" ] || [ "$(cat "$venv/.pins" 2>/dev/null)" != "$stamp" ]; then
    rm -rf "$venv"
    /usr/bin/python3 -m venv "$venv" >&2 || { echo "error: cannot make a venv; install python3-venv" >&2; return 1; }
    "$venv/bin/pip" install -q --disable-pip-version-check "${APPGROUPSIM_PIP_PACKAGES[@]}" >&2 \
      || { echo "error: pip could not install ${APPGROUPSIM_PIP_PACKAGES[*]} from PyPI" >&2; return 1; }
    printf '%s' "$stamp" > "$venv/.pins"
  fi
  printf '%s\n' "$venv/bin/python"
}
