#!/usr/bin/env bash
# scripts/test's test runner (scripts/lib/run-tests.py: the bundle swift test runs, one class at a time on each core)
# must say what failed: a fake bundle, a shell script answering --list-tests as XCTest does, has a class that passes, a
# class that fails, a class that crashes, a class that hangs, a class that executes fewer tests than it lists, and swift-testing tests.
source "$(dirname "$0")/../lib/integration.sh"
FAKE="$WORK/Fake.xctest"
cat >"$FAKE" <<'FAKE'
#!/usr/bin/env bash
# $FAKE_MODE: pass (every class passes), no-swift-testing, fail, crash, hang, worker-dies or short. With $FAKE_AUTOGROUP,
# class M.A writes its session's scheduling group (its nice) there.
case "$1" in
  --list-tests) printf 'Listing 5 tests in Fake.xctest:\n\nM.A/test1\nM.A/test2\nM.B/test1\nM.C/test1\nM.C/test2\n' ;;
  --testing-library) if [ "$FAKE_MODE" = no-swift-testing ]; then echo "Test run with 0 tests in 0 suites passed after 0.001 seconds."; exit 69; fi
                     echo "Test run with 3 tests in 1 suite passed after 0.001 seconds." ;;
  M.A) if [ -n "${FAKE_AUTOGROUP:-}" ]; then cat /proc/self/autogroup > "$FAKE_AUTOGROUP"; fi
       echo "	 Executed 2 tests, with 0 failures (0 unexpected) in 0.01 (0.01) seconds" ;;
  M.B) case "$FAKE_MODE" in
         fail) echo "M.B/test1: error: XCTAssertEqual failed"; echo "	 Executed 1 test, with 1 failure (0 unexpected) in 0.01 (0.01) seconds"; exit 1 ;;
         crash) echo "M.B/test1 started"; kill -SEGV $$ ;;
         hang) echo "M.B/test1 started"; sleep 120 ;;
         worker-dies) echo "M.B/test1 started, then its worker was killed"; kill -9 "$PPID"; sleep 1 ;;
         *) echo "	 Executed 1 test, with 0 failures (0 unexpected) in 0.01 (0.01) seconds" ;;
       esac ;;
  M.C) if [ "$FAKE_MODE" = short ]; then n=1; else n=2; fi
       echo "	 Executed $n tests, with 0 failures (0 unexpected) in 0.01 (0.01) seconds" ;;
  M.?/test?) echo "	 Executed 1 test, with 0 failures (0 unexpected) in 0.01 (0.01) seconds" ;;
  *) echo "unexpected arguments: $*" >&2; exit 2 ;;
esac
FAKE
chmod +x "$FAKE"
RUN="$ROOT/scripts/lib/run-tests.py"

FAKE_MODE=pass expect_status 0 python3 "$RUN" --jobs 2 "$FAKE"
contains "$OUT" "tests: 5 XCTest tests in 3 classes with 0 failure(s), 3 swift-testing tests, on 2 workers"
[ -s "$WORK/appgroupsim-test-times.json" ] || fail "no class times kept beside the bundle after a passing run"
ok "every class and the swift-testing tests ran, on 2 workers: $(printf '%s\n' "$OUT" | tail -1)"

FAKE_MODE=pass expect_status 0 python3 "$RUN" --jobs 2 --each-test "$FAKE"
contains "$OUT" "tests: 5 XCTest tests in 5 runs, one test each with 0 failure(s), 3 swift-testing tests, on 2 workers"
ok "--each-test: each test one run: $(printf '%s\n' "$OUT" | tail -1)"

FAKE_MODE=no-swift-testing expect_status 0 python3 "$RUN" --jobs 2 "$FAKE"
contains "$OUT" "tests: 5 XCTest tests in 3 classes with 0 failure(s), 0 swift-testing tests"
ok "a bundle without swift-testing tests (swift-testing exits 69, as swift test allows) passes"

FAKE_MODE=fail expect_status 1 python3 "$RUN" --jobs 2 "$FAKE"
contains "$OUT" "M.B/test1: error: XCTAssertEqual failed"
contains "$OUT" "FAILED M.B: exit 1"
ok "a failing class is printed and named: $(printf '%s\n' "$OUT" | grep FAILED)"

FAKE_MODE=crash expect_status 1 python3 "$RUN" --jobs 1 "$FAKE"
contains "$OUT" "FAILED M.B: killed by signal 11"
ok "a crashed class is named: $(printf '%s\n' "$OUT" | grep FAILED)"

FAKE_MODE=short expect_status 1 python3 "$RUN" --jobs 2 "$FAKE"
contains "$OUT" "FAILED the classes executed 4 tests; $FAKE lists 5"
ok "a run that executed fewer tests than the bundle lists fails: $(printf '%s\n' "$OUT" | grep FAILED)"

# (Not stopped, the class would end after its 120 s with status 0, and no FAILED line.)
FAKE_MODE=hang APPGROUPSIM_TEST_CLASS_TIMEOUT=2 expect_status 1 python3 "$RUN" --jobs 2 "$FAKE"
contains "$OUT" "FAILED M.B: did not end within 2 s and was stopped"
ok "a hung class is stopped and named: $(printf '%s\n' "$OUT" | grep FAILED)"

# A worker killed mid-class (the fake class kills its parent, the worker): the class is named, what it printed until
# then is shown, and the runner's folder of class outputs is removed (it was left behind before).
mkdir -p "$WORK/tmp"
FAKE_MODE=worker-dies TMPDIR="$WORK/tmp" expect_status 1 python3 "$RUN" --jobs 1 "$FAKE"
contains "$OUT" "FAILED M.B: worker 0 ended"
contains "$OUT" "M.B/test1 started, then its worker was killed"
[ -z "$(ls -A "$WORK/tmp")" ] || fail "the runner left $(ls "$WORK/tmp") behind after a worker ended"
ok "a worker that ends mid-class: the class named, its output shown, nothing left in TMPDIR: $(printf '%s\n' "$OUT" | grep -m1 FAILED)"

# scripts/test's `swift` in front of the real one (scripts/lib/swiftpm/swift): `swift build` and `swift package` get one
# HOME and one environment (what SwiftPM keys its caches on), `swift test` the caller's whole environment, and with no
# swift behind it, one line and exit 127. A `swift` that prints its environment stands in for the real one.
SHIM="$ROOT/scripts/lib/swiftpm/swift"
mkdir -p "$WORK/real"
# (PWD, SHLVL and _ are the stand-in's own bash's.)
printf '#!/usr/bin/env bash\necho "args: $*"; env | grep -vE "^(PWD|SHLVL|_)=" | sort\n' > "$WORK/real/swift"
chmod +x "$WORK/real/swift"
export_vars=(APPGROUPSIM_SWIFTPM_HOME="$WORK/home" APPGROUPSIM_SWIFTPM_PATH="$WORK/real:/usr/bin:/bin")
SEEN=$(env "${export_vars[@]}" FOO=1 RECENTS_PACKAGE="$WORK/a folder/rp" PATH="$ROOT/scripts/lib/swiftpm:$PATH" "$SHIM" build --product x)
contains "$SEEN" "args: build --product x"
contains "$SEEN" "HOME=$WORK/home"
contains "$SEEN" "RECENTS_PACKAGE=$WORK/a folder/rp"
[ "$(printf '%s\n' "$SEEN" | grep -c '=')" = 4 ] || fail "swift build saw more than HOME, PATH, LANG and RECENTS_PACKAGE: $SEEN"
SEEN=$(env "${export_vars[@]}" FOO=1 "$SHIM" test --skip-build)
contains "$SEEN" "FOO=1"
contains "$SEEN" "HOME=$HOME"
expect_status 127 env APPGROUPSIM_SWIFTPM_PATH=/usr/bin:/bin APPGROUPSIM_SWIFTPM_HOME="$WORK/home" "$SHIM" build
contains "$ERR" "no swift on PATH but this one"
ok "scripts/test's swift: build and package in one environment (HOME, PATH, LANG, RECENTS_PACKAGE), test in the caller's; none behind it: one line, exit 127"

# scripts/test's integration runner (scripts/lib/run-integration.py) gives the scratch path's holder the processor
# first: every other script at nice APPGROUPSIM_TEST_NICE, its session too. With the scheduler's autogroups a process's
# nice counts only against its own session's, and each script is a session of its own; run-tests.py's classes, each a
# session of its own too, keep the nice of the session that started them. Until 2026-12-05 only the processes were
# reniced, and a nice-10 script took as much processor as the chain did. Fake scripts print their sessions' nice.
if [ -r /proc/self/autogroup ]; then
  mkdir -p "$WORK/scripts"
  printf '#!/usr/bin/env bash\n# scripts/test: scratch\necho "holder: $(cat /proc/self/autogroup)"\n' > "$WORK/scripts/holder.sh"
  printf '#!/usr/bin/env bash\necho "other: $(cat /proc/self/autogroup)"\nFAKE_MODE=pass FAKE_AUTOGROUP="%s" python3 "%s" --jobs 1 "%s" >/dev/null && echo "class: $(cat "%s")"\n' \
    "$WORK/class-autogroup" "$RUN" "$FAKE" "$WORK/class-autogroup" > "$WORK/scripts/other.sh"
  APPGROUPSIM_TEST_NICE=10 expect_status 0 python3 "$ROOT/scripts/lib/run-integration.py" --jobs 2 "$WORK/scripts/holder.sh" "$WORK/scripts/other.sh"
  contains "$OUT" "holder: /autogroup-"
  printf '%s\n' "$OUT" | grep -q '^holder: .* nice 0$' || fail "the scratch path's holder's session is not at nice 0: $(printf '%s\n' "$OUT" | grep '^holder:')"
  printf '%s\n' "$OUT" | grep -q '^other: .* nice 10$' || fail "the other script's session is not at nice 10: $(printf '%s\n' "$OUT" | grep '^other:')"
  printf '%s\n' "$OUT" | grep -q '^class: .* nice 10$' || fail "run-tests.py's class did not keep its session's nice: $(printf '%s\n' "$OUT" | grep '^class:')"
  ok "run-integration.py: the scratch path's holder's session at nice 0, another script's at 10, and a class run-tests.py starts from it at 10"
else
  echo "SKIP: no /proc/self/autogroup (the scheduler has no autogroups here): the runner's session nice is not checked"
fi
