#!/usr/bin/env bash
# Fixture: Fixtures/MobileSyncExplorer (the sample app and its widget), org Fixtures/org.
source "$(dirname "$0")/../../scripts/lib/examples.sh"
start_org
APP=Fixtures/MobileSyncExplorer/MobileSyncExplorer.app
WIDGET=$APP/PlugIns/RecentContacts.appex
show 'main-app --bundle $APP --org $ORG login --username alice@acme.test --password alice-pass'
show 'main-app --bundle $APP sync'
show 'extension-widget --bundle $WIDGET'
