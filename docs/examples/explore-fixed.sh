#!/usr/bin/env bash
# Fixture: the sample as it ships (Fixtures/MobileSyncExplorer: keychain items afterFirstUnlockThisDeviceOnly) and Fixtures/org.
source "$(dirname "$0")/../../scripts/lib/examples.sh"
show 'msdk-sim explore --sdk-recovery --runs 10 --seed 1'
