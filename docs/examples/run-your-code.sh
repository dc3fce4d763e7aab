#!/usr/bin/env bash
# Fixture: Fixtures/Recents (the current Swift template's sharing pattern) and its driver, org Fixtures/org.
source "$(dirname "$0")/../../scripts/lib/examples.sh"
SCRATCH=.build
show 'msdk-sim import --xcodeproj Fixtures/Recents/Recents.xcodeproj --package $WORK/pkg --scratch-path $SCRATCH | grep -E "^  target|left out|^swift build"'
quiet 'RECENTS_PACKAGE=$WORK/pkg swift build --package-path Fixtures/Recents/Driver --disable-build-manifest-caching --scratch-path $SCRATCH'
export PATH="$ROOT/$SCRATCH/debug:$PATH"
start_org --connected-app '3MVG9Acme.Recents.Example=recents://oauth/done'
APP=$WORK/pkg/Bundles/Recents.app
quiet 'main-app --bundle $APP --org $ORG login --username alice@acme.test --password alice-pass'
quiet 'APPGROUPSIM_BUNDLE=$APP recents-app sync'
show 'APPGROUPSIM_BUNDLE=$APP recents-app view 0035g000000001MAAQ'
show 'APPGROUPSIM_BUNDLE=$APP/PlugIns/RecentsWidget.appex recents-widget'
