#!/usr/bin/env bash
# sf-simulator as a process: the first line names the port, curl can log in (code + PKCE) and query,
# SIGTERM stops it with status 0, --state (SQLite) keeps the org's changes across a restart and a
# kill -9, --csv and --connected-app load an org at start, and a bad definition is refused with its
# file, line and column.
source "$(dirname "$0")/../lib/integration.sh"
STATE="$WORK/org-state.sqlite"
CK=3MVG9AppGroupSim.MobileSyncExplorer.Sample
RU='testsfdc:///mobilesdk/detect/oauth/done'

start() {
  : >"$WORK/sim.out"
  "$BIN/sf-simulator" --port 0 --data "$ROOT/Fixtures/org" --state "$STATE" > "$WORK/sim.out" 2> "$WORK/sim.err" &
  SIM=$!
  for _ in $(seq 1 600); do [ "$(wc -l < "$WORK/sim.out")" -ge 2 ] && break; sleep 0.05; done
  URL=$(head -1 "$WORK/sim.out" | sed -n 's#^listening on \(http://127.0.0.1:[0-9]*\)$#\1#p')
  [ -n "$URL" ] || fail "first line was: $(head -1 "$WORK/sim.out")"
  TOKEN=$(sed -n 's/^admin token: //p' "$WORK/sim.out")
  [ -n "$TOKEN" ] || fail "second line was: $(sed -n 2p "$WORK/sim.out")"
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

# kill -9 right after the answers: every acknowledged write is there after a restart.
IDS=()
for i in 1 2 3; do
  IDS+=("$(json_field "$(curl -s -H "Authorization: Bearer $ACCESS" -H 'Content-Type: application/json' "$URL/services/data/v66.0/sobjects/Account" -d "{\"Name\":\"Killed $i\"}")" id)")
done
BATCH=$(python3 -c 'import json; print(json.dumps({"records": [{"attributes": {"type": "Contact"}, "LastName": "Zz9Kill%d" % i} for i in range(200)]}))')
CREATED=$(curl -s -H "Authorization: Bearer $ACCESS" -H 'Content-Type: application/json' "$URL/services/data/v66.0/composite/sobjects" -d "$BATCH" \
  | python3 -c 'import json,sys; print(sum(1 for r in json.load(sys.stdin) if r["success"]))')
[ "$CREATED" = 200 ] || fail "collection created $CREATED"
kill -KILL "$SIM"
set +e; wait "$SIM" 2>/dev/null; set -e
start
ACCESS=$(json_field "$(curl -s "$URL/services/oauth2/token" --data-urlencode grant_type=refresh_token --data-urlencode "refresh_token=$REFRESH" --data-urlencode client_id=$CK)" access_token)
AFTER=$(curl -s -G -H "Authorization: Bearer $ACCESS" "$URL/services/data/v66.0/query" --data-urlencode "q=SELECT COUNT() FROM Contact WHERE LastName LIKE 'Zz9Kill%'" | python3 -c 'import json,sys; print(json.load(sys.stdin)["totalSize"])')
[ "$AFTER" = 200 ] || fail "after kill -9 the org has $AFTER of the 200 contacts"
for id in "${IDS[@]}"; do
  [ "$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $ACCESS" "$URL/services/data/v66.0/sobjects/Account/$id")" = 200 ] || fail "account $id lost to kill -9"
done
ok "kill -9: 3 accounts and a 200-record collection, all acknowledged, all there after the restart"

# Hostile admin calls: refused with Salesforce's error shape, and the process lives on.
for body in '{"offlineForSeconds": 100000000000}' '{"errorRate": 7}' '{"errorRate": "abc"}' '{"seed": -1}'; do
  ANSWER=$(curl -s -w '\n%{http_code}' -H "X-AppGroupSim-Admin-Token: $TOKEN" "$URL/__admin/faults" -d "$body")
  [ "$(printf '%s\n' "$ANSWER" | tail -1)" = 400 ] || fail "$body: $ANSWER"
  contains "$(printf '%s\n' "$ANSWER" | head -1)" '"errorCode":"INVALID_FIELD"'
done
# Without the admin token, or with another: 401 in Salesforce's shape, and nothing done.
for header in "" "X-AppGroupSim-Admin-Token: wrong" "X-AppGroupSim-Admin-Token: ${TOKEN}x"; do
  for route in "/__admin/faults" "/__admin/push" "/__apns/devices"; do
    ANSWER=$(curl -s -w '\n%{http_code}' ${header:+-H "$header"} "$URL$route" -d '{"offlineForSeconds": 5, "username": "alice@acme.test", "title": "t", "body": "b", "token": "t", "inbox": "/tmp/x", "device": "d"}')
    [ "$(printf '%s\n' "$ANSWER" | tail -1)" = 401 ] || fail "$route with '$header': $ANSWER"
    contains "$(printf '%s\n' "$ANSWER" | head -1)" '"errorCode":"INVALID_ADMIN_TOKEN"'
  done
done
[ "$(curl -s -o /dev/null -w '%{http_code}' "$URL/services/oauth2/userinfo")" != 000 ] || fail "the org went offline on an unauthenticated admin call"
ok "/__admin and /__apns without the admin token, or with another: 401 INVALID_ADMIN_TOKEN, nothing done"
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

# One sf-simulator per state file: a second one on the file another serves is refused at start, naming both.
start
expect_status 1 "$BIN/sf-simulator" --port 0 --data "$ROOT/Fixtures/org" --state "$STATE"
[ "$(printf '%s\n' "$ERR" | grep -c .)" = 1 ] || fail "not one line: $ERR"
contains "$ERR" "$STATE is served by another sf-simulator (pid $SIM)"
[ -z "$OUT" ] || fail "the second one started: $OUT"
[ "$(curl -s -o /dev/null -w '%{http_code}' "$URL/services/oauth2/userinfo")" = 403 ] || [ "$(curl -s -o /dev/null -w '%{http_code}' "$URL/services/oauth2/userinfo")" = 401 ] || fail "the first one stopped serving"
stop
ok "a second sf-simulator on a --state file another serves is refused at start (one line naming the file and the pid)"

# --csv and --connected-app: an org seeded from a CSV export, logged in to by an imported app.
cat > "$WORK/accounts.csv" <<'CSV'
Id,Name,Industry,NumberOfEmployees
0015g00000CsvAAAAA,"Quay Ventures, Ltd",Energy,40
CSV
python3 - "$WORK/accounts.csv" <<'PY'
import sys
# A valid 18-character id for the CSV: the case-safe suffix computed as Salesforce does.
def suffix(i15):
    a = "ABCDEFGHIJKLMNOPQRSTUVWXYZ012345"
    return "".join(a[sum(1 << k for k in range(5) if i15[c * 5 + k].isupper())] for c in range(3))
p = sys.argv[1]; text = open(p).read(); i15 = "0015g00000CsvAA"
open(p, "w").write(text.replace("0015g00000CsvAAAAA", i15 + suffix(i15)))
PY
: >"$WORK/sim.out"
"$BIN/sf-simulator" --port 0 --data "$ROOT/Fixtures/org" --csv "Acme:Account=$WORK/accounts.csv" \
  --connected-app '3MVG9Imported=imported://oauth/done' > "$WORK/sim.out" 2> "$WORK/sim.err" &
SIM=$!
for _ in $(seq 1 600); do [ "$(wc -l < "$WORK/sim.out")" -ge 2 ] && break; sleep 0.05; done
URL=$(head -1 "$WORK/sim.out" | sed -n 's#^listening on \(http://127.0.0.1:[0-9]*\)$#\1#p')
[ -n "$URL" ] || fail "with --csv: $(cat "$WORK/sim.err")"
CK=3MVG9Imported
RU='imported://oauth/done'
ACCESS=$(json_field "$(login)" access_token)
ROWS=$(curl -s -G -H "Authorization: Bearer $ACCESS" "$URL/services/data/v66.0/query" --data-urlencode "q=SELECT Name, NumberOfEmployees FROM Account" | python3 -c 'import json,sys; r=json.load(sys.stdin)["records"]; print(len(r), r[0]["Name"], r[0]["NumberOfEmployees"])')
[ "$ROWS" = "1 Quay Ventures, Ltd 40" ] || fail "CSV org: $ROWS"
ok "--csv Acme:Account=FILE seeds the accounts; --connected-app KEY=URI logs in"
stop

printf 'Name,Industry\nBad,Energy\nWorse,Energy,extra\n' > "$WORK/bad.csv"
expect_status 1 "$BIN/sf-simulator" --port 0 --data "$ROOT/Fixtures/org" --csv "Account=$WORK/bad.csv"
contains "$ERR" "bad.csv:3: 3 cells where the header has 2"
mkdir -p "$WORK/badorg"
cp "$ROOT/Fixtures/org/orgs.json" "$WORK/badorg/"
sed 's/"type": "currency", "min": 5000/"type": "money", "min": 5000/' "$ROOT/Fixtures/org/objects.json" > "$WORK/badorg/objects.json"
expect_status 1 "$BIN/sf-simulator" --port 0 --data "$WORK/badorg"
LINE=$(grep -n '"type": "money"' "$WORK/badorg/objects.json" | cut -d: -f1)
contains "$ERR" "objects.json:$LINE:"
contains "$ERR" "money"
ok "a bad CSV row and a bad field type are refused at start with file:line[:column], exit 1"
