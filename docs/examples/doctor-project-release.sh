#!/usr/bin/env bash
# Fixture: a copy of Fixtures/FieldService whose Release configuration entitles the widget to another group
# (the DueToday target's Release settings, line 318 of its project.pbxproj, name DueToday-Release.entitlements).
source "$(dirname "$0")/../../scripts/lib/examples.sh"
quiet 'cp -r Fixtures/FieldService $WORK/FieldService'
quiet 'sed "s/group.com.acme.fieldservice</group.com.acme.fieldservice.release</" $WORK/FieldService/DueToday/DueToday.entitlements > $WORK/FieldService/DueToday/DueToday-Release.entitlements'
quiet 'sed -i "318s|DueToday/DueToday.entitlements|DueToday/DueToday-Release.entitlements|" $WORK/FieldService/FieldService.xcodeproj/project.pbxproj'
show 'msdk-sim doctor --xcodeproj $WORK/FieldService/FieldService.xcodeproj --configuration Release'
