#!/usr/bin/env bash
# A developer's own Swift package (Tests/ConsumerPackage) depends on AppGroupSim by path and uses only the
# SDK-named products (SalesforceSDKCommon, SalesforceSDKCore, SmartStore, MobileSync, Combine) and, in its
# tests, AppGroupSimTesting: it builds, its executable runs as the fixture app on a device, and its XCTests
# (the SDK's own SmartStore tests rewritten, and an app-then-widget test) pass against the real keyring.
# scripts/test: scratch (it builds consumer packages in the shared scratch path, AppGroupSim's own .build)
APPGROUPSIM_NEEDS_KEYRING=1 source "$(dirname "$0")/../lib/integration.sh"
SCRATCH="$ROOT/.build"
# Without manifest caching: a file added to one of AppGroupSim's targets since the last run must be
# seen (the cached build manifest of a path dependency keeps the old file list).
# A module named Combine left by an older build would hide the check below; the build makes it again if it still should.
rm -f "$SCRATCH"/*/debug/Modules/Combine.* "$SCRATCH"/debug/Modules/Combine.* 2>/dev/null
swift build --package-path "$ROOT/Tests/ConsumerPackage" --scratch-path "$SCRATCH" --disable-build-manifest-caching --build-tests > "$WORK/build.log" 2>&1 \
  || fail "the consumer package did not build: $(grep -m5 'error:' "$WORK/build.log")"
OUT=$(APPGROUPSIM_BUNDLE="$APP" APPGROUPSIM_DEVICE="$WORK/consumer-device" "$SCRATCH/debug/consumer") || fail "the consumer failed: $OUT"
contains "$OUT" "SmartStore: 2 entries, newest WO-2"
contains "$OUT" "SmartStore: the store is \$DEVICE/Containers/Data/com.salesforce.mobilesdk.MobileSyncExplorer/Documents/com.salesforce.mobilesdk.MobileSyncExplorer/stores/consumer/store.sqlite"
[ "$(sqlite3 "$WORK/consumer-device/Containers/Data/com.salesforce.mobilesdk.MobileSyncExplorer/Documents/com.salesforce.mobilesdk.MobileSyncExplorer/stores/consumer/store.sqlite" "SELECT count(*) FROM soup_attrs WHERE soupName='workorders'")" = 1 ] \
  || fail "sqlite3 does not find the soup the SDK's API registered"
contains "$OUT" "MobileSync: a SOQL target keeps select Id,LastModifiedDate,Name from WorkOrder order by LastModifiedDate"
contains "$OUT" "SalesforceSDKCore: current user none, app MobileSyncExplorer"
contains "$OUT" "Combine: @Published went [WO-1,WO-2] -> [WO-0,WO-1,WO-2]"
ok "a package depending on AppGroupSim by path builds with the SDK-named products only and runs the SDK's API as the app: a global store on the device (sqlite3 reads it), query specs, a SOQL target, Combine publishing rows"
# Its tests: the SDK's SmartStoreTests rewritten (run as the app on a device of their own, from the two
# variables), and the app-then-widget flow on AppGroupSimTesting's simulated device.
# In a temporary directory of their own, to see what they leave there.
mkdir -p "$WORK/tests-tmp"
TMPDIR="$WORK/tests-tmp" APPGROUPSIM_BUNDLE="$APP" APPGROUPSIM_DEVICE="$WORK/tests-device" swift test --package-path "$ROOT/Tests/ConsumerPackage" --disable-build-manifest-caching --scratch-path "$SCRATCH" --skip-build > "$WORK/test.log" 2>&1 \
  || fail "the consumer package's tests failed: $(grep -m5 'error' "$WORK/test.log")"
grep -q "Executed 78 tests, with 0 failures" "$WORK/test.log" || fail "not the 78 tests expected: $(grep Executed "$WORK/test.log" | tail -1)"
# A SimulatedDevice kept in a test class's static is never deinitialized (the process ends first): its folder
# goes when the process exits (AppGroupSimTesting's TemporaryDevices). Each run used to leave one.
left=$(find "$WORK/tests-tmp" -maxdepth 1 -name 'appgroupsim-device-*' | wc -l)
[ "$left" = 0 ] || fail "the consumer package's tests left $left temporary device folder(s): $(ls "$WORK/tests-tmp" | tr "\n" " ")"
ok "its XCTests pass, and leave no temporary device folder: the SDK's SmartStoreTests, KeychainHelperTests (on the real keyring), EncryptionTests, BootconfigTests, EncryptStreamTests, DecryptStreamTests, RestClientPublisherTests, URLRequest+RestRequestTests, NotificationCategoryFactoryTests, BriefcaseSyncDownTests, ScopeParserTests and RestClientTest (its session made by TestSetupUtils from SimulatedOrg.testCredentials, on the real keyring) rewritten, the API's errors, REST, directories, revoke and logout as the app, and the app syncing then the widget listing the newest 3 through the group"
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
