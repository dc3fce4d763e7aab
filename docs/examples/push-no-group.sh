#!/usr/bin/env bash
# Fixture: Fixtures/broken/push-key-group-not-shared (the extension lacks the app's keychain group), org Fixtures/org.
source "$(dirname "$0")/../../scripts/lib/examples.sh"
start_org
APP=Fixtures/broken/push-key-group-not-shared/MobileSyncExplorer.app
NSE=$APP/PlugIns/NotificationService.appex
quiet 'main-app --bundle $APP --org $ORG login --username alice@acme.test --password alice-pass'
quiet 'curl -s -f -X POST $ORG/__admin/push -H "X-AppGroupSim-Admin-Token: $APPGROUPSIM_ADMIN_TOKEN" -d "{\"username\": \"alice@acme.test\", \"title\": \"Case 00001026 escalated\", \"body\": \"Acme needs a call back before noon\"}"'
show 'extension-notification --bundle $NSE --json'
show 'msdk-sim inspect | sed -n "/^push notifications/,/^$/p"'
show 'msdk-sim doctor --app $APP'
