#!/usr/bin/env bash
# Identity provider apps, with real processes, a real keyring and the org on loopback: two apps of one
# company on one device (Fixtures/IDP). The IDP app (Company Login) logs alice in with a password; the
# client app (Field Sales), running a shell with scenes left and right, logs in through it from the right
# scene without a password; its widget then lists alice's contacts. The IDP's tokens stay as they were and
# the client's own tokens are in the client's keychain group. Then IDP-initiated login, two IDP users with
# --user, and every error: a forged or unmatched response, an unknown scene, the user cancelling, a
# connected app that refuses the client, the IDP app not installed, URLs no app or two apps claim. The
# client keeps no partial account in any of them.
APPGROUPSIM_NEEDS_KEYRING=1 source "$(dirname "$0")/../lib/integration.sh"
source "$ROOT/scripts/lib/common.sh"
PY=$(ensure_python_venv)
IDP_APP="$ROOT/Fixtures/IDP/CompanyLogin.app"
SP_APP="$ROOT/Fixtures/IDP/FieldSales.app"
SP_WIDGET="$SP_APP/PlugIns/RecentContacts.appex"
IDP_GROUP=SIMTEAM001.com.acme.companylogin
SP_GROUP=SIMTEAM001.com.acme.fieldsales
DEV="$WORK/device"
start_org
sim() { "$BIN/msdk-sim" "$@"; }
idp() { "$BIN/main-app" --bundle "$IDP_APP" --device "$DEV" --org "$ORG" --trace "$WORK/idp.trace" "$@"; }
sp() { "$BIN/main-app" --bundle "$SP_APP" --device "$DEV" --org "$ORG" --trace "$WORK/sp.trace" "$@"; }
# tokens GROUP: for each token item of the group with a value, "service sha256-of-value" (never the value).
tokens() {
  "$PY" - "$1" <<'EOF'
import hashlib, sys
import secretstorage
bus = secretstorage.dbus_init()
rows = []
for item in secretstorage.get_default_collection(bus).search_items({"accessGroup": sys.argv[1]}):
    a = item.get_attributes()
    if a.get("service", "").startswith("com.salesforce.mobilesdk.oauth.") and item.get_secret():
        rows.append(f'{a["service"]} {a.get("account", "")} {hashlib.sha256(item.get_secret()).hexdigest()}')
print("\n".join(sorted(rows)))
EOF
}
# accounts: the client app's accounts, as its status says.
sp_accounts() { "$BIN/main-app" --bundle "$SP_APP" --device "$DEV" status --json | python3 -c 'import json,sys; print(" ".join(json.load(sys.stdin)["accounts"]))'; }

# 1. Two apps on one device, with their URL schemes.
expect_status 0 sim device install --device "$DEV" --app "$IDP_APP"
contains "$OUT" "installed com.acme.companylogin (companylogin:)"
expect_status 0 sim device install --device "$DEV" --app "$SP_APP"
expect_status 0 sim device apps --device "$DEV" --json
[ "$(field "$OUT" '[(a["bundleIdentifier"], a["schemes"]) for a in d]')" = "[('com.acme.companylogin', ['companylogin']), ('com.acme.fieldsales', ['fieldsales'])]" ] || fail "$OUT"
ok "two apps installed on the device with their URL schemes"

# 2. The IDP logs alice in with a password.
expect_status 0 idp login --username alice@acme.test --password alice-pass
IDP_TOKENS=$(tokens "$IDP_GROUP")
[ "$(printf '%s\n' "$IDP_TOKENS" | grep -c oauth)" = 2 ] || fail "expected the IDP's access and refresh tokens in $IDP_GROUP: $IDP_TOKENS"
ok "Company Login (the IDP) logs alice in with a password; its tokens are in $IDP_GROUP"

# 3. The client app's shell, scenes left and right: login through the IDP from the right scene.
printf 'login-idp right\nwait-url 60\nscenes\nquit\n' | sp shell --scene left --scene right > "$WORK/shell.out" 2>&1 \
  || fail "the shell failed: $(cat "$WORK/shell.out")"
SHELL_OUT=$(cat "$WORK/shell.out")
contains "$SHELL_OUT" "[right] asked the identity provider app (companylogin:) to log in"
contains "$SHELL_OUT" "answered authresponse to fieldsales:"
contains "$SHELL_OUT" "[right] login completed through the identity provider app: alice@acme.test"
contains "$SHELL_OUT" "[left] root reset: ContactsList(alice@acme.test)"
contains "$SHELL_OUT" "[right] root reset: ContactsList(alice@acme.test)"
case "$SHELL_OUT" in *password*) fail "the client app asked for a password: $SHELL_OUT" ;; esac
ok "Field Sales logs alice in from its right scene through Company Login, no password; the completion lands in right and both scenes reset"
TRACE=$(cat "$WORK/sp.trace")
python3 - "$WORK/sp.trace" <<'EOF' || fail "the trace lacks a URL command: $TRACE"
import json, sys
steps = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
seen = {(s.get("step"), s.get("info", {}).get("command")) for s in steps}
need = {("idpCommandSent", "authrequest"), ("urlOpened", "authrequest"), ("idpCommandReceived", "authrequest"),
        ("idpCommandSent", "authresponse"), ("urlOpened", "authresponse"), ("idpCommandReceived", "authresponse")}
missing = need - seen
assert not missing, f"missing {missing}"
text = open(sys.argv[1]).read()
assert "code=" not in text and "state=" not in text and "code_challenge" not in text, "a code, state or challenge is in the trace"
EOF
ok "the trace shows each URL command (authrequest, authresponse: sent, opened, received) and no code, state or challenge"
[ "$(tokens "$IDP_GROUP")" = "$IDP_TOKENS" ] || fail "the IDP's tokens changed"
SP_TOKENS=$(tokens "$SP_GROUP")
[ "$(printf '%s\n' "$SP_TOKENS" | grep -c oauth)" = 2 ] || fail "expected the client's own tokens in $SP_GROUP: $SP_TOKENS"
for h in $(printf '%s\n' "$SP_TOKENS" | awk '{print $3}'); do
  case "$IDP_TOKENS" in *"$h"*) fail "the client holds one of the IDP's tokens" ;; esac
done
ok "the IDP's tokens are unchanged; the client's own (different) tokens are in $SP_GROUP"

# 4. The client's widget lists alice's contacts.
expect_status 0 sp sync
expect_status 0 "$BIN/extension-widget" --bundle "$SP_WIDGET" --device "$DEV" --json
[ "$(field "$OUT" 'd["state"], d["user"]["username"], len(d["contacts"])')" = "('listed', 'alice@acme.test', 3)" ] || fail "$OUT"
ok "Field Sales' widget lists alice's contacts"

# 5. Two IDP users: --user picks one (the IDP app, not running, is launched to answer).
expect_status 0 idp login --username bob@acme.test --password bob-pass
expect_status 0 sp login --idp --user bob@acme.test < /dev/null
contains "$OUT" "logged in as bob@acme.test"
[ "$(sp_accounts)" = "alice@acme.test bob@acme.test" ] || fail "accounts: $(sp_accounts)"
ok "with two IDP users, login --idp --user bob@acme.test logs bob in"

# The IDP app already running (a shell): the request goes to its inbox; it answers without reading the
# shell's stdin (its own commands), with the hint's user.
printf 'wait-url 60\nquit\n' | idp shell > "$WORK/idpshell.out" 2>&1 &
IDP_SHELL=$!
for _ in $(seq 1 600); do grep -q "companylogin.*(running)" <<< "$(sim device apps --device "$DEV")" && break; sleep 0.05; done
grep -q "companylogin.*(running)" <<< "$(sim device apps --device "$DEV")" || fail "the IDP shell did not start: $(cat "$WORK/idpshell.out")"
expect_status 0 sp login --idp --user alice@acme.test < /dev/null
contains "$OUT" "logged in as alice@acme.test"
wait "$IDP_SHELL" || fail "the IDP shell failed: $(cat "$WORK/idpshell.out")"
contains "$(cat "$WORK/idpshell.out")" "answered authresponse to fieldsales:"
grep -q '"delivery":"inbox of com.acme.companylogin"' "$WORK/sp.trace" || fail "the request did not go to the running IDP's inbox"
ok "the IDP app running as a shell gets the request in its URL inbox and answers it"

# The IDP app with no user at all: it shows its own login screen first (username and password typed on
# its stdin), then answers.
DEV4="$WORK/device4"
expect_status 0 sim device install --device "$DEV4" --app "$IDP_APP"
expect_status 0 sim device install --device "$DEV4" --app "$SP_APP"
printf 'alice@acme.test\nalice-pass\n' | "$BIN/main-app" --bundle "$SP_APP" --device "$DEV4" --org "$ORG" login --idp > "$WORK/first.out" 2>&1 \
  || fail "login through an IDP with no user: $(cat "$WORK/first.out")"
contains "$(cat "$WORK/first.out")" "logged in as alice@acme.test (Alice Archer), org 00D5g00000AcmeeEAA, through the identity provider app"
expect_status 0 "$BIN/main-app" --bundle "$IDP_APP" --device "$DEV4" status --json
[ "$(field "$OUT" 'd["currentUser"]')" = alice@acme.test ] || fail "the IDP did not keep its own login: $OUT"
ok "an IDP app with no user logs in first (its own login screen), then answers"

# 6. IDP-initiated login: a new device where the client has no user yet.
DEV2="$WORK/device2"
expect_status 0 sim device install --device "$DEV2" --app "$IDP_APP"
expect_status 0 sim device install --device "$DEV2" --app "$SP_APP"
idp2() { "$BIN/main-app" --bundle "$IDP_APP" --device "$DEV2" --org "$ORG" --trace "$WORK/idp2.trace" "$@"; }
expect_status 0 idp2 login --username alice@acme.test --password alice-pass
expect_status 0 idp2 login --username bob@acme.test --password bob-pass
expect_status 0 idp2 idp-launch --app com.acme.fieldsales --user bob@acme.test < /dev/null
contains "$OUT" "sent idpinit for bob@acme.test to com.acme.fieldsales"
contains "$OUT" "asked the identity provider app (companylogin:) to log the user in"
contains "$OUT" "logged in as bob@acme.test through the identity provider app"
expect_status 0 "$BIN/main-app" --bundle "$SP_APP" --device "$DEV2" status --json
[ "$(field "$OUT" 'd["currentUser"]')" = bob@acme.test ] || fail "$OUT"
grep -q '"command":"idpinit"' "$WORK/idp2.trace" || fail "no idpinit in the trace"
ok "IDP-initiated: idp-launch sends idpinit, the client asks back (authrequest) and bob is logged in"
expect_status 0 idp2 idp-launch --app com.acme.fieldsales --user bob@acme.test < /dev/null
contains "$OUT" "switched to bob@acme.test"
ok "idpinit for a user the client already has: it switches to him, no new login"

# 7. Errors; the client keeps no partial account in any.
BEFORE=$(sp_accounts)
SP_TOKENS_BEFORE=$(tokens "$SP_GROUP")
no_partial() {
  [ "$(sp_accounts)" = "$BEFORE" ] || fail "$1: the client's accounts changed: $(sp_accounts)"
  [ "$(tokens "$SP_GROUP")" = "$SP_TOKENS_BEFORE" ] || fail "$1: the client's token items changed"
}
# a. The user cancels in the IDP.
echo cancel | sp login --idp > "$WORK/cancel.out" 2>&1 && fail "a cancelled login succeeded"
contains "$(cat "$WORK/cancel.out")" "answered error user_cancelled"
contains "$(cat "$WORK/cancel.out")" "User cancelled authentication"
no_partial cancel
ok "the user cancels in the IDP: error user_cancelled, shown by the client; nothing kept"
# b. A response nobody asked for, launched into the client: no pending login.
expect_status 1 sim device open-url --device "$DEV" "fieldsales://oauth2/v1.0/authresponse?code=forged&state=forged&scene_id=main"
contains "$ERR" "no identity provider login is pending in scene main"
no_partial "no pending login"
# c. A forged state and an unknown scene, to the running shell with a login pending in left (the IDP
#    "launch" is /bin/true: nothing answers, so the login stays pending).
rm -f "$WORK/sp.trace"
# A URL left in the inbox 15 minutes ago (a launch that never took it): the shell removes it unread and says so.
INBOX="$DEV/URLs/com.acme.fieldsales/inbox"
mkdir -p -m 700 "$INBOX"
STALE="$INBOX/$(printf '%015d' $(( ($(date +%s) - 900) * 1000 )))-stale000.url"
printf 'fieldsales://oauth2/v1.0/authresponse?code=stale-code-1234&state=old&scene_id=left' > "$STALE"
chmod 600 "$STALE"
{ printf 'login-idp left\n'; sleep 3; printf 'wait-url 20\nwait-url 20\nscenes\nquit\n'; } \
  | APPGROUPSIM_MAIN_APP=/bin/true sp shell --scene left --scene right > "$WORK/forged.out" 2>&1 &
SHELL_PID=$!
# Forged answers only once the shell's login is pending (its authrequest opened).
for _ in $(seq 1 600); do grep -q '"step":"urlOpened"' "$WORK/sp.trace" 2>/dev/null && break; sleep 0.05; done
grep -q '"step":"urlOpened"' "$WORK/sp.trace" || fail "the shell's login-idp did not happen: $(cat "$WORK/forged.out")"
grep -q "fieldsales.*(running)" <<< "$(sim device apps --device "$DEV")" || fail "the client shell is not running: $(cat "$WORK/forged.out")"
expect_status 0 sim device open-url --device "$DEV" "fieldsales://oauth2/v1.0/authresponse?code=forged&state=bogus&scene_id=left"
contains "$OUT" "delivered to the running com.acme.fieldsales"
expect_status 0 sim device open-url --device "$DEV" "fieldsales://oauth2/v1.0/authresponse?code=forged&state=bogus&scene_id=nowhere"
wait "$SHELL_PID" || fail "the shell failed: $(cat "$WORK/forged.out")"
FORGED=$(cat "$WORK/forged.out")
contains "$FORGED" "url refused: identity provider response refused: its state does not match the login pending in scene left; nothing was kept"
contains "$FORGED" "url refused: it names scene nowhere, which is not open; nothing was kept"
no_partial "forged state"
ok "responses refused: no pending login, a state that matches none, an unknown scene; nothing kept"
contains "$FORGED" "a URL waited 15 min in this app's inbox (longer than 10 min) and was removed unread"
grep -q '"step":"urlExpired"' "$WORK/sp.trace" || fail "no urlExpired in the trace"
[ ! -e "$STALE" ] || fail "the expired URL is still in the inbox"
grep -q stale-code-1234 "$WORK/sp.trace" "$WORK/forged.out" && fail "the expired URL's code was written out"
ok "a URL that waited 15 min in the inbox is removed unread, said and traced without its code"
# The shell's own authrequest was "launched" into /bin/true, so it is still in the IDP's inbox: the
# next launch of the IDP would answer it (the device keeps a URL until its app takes it). Take it
# away here, so the next case starts from a device with nothing pending.
IDP_INBOX="$DEV/URLs/com.acme.companylogin/inbox"
grep -lq "scene_id=left" "$IDP_INBOX"/*.url 2>/dev/null || fail "the shell's authrequest is not waiting in the IDP's inbox"
rm -f "$IDP_INBOX"/*.url
# d. A connected app that refuses the client (its consumer key is not the org's).
cp -r "$SP_APP" "$WORK/Rogue.app"
"$PY" - "$WORK/Rogue.app" <<'EOF'
import plistlib, sys
def edit(p, f):
    d = plistlib.load(open(p, "rb")); f(d); plistlib.dump(d, open(p, "wb"))
edit(f"{sys.argv[1]}/bootconfig.plist", lambda d: d.update(remoteAccessConsumerKey="3MVG9Unknown.Rogue", oauthRedirectURI="rogue://oauth/done"))
edit(f"{sys.argv[1]}/Info.plist", lambda d: d.update(CFBundleIdentifier="com.acme.rogue", CFBundleURLTypes=[{"CFBundleURLSchemes": ["rogue"]}]))
EOF
expect_status 0 sim device install --device "$DEV" --app "$WORK/Rogue.app"
expect_status 1 "$BIN/main-app" --bundle "$WORK/Rogue.app" --device "$DEV" --org "$ORG" login --idp < /dev/null
contains "$OUT$ERR" "answered error invalid_client_id"
contains "$ERR" "client identifier invalid"
# Rogue.app is a copy of Field Sales: same app group and keychain group, so the same accounts and tokens.
no_partial "refused client"
ok "a connected app that refuses the client: error invalid_client_id from the org, through the IDP; nothing kept"
# e. The IDP app not installed.
DEV3="$WORK/device3"
expect_status 0 sim device install --device "$DEV3" --app "$SP_APP"
expect_status 1 "$BIN/main-app" --bundle "$SP_APP" --device "$DEV3" --org "$ORG" login --idp < /dev/null
contains "$ERR" "idp_not_installed"
contains "$ERR" "no installed app claims the URL scheme companylogin:"
expect_status 0 "$BIN/main-app" --bundle "$SP_APP" --device "$DEV3" status --json
[ "$(field "$OUT" 'd["accounts"]')" = "[]" ] || fail "$OUT"
ok "the IDP app not installed: error idp_not_installed in the client; nothing kept"
# f. URLs no app claims, or two apps claim.
expect_status 1 sim device open-url --device "$DEV" "nobody://oauth2/v1.0/authrequest"
contains "$ERR" "no installed app claims the URL scheme nobody:"
cp -r "$IDP_APP" "$WORK/Twin.app"
"$PY" -c 'import plistlib,sys; p=sys.argv[1]; d=plistlib.load(open(p,"rb")); d["CFBundleIdentifier"]="com.acme.twin"; plistlib.dump(d,open(p,"wb"))' "$WORK/Twin.app/Info.plist"
expect_status 0 sim device install --device "$DEV3" --app "$IDP_APP"
expect_status 0 sim device install --device "$DEV3" --app "$WORK/Twin.app"
expect_status 1 sim device open-url --device "$DEV3" "companylogin://oauth2/v1.0/authrequest"
contains "$ERR" "claimed by com.acme.companylogin and com.acme.twin"
ok "a scheme no app claims, or two apps claim: one clear error each"
# g. Bundle ids differ only in case: one app to iOS, so the second install (and its launch) is refused.
cp -r "$IDP_APP" "$WORK/Upper.app"
"$PY" -c 'import plistlib,sys; p=sys.argv[1]; d=plistlib.load(open(p,"rb")); d["CFBundleIdentifier"]="com.acme.CompanyLogin"; d["CFBundleURLTypes"]=[]; plistlib.dump(d,open(p,"wb"))' "$WORK/Upper.app/Info.plist"
expect_status 1 sim device install --device "$DEV3" --app "$WORK/Upper.app"
contains "$ERR" "com.acme.CompanyLogin is com.acme.companylogin, which is on this device, in another case"
expect_status 0 "$BIN/main-app" --bundle "$IDP_APP" --device "$DEV3" status
expect_status 1 "$BIN/main-app" --bundle "$WORK/Upper.app" --device "$DEV3" status
contains "$ERR" "bundle ids are unique without regard to case"
[ ! -e "$DEV3/Containers/Data/com.acme.CompanyLogin" ] || fail "a second container was made for the id in another case"
ok "bundle ids that differ only in case: the second is refused at install and at launch; one container"

# h. A storm of URLs to an app that is not running: 30 open-url at once. The first launches the app, the others
# find it running and wait until it took their URL (it handles every URL waiting before it quits), or launch it
# again when it quit first. No URL is left behind, and each open-url's "delivered" is true.
DEV4="$WORK/device4"
expect_status 0 sim device install --device "$DEV4" --app "$SP_APP"
STORM=()
for i in $(seq 1 30); do
  ( set +e; sim device open-url --device "$DEV4" "fieldsales://oauth2/v1.0/authresponse?code=storm$i&state=storm$i&scene_id=main" >"$WORK/storm.$i.out" 2>&1; echo $? >"$WORK/storm.$i.rc" ) &
  STORM+=($!)
done
wait "${STORM[@]}"   # these 30, not the org this script started in the background
left=$(find "$DEV4/URLs" -name '*.url' | wc -l)
[ "$left" = 0 ] || fail "$left of 30 URLs were left in the inbox: $(ls "$DEV4/URLs/com.acme.fieldsales/inbox")"
handled=$(cat "$WORK"/storm.*.out | grep -c "identity provider response refused\|url refused" || true)
[ "$handled" = 30 ] || fail "$handled of 30 URLs were handled: $(cat "$WORK"/storm.*.out | sort | uniq -c)"
launched=$( (grep -L "delivered to the running" "$WORK"/storm.*.out || true) | wc -l)
# Each open-url says what became of its URL: 0 when it went to a running app's inbox, the app's own
# status (1: the response was refused) when it launched the app.
for i in $(seq 1 30); do
  case "$(cat "$WORK/storm.$i.rc")" in
    0) grep -q "delivered to the running" "$WORK/storm.$i.out" || grep -q "url refused\|response refused" "$WORK/storm.$i.out" || fail "storm $i: $(cat "$WORK/storm.$i.out")" ;;
    1) grep -q "url refused\|response refused" "$WORK/storm.$i.out" || fail "storm $i (exit 1): $(cat "$WORK/storm.$i.out")" ;;
    *) fail "storm $i exited $(cat "$WORK/storm.$i.rc"): $(cat "$WORK/storm.$i.out")" ;;
  esac
done
ok "30 URLs at once to an app that was not running: all 30 handled (none left in the inbox), by $launched launch(es); every 'delivered' was taken"
