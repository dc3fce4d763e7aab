#!/usr/bin/env bash
# Every command of sf-simulator, as its --help prints it.
source "$(dirname "$0")/../../scripts/lib/examples.sh"
help_tree sf-simulator
