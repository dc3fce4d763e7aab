#!/usr/bin/env bash
# Fixture: the sample fixed for every scenario (scripts/lib/fixed-sample.sh: Fixtures/MobileSyncExplorer, keychain items afterFirstUnlockThisDeviceOnly, with an External ID for its sync up) and Fixtures/org.
source "$(dirname "$0")/../../scripts/lib/examples.sh"
source "$ROOT/scripts/lib/fixed-sample.sh"
quiet 'make_fixed_sample $WORK/fixed'
show 'msdk-sim explore --app $WORK/fixed/MobileSyncExplorer.app --org-data Fixtures/org --sdk-recovery --runs 10 --seed 1'
