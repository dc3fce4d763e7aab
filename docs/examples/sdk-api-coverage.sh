#!/usr/bin/env bash
# Fixture: Fixtures/sdk-api (the SDK's entry points at aea9bf3, and those left out with their reasons).
source "$(dirname "$0")/../../scripts/lib/examples.sh"
show 'scripts/sdk-api/coverage'
