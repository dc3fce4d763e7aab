#!/usr/bin/env bash
# Fixture: Fixtures/MobileSyncExplorer (the sample app), org Fixtures/org (carol's org requires a screen-lock passcode).
source "$(dirname "$0")/../../scripts/lib/examples.sh"
start_org
APP=Fixtures/MobileSyncExplorer/MobileSyncExplorer.app
show 'main-app --bundle $APP --org $ORG login --username alice@acme.test --password alice-pass'
show 'main-app --bundle $APP sync'
show 'main-app --bundle $APP contacts add --first Zed --last Newcomer'
show 'main-app --bundle $APP contacts edit 0035g0000000001AAA --title "Head of Demos"'
show 'main-app --bundle $APP --org $ORG login --username carol@globex.test --password carol-pass'
show 'main-app --bundle $APP status'
