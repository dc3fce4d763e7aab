#!/usr/bin/env bash
# A hostile app on a device with the company's identity provider app (Company Login) and its client (Field
# Sales), all real processes, a real keyring and the org on loopback (issue 25). It tries:
#   1. code theft: an authrequest in Field Sales' name, with its own calling_app_url;
#   2. a redirect URI of its own for Field Sales' client id;
#   3. a forged authresponse (no code, another login host) to Field Sales;
#   4. scheme squatting: it claims companylogin: too, so Field Sales' request could reach it;
#   5. a rogue identity provider, logged in at another org, answering Field Sales from that host.
# The IDP answers only the client's registered callback scheme, the client exchanges codes only at the host
# it asked, and nothing is kept by any refused step: no account, no token, no pending login, no verifier.
APPGROUPSIM_NEEDS_KEYRING=1 source "$(dirname "$0")/../lib/integration.sh"
IDP_APP="$ROOT/Fixtures/IDP/CompanyLogin.app"
SP_APP="$ROOT/Fixtures/IDP/FieldSales.app"
DEV="$WORK/device"
start_org
sim() { "$BIN/msdk-sim" "$@"; }
sp() { "$BIN/main-app" --bundle "$SP_APP" --device "$1" --org "$ORG" --trace "$WORK/sp.trace" "${@:2}"; }

# The hostile app: a bundle of its own (another id, scheme "squatter"), installed on the same device.
make_app() { # SOURCE DEST ID SCHEMES_JSON [TEAM]
  cp -r "$1" "$2"
  python3 - "$2" "$3" "$4" "${5:-}" <<'EOF'
import json, plistlib, sys, glob
app, bundle_id, schemes, team = sys.argv[1], sys.argv[2], json.loads(sys.argv[3]), sys.argv[4]
def edit(p, f):
    d = plistlib.load(open(p, "rb")); f(d); plistlib.dump(d, open(p, "wb"))
edit(f"{app}/Info.plist", lambda d: d.update(CFBundleIdentifier=bundle_id, CFBundleURLTypes=[{"CFBundleURLSchemes": schemes}]))
if team:
    for e in glob.glob(f"{app}/*.entitlements"):
        edit(e, lambda d: d.update({"com.apple.developer.team-identifier": team}))
EOF
}
make_app "$SP_APP" "$WORK/Squatter.app" com.evil.squatter '["squatter"]' EVILTEAM01

# The client keeps nothing: no account, no pending IDP login in its defaults, no verifier item.
nothing_kept() { # DEVICE WHAT
  local accounts pending verifiers
  accounts=$("$BIN/main-app" --bundle "$SP_APP" --device "$1" status --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["accounts"]))')
  [ "$accounts" = 0 ] || fail "$2: the client has $accounts account(s)"
  pending=$(python3 - "$1/Containers/Data/com.acme.fieldsales/Library/Preferences/com.acme.fieldsales.plist" <<'EOF'
import plistlib, sys, os
p = sys.argv[1]
print(len(plistlib.load(open(p, "rb")).get("IDPAuthSessions", {})) if os.path.exists(p) else 0)
EOF
)
  [ "$pending" = 0 ] || fail "$2: a pending IDP login is kept"
  verifiers=$(secret-tool search --all service com.salesforce.mobilesdk.idp.codeVerifier 2>/dev/null | grep -c '^\[' || true)
  [ "$verifiers" = 0 ] || fail "$2: $verifiers PKCE verifier item(s) kept"
}

expect_status 0 sim device install --device "$DEV" --app "$IDP_APP"
expect_status 0 sim device install --device "$DEV" --app "$SP_APP"
expect_status 0 sim device install --device "$DEV" --app "$WORK/Squatter.app"
expect_status 0 "$BIN/main-app" --bundle "$IDP_APP" --device "$DEV" --org "$ORG" --trace "$WORK/idp.trace" login --username alice@acme.test --password alice-pass

# 1. Code theft: an authrequest in Field Sales' name whose calling_app_url is the squatter's. The IDP answers
#    Field Sales' registered callback scheme (fieldsales:), never squatter:; Field Sales has asked nothing and refuses.
CHALLENGE=$(printf %s "the-squatters-own-verifier-0123456789-0123456789" | openssl dgst -sha256 -binary | base64 | tr '+/' '-_' | tr -d '=')
THEFT="companylogin://oauth2/v1.0/authrequest?oauth_client_id=3MVG9Acme.FieldSales&oauth_redirect_uri=fieldsales%3A%2F%2Foauth%2Fdone&scopes=api&code_challenge=$CHALLENGE&state=stolen&scene_id=main&calling_app_url=squatter%3A%2F%2Foauth2%2Fv1.0%2Fauthresponse&login_host=${ORG//:/%3A}"
# Exit 0: the IDP (the launched app) answered; Field Sales' refusal is on stderr.
expect_status 0 sim device open-url --device "$DEV" "$THEFT"
contains "$OUT$ERR" "answered authresponse to fieldsales:"
case "$OUT$ERR" in *"to squatter:"*) fail "the IDP answered the squatter: $OUT$ERR" ;; esac
contains "$ERR" "no identity provider login is pending in scene main"
[ ! -d "$DEV/Containers/Data/com.evil.squatter" ] || fail "the squatter was launched with an answer"
nothing_kept "$DEV" "code theft"
ok "code theft: an authrequest in Field Sales' name is answered to fieldsales: (its registered callback), never to the caller's calling_app_url; Field Sales refuses it; nothing kept"

# 2. The squatter's own redirect URI for Field Sales' client id: the org refuses the code, and the error
#    (no code) goes to that scheme.
ROGUE_REDIRECT="${THEFT/fieldsales%3A%2F%2Foauth%2Fdone/squatter%3A%2F%2Foauth%2Fdone}"
expect_status 0 sim device open-url --device "$DEV" "$ROGUE_REDIRECT"
contains "$OUT$ERR" "answered error redirect_uri_mismatch to squatter:"
python3 - "$WORK/idp.trace" <<'EOF' || fail "the IDP sent a code to the squatter"
import json, sys
sent = [json.loads(l)["info"] for l in open(sys.argv[1]) if '"idpCommandSent"' in l]
assert not any(i.get("to") == "squatter" and i.get("command") != "error" for i in sent), sent
EOF
nothing_kept "$DEV" "rogue redirect"
ok "a redirect URI of the squatter's for Field Sales' client id: the org gives no code, the IDP answers only error redirect_uri_mismatch"

# 3. Forged responses to Field Sales: no code, a rogue login host, a state that matches nothing.
for forged in "code=&state=x&scene_id=main" "code=stolen&state=x&scene_id=main&login_host=http%3A%2F%2F127.0.0.1%3A9" "state=x&scene_id=main"; do
  expect_status 1 sim device open-url --device "$DEV" "fieldsales://oauth2/v1.0/authresponse?$forged"
  contains "$ERR" "refused"
done
nothing_kept "$DEV" "forged responses"
ok "forged authresponses (no code, a rogue login host, no pending login) are refused; nothing kept"

# 4. Scheme squatting: the squatter also claims companylogin:. Field Sales' login cannot start (iOS would pick
#    either app), and leaves nothing behind: no pending login, no verifier.
DEV2="$WORK/device2"
make_app "$SP_APP" "$WORK/Squatter2.app" com.evil.squatter2 '["squatter2", "companylogin"]' EVILTEAM01
for app in "$IDP_APP" "$SP_APP" "$WORK/Squatter2.app"; do expect_status 0 sim device install --device "$DEV2" --app "$app"; done
expect_status 1 sp "$DEV2" login --idp < /dev/null
contains "$ERR" "the URL scheme companylogin: is claimed by com.acme.companylogin and com.evil.squatter2"
nothing_kept "$DEV2" "scheme squatting"
ok "scheme squatting: a second app claiming companylogin: stops the login before it starts; no pending login, no verifier"

# 5. A rogue identity provider logged in at another org answers from that host: Field Sales refuses to send
#    its verifier there, and its login stays unanswered, then is abandoned, keeping nothing.
: >"$WORK/rogue.out"
"$BIN/sf-simulator" --port 0 --data "$ROOT/Fixtures/org" > "$WORK/rogue.out" 2> "$WORK/rogue.err" &
ROGUE_PID=$!
trap 'kill $ORG_PID $ROGUE_PID 2>/dev/null || true; end_children; rm -rf "$WORK"' EXIT
for _ in $(seq 1 600); do [ "$(wc -l < "$WORK/rogue.out")" -ge 2 ] && break; sleep 0.05; done
ROGUE_ORG=$(head -1 "$WORK/rogue.out" | awk '{print $3}')
DEV3="$WORK/device3"
make_app "$IDP_APP" "$WORK/RogueIDP.app" com.evil.rogueidp '["companylogin"]'
for app in "$WORK/RogueIDP.app" "$SP_APP"; do expect_status 0 sim device install --device "$DEV3" --app "$app"; done
expect_status 0 "$BIN/main-app" --bundle "$WORK/RogueIDP.app" --device "$DEV3" --org "$ROGUE_ORG" login --username alice@acme.test --password alice-pass
set +e
timeout 60 "$BIN/main-app" --bundle "$SP_APP" --device "$DEV3" --org "$ORG" --trace "$WORK/sp3.trace" login --idp < /dev/null > "$WORK/rogue-login.out" 2>&1
status=$?
set -e
[ "$status" -ne 0 ] || fail "the client logged in through a rogue host: $(cat "$WORK/rogue-login.out")"
contains "$(cat "$WORK/rogue-login.out")" "names login host $ROGUE_ORG, but the login pending in scene main was started at $ORG"
grep -q '"reason":"otherLoginHost"' "$WORK/sp3.trace" || fail "no otherLoginHost refusal in the trace"
nothing_kept "$DEV3" "rogue host"
ok "a rogue identity provider answering from another host: the client refuses to exchange its code there; nothing kept"
