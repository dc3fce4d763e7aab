#!/usr/bin/env bash
# Fixture: Fixtures/MobileSyncExplorer, org Fixtures/org: one shell, two scenes, two users.
source "$(dirname "$0")/../../scripts/lib/examples.sh"
start_org
APP=Fixtures/MobileSyncExplorer/MobileSyncExplorer.app
show 'printf "login-if-required\nalice@acme.test\nalice-pass\nlogin bob@acme.test bob-pass\nlogout\n" | main-app --bundle $APP --org $ORG shell --scene left --scene right'
