#!/usr/bin/env bash
# Fixture: Fixtures/FieldService (an Xcode project whose sources are not in the repository), org Fixtures/org.
source "$(dirname "$0")/../../scripts/lib/examples.sh"
show 'msdk-sim import --xcodeproj Fixtures/FieldService/FieldService.xcodeproj --out $WORK/byo'
start_org --connected-app '3MVG9Acme.FieldService=fieldservice://oauth/done'
APP="$WORK/byo/Field Service.app"
TODAY=$(date -u +%Y-%m-%d)
show 'main-app --bundle "$APP" --org $ORG login --username bob@acme.test --password bob-pass'
show 'main-app --bundle "$APP" sync 2>&1 | grep DONE,'
show 'main-app --bundle "$APP" records add --soup workorders --set Name=WO-Today --set Status__c=Scheduled --set ScheduledStart__c=${TODAY}T10:00:00.000+0000 --set Account__c=0015g000000001wAAA'
show 'main-app --bundle "$APP" sync --name syncUpWorkOrders | grep DONE,'
show 'extension-widget --bundle "$APP/PlugIns/DueToday.appex" | grep -E "Due Today|bob@|WO-Today"'
