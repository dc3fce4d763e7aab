#!/usr/bin/env python3
"""Several sf-simulator instances, one org (issue 28): each cross-instance rule, checked through two instances
A and B that share one PostgreSQL database. Usage: fleet_checks.py URL_A URL_B EXPECTED_CONTACTS

Prints one "ok: …" line a rule; exits 1 at the first rule broken, naming it.
"""
import json, os, sys, threading, urllib.parse

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from orgclient import Session, request  # noqa: E402

A, B, EXPECTED = sys.argv[1].rstrip("/"), sys.argv[2].rstrip("/"), int(sys.argv[3])


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def ok(message):
    print(f"  ok: {message}")


alice = Session(A)
alice.login()
if alice.instance_url.rstrip("/") != A:
    fail(f"instance_url {alice.instance_url} is not the instance logged in at ({A})")

# Seeding once: both instances started at once on an empty database; the org has its contacts once.
status, _, answer = alice.query("SELECT COUNT() FROM Contact", base=B)
if status != 200 or answer["totalSize"] != EXPECTED:
    fail(f"Acme has {answer and answer.get('totalSize')} contacts through B, expected {EXPECTED} (seeded once): {status}")
ok(f"seeded once: {EXPECTED} contacts, the same through A and B")

# A cursor opened on A pages on B (and A again), to the end, each record once.
ids = []
status, _, page = alice.query("SELECT Id, LastName FROM Contact ORDER BY LastName", batch=200, base=A)
total = page["totalSize"]
bases = [B, A]
hops = 0
while True:
    ids += [r["Id"] for r in page["records"]]
    if page["done"]:
        break
    status, _, page = alice.call("GET", page["nextRecordsUrl"], base=bases[hops % 2])
    hops += 1
    if status != 200:
        fail(f"the cursor's page {hops} on {'B' if hops % 2 else 'A'} answered {status}: {page}")
if len(ids) != total or len(set(ids)) != total:
    fail(f"paging across instances gave {len(ids)} records ({len(set(ids))} distinct) of {total}")
ok(f"a cursor opened on A paged on B and A alternately: {hops + 1} pages, {total} records, each once")

# Before v56, a user has 10 cursors over all instances: the 11th, opened on B, releases the first, opened on A.
first = None
for i in range(11):
    status, _, page = alice.query("SELECT Id FROM Contact", version="v55.0", batch=200, base=[A, B][i % 2])
    if status != 200 or page["done"]:
        fail(f"cursor {i + 1} at v55.0 did not open: {status}")
    first = first or page["nextRecordsUrl"]
status, _, answer = alice.call("GET", first, base=B)
if status != 400 or answer[0]["errorCode"] != "INVALID_QUERY_LOCATOR":
    fail(f"the first of 11 cursors (v55.0, opened on A) still pages on B: {status} {answer}")
ok("v55.0's 10 cursors a user are counted over both instances: the 11th (on B) released the first (on A)")

# A token refreshed on A works on B; the refresh token is not rotated, so B refreshes with it too; revoked on A,
# it is refused on B, and so is the access token made from it.
status, refreshed = alice.refresh_at(A)
if status != 200 or "refresh_token" in refreshed:
    fail(f"refresh on A: {status} {refreshed}")
fresh = refreshed["access_token"]
alice.access = fresh
status, _, _ = alice.call("GET", "/services/data/v66.0/limits", base=B)
if status != 200:
    fail(f"the access token refreshed on A is refused on B: {status}")
status, again = alice.refresh_at(B)
if status != 200:
    fail(f"the same (not rotated) refresh token is refused on B: {status} {again}")
status, _, _ = request("POST", A + "/services/oauth2/revoke", form={"token": alice.refresh})
if status != 200:
    fail(f"revoke on A answered {status}")
status, refused = alice.refresh_at(B)
if status != 400 or refused.get("error") != "invalid_grant":
    fail(f"a refresh token revoked on A is accepted on B: {status} {refused}")
status, _, _ = alice.call("GET", "/services/data/v66.0/limits", base=B)
if status != 401:
    fail(f"an access token of a grant revoked on A still works on B: {status}")
ok("refresh on A, its token used on B; the same refresh token accepted on B (not rotated); revoked on A, refused on B (400 invalid_grant, 401)")

bob = Session(A, "bob@acme.test", "bob-pass")
bob.login()

# Twenty upserts of one external id at once (released together by a barrier), through A and B, five times:
# one record each time, created once.
lock = threading.Lock()
for round in range(5):
    key = "fleet-upsert-" + os.urandom(4).hex()
    statuses = []
    barrier = threading.Barrier(20)

    def upsert(i):
        barrier.wait()
        status, _, _ = bob.call("PATCH", f"/services/data/v66.0/sobjects/Contact/DeviceRecordId__c/{key}", base=[A, B][i % 2],
                                body={"LastName": f"Upsert {i}"})
        with lock:
            statuses.append(status)

    threads = [threading.Thread(target=upsert, args=(i,)) for i in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    status, _, answer = bob.query(f"SELECT Id, LastName FROM Contact WHERE DeviceRecordId__c = '{key}'", base=B)
    if answer["totalSize"] != 1 or statuses.count(201) != 1 or any(s not in (200, 201, 204) for s in statuses):
        fail(f"20 concurrent upserts of {key} through A and B (round {round + 1}): {answer['totalSize']} record(s), statuses {sorted(statuses)}")
ok("20 upserts of one external id released at once through A and B, five times: one record each time, created once (201)")

# allOrNone is one transaction: a collection with one bad record creates nothing, through either instance.
good = "fleet-aon-" + os.urandom(4).hex()
status, _, answer = bob.call("POST", "/services/data/v66.0/composite/sobjects", base=B, body={"allOrNone": True, "records": [
    {"attributes": {"type": "Contact"}, "LastName": "Kept?", "DeviceRecordId__c": good},
    {"attributes": {"type": "Contact"}, "FirstName": "No last name"}]})
codes = [e["statusCode"] for r in answer for e in r.get("errors", [])] if status == 200 else []
status2, _, found = bob.query(f"SELECT Id FROM Contact WHERE DeviceRecordId__c = '{good}'", base=A)
if status != 200 or "ALL_OR_NONE_OPERATION_ROLLED_BACK" not in codes or found["totalSize"] != 0:
    fail(f"allOrNone through B: {status} {answer}; the good record through A: {found}")
ok("allOrNone with one bad record, sent to B: nothing created, as seen from A")

# The day's API requests are counted once over both instances.
status, headers, limits = bob.call("GET", "/services/data/v66.0/limits", base=A)
before = limits["DailyApiRequests"]["Remaining"]
used_before = int(headers.get("Sforce-Limit-Info", "api-usage=0/0").split("=")[1].split("/")[0])
for i in range(10):
    bob.call("GET", "/services/data/v66.0/limits", base=[B, A][i % 2])
status, headers, limits = bob.call("GET", "/services/data/v66.0/limits", base=B)
after = limits["DailyApiRequests"]["Remaining"]
used_after = int(headers.get("Sforce-Limit-Info", "api-usage=0/0").split("=")[1].split("/")[0])
if before - after != 11 or used_after - used_before != 11:
    fail(f"11 API requests through A and B moved DailyApiRequests by {before - after} and Sforce-Limit-Info by {used_after - used_before}")
ok("11 API requests through A and B: DailyApiRequests.Remaining and Sforce-Limit-Info each moved by 11")
