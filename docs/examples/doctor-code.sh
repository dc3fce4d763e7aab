#!/usr/bin/env bash
# Fixture: a copy of Fixtures/Recents in which the widget names group.com.acme.recent and sets the flag, and
# the app initialises the SDK before it names the group.
source "$(dirname "$0")/../../scripts/lib/examples.sh"
quiet 'cp -r Fixtures/Recents $WORK/Recents'
quiet 'python3 - $WORK/Recents <<PY
import sys
root = sys.argv[1]
p = root + "/RecentsWidget/Provider.swift"; s = open(p).read()
s = s.replace("appGroupName = \"group.com.acme.recents\"", "appGroupName = \"group.com.acme.recent\"\n        DataSharingHelper.shared.isAppGroupEnabled = true")
open(p, "w").write(s)
p = root + "/Recents/AppSetup.swift"; s = open(p).read()
s = s.replace("        MobileSyncSDKManager.initializeSDK()\n", "").replace("    static func start() {\n", "    static func start() {\n        MobileSyncSDKManager.initializeSDK()\n")
open(p, "w").write(s)
PY'
show 'msdk-sim doctor --xcodeproj $WORK/Recents/Recents.xcodeproj'
