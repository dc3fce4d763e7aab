#!/usr/bin/env bash
# Bring your own app: msdk-sim import builds bundles from the field-service Xcode project fixture,
# doctor --xcodeproj and doctor --app pass, then the imported app logs in to sf-simulator (its
# connected app is in the org definition), runs its own syncs (Accounts and WorkOrder__c), creates a
# work order due today, and its own widget (Due Today, from WidgetConfig.plist) lists it. Bad input
# to the import writes nothing.
APPGROUPSIM_NEEDS_KEYRING=1 source "$(dirname "$0")/../lib/integration.sh"
PROJECT="$ROOT/Fixtures/FieldService/FieldService.xcodeproj"
DEV="$WORK/device"
OUTDIR="$WORK/imported"

expect_status 0 "$BIN/msdk-sim" import --xcodeproj "$PROJECT" --configuration Release --out "$OUTDIR"
contains "$OUT" "FieldService (Release) → $OUTDIR/Field Service.app   com.acme.FieldService"
contains "$OUT" "DueToday → $OUTDIR/Field Service.app/PlugIns/DueToday.appex   com.acme.FieldService.DueToday"
contains "$OUT" "--connected-app '3MVG9Acme.FieldService=fieldservice://oauth/done'"
FS="$OUTDIR/Field Service.app"
DUE="$FS/PlugIns/DueToday.appex"
[ "$(python3 -c 'import plistlib,sys; print(plistlib.load(open(sys.argv[1],"rb"))["keychain-access-groups"][0])' "$FS/FieldService.entitlements")" = FSTEAM0001.com.acme.fieldservice.shared ] \
  || fail "entitlements not signed with the project's team"
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert any(f["file"].endswith("Info.plist") for f in r["files"]), r' "$OUTDIR/import-report.json" \
  || fail "import-report.json"
ok "import: Field Service.app with DueToday.appex, entitlements signed with FSTEAM0001, import-report.json (plistlib and json read them)"

expect_status 0 "$BIN/msdk-sim" doctor --xcodeproj "$PROJECT" --configuration Release
expect_status 0 "$BIN/msdk-sim" doctor --app "$FS"
ok "doctor --xcodeproj and doctor --app: no finding"

start_org
fs() { "$BIN/main-app" --bundle "$FS" --device "$DEV" --org "$ORG" "$@"; }
expect_status 0 fs login --username bob@acme.test --password bob-pass
expect_status 0 fs sync
contains "$OUT" "sync up: DONE, 0 local change(s) (syncUpWorkOrders)"
contains "$OUT" "sync down: DONE, 120 record(s) fetched (syncDownAccounts)"
contains "$OUT" "(syncDownWorkOrders)"
ok "the imported app logs in with its own connected app and runs its three syncs in file order"

ACCOUNT=$(fs records list --soup accounts --json | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["Id"])')
TODAY=$(date -u +%Y-%m-%dT%H:00:00.000+0000)
expect_status 0 fs records add --soup workorders --set Name=WO-Integration --set Status__c=Scheduled --set "ScheduledStart__c=$TODAY" --set "Account__c=$ACCOUNT"
expect_status 0 fs sync --name syncUpWorkOrders
contains "$OUT" "sync up: DONE, 1 local change(s) (syncUpWorkOrders)"
expect_status 1 fs records list --soup nope
contains "$ERR" "there is no soup nope"
expect_status 1 fs sync --name syncDownNothing
contains "$ERR" "no sync named syncDownNothing"

expect_status 0 "$BIN/extension-widget" --bundle "$DUE" --device "$DEV" --json
grep -qx "Due Today" <<< "$(field "$OUT" "d['title']")" || fail "title: $OUT"
grep -q "WO-Integration" <<< "$(field "$OUT" "[r['Name'] for r in d['records']]")" || fail "the new work order is not listed: $OUT"
grep -qx True <<< "$(field "$OUT" "all(r['Id'].startswith('a01') for r in d['records'])")" || fail "a record not synced: $OUT"
expect_status 0 "$BIN/extension-widget" --bundle "$DUE" --device "$DEV"
contains "$OUT" "Due Today"
contains "$OUT" "WO-Integration"
ok "the Due Today widget lists the work order created today, synced (an a01 id), from its own WidgetConfig.plist"

# The sample is unchanged: its widget still lists contacts.
SAMPLE() { "$BIN/main-app" --bundle "$APP" --device "$DEV" --org "$ORG" "$@"; }
expect_status 0 SAMPLE login --username alice@acme.test --password alice-pass
expect_status 0 SAMPLE sync
contains "$OUT" "sync down: DONE, 1000 record(s) fetched"
expect_status 0 "$BIN/extension-widget" --bundle "$WIDGET" --device "$DEV" --json
[ "$(field "$OUT" "len(d['contacts'])")" = 3 ] || fail "sample widget: $OUT"
ok "the sample app and its widget on the same device: unchanged"

# Bad input: nothing written.
mkdir -p "$WORK/full" && touch "$WORK/full/keep"
expect_status 1 "$BIN/msdk-sim" import --xcodeproj "$PROJECT" --out "$WORK/full"
contains "$ERR" "is not empty"
cp -r "$ROOT/Fixtures/FieldService" "$WORK/broken"
sed -i 's/isa = PBXNativeTarget;/isa = PBXNativeTarget/' "$WORK/broken/FieldService.xcodeproj/project.pbxproj"
expect_status 1 "$BIN/msdk-sim" import --xcodeproj "$WORK/broken/FieldService.xcodeproj" --out "$WORK/never"
contains "$ERR" "project.pbxproj:"
[ ! -e "$WORK/never" ] || fail "a failed import wrote $WORK/never"
grep -q "import-" <<< "$(ls -a "$WORK")" && fail "a failed import left a staging folder"
ok "a non-empty --out and a corrupt project.pbxproj: one error naming the file and line, nothing written"
