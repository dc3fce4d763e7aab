#!/usr/bin/env bash
# Fixture: Fixtures/Recents imported with --package and its driver (Fixtures/Recents/Driver), org Fixtures/org.
source "$(dirname "$0")/../../scripts/lib/examples.sh"
SCRATCH=.build
quiet 'msdk-sim import --xcodeproj Fixtures/Recents/Recents.xcodeproj --package $WORK/rp --scratch-path $SCRATCH --no-build'
quiet 'RECENTS_PACKAGE=$WORK/rp swift build --package-path Fixtures/Recents/Driver --disable-build-manifest-caching --scratch-path $SCRATCH'
export PATH="$ROOT/$SCRATCH/debug:$PATH"
start_org --connected-app '3MVG9Acme.Recents.Example=recents://oauth/done'
APP=$WORK/rp/Bundles/Recents.app
WIDGET=$APP/PlugIns/RecentsWidget.appex
quiet 'msdk-sim device install --app $APP'
show 'main-app --bundle $APP --org $ORG login --username alice@acme.test --password alice-pass'
show 'APPGROUPSIM_BUNDLE=$APP recents-app sync'
show 'APPGROUPSIM_BUNDLE=$APP recents-app list 3'
show 'for id in 0035g0000000028AAA 0035g00000000G3AAI 0035g000000001MAAQ; do APPGROUPSIM_BUNDLE=$APP recents-app view $id | grep viewed; done'
show 'APPGROUPSIM_BUNDLE=$WIDGET recents-widget'
show 'APPGROUPSIM_MAIN_APP=$(command -v recents-app) msdk-sim device open-url recents://contact/0035g000000001MAAQ'
show 'msdk-sim inspect | sed -n "/^accounts/,/^$/p"'
