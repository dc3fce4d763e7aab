#!/usr/bin/env bash
# Fixture: Fixtures/IDP after alice's and bob's logins in Company Login, org Fixtures/org.
source "$(dirname "$0")/../../scripts/lib/examples.sh"
start_org
quiet 'msdk-sim device install --app Fixtures/IDP/CompanyLogin.app'
quiet 'msdk-sim device install --app Fixtures/IDP/FieldSales.app'
quiet 'main-app --bundle Fixtures/IDP/CompanyLogin.app --org $ORG login --username alice@acme.test --password alice-pass'
quiet 'main-app --bundle Fixtures/IDP/CompanyLogin.app --org $ORG login --username bob@acme.test --password bob-pass'
show 'echo cancel | main-app --bundle Fixtures/IDP/FieldSales.app --org $ORG login --idp'
show 'main-app --bundle Fixtures/IDP/CompanyLogin.app --org $ORG idp-launch --app com.acme.fieldsales --user bob@acme.test'
