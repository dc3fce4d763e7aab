#!/usr/bin/env bash
# msdk-sim explore (issue 38): from configuration alone it finds the broken fixture's violation (the SDK's items
# whenUnlocked, under --sdk-recovery: a background launch while locked deletes the account), shrinks it, writes a
# schedule that replays it every time, writes a trace Chrome's trace viewer reads, and finds nothing in the fixed
# fixture. Each explore makes its own devices, orgs and private keyring.
APPGROUPSIM_NEEDS_KEYRING=1 source "$(dirname "$0")/../lib/integration.sh"
BROKEN="$ROOT/Fixtures/broken/keychain-class-when-unlocked/MobileSyncExplorer.app"
# A temporary directory of this script's own: every exploration must remove its directory when it ends (checked last).
export TMPDIR="$WORK/tmp"
mkdir -p "$TMPDIR"
sim() { "$BIN/msdk-sim" "$@"; }

expect_status 10 sim explore --app "$BROKEN" --org-data "$ROOT/Fixtures/org" --sdk-recovery --runs 60 --steps 20 --seed 1 \
  --json --out "$WORK/schedule.json" --trace "$WORK/trace.json"
printf %s "$OUT" > "$WORK/found.json"
python3 - "$WORK/found.json" "$WORK/schedule.json" "$WORK/trace.json" <<'PY' || fail "explore's report, schedule or trace: $OUT"
import json, sys
found = json.load(open(sys.argv[1]))
names = [v["invariant"] for v in found["violations"]]
assert "logged-out-without-logout" in names, names
v = found["violations"][names.index("logged-out-without-logout")]
assert 1 <= len(v["steps"]) <= 10, v["steps"]
assert v["replayed"]["broke"] == v["replayed"]["of"] > 0, v["replayed"]
assert any(s["actor"] == "device" and s["action"] == "lock" for s in v["steps"]), v["steps"]
assert found["runsPerSecond"] > 0 and found["distinctSchedules"] >= 1 and found["coverage"]["covered"] > 0
# Explored with the explorer's in-memory keychain (the default); the replays above were on the Secret Service.
assert found["keychain"] == "memory" and found["memoryOnly"] == 0 and found["memoryOnlyRuns"] == [], (found["keychain"], found["memoryOnly"], found["memoryOnlyRuns"])
schedule = json.load(open(sys.argv[2]))
assert schedule["format"] == "appgroupsim-explore-schedule-1" and schedule["sdkRecovery"] is True
assert schedule["invariant"] == names[0] and schedule["steps"] == found["violations"][0]["steps"]
trace = json.load(open(sys.argv[3]))
events = trace["traceEvents"]
tracks = [e["args"]["name"] for e in events if e.get("name") == "thread_name"]
assert tracks == ["app", "widget", "notification", "device", "org", "invariants"], tracks
assert all({"name", "ph", "pid"} <= set(e) for e in events)
assert any(e["ph"] == "X" for e in events) and any(e["ph"] == "i" and e.get("tid") == 6 for e in events), "spans, and the violation on its track"
print("  (violation in run %d of 60, shrunk from %d to %d steps)" % (v["run"], v["stepsBeforeShrinking"], len(v["steps"])))
PY
ok "explore: the broken fixture's logged-out-without-logout is found, shrunk to at most 10 steps, replayed each time; the trace has a track per actor"

first=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["invariant"])' "$WORK/schedule.json")
for i in 1 2 3; do
  expect_status 10 sim explore --app "$BROKEN" --org-data "$ROOT/Fixtures/org" --sdk-recovery --replay "$WORK/schedule.json" --json
  got=$(printf %s "$OUT" | python3 -c 'import json,sys; print(" ".join(sorted({v["invariant"] for v in json.load(sys.stdin)["violations"]})))')
  contains " $got " " $first "
done
expect_status 10 sim explore --app "$BROKEN" --org-data "$ROOT/Fixtures/org" --sdk-recovery --replay "$WORK/schedule.json"
contains "$OUT" "!! $first:"
# Each step of the schedule, in order, as the replay prints it.
printf %s "$OUT" > "$WORK/replayed.txt"
python3 - "$WORK/schedule.json" "$WORK/replayed.txt" <<'PY' || fail "the replay does not print the schedule's steps in order: $OUT"
import json, re, sys
steps = json.load(open(sys.argv[1]))["steps"]
text = open(sys.argv[2]).read()
at = 0
for n, s in enumerate(steps, 1):
    m = re.compile(r"^\s*%d\.\s+%s\s+%s\s" % (n, re.escape(s["actor"]), re.escape(s["action"])), re.M).search(text, at)
    assert m, (n, s)
    at = m.end()
PY
ok "explore --replay: the schedule breaks $first again, 3 times of 3, and prints each step"

expect_status 1 sim explore --app "$BROKEN" --replay "$WORK/schedule.json"
contains "$ERR" "was written with --sdk-recovery"
printf '{"format":"appgroupsim-explore-schedule-1","sdkRecovery":false,"steps":[{"actor":"app","action":"format-disk"}]}' > "$WORK/bad.json"
expect_status 1 sim explore --replay "$WORK/bad.json"
contains "$ERR" "unknown step app format-disk"
ok "explore --replay: a schedule of the other mode, or with an unknown step, is refused before anything runs"

# The sample fixed for every scenario: scenario (f)'s fix (the sync up upserts by an External ID field) on top of
# the sample (afterFirstUnlockThisDeviceOnly, revokeTokensOfPreviousInstall).
source "$ROOT/scripts/lib/fixed-sample.sh"
make_fixed_sample "$WORK/fixed"
expect_status 0 sim explore --app "$WORK/fixed/MobileSyncExplorer.app" --org-data "$ROOT/Fixtures/org" --sdk-recovery --runs 20 --steps 20 --seed 1
contains "$OUT" "no invariant broke"
ok "explore: the fixed fixture (afterFirstUnlockThisDeviceOnly, revokeTokensOfPreviousInstall, an External ID for the sync up) breaks nothing in 20 runs of 20 steps"

# The SDK's default keeps what a previous install left in the keychain: with revokeTokensOfPreviousInstall taken out of
# the sample (what the SDK does), exploring reinstalls the app and finds a session the org still accepts; replayed, it
# breaks again. The sample itself revokes them at its first launch (it is explored above).
cp -R "$WORK/fixed/MobileSyncExplorer.app" "$WORK/SDKDefault.app"
python3 - "$WORK/SDKDefault.app/AppGroupConfig.plist" <<'PY'
import plistlib, sys
d = plistlib.load(open(sys.argv[1], "rb")); assert d.pop("revokeTokensOfPreviousInstall") is True; plistlib.dump(d, open(sys.argv[1], "wb"))
PY
expect_status 10 sim explore --app "$WORK/SDKDefault.app" --org-data "$ROOT/Fixtures/org" --runs 30 --steps 20 --seed 1 --json --out "$WORK/orphaned.json"
printf '%s' "$OUT" | python3 -c '
import json, sys
r = json.load(sys.stdin)
v = {v["invariant"]: v for v in r["violations"]}
assert list(v) == ["orphaned-session"], list(v)
steps = v["orphaned-session"]["steps"]
assert len(steps) <= 10 and {"actor": "device", "action": "reinstall"} in steps, steps
assert v["orphaned-session"]["replayed"]["broke"] == v["orphaned-session"]["replayed"]["of"] > 0' || fail "the SDK's default: not orphaned-session alone: $OUT"
expect_status 10 sim explore --app "$WORK/SDKDefault.app" --org-data "$ROOT/Fixtures/org" --replay "$WORK/orphaned.json"
contains "$OUT" "device       reinstall"
contains "$OUT" "!! orphaned-session:"
contains "$OUT" "of which the org still accepts 1"
ok "explore: the SDK's default (no revokeTokensOfPreviousInstall) leaves a session the org accepts after a reinstall: found, shrunk with the reinstall in it, replayed"

# A misconfigured extension breaks no shared data, but the user sees nobody logged in: at rest, with a user
# logged in, the widget (keychain group missing) and the notification extension (the push key's group not shared)
# must see that user.
for broken in keychain-group-missing push-key-group-not-shared; do
  expect_status 10 sim explore --app "$ROOT/Fixtures/broken/$broken/MobileSyncExplorer.app" --org-data "$ROOT/Fixtures/org" --runs 6 --seed 1 --json
  printf '%s' "$OUT" | python3 -c '
import json, sys
r = json.load(sys.stdin)
names = [v["invariant"] for v in r["violations"]]
# Besides its own mistake, a broken fixture has the sample'"'"'s: edit-duplicated (scenario f), nothing else.
assert "extension-sees-no-user" in names and set(names) <= {"extension-sees-no-user", "edit-duplicated"}, names
v = r["violations"][names.index("extension-sees-no-user")]
assert len(v["steps"]) <= 10, v["steps"]' || fail "$broken: not extension-sees-no-user (and at most the sample's edit-duplicated): $OUT"
done
ok "explore: keychain-group-missing's widget and push-key-group-not-shared's notification extension break extension-sees-no-user"
# --device-template: every run starts on a phone restored from the developer's device, here one where main-app logged
# alice in, synced and added a contact (its keychain items stay in this script's keyring). The template is never
# changed, a schedule written from it replays only with it, and a folder that is not a device is refused by name.
start_org
T="$WORK/template"
"$BIN/main-app" --bundle "$APP" --device "$T" --org "$ORG" login --username alice@acme.test --password alice-pass > /dev/null
"$BIN/main-app" --bundle "$APP" --device "$T" sync > /dev/null
"$BIN/main-app" --bundle "$APP" --device "$T" contacts add --first Zed --last Template > /dev/null
kill "$ORG_PID"; wait "$ORG_PID" 2>/dev/null || true
before=$(find "$T" -type f ! -name '*.lock' -exec sha256sum {} + | sort | sha256sum)
expect_status 0 sim explore --app "$APP" --device-template "$T" --org-data "$ROOT/Fixtures/org" --runs 6 --steps 12 --seed 2 --json
printf '%s' "$OUT" | python3 -c '
import json, sys
r = json.load(sys.stdin)
assert r["violations"] == [] and r["deviceTemplate"] and len(r["deviceTemplateFingerprint"]) == 64, r' || fail "explore from the template: $OUT"
fingerprint=$(printf '%s' "$OUT" | python3 -c 'import json,sys; print(json.load(sys.stdin)["deviceTemplateFingerprint"])')
printf '{"format":"appgroupsim-explore-schedule-1","sdkRecovery":false,"deviceTemplate":"%s","deviceTemplateFingerprint":"%s","steps":[{"actor":"app","action":"view"},{"actor":"app","action":"finish"}]}' "$T" "$fingerprint" > "$WORK/template.json"
expect_status 0 sim explore --app "$APP" --device-template "$T" --replay "$WORK/template.json"
contains "$OUT" "the account file of alice@acme.test was set aside, kept"
[ "$(find "$T" -type f ! -name '*.lock' -exec sha256sum {} + | sort | sha256sum)" = "$before" ] || fail "exploring changed the template"
expect_status 1 sim explore --replay "$WORK/template.json"
contains "$ERR" "was written with --device-template $T; run --replay with it"
mkdir -p "$WORK/not-a-device"
expect_status 1 sim explore --device-template "$WORK/not-a-device" --runs 1
contains "$ERR" "is not a device (it has no device.json)"
[ ! -e "$WORK/not-a-device/device.json" ] || fail "explore made a device of the folder it was given"
ok "explore --device-template: 6 runs on phones restored from main-app's device (alice's account there without its key: set aside, kept), the template unchanged, its schedule refused without it, a folder that is not a device refused by name"

# Interrupted (a CI job's timeout sends SIGTERM; Ctrl-C, SIGINT, takes the same trap): every process the exploration
# started ends (the orgs, the app, the extensions, the private keyring's daemons), its files go, and it says so.
# Before the fix the session's bash inherited a signal mask blocking SIGTERM and SIGINT, and the exploration went on.
"$BIN/msdk-sim" explore --app "$APP" --org-data "$ROOT/Fixtures/org" --runs 500 --jobs 2 > "$WORK/interrupted.out" 2> "$WORK/interrupted.err" &
explorer=$!
# What the wait saw decides: asking pgrep again raced with the run's process ending (CI: "no run of the exploration
# started" right after the loop had seen one; the actors' launches are short now).
started=0
for _ in $(seq 1 1200); do pgrep -f "$TMPDIR/.*/run-" > /dev/null && { started=1; break; }; sleep 0.1; done
[ "$started" = 1 ] || fail "no run of the exploration started within 120 s: $(cat "$WORK/interrupted.err")"
kill -TERM "$explorer"
set +e; wait "$explorer"; status=$?; set -e
[ "$status" = 143 ] || fail "an exploration stopped by SIGTERM exited $status, not 143: $(tail -3 "$WORK/interrupted.err")"
contains "$(cat "$WORK/interrupted.err")" "msdk-sim: interrupted (SIGTERM); every process it started has ended and its temporary files are removed"
sleep 0.5
left=$(pgrep -af "$TMPDIR/" | grep -v pgrep || true)
[ -z "$left" ] || fail "processes of the interrupted exploration are still running: $left"
ok "explore stopped by SIGTERM mid-run: exit 143, one line saying so, no process of it left running (its files: checked below)"

# Without TMPDIR, an exploration keeps its session in memory (/dev/shm) when that has 1 GiB free and keeps
# extended attributes (the files' protection classes), and on disk otherwise: checked against Python's own look at
# /dev/shm. Stopped by SIGTERM there, its folder goes too.
expected=$(python3 - <<'PY'
import os, tempfile
try:
    st = os.statvfs("/dev/shm")
    fd, probe = tempfile.mkstemp(dir="/dev/shm", prefix=".appgroupsim-check-")
    os.close(fd)
    try:
        os.setxattr(probe, "user.msdk.protection", b"complete")
        ok = st.f_bavail * st.f_frsize >= 1 << 30
    finally:
        os.unlink(probe)
except OSError:
    ok = False
print("memory" if ok else "disk")
PY
)
env -u TMPDIR "$BIN/msdk-sim" explore --app "$APP" --org-data "$ROOT/Fixtures/org" --runs 500 --jobs 2 > "$WORK/shm.out" 2> "$WORK/shm.err" &
explorer=$!
session=""
for _ in $(seq 1 300); do
  # Read while the explorer may be between execs (its re-exec into its keyring session): a failed read is a
  # retry, not the end of this script (seen in CI: "/proc/PID/environ: No such process" under pipefail).
  session=$( { tr '\0' '\n' < "/proc/$explorer/environ"; } 2>/dev/null | sed -n 's/^APPGROUPSIM_SCENARIO_TMP=//p' || true)
  [ -n "$session" ] && compgen -G "$session/tmp/appgroupsim-explore-*/run-*" > /dev/null && break
  sleep 0.1
done
compgen -G "$session/tmp/appgroupsim-explore-*/run-*" > /dev/null || fail "no run of the exploration without TMPDIR started: $(cat "$WORK/shm.err")"
case "$session" in /dev/shm/*) where=memory ;; *) where=disk ;; esac
[ "$where" = "$expected" ] || fail "an exploration without TMPDIR kept its session in $session ($where); /dev/shm here says $expected"
kill -TERM "$explorer"
set +e; wait "$explorer"; status=$?; set -e
[ "$status" = 143 ] || fail "an exploration without TMPDIR stopped by SIGTERM exited $status, not 143: $(tail -3 "$WORK/shm.err")"
[ ! -e "$session" ] || fail "an exploration stopped by SIGTERM left its session folder $session"
ok "explore without TMPDIR: its session in $where ($(dirname "$session")), as /dev/shm here allows; stopped by SIGTERM, its folder is gone"

# An exploration's directory (its orgs' template and copies) goes when it ends, whichever way it ended (0 or 10 above).
left=$(find "$TMPDIR" -maxdepth 1 \( -name 'appgroupsim-explore-*' -o -name 'appgroupsim-scenario-keyring-*' \) | wc -l)
[ "$left" = 0 ] || fail "explore left $left director(ies) behind: $(ls "$TMPDIR")"
ok "explore: every exploration above removed its directories when it ended, the interrupted one too"
