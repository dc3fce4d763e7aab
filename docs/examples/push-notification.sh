#!/usr/bin/env bash
# Fixture: Fixtures/MobileSyncExplorer (its app registers for push at login) and its notification service
# extension, org Fixtures/org (its push gateway).
source "$(dirname "$0")/../../scripts/lib/examples.sh"
start_org
APP=Fixtures/MobileSyncExplorer/MobileSyncExplorer.app
NSE=$APP/PlugIns/NotificationService.appex
quiet 'main-app --bundle $APP --org $ORG login --username alice@acme.test --password alice-pass'
show 'curl -s -X POST $ORG/__admin/push -H "X-AppGroupSim-Admin-Token: $APPGROUPSIM_ADMIN_TOKEN" -o /dev/null -w "%{http_code}\n" -d '"'"'{"username": "alice@acme.test", "title": "Case 00001026 escalated", "body": "Acme needs a call back before noon", "fields": {"caseId": "500000000000042"}}'"'"''
show 'extension-notification --bundle $NSE'
