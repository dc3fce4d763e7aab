#!/usr/bin/env bash
# Every command of msdk-sim, as its --help prints it.
source "$(dirname "$0")/../../scripts/lib/examples.sh"
help_tree msdk-sim
