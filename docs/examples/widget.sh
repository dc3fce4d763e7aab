#!/usr/bin/env bash
# Fixture: Fixtures/MobileSyncExplorer after alice's login, sync and one edit (Victor Jensen), org Fixtures/org.
source "$(dirname "$0")/../../scripts/lib/examples.sh"
start_org
APP=Fixtures/MobileSyncExplorer/MobileSyncExplorer.app
WIDGET=$APP/PlugIns/RecentContacts.appex
quiet 'main-app --bundle $APP --org $ORG login --username alice@acme.test --password alice-pass'
quiet 'main-app --bundle $APP sync'
quiet 'main-app --bundle $APP contacts edit 0035g0000000001AAA --title "Head of Demos"'
show 'extension-widget --bundle $WIDGET'
show 'extension-widget --bundle $WIDGET --json'
