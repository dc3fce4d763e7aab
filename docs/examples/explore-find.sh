#!/usr/bin/env bash
# Fixture: Fixtures/broken/keychain-class-when-unlocked (the SDK's keychain items whenUnlocked) and Fixtures/org;
# explore makes its own devices, orgs and private keyring.
source "$(dirname "$0")/../../scripts/lib/examples.sh"
show 'msdk-sim explore --app Fixtures/broken/keychain-class-when-unlocked/MobileSyncExplorer.app --sdk-recovery --runs 40 --seed 1 --out $WORK/schedule.json'
show 'msdk-sim explore --app Fixtures/broken/keychain-class-when-unlocked/MobileSyncExplorer.app --sdk-recovery --replay $WORK/schedule.json'
