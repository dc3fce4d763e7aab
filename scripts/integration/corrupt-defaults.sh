#!/usr/bin/env bash
# A corrupt msdkUserDefaults file: a clear error naming it, a non-zero status, the file kept aside.
source "$(dirname "$0")/../lib/integration.sh"
DEV="$WORK/device"
SUITE="$DEV/Containers/Shared/AppGroup/$GROUP/Library/Preferences/$GROUP.plist"

"$BIN/main-app" --bundle "$APP" --device "$DEV" status >/dev/null
printf '<?xml version="1.0"?><plist><dict><key>userLoggedIn</key><tr' > "$SUITE"
cp "$SUITE" "$WORK/original"

expect_status 1 "$BIN/main-app" --bundle "$APP" --device "$DEV" status
[ "$(printf '%s\n' "$ERR" | grep -c .)" = 1 ] || fail "expected one line on stderr, got: $ERR"
contains "$ERR" "$SUITE is not a valid property list"
aside=$(ls "$SUITE".corrupt-* 2>/dev/null | head -1)
[ -n "$aside" ] || fail "the corrupt file was not kept aside"
cmp -s "$aside" "$WORK/original" || fail "the kept file differs from the corrupt one"
contains "$ERR" "$aside"
ok "corrupt suite: one-line error naming the file and where it was kept, exit 1"

expect_status 0 "$BIN/main-app" --bundle "$APP" --device "$DEV" status --json
ok "the next launch starts from an empty suite; the bad file is still at $(basename "$aside")"
