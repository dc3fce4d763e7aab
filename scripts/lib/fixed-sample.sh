# make_fixed_sample DIR: the sample (Fixtures/MobileSyncExplorer/MobileSyncExplorer.app) fixed for every scenario,
# at DIR/MobileSyncExplorer.app, for `msdk-sim explore` to find nothing in. The sample as the SDK ships it has one
# mistake the explorer finds: its sync up creates records (scenario f, killed-sync-up-duplicates), so a sync killed
# after the org created them creates them again. The fix is the SDK's: the sync-up target names an External ID
# field (DeviceRecordId__c), filled when a record is made, and the sync up upserts by it.
make_fixed_sample() {
  local root=${ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
  mkdir -p "$1"
  cp -R "$root/Fixtures/MobileSyncExplorer/MobileSyncExplorer.app" "$1/MobileSyncExplorer.app"
  python3 - "$1/MobileSyncExplorer.app/usersyncs.json" <<'PY'
import json, sys
path = sys.argv[1]
config = json.load(open(path))
ups = [s for s in config["syncs"] if s["syncType"] == "syncUp"]
assert ups, "the sample has no sync up"
for s in ups:
    s["target"]["externalIdFieldName"] = "DeviceRecordId__c"
json.dump(config, open(path, "w"), indent=2)
PY
}
