#!/usr/bin/env bash
# Fixture: Fixtures/MobileSyncExplorer after alice's login and sync, org Fixtures/org.
source "$(dirname "$0")/../../scripts/lib/examples.sh"
start_org
APP=Fixtures/MobileSyncExplorer/MobileSyncExplorer.app
quiet 'main-app --bundle $APP --org $ORG login --username alice@acme.test --password alice-pass'
quiet 'main-app --bundle $APP sync'
show 'msdk-sim inspect | sed -n "/^accounts/,/^syncs/p"'
