#!/usr/bin/env bash
# Fixture: Fixtures/Recents (the current Swift template's sharing pattern).
source "$(dirname "$0")/../../scripts/lib/examples.sh"
show 'msdk-sim import --xcodeproj Fixtures/Recents/Recents.xcodeproj --package $WORK/rp --scratch-path .build'
