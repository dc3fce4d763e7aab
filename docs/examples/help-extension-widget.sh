#!/usr/bin/env bash
# Every command of extension-widget, as its --help prints it.
source "$(dirname "$0")/../../scripts/lib/examples.sh"
help_tree extension-widget
