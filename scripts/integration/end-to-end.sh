#!/usr/bin/env bash
# The mission, with the real binaries, a real org on loopback and a real keyring: login, sync, the
# widget's list, an edit moving a contact to the top, two accounts and a switch, Globex's passcode,
# a session revoked at the org, the org going away, and logout.
APPGROUPSIM_NEEDS_KEYRING=1 source "$(dirname "$0")/../lib/integration.sh"
DEV="$WORK/device"

start_org
app() { "$BIN/main-app" --bundle "$APP" --device "$DEV" --org "$ORG" "$@"; }
widget() { "$BIN/extension-widget" --bundle "$WIDGET" --device "$DEV" --json "$@"; }

expect_status 0 app login --username alice@acme.test --password alice-pass
expect_status 0 app sync
contains "$OUT" "sync down: DONE, 1000 record(s) fetched"
expect_status 0 widget
[ "$(field "$OUT" 'd["state"]')" = listed ] || fail "$OUT"
[ "$(field "$OUT" 'd["user"]["username"]')" = alice@acme.test ] || fail "$OUT"
WIDGET_IDS=$(field "$OUT" '",".join(c["Id"] for c in d["contacts"])')
expect_status 0 app contacts list --json
NEWEST=$(field "$OUT" '",".join(c["Id"] for c in sorted(d, key=lambda c: c["LastModifiedDate"], reverse=True)[:3])')
[ "$WIDGET_IDS" = "$NEWEST" ] || fail "widget shows $WIDGET_IDS, the newest are $NEWEST"
ok "login -> sync -> the widget lists alice's 3 newest contacts"

OLD=$(field "$OUT" 'sorted(d, key=lambda c: c["LastModifiedDate"])[0]["Id"]')
expect_status 0 app contacts edit "$OLD" --title "Promoted"
expect_status 0 widget
[ "$(field "$OUT" 'd["contacts"][0]["Id"]')" = "$OLD" ] || fail "the edited contact is not on top: $OUT"
expect_status 0 app sync
contains "$OUT" "sync up: DONE, 1 local change(s)"
ok "an edit in the app moves that contact to the top of the widget, and sync sends it"

: >"$WORK/watch.out"  # before the loop below reads it: the job may not have opened it yet
"$BIN/extension-widget" --bundle "$WIDGET" --device "$DEV" --json --watch > "$WORK/watch.out" 2>&1 &
WATCH_PID=$!
for _ in $(seq 1 600); do [ -s "$WORK/watch.out" ] && break; sleep 0.05; done
NEXT=$(printf %s "$NEWEST" | cut -d, -f2)
expect_status 0 app contacts edit "$NEXT" --title "Watched"
for _ in $(seq 1 100); do [ "$(wc -l < "$WORK/watch.out")" -ge 2 ] && break; sleep 0.1; done
kill $WATCH_PID 2>/dev/null || true
[ "$(wc -l < "$WORK/watch.out")" -ge 2 ] || fail "--watch did not show the change: $(cat "$WORK/watch.out")"
[ "$(field "$(tail -1 "$WORK/watch.out")" 'd["contacts"][0]["Id"]')" = "$NEXT" ] || fail "--watch shows: $(tail -1 "$WORK/watch.out")"
ok "extension-widget --watch shows the app's edit from the other process"

expect_status 0 app login --username bob@acme.test --password bob-pass
expect_status 0 widget
[ "$(field "$OUT" 'd["user"]["username"]')" = bob@acme.test ] || fail "$OUT"
expect_status 0 app switch-user --username alice@acme.test
expect_status 0 widget
[ "$(field "$OUT" 'd["user"]["username"]')" = alice@acme.test ] || fail "$OUT"
ok "two accounts and a switch: the widget follows the current user"

expect_status 1 app login --username carol@globex.test --password carol-pass
contains "$ERR" "passcode"
expect_status 0 app status --json
[ "$(field "$OUT" 'd["currentUser"]')" = alice@acme.test ] || fail "a refused Globex login changed the current user"
expect_status 0 app login --username carol@globex.test --password carol-pass --passcode 2468
ok "Globex needs the screen-lock passcode; without it nothing is kept"
expect_status 0 app switch-user --username alice@acme.test

admin_curl -s "$ORG/__admin/faults" -d '{"revokeUser": "alice@acme.test"}' > /dev/null
expect_status 1 app sync
contains "$ERR" "revoked"
expect_status 0 app status --json
[ "$(field "$OUT" '"alice@acme.test" in d["accounts"]')" = False ] || fail "alice is still there: $OUT"
[ "$(field "$OUT" 'd.get("currentUser")')" = None ] || fail "a current user after the revocation: $OUT"
ok "a refresh token revoked at the org logs the user out at the next app command"
# Two accounts are left, so handleLogout leaves the choice to the user (the SDK's user picker): no current user.
expect_status 10 widget
[ "$(field "$OUT" 'd["user"]')" = None ] || fail "the widget still shows a user: $OUT"
ok "and the widget follows: notLoggedIn until a user is picked"
expect_status 0 app switch-user --username bob@acme.test

kill $ORG_PID; wait $ORG_PID 2>/dev/null || true
expect_status 0 widget
[ "$(field "$OUT" 'd["state"]')" = listed ] || fail "$OUT"
ok "with the org gone, a logged-in widget still lists from the store"

while app status --json | python3 -c 'import json,sys; sys.exit(0 if json.load(sys.stdin).get("currentUser") else 1)'; do
  app logout > /dev/null 2>&1 || break
done
expect_status 10 widget
contains "$(field "$OUT" 'd["message"]')" "no current user"
ok "after the last logout the widget is notLoggedIn (the sample's stale userLoggedIn stays set)"

ITEMS=$(sdk_items)
total=$(printf '%s\n' "$ITEMS" | grep -c '^\[' || true)
[ "$total" -ge 2 ] || fail "secret-tool listed $total items after the logouts; the token items should still be there, empty"
# Token items with a value (oauth services only: the account key and the push key stay across logouts,
# as the SDK keeps its keys).
left=$(live_token_items)
[ "$left" = 0 ] || fail "$left token items still hold a value after every logout"
[ "$(printf '%s\n' "$ITEMS" | grep -c '^label = AppGroupSim com.salesforce.keystore.com.salesforce.userAccount.encryptionKey ' || true)" = 1 ] \
  || fail "the account key should stay after the logouts, as the SDK keeps its encryption keys"
ok "every token item is empty after logout"
