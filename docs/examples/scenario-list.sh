#!/usr/bin/env bash
# The scenarios msdk-sim reproduces (each runs on a fresh device of its own).
source "$(dirname "$0")/../../scripts/lib/examples.sh"
show 'msdk-sim scenario list'
show 'msdk-sim scenario keychain-locked-at-launch --sdk-recovery'
