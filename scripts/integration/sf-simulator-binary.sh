#!/usr/bin/env bash
# sf-simulator as a process: the first line names the port, curl can log in (code + PKCE) and query,
# SIGTERM stops it with status 0, and --state keeps the org's changes across a restart.
source "$(dirname "$0")/../lib/integration.sh"
STATE="$WORK/org-state.json"
CK=3MVG9AppGroupSim.MobileSyncExplorer.Sample
RU='testsfdc:///mobilesdk/detect/oauth/done'

start() {
  "$BIN/sf-simulator" --port 0 --data "$ROOT/Fixtures/org" --state "$STATE" > "$WORK/sim.out" 2> "$WORK/sim.err" &
  SIM=$!
  for _ in $(seq 1 100); do [ -s "$WORK/sim.out" ] && break; sleep 0.05; done
  URL=$(head -1 "$WORK/sim.out" | sed -n 's#^listening on \(http://127.0.0.1:[0-9]*\)$#\1#p')
  [ -n "$URL" ] || fail "first line was: $(head -1 "$WORK/sim.out")"
}

stop() {
  kill -TERM "$SIM"
  set +e; wait "$SIM"; local status=$?; set -e
  [ "$status" -eq 0 ] || fail "sf-simulator exited $status after SIGTERM: $(cat "$WORK/sim.err")"
}

login() {
  local verifier challenge location code
  verifier=$(head -c 48 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=')
  challenge=$(printf %s "$verifier" | openssl dgst -sha256 -binary | base64 | tr '+/' '-_' | tr -d '=')
  location=$(curl -s -D - -o /dev/null "$URL/services/oauth2/authorize" \
    --data-urlencode client_id=$CK --data-urlencode "redirect_uri=$RU" --data-urlencode "code_challenge=$challenge" \
    --data-urlencode code_challenge_method=S256 --data-urlencode username=alice@acme.test --data-urlencode password=alice-pass \
    | tr -d '\r' | sed -n 's/^[Ll]ocation: //p')
  code=$(printf %s "$location" | sed -n 's/.*[?&]code=\([^&]*\).*/\1/p')
  [ -n "$code" ] || fail "no code in the redirect"
  curl -s "$URL/services/oauth2/token" --data-urlencode grant_type=authorization_code --data-urlencode "code=$code" \
    --data-urlencode client_id=$CK --data-urlencode "redirect_uri=$RU" --data-urlencode "code_verifier=$verifier"
}

start
ok "first line: listening on $URL"
TOKENS=$(login)
ACCESS=$(json_field "$TOKENS" access_token)
REFRESH=$(json_field "$TOKENS" refresh_token)
ok "curl login with code and PKCE"

COUNT=$(curl -s -G -H "Authorization: Bearer $ACCESS" "$URL/services/data/v66.0/query" --data-urlencode "q=SELECT Id FROM Contact" | python3 -c 'import json,sys; print(json.load(sys.stdin)["totalSize"])')
[ "$COUNT" = 1000 ] || fail "query gave $COUNT contacts"
ok "curl query: 1,000 contacts"

NEW=$(curl -s -H "Authorization: Bearer $ACCESS" -H 'Content-Type: application/json' "$URL/services/data/v66.0/sobjects/Contact" -d '{"LastName":"Restart"}')
ID=$(json_field "$NEW" id)
stop
ok "SIGTERM: exit 0"
grep -q "$REFRESH" "$STATE" && fail "the state file holds a refresh token"
ok "the state file holds no token"

start
ACCESS=$(json_field "$(curl -s "$URL/services/oauth2/token" --data-urlencode grant_type=refresh_token --data-urlencode "refresh_token=$REFRESH" --data-urlencode client_id=$CK)" access_token)
NAME=$(curl -s -H "Authorization: Bearer $ACCESS" "$URL/services/data/v66.0/sobjects/Contact/$ID?fields=LastName" | python3 -c 'import json,sys; print(json.load(sys.stdin)["LastName"])')
[ "$NAME" = Restart ] || fail "after the restart the record reads: $NAME"
ok "--state: the record and the refresh token survived the restart"

# Hostile admin calls: refused with Salesforce's error shape, and the process lives on.
for body in '{"offlineForSeconds": 100000000000}' '{"errorRate": 7}' '{"errorRate": "abc"}' '{"seed": -1}'; do
  ANSWER=$(curl -s -w '\n%{http_code}' "$URL/__admin/faults" -d "$body")
  [ "$(printf '%s\n' "$ANSWER" | tail -1)" = 400 ] || fail "$body: $ANSWER"
  contains "$(printf '%s\n' "$ANSWER" | head -1)" '"errorCode":"INVALID_FIELD"'
done
kill -0 "$SIM" || fail "sf-simulator died on an admin call"
[ "$(curl -s -o "$WORK/nf" -w '%{http_code}' "$URL/no/such/route")" = 404 ] || fail "unknown route"
contains "$(cat "$WORK/nf")" '"errorCode":"NOT_FOUND"'
ok "out-of-range faults are 400 with the Salesforce shape, unknown routes 404 likewise; the server lives on"
stop

for flags in "--port 70000" "--port -1" "--error-rate 7" "--latency-ms -1" "--token-lifetime 0"; do
  # shellcheck disable=SC2086
  expect_status 64 "$BIN/sf-simulator" --data "$ROOT/Fixtures/org" $flags
  [ "$(printf '%s\n' "$ERR" | head -1 | grep -c '^Error: ')" = 1 ] || fail "$flags: $ERR"
done
ok "out-of-range start flags are usage errors (exit 64), never another port or a silent clamp"
