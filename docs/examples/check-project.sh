#!/usr/bin/env bash
# Fixture: a copy of Fixtures/Recents whose widget names the app group with a typo (group.com.acme.recent).
source "$(dirname "$0")/../../scripts/lib/examples.sh"
quiet 'cp -r Fixtures/Recents $WORK/Recents'
quiet 'sed -i "s/appGroupName = \"group.com.acme.recents\"/appGroupName = \"group.com.acme.recent\"/" $WORK/Recents/RecentsWidget/Provider.swift'
show 'msdk-sim doctor --xcodeproj $WORK/Recents/Recents.xcodeproj'
