#!/usr/bin/env bash
# extension-widget --render html for each state, screenshotted by headless Chromium: each PNG must
# exist and not be blank; the listed card shows the contacts' names and initials.
APPGROUPSIM_NEEDS_KEYRING=1 source "$(dirname "$0")/../lib/integration.sh"
DEV="$WORK/device"
command -v chromium > /dev/null || fail "chromium is not installed; scripts/test installs it (apt-get install chromium)"

start_org
app() { "$BIN/main-app" --bundle "$APP" --device "$DEV" --org "$ORG" "$@"; }

# shoot NAME EXPECTED_EXIT [WIDGET_BUNDLE]: render the card, screenshot it, check the PNG.
shoot() {
  local name=$1 want=$2 bundle=${3:-$WIDGET}
  expect_status "$want" "$BIN/extension-widget" --bundle "$bundle" --device "$DEV" --render html
  printf '%s\n' "$OUT" > "$WORK/$name.html"
  timeout 60 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$WORK/chromium" \
    --window-size=400,240 --screenshot="$WORK/$name.png" "file://$WORK/$name.html" > "$WORK/chromium.log" 2>&1 \
    || fail "chromium failed: $(tail -3 "$WORK/chromium.log")"
  [ -s "$WORK/$name.png" ] || fail "no screenshot for $name: $(tail -3 "$WORK/chromium.log")"
  python3 "$ROOT/scripts/lib/png-check.py" "$WORK/$name.png" 50 > "$WORK/png.out" || fail "$name: $(cat "$WORK/png.out")"
  ok "$name card: $(cat "$WORK/png.out")"
}

shoot notLoggedIn 10
contains "$(cat "$WORK/notLoggedIn.html")" "Not logged in"

broken="$WORK/broken.app"
cp -R "$ROOT/Fixtures/broken/keychain-group-differs/MobileSyncExplorer.app" "$broken"
shoot misconfigured 11 "$broken/PlugIns/RecentContacts.appex"
contains "$(cat "$WORK/misconfigured.html")" "Widget misconfigured"

expect_status 0 app login --username alice@acme.test --password alice-pass
expect_status 0 app sync
expect_status 0 app contacts add --first "Zoë" --last "<O'Brien & Co>"
shoot listed 0
html=$(cat "$WORK/listed.html")
contains "$html" 'data-state="listed"'
contains "$html" "Zoë &lt;O&#39;Brien &amp; Co&gt;"
contains "$html" ">Z&lt;</span>"
contains "$html" "alice@acme.test"
[ "$(grep -o '<li>' <<< "$html" | wc -l)" = 3 ] || fail "expected 3 rows: $html"
ok "the listed card has 3 rows with initials avatars, escapes names, and names the user"

if [ -n "${APPGROUPSIM_CARD_OUT:-}" ]; then cp "$WORK/listed.png" "$APPGROUPSIM_CARD_OUT"; fi
