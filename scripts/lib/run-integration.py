#!/usr/bin/env python3
"""Runs the integration scripts for scripts/test, several at once.

    run-integration.py --jobs N SCRIPT...

Most scripts only drive the built binaries, each in folders, keyrings, orgs and ports of its own, so several run side
by side: with N > 1 (N defaults to the machine's core count), up to N + 1 beside the scratch script below that holds
the scratch path (most of them wait on their processes much of the time, and they run at a lower priority than the
chain: below); APPGROUPSIM_TEST_JOBS=1 runs them one after another. A script declares in a comment line where it
cannot go beside the others:

    # scripts/test: scratch    it builds consumer packages (a developer's package that depends on AppGroupSim) in
                               AppGroupSim's own scratch path, .build, so that AppGroupSim's dependencies are not
                               compiled again (and its own modules once, without the PostgreSQL trait; no binary of
                               $BIN is linked again), or makes SwiftPM's symbol graphs there (which SwiftPM builds
                               with every trait on). Two such scripts never use it at once (one's build would land
                               between another's build and its run). They are started first, in the order given (the
                               symbol graphs' first: scripts/test), as together they are the longest chain.
                               A script done with the scratch path says so (scratch_done in lib/integration.sh:
                               it removes the file APPGROUPSIM_SCRATCH_TOKEN names), and the next one starts at once:
                               the chain of scratch scripts is what the phase waits for. The one holding the scratch
                               path takes no slot of the N; one done with it takes one (it has its longest part left:
                               docs-examples.sh its other examples, examples.sh its explorations).
    # scripts/test: alone      its checks measure how long something takes (a lock's timeout, an answer's bound):
                               one at a time, in the order given, once the last scratch script has started (with
                               N > 1; after all the others with N = 1). It takes no slot, and every other script
                               runs at nice 19 while it does, so that it gets the processor whenever it wants it
                               (the others are what the machine does while it waits on its timers).
                               (A script that rebuilds the checkout is a scratch script: scripts/test gives the
                               scripts its build's binaries as links of their own, which a new link does not change.)

With N > 1 the chain of scratch scripts goes first for the processor as well: every other script runs at nice
APPGROUPSIM_TEST_NICE (10 by default; 0 turns this off), and a scratch script too once it is done with the scratch path
(its whole process group, reniced, and its session: with the scheduler's autogroups a process's nice counts only
against its own session's processes, and each script is a session of its own; autogroup_nice below). Scripts that
run alone run at the priority scripts/test has. The others then
take what the chain leaves: on 2 cores the chain's builds compile on both whenever they can, instead of sharing them
with a fuzzer or an exploration. Nothing a script checks depends on its speed: the bounds some wait with are tens of
seconds, and the short ones are on fakes that only print (test-runner.sh's 2 s) or expect the time to run out
(keychain-modes.sh's silent bus); a script at nice 10 still gets a tenth of a core beside two busy ones.

A script that runs longer than APPGROUPSIM_SCRIPT_TIMEOUT seconds (1800 by default: the longest takes about 500 s on 2
cores) is stopped, its whole process group (SIGTERM, then SIGKILL 10 s later), and fails, named: a hang (an unreaped
child, a lock never released) ends this phase with a message instead of holding CI until its own limit.

Each script's output is printed whole when it ends, under "==> SCRIPT", followed by "(N s)". Nothing a script starts may
outlive it: each runs under an APPGROUPSIM_RUN_ID of its own, so the processes left over (scripts/lib/processes.sh) are
its own even with others running; they are named, ended, and fail the script. Exit status 1 when a script failed.
"""
import os, re, subprocess, sys, time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
MARK = re.compile(r"^# scripts/test: (scratch|alone)\b", re.M)
TIMEOUT = float(os.environ.get("APPGROUPSIM_SCRIPT_TIMEOUT", "1800"))
NICE = int(os.environ.get("APPGROUPSIM_TEST_NICE", "10"))


def kind(script: str) -> str:
    match = MARK.search(Path(script).read_text())
    return match.group(1) if match else "parallel"


def leftovers(run_id: str) -> list:
    """The processes of run_id still alive after up to 3 s (scripts/lib/processes.sh's new_processes)."""
    out = subprocess.run(["bash", "-c", 'source scripts/lib/processes.sh; new_processes ""'], cwd=ROOT, text=True,
                         capture_output=True, env={**os.environ, "APPGROUPSIM_RUN_ID": run_id}).stdout
    return [line.split(None, 1) for line in out.splitlines() if line.strip()]


def autogroup_nice(pid, nice: int):
    """The nice of the session `pid` is in, as the scheduler sees it. With autogroups (kernel.sched_autogroup_enabled,
    on in Debian's kernels and on this machine kind) the scheduler first shares the processor fairly between sessions,
    and a process's own nice ranks it only against the processes of its session. Each script runs in a session of its
    own, so a script's nice alone gave the chain nothing: measured here, docs-examples.sh held the scratch path 241 s
    beside two nice-10 scripts against 178 s beside one. The session's nice (/proc/PID/autogroup) is what ranks it
    against the other scripts. Nothing happens where there are no autogroups."""
    try:
        Path(f"/proc/{pid}/autogroup").write_text(f"{nice}\n")
    except OSError:
        pass


def start_niced(nice: int):
    os.nice(nice)
    autogroup_nice("self", nice)


class Run:
    def __init__(self, script: str, base_id: str, nice: int = 0):
        self.script = script
        self.nice = nice  # the nice its process group has now
        self.base = nice  # and the one it has outside an alone script's run
        self.run_id = f"{base_id}-{Path(script).stem}"
        self.started = time.monotonic()
        self.seconds = None
        self.cpu = None
        self.output_path = Path(os.environ.get("TMPDIR", "/tmp")) / f"appgroupsim-integration-{os.getpid()}-{Path(script).stem}.log"
        self.output = open(self.output_path, "w+b")
        self.token = None
        self.timed_out = False
        environment = {**os.environ, "APPGROUPSIM_RUN_ID": self.run_id, "APPGROUPSIM_TEST_NICE": str(NICE)}
        if kind(script) == "scratch":
            self.token = self.output_path.with_suffix(".scratch")
            self.token.touch()
            environment["APPGROUPSIM_SCRATCH_TOKEN"] = str(self.token)
        # A session of its own, so that an interrupted run can end the script's whole process group.
        self.process = subprocess.Popen(["bash", script], cwd=ROOT, stdout=self.output, stderr=subprocess.STDOUT,
                                        stdin=subprocess.DEVNULL, start_new_session=True,
                                        env=environment, preexec_fn=(lambda: start_niced(nice)) if nice else None)

    def yield_processor(self):
        """A scratch script done with the scratch path runs at NICE from now on (it has left the chain)."""
        if self.token and not self.token.exists() and not self.base and NICE:
            self.base = NICE

    def set_nice(self, nice: int):
        """The script's whole process group at `nice` (back up to a lower one only where allowed: root)."""
        if nice != self.nice:
            try:
                os.setpriority(os.PRIO_PGRP, self.process.pid, nice)
                self.nice = nice
            except (ProcessLookupError, PermissionError):
                pass
            autogroup_nice(self.process.pid, nice)

    def poll(self):
        """The script's exit status once it has ended (None before). Reaped with wait4, which also gives the processor
        time of the script and of every process it waited for (where scripts/test's time goes: issue 35)."""
        if self.process.returncode is None:
            try:
                pid, status, usage = os.wait4(self.process.pid, os.WNOHANG)
            except ChildProcessError:
                return self.process.poll()
            if pid == 0:
                return None
            self.process.returncode = os.waitstatus_to_exitcode(status)
            self.cpu = usage.ru_utime + usage.ru_stime
        return self.process.returncode

    def ended(self) -> bool:
        """Whether the script has exited; its time is taken when this first sees it so. One past TIMEOUT is stopped."""
        if self.seconds is None and self.poll() is None and time.monotonic() - self.started > TIMEOUT:
            self.stop()
        if self.seconds is None and self.poll() is not None:
            self.seconds = round(time.monotonic() - self.started)
        return self.seconds is not None

    def stop(self):
        """Ends the script's whole process group: SIGTERM (its traps clean up), then SIGKILL after 10 s."""
        self.timed_out = True
        for signal_number, grace in ((15, 10), (9, 5)):
            try:
                os.killpg(self.process.pid, signal_number)
            except ProcessLookupError:
                return
            try:
                self.process.wait(timeout=grace)
                return
            except subprocess.TimeoutExpired:
                pass

    def finish(self) -> bool:
        status = self.process.wait()
        seconds = self.seconds
        self.output.seek(0)
        text = self.output.read().decode(errors="replace")
        self.output.close()
        self.output_path.unlink(missing_ok=True)
        if self.token:
            self.token.unlink(missing_ok=True)
        passed = status == 0 and not self.timed_out
        left = leftovers(self.run_id)
        print(f"==> {self.script}", flush=True)
        sys.stdout.write(text)
        print(f"    ({seconds} s" + (f", processor {self.cpu:.0f} s)" if self.cpu is not None else ")"), flush=True)
        if self.timed_out:
            print(f"FAIL: {self.script} was still running after {TIMEOUT:.0f} s (APPGROUPSIM_SCRIPT_TIMEOUT) and was stopped: "
                  "a hang; its output above ends where it stood", file=sys.stderr, flush=True)
        if left:
            names = ", ".join(f"{name} (pid {pid})" for pid, name in left)
            print(f"FAIL: {self.script} left running: {names}", file=sys.stderr, flush=True)
            for pid, _ in left:
                try:
                    os.kill(int(pid), 15)
                except ProcessLookupError:
                    pass
            passed = False
        return passed


def main() -> int:
    args = sys.argv[1:]
    jobs = os.cpu_count() or 1
    if args[:1] == ["--jobs"]:
        jobs, args = max(1, int(args[1])), args[2:]
    if not args or any(a.startswith("-") for a in args):
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    base_id = os.environ.get("APPGROUPSIM_RUN_ID") or f"run-{os.getpid()}"
    kinds = {script: kind(script) for script in args}
    # The scratch scripts first: one at a time, they are the longest chain.
    pending = [s for s in args if kinds[s] == "scratch"] + [s for s in args if kinds[s] == "parallel"]
    alone = [s for s in args if kinds[s] == "alone"]
    running, failures, passed = [], [], 0
    started, script_seconds, script_cpu = time.monotonic(), [], []
    # With jobs > 1: up to `others` scripts beside the one holding the scratch path (room, below).
    others = jobs + 1 if jobs > 1 else 1
    extra_seconds = 0.0  # how long the one holding the scratch path ran beside `others` others
    alone_left = list(alone)

    def room(script: str) -> bool:
        """Whether `script` may start now. With jobs > 1 the script holding the scratch path takes no slot: a scratch
        script starts as soon as the one before it is done with the scratch path (the chain waits for nothing), and
        up to jobs + 1 others run beside it, at NICE: they take what the chain leaves, and the one more fills the
        processor while the others wait on their processes (the whole phase on 2 cores, local single runs after one
        build: 556 s against 589 s with jobs, and 609 s before the sessions' nice below). With jobs = 1, one at a
        time. A class that run-tests.py starts keeps its script's session nice of that moment (a session of its own:
        a later renice of the script's session does not reach it)."""
        holding = [r for r in running if r.token and r.token.exists()]
        if kinds[script] == "scratch" and holding:
            return False
        if kinds[script] == "scratch" and jobs > 1:
            return True
        # An alone script takes no slot either: the others run beside it at nice 19.
        busy = len([r for r in running if kinds[r.script] != "alone" and (jobs == 1 or r not in holding)])
        return busy < others

    def may_go_alone() -> bool:
        """Whether the next alone script may start: with jobs > 1 once the chain's last scratch script has started
        (the others, running or started after it, run at nice 19 while it does); with jobs = 1 after all the others."""
        if not alone_left or any(kinds[r.script] == "alone" for r in running):
            return False
        if jobs == 1:
            return not pending and not running
        return not any(kinds[s] == "scratch" for s in pending)

    def balance():
        """Each script at its own nice; while an alone script runs, every other one at 19 (so that what it times is
        its own: it gets the processor whenever it wants it)."""
        if jobs == 1:
            return
        hush = any(kinds[r.script] == "alone" for r in running)
        for run in running:
            run.yield_processor()
            if kinds[run.script] != "alone":
                run.set_nice(19 if hush else run.base)

    def reap(block: bool):
        nonlocal passed, extra_seconds
        while True:
            for run in [r for r in running if r.ended()]:
                running.remove(run)
                finished = run.finish()
                script_seconds.append(run.seconds or 0)
                script_cpu.append(run.cpu or 0)
                if finished:
                    passed += 1
                else:
                    failures.append(run.script)
                return
            if not block or any(room(s) for s in pending) or may_go_alone():
                return
            balance()
            time.sleep(0.2)
            if len([r for r in running if kinds[r.script] != "alone"]) > others:
                extra_seconds += 0.2

    try:
        while pending or running or alone_left:
            ready = [s for s in pending if room(s)]
            if ready:
                pending.remove(ready[0])
                running.append(Run(ready[0], base_id, nice=NICE if jobs > 1 and kinds[ready[0]] == "parallel" else 0))
                balance()
                continue
            if may_go_alone():
                running.append(Run(alone_left.pop(0), base_id))
                balance()
                continue
            reap(block=True)
    except KeyboardInterrupt:
        for run in running:
            try:
                os.killpg(run.process.pid, 15)
            except ProcessLookupError:
                pass
        raise
    # Where scripts/test's time goes (issue 35): the phase's wall time against the scripts' own times added up.
    wall = time.monotonic() - started
    how = (f"up to {others} at once beside the one holding the scratch path ({others + 1} at once for {extra_seconds:.0f} s)"
           if jobs > 1 else "one at a time")
    print(f"integration: {passed} passed, {len(failures)} failed in {round(wall)} s, {how} "
          f"(the scripts' own times add up to {round(sum(script_seconds))} s; their processor time "
          f"{round(sum(script_cpu))} s, {sum(script_cpu) / max(wall, 1):.2f} cores busy on average)")
    for script in failures:
        print(f"  failed: {script}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
