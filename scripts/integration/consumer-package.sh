#!/usr/bin/env bash
# A developer's own Swift package (Tests/ConsumerPackage) depends on AppGroupSim by path, builds
# against its exported libraries (SmartStore, MobileSync, RestClient, SalesforceSDK, AppGroup, and the
# app layer: MobileApp, AppExtensions) and
# runs: the products are usable from outside, not only by this package's own targets.
source "$(dirname "$0")/../lib/integration.sh"
SCRATCH="$ROOT/.build/consumer-package"
# Without manifest caching: a file added to one of AppGroupSim's targets since the last run must be
# seen (the cached build manifest of a path dependency keeps the old file list).
swift build --package-path "$ROOT/Tests/ConsumerPackage" --scratch-path "$SCRATCH" --disable-build-manifest-caching > "$WORK/build.log" 2>&1 \
  || fail "the consumer package did not build: $(grep -m5 'error:' "$WORK/build.log")"
OUT=$("$SCRATCH/debug/consumer" "$ROOT") || fail "the consumer failed: $OUT"
contains "$OUT" "SmartStore: 2 entries, newest WO-2"
contains "$OUT" "MobileSync: com.salesforce.mobilesdk.MobileSyncExplorer names syncUpContacts, syncDownContacts"
contains "$OUT" "AppExtensions: the sample widget queries SELECT {contacts:_soup} FROM {contacts}"
contains "$OUT" 'AppExtensions: first by name ["WO-1"]'
contains "$OUT" "MobileApp: a record from the command line has Name, Quantity__c"
contains "$OUT" "Combine: @Published went [WO-1,WO-2] -> [WO-0,WO-1,WO-2]"
ok "a package depending on AppGroupSim by path builds and drives SmartStore, MobileSync, RestClient, the SDK facade and the app layer (MobileApp, AppExtensions) in-process"
ok "import Combine compiles unchanged there (OpenCombine under Combine's name): ObservableObject, @Published, Future, PassthroughSubject, AnyCancellable"
