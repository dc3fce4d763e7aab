#!/usr/bin/env bash
# Fixture: the scenario's own devices, org and keyring (Fixtures/MobileSyncExplorer, Fixtures/org).
source "$(dirname "$0")/../../scripts/lib/examples.sh"
show 'msdk-sim scenario reinstall-finds-old-tokens'
