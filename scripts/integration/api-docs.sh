#!/usr/bin/env bash
# API documentation of the SDK-named library products (issue 29), with DocC (swift-docc-plugin): it builds
# with warnings as errors, and every public top-level type has a summary. About 40 s here, so it is part of
# scripts/test rather than a step of its own.
# scripts/test: scratch (SwiftPM builds the symbol graphs in .build with every trait on: scripts/test runs it before
# the consumer packages, which build the same modules there without the trait)
source "$(dirname "$0")/../lib/integration.sh"
cd "$ROOT"
START=$(date +%s)
swift package --disable-sandbox generate-documentation --warnings-as-errors \
  --target SalesforceSDKCommon --target SalesforceSDKCore --target SmartStore --target MobileSync \
  --output-path "$WORK/docs" > "$WORK/docc.log" 2>&1 || fail "DocC failed: $(grep -v pthread "$WORK/docc.log" | grep -m10 -E 'warning|error')"
SECONDS_TAKEN=$(( $(date +%s) - START ))
for module in SalesforceSDKCommon SalesforceSDKCore SmartStore MobileSync; do
  [ -d "$WORK/docs/$module.doccarchive" ] || fail "no archive for $module"
done
python3 - "$WORK/docs" <<'PY' || fail "public types without a summary (above)"
import glob, json, os, sys
missing = []
for archive in sorted(glob.glob(sys.argv[1] + "/*.doccarchive")):
    for f in glob.glob(archive + "/data/documentation/**/*.json", recursive=True):
        page = json.load(open(f))
        meta = page.get("metadata", {})
        if meta.get("symbolKind") not in ("class", "struct", "enum", "protocol", "typealias"):
            continue
        parts = page.get("identifier", {}).get("url", "").split("/documentation/")[-1].split("/")
        if len(parts) == 2 and not page.get("abstract"):
            missing.append(f"{os.path.basename(archive)}: {meta.get('title')}")
for m in missing:
    print("  no summary:", m)
sys.exit(1 if missing else 0)
PY
grep -q '"title":"Running code as a bundle on a simulated device"' "$WORK/docs/SalesforceSDKCommon.doccarchive/data/documentation/salesforcesdkcommon/runningasabundle.json" \
  || fail "the article on running code as a bundle is not in the archive"
ok "DocC: 4 archives, no warning, every public type summarised, the article on running as a bundle (${SECONDS_TAKEN} s)"
