#!/usr/bin/env bash
# Fixture: org Fixtures/org; alice logs in with the code flow and PKCE (curl), then REST calls with her token.
source "$(dirname "$0")/../../scripts/lib/examples.sh"
start_org
URL=$ORG
CK=3MVG9AppGroupSim.MobileSyncExplorer.Sample
RU=testsfdc:///mobilesdk/detect/oauth/done
VERIFIER=$(head -c 48 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=')
CHALLENGE=$(printf %s "$VERIFIER" | openssl dgst -sha256 -binary | base64 | tr '+/' '-_' | tr -d '=')
CODE=$(curl -s -D - -o /dev/null "$URL/services/oauth2/authorize" --data-urlencode client_id=$CK --data-urlencode "redirect_uri=$RU" \
  --data-urlencode "code_challenge=$CHALLENGE" --data-urlencode code_challenge_method=S256 \
  --data-urlencode username=alice@acme.test --data-urlencode password=alice-pass | tr -d '\r' | sed -n 's/^[Ll]ocation: .*[?&]code=\([^&]*\).*/\1/p')
TOKEN=$(curl -s "$URL/services/oauth2/token" --data-urlencode grant_type=authorization_code --data-urlencode "code=$CODE" \
  --data-urlencode client_id=$CK --data-urlencode "redirect_uri=$RU" --data-urlencode "code_verifier=$VERIFIER" | python3 -c 'import json,sys; print(json.load(sys.stdin)["access_token"])')
[ -n "$TOKEN" ] || { echo "no token" >&2; exit 1; }
# Each answer is cut to 300 characters here.
show 'curl -s -G -H "Authorization: Bearer $TOKEN" "$URL/services/data/v66.0/query" --data-urlencode "q=SELECT Name, Industry, Owner.Name, (SELECT LastName FROM Contacts LIMIT 2) FROM Account WHERE Industry IN ('"'"'Energy'"'"','"'"'Banking'"'"') ORDER BY Name LIMIT 1" | cut -c1-300'
show 'curl -s -G -H "Authorization: Bearer $TOKEN" "$URL/services/data/v66.0/search" --data-urlencode "q=FIND {Zhang} IN NAME FIELDS RETURNING Contact(Name, Account.Name LIMIT 2)" | cut -c1-300'
show 'curl -s -G -H "Authorization: Bearer $TOKEN" "$URL/services/data/v66.0/query" --data-urlencode "q=SELECT Id FROM Contact WHERE Nope = 1"'
