#!/usr/bin/env bash
# Fixture: Tests/ConsumerPackage's executable run as Fixtures/MobileSyncExplorer's app on a new device.
source "$(dirname "$0")/../../scripts/lib/examples.sh"
SCRATCH=.build
quiet 'swift build --package-path Tests/ConsumerPackage --disable-build-manifest-caching --scratch-path $SCRATCH --product consumer'
export PATH="$ROOT/$SCRATCH/debug:$PATH"
APP=Fixtures/MobileSyncExplorer/MobileSyncExplorer.app
DEV=$DEVICE
show 'APPGROUPSIM_BUNDLE=$APP APPGROUPSIM_DEVICE=$DEV consumer'
