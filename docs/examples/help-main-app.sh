#!/usr/bin/env bash
# Every command of main-app, as its --help prints it.
source "$(dirname "$0")/../../scripts/lib/examples.sh"
APP=Fixtures/MobileSyncExplorer/MobileSyncExplorer.app
HELP_PREFIX='--bundle $APP' help_tree main-app
