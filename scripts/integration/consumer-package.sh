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
# Code against the SDK's SalesforceSDKCommon, run as the widget of an app that main-app launched and logged
# in (userLoggedIn written): the process is the bundle APPGROUPSIM_BUNDLE names, on APPGROUPSIM_DEVICE.
DEV="$WORK/device"
"$BIN/main-app" --bundle "$APP" --device "$DEV" status > /dev/null
"$BIN/msdk-sim" defaults write --bundle "$APP" --device "$DEV" userLoggedIn true --type bool > /dev/null
SETUP=$(APPGROUPSIM_BUNDLE="$WIDGET" APPGROUPSIM_DEVICE="$DEV" "$SCRATCH/debug/consumer" extension-setup "$GROUP") || fail "extension-setup failed: $SETUP"
contains "$SETUP" "before: appGroupName=nil enabled=false userLoggedIn=false container=true"
contains "$SETUP" "after: appGroupName=$GROUP enabled=true userLoggedIn=true container=true"
expect_status 78 env -u APPGROUPSIM_BUNDLE -u APPGROUPSIM_DEVICE "$SCRATCH/debug/consumer" extension-setup "$GROUP"
[ "$(printf '%s\n' "$ERR" | grep -c .)" = 1 ] || fail "not one line: $ERR"
contains "$ERR" "set APPGROUPSIM_BUNDLE to the .app or .appex it runs as, and APPGROUPSIM_DEVICE to the device directory"
ok "SalesforceSDKCommon (DataSharingHelper.shared, UserDefaults.msdk(), containerURL) as the widget on main-app's device: userLoggedIn only once the group is set; without the two variables, one line naming both (exit 78)"
# The rule behind the alias: no module named Combine in the build, so GRDB's (and any package's)
# `#if canImport(Combine)` stays false whatever the build order (CI once built GRDB after it, and failed).
[ ! -e "$SCRATCH/debug/Modules/Combine.swiftmodule" ] || fail "a module named Combine is in the build's module directory"
ok "import Combine compiles unchanged there (OpenCombine under Combine's name, by -module-alias for that target only): ObservableObject, @Published, Future, PassthroughSubject, AnyCancellable"
