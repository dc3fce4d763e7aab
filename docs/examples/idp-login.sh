#!/usr/bin/env bash
# Fixture: Fixtures/IDP (Company Login, the identity provider app, and Field Sales, its client), org Fixtures/org.
source "$(dirname "$0")/../../scripts/lib/examples.sh"
start_org
show 'msdk-sim device install --app Fixtures/IDP/CompanyLogin.app'
show 'msdk-sim device install --app Fixtures/IDP/FieldSales.app'
show 'main-app --bundle Fixtures/IDP/CompanyLogin.app --org $ORG login --username alice@acme.test --password alice-pass'
show 'printf "login-idp right\nwait-url\nscenes\nquit\n" | main-app --bundle Fixtures/IDP/FieldSales.app --org $ORG --trace $WORK/sp.trace shell --scene left --scene right'
