#!/usr/bin/env python3
"""Runs the package's test bundle (what `swift test --skip-build` runs) on every core, for scripts/test.

    run-tests.py [--jobs N] [--each-test] [--module NAME] BUNDLE

`swift test` runs the test classes one after another in one process, which keeps one of two cores busy (issue 35:
about half the machine idle for the 230 to 270 s it takes on 2 cores). Here N workers (the machine's cores by
default) each run in a private keyring of their own (scripts/with-keyring), and take the next test class from one
queue: each class is one run of BUNDLE with that class as its filter, as `swift test --filter` makes it. The
swift-testing tests (`BUNDLE --testing-library swift-testing`, as `swift test` runs them after XCTest) are one more
item of the queue. Classes with more tests go first (the longest ones, so that no worker is left with one at the end),
or, after a run, those that took longest (their times are kept beside BUNDLE, in appgroupsim-test-times.json).
--each-test makes each test, not each class, one item: for a bundle of a few long tests (an example package's
explorations, scripts/integration/examples.sh). --module NAME runs only the classes of test module NAME, and no
swift-testing test (scripts/integration/org-postgres-tests.sh: without `swift test`, which would hold SwiftPM's lock on
.build, where the scratch scripts build, for the whole run).

Each class's output is printed whole when it ends. A class that fails, crashes or runs longer than
APPGROUPSIM_TEST_CLASS_TIMEOUT seconds (900 by default) is named and fails the run; so does a run in which the
classes executed fewer tests than BUNDLE --list-tests lists. The last line says how many tests ran, in how many
classes, on how many workers. Exit status 1 when anything failed.

    run-tests.py --worker BUNDLE LOGDIR    (inside with-keyring: reads class names on stdin, runs each, answers)
"""
import json, os, re, shutil, subprocess, sys, tempfile, threading, time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
TIMEOUT = float(os.environ.get("APPGROUPSIM_TEST_CLASS_TIMEOUT", "900"))
SWIFT_TESTING = "--testing-library swift-testing"
EXECUTED = re.compile(r"Executed (\d+) tests?, with (\d+) failures?")
SWIFT_TESTING_DONE = re.compile(r"Test run with (\d+) tests? (?:in \d+ suites? )?passed")


def session_nice() -> int:
    """This process's session's nice under the scheduler's autogroups (0 where there are none)."""
    try:
        return int(Path("/proc/self/autogroup").read_text().split()[-1])
    except (OSError, ValueError, IndexError):
        return 0


def keep_session_nice(nice: int):
    """A class's new session keeps the nice of this one: with autogroups a new session starts at 0, whatever its
    processes' own nice (scripts/lib/run-integration.py's autogroup_nice says why that matters)."""
    def apply():
        if nice:
            try:
                Path("/proc/self/autogroup").write_text(f"{nice}\n")
            except OSError:
                pass
    return apply


def worker(bundle: str, logdir: str) -> int:
    """Runs each item read on stdin, its output to LOGDIR/<n>.log, and answers one line: n status seconds."""
    for n, line in enumerate(sys.stdin):
        item = line.strip()
        if not item:
            continue
        args = [bundle] + (item.split() if item == SWIFT_TESTING else [item])
        log = Path(logdir) / f"{os.getpid()}-{n}.log"
        started = time.monotonic()
        status = None
        with open(log, "wb") as out:
            process = subprocess.Popen(args, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                       start_new_session=True, preexec_fn=keep_session_nice(session_nice()))
            try:
                status = process.wait(timeout=TIMEOUT)
            except subprocess.TimeoutExpired:
                status = "timeout"
            finally:  # also when this worker is interrupted: the class's own session goes with it
                if process.poll() is None or status == "timeout":
                    try:
                        os.killpg(process.pid, 9)
                    except ProcessLookupError:
                        pass
                    process.wait()
        print(json.dumps({"item": item, "status": status, "log": str(log),
                          "seconds": round(time.monotonic() - started, 3)}), flush=True)
    return 0


def classes(bundle: str, each_test: bool = False) -> dict:
    """The bundle's classes (or tests, with each_test) and how many tests each has."""
    listed = subprocess.run([bundle, "--list-tests"], capture_output=True, text=True)
    if listed.returncode != 0:
        sys.exit(f"run-tests: {bundle} --list-tests failed (exit {listed.returncode}): {listed.stdout[-500:]}{listed.stderr[-500:]}")
    counts = {}
    for line in listed.stdout.splitlines():
        if "/" in line and not line.startswith("Listing"):
            name = line.strip() if each_test else line.strip().split("/")[0]
            counts[name] = counts.get(name, 0) + 1
    return counts


def main(argv) -> int:
    if argv[:1] == ["--worker"]:
        return worker(argv[1], argv[2])
    jobs = os.cpu_count() or 1
    if argv[:1] == ["--jobs"]:
        jobs, argv = int(argv[1]), argv[2:]
    each_test = argv[:1] == ["--each-test"]
    if each_test:
        argv = argv[1:]
    module = None
    if argv[:1] == ["--module"] and len(argv) > 1:
        module, argv = argv[1], argv[2:]
    if len(argv) != 1:
        sys.exit(__doc__)
    bundle = argv[0]
    counts = classes(bundle, each_test)
    if module is not None:
        counts = {name: n for name, n in counts.items() if name.startswith(module + ".")}
        if not counts:
            sys.exit(f"run-tests: {bundle} lists no test of module {module}")
    listed = sum(counts.values())
    times_file = Path(bundle).parent / "appgroupsim-test-times.json"
    try:
        times = json.loads(times_file.read_text())
    except (OSError, ValueError):
        times = {}
    # The longest first: by last run's time where there is one, else by the number of tests.
    queue = sorted(counts, key=lambda c: (-times.get(c, 0), -counts[c], c)) + ([] if module else [SWIFT_TESTING])
    items = len(queue)
    started = time.monotonic()
    logdir = tempfile.mkdtemp(prefix="appgroupsim-tests.")
    lock = threading.Lock()
    results, failed = {}, []

    def serve(index: int):
        process = subprocess.Popen([str(ROOT / "scripts/with-keyring"), sys.executable, __file__, "--worker", bundle, logdir],
                                   stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=ROOT)
        while True:
            with lock:
                if not queue:
                    break
                item = queue.pop(0)
            process.stdin.write(item + "\n")
            process.stdin.flush()
            answer = process.stdout.readline()
            while answer and not answer.startswith('{"item"'):  # what the keyring session itself printed
                answer = process.stdout.readline()
            if not answer:
                with lock:
                    failed.append(f"{item}: worker {index} ended (its keyring session failed?)")
                break
            result = json.loads(answer)
            output = Path(result["log"]).read_text(errors="replace")
            Path(result["log"]).unlink()
            # swift-testing exits 69 (no tests found) for a bundle without any, which swift test takes as passing.
            if item == SWIFT_TESTING and result["status"] == 69 and re.search(r"Test run with 0 tests", output):
                result["status"] = 0
            with lock:
                results[item] = (result, output)
                sys.stdout.write(output if output.endswith("\n") else output + "\n")
                sys.stdout.flush()
                if result["status"] != 0:
                    why = "did not end within %d s and was stopped" % TIMEOUT if result["status"] == "timeout" else \
                          f"exit {result['status']}" if result["status"] > 0 else f"killed by signal {-result['status']}"
                    failed.append(f"{item}: {why}")
        process.stdin.close()
        process.wait()

    threads = [threading.Thread(target=serve, args=(i,)) for i in range(max(1, jobs))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    # A worker that ended before answering (killed, or its keyring session failed) left the output of the item it was
    # running: printed here, so that the failure can be read (its FAILED line names the item), then removed with the rest.
    for leftover in sorted(Path(logdir).iterdir()):
        text = leftover.read_text(errors="replace")
        print(f"==> output of the item a worker was running when it ended ({leftover.name}):")
        sys.stdout.write(text if text.endswith("\n") or not text else text + "\n")
    shutil.rmtree(logdir, ignore_errors=True)

    executed = failures = 0
    for item, (result, output) in results.items():
        if item == SWIFT_TESTING:
            continue
        counts_seen = [(int(a), int(b)) for a, b in EXECUTED.findall(output)]
        if counts_seen:  # the last "Executed" line is the whole run's
            executed += counts_seen[-1][0]
            failures += counts_seen[-1][1]
    swift_testing = SWIFT_TESTING_DONE.search(results.get(SWIFT_TESTING, ({}, ""))[1])
    if not swift_testing and SWIFT_TESTING in results and results[SWIFT_TESTING][0]["status"] == 0:
        swift_testing = re.search(r"Test run with (\d+) tests?", results[SWIFT_TESTING][1])
    if len(results) < items and not failed:
        failed.append(f"only {len(results)} of {items} items ran")
    if executed != listed and not failed:
        failed.append(f"the classes executed {executed} tests; {bundle} lists {listed}")
    if not failed:
        try:
            times.update({item: r["seconds"] for item, (r, _) in results.items() if item != SWIFT_TESTING})
            times_file.write_text(json.dumps(times, indent=0, sort_keys=True))
        except OSError:
            pass
    seconds = round(time.monotonic() - started)
    summary = (f"tests: {executed} XCTest tests in {len(counts)} {'runs, one test each' if each_test else 'classes'} with {failures} failure(s), "
               f"{swift_testing.group(1) if swift_testing else 'no'} swift-testing tests, on {jobs} workers in {seconds} s")
    if module:
        summary = summary.replace(" XCTest tests in ", f" XCTest tests of {module} in ")
    if failed:
        print(summary)
        for line in failed:
            print(f"FAILED {line}")
        return 1
    print(summary)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
