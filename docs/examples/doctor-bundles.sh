#!/usr/bin/env bash
# Fixture: two of the broken sample bundles under Fixtures/broken (README there lists them all).
source "$(dirname "$0")/../../scripts/lib/examples.sh"
show 'msdk-sim doctor --app Fixtures/broken/extension-sets-app-group-flag/MobileSyncExplorer.app'
show 'msdk-sim doctor --app Fixtures/broken/keychain-group-differs/MobileSyncExplorer.app'
