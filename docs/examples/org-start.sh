#!/usr/bin/env bash
# Fixture: org Fixtures/org, state in a new SQLite file (seeded at the first start); stopped after 5 s.
source "$(dirname "$0")/../../scripts/lib/examples.sh"
show 'timeout 5 sf-simulator --port 0 --data Fixtures/org --state $WORK/org.sqlite'
