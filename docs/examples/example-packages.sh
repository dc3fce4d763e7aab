#!/usr/bin/env bash
# Fixture: Examples/ContactsDataLayer and Examples/RecentContactsExtension run as Fixtures/MobileSyncExplorer's
# app and widget after alice's login, org Fixtures/org.
source "$(dirname "$0")/../../scripts/lib/examples.sh"
SCRATCH=.build
quiet 'swift build --package-path Examples/ContactsDataLayer --disable-build-manifest-caching --scratch-path $SCRATCH'
quiet 'swift build --package-path Examples/RecentContactsExtension --disable-build-manifest-caching --scratch-path $SCRATCH'
export PATH="$ROOT/$SCRATCH/debug:$PATH"
start_org
APP=Fixtures/MobileSyncExplorer/MobileSyncExplorer.app
DEV=$DEVICE
quiet 'main-app --bundle $APP --org $ORG login --username alice@acme.test --password alice-pass'
show 'APPGROUPSIM_BUNDLE=$APP APPGROUPSIM_DEVICE=$DEV ContactsDataLayer | head -4'
show 'APPGROUPSIM_BUNDLE=$APP/PlugIns/RecentContacts.appex APPGROUPSIM_DEVICE=$DEV RecentContactsExtension | cut -d"|" -f1'
