#!/usr/bin/env bash
# Fixture: Fixtures/MobileSyncExplorer after alice's login and the widget's first launch (it named the group), org Fixtures/org.
source "$(dirname "$0")/../../scripts/lib/examples.sh"
start_org
APP=Fixtures/MobileSyncExplorer/MobileSyncExplorer.app
WIDGET=$APP/PlugIns/RecentContacts.appex
quiet 'main-app --bundle $APP --org $ORG login --username alice@acme.test --password alice-pass'
quiet 'extension-widget --bundle $WIDGET'
TOKEN=example-refresh-token-0123456789
show 'msdk-sim defaults read --bundle $WIDGET userLoggedIn'
show 'printf %s "$TOKEN" | msdk-sim keychain write --bundle $APP --service com.example.token'
show 'printf %s "$TOKEN" | msdk-sim keychain read --bundle $WIDGET --service com.example.token --expect-stdin'
show 'msdk-sim keychain list --bundle $WIDGET | grep com.example'
