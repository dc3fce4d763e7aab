#!/usr/bin/env bash
# What the widget links: it reads the store and the keychain and never talks to the org, so its
# binary must not load FoundationNetworking (libcurl and ~30 more libraries), the sync engine or the
# OAuth crypto (issue "Speed"). main-app, which logs in, does load FoundationNetworking: that shows
# the check can see it.
source "$(dirname "$0")/../lib/integration.sh"
widget=$(ldd "$BIN/extension-widget") || fail "ldd extension-widget failed"
app=$(ldd "$BIN/main-app") || fail "ldd main-app failed"
case "$app" in *libFoundationNetworking*) ;; *) fail "main-app does not link FoundationNetworking: the check below would prove nothing" ;; esac
for lib in libFoundationNetworking libcurl libssl; do
  case "$widget" in *"$lib"*) fail "extension-widget links $lib: $(echo "$widget" | grep "$lib")" ;; esac
done
ok "extension-widget loads $(echo "$widget" | grep -c '=>') shared libraries and none of FoundationNetworking, libcurl or libssl (main-app: $(echo "$app" | grep -c '=>'))"
