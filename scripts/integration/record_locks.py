#!/usr/bin/env python3
"""Record locks across a fleet (issue 39): two sf-simulator instances A and B on one PostgreSQL database, started
with the default record lock timeout (10 s). Usage: record_locks.py URL_A ADMIN_TOKEN_A URL_B PSQL_PORT DATABASE

1. A record locked through A (the holdRecordLock fault, a real row lock) is UNABLE_TO_LOCK_ROW for a write through
   B after the timeout; another record is written at once (no lock for the whole org).
2. Two writers on one record at once: a psql transaction changes LastName (and Name) and holds the row; B's
   change of FirstName waits for it, then applies on top of it: both changes kept, and Name (which the org
   computes from both) is the two together. Without the lock B would compute Name from the LastName it read
   before the other committed.
3. A cursor opened on A keeps its rows while B deletes some of them: paged through B, the deleted records still
   come, and the total does not change; a new query no longer has them.

Prints one "ok: ..." line a check; exits 1 at the first broken, naming it.
"""
import json, os, subprocess, sys, time, urllib.parse

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from orgclient import Session, request as raw_request  # noqa: E402

A, ADMIN_A, B, PG_PORT, DB = sys.argv[1].rstrip("/"), sys.argv[2], sys.argv[3].rstrip("/"), sys.argv[4], sys.argv[5]
V = "/services/data/v66.0"


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def ok(message):
    print(f"  ok: {message}")


def request(method, url, body=None, headers=None):
    """(status, headers, the body as JSON, or its text when it is not JSON)."""
    status, headers, data = raw_request(method, url, body=body, headers=headers)
    try:
        return status, headers, json.loads(data) if data else None
    except ValueError:
        return status, headers, data.decode(errors="replace")


def psql(sql):
    return subprocess.run(["psql", "-h", "127.0.0.1", "-p", PG_PORT, "-U", "postgres", "-d", DB, "-X", "-q", "-A", "-t", "-c", sql],
                          check=True, capture_output=True, text=True).stdout.strip()


alice = Session(A)
alice.login()
auth = {"Authorization": "Bearer " + alice.access}
status, _, answer = alice.query("SELECT Id FROM Contact WHERE FirstName != null ORDER BY Id LIMIT 3", base=A)
if status != 200 or len(answer["records"]) != 3:
    fail(f"no contacts to lock: {status} {answer}")
held, free, shared = (r["Id"] for r in answer["records"])

# 1. A lock held through A, met through B.
status, _, answer = request("POST", A + "/__admin/faults", body={"holdRecordLock": {"id": held, "seconds": 15}},
                            headers={"X-AppGroupSim-Admin-Token": ADMIN_A})
if status != 200 or not isinstance(answer, dict) or (answer.get("heldRecordLock") or {}).get("id") != held:
    fail(f"the holdRecordLock fault was not applied: {status} {answer}")
status, _, answer = request("PATCH", f"{B}{V}/sobjects/Contact/{held}", body={"Title": "Through B"}, headers=auth)
error = answer[0] if isinstance(answer, list) and answer else {}
if status != 400 or error.get("errorCode") != "UNABLE_TO_LOCK_ROW" or held not in error.get("message", ""):
    fail(f"a write through B to the record A holds answered {status} {answer}; expected 400 UNABLE_TO_LOCK_ROW naming {held}")
status, _, answer = request("PATCH", f"{B}{V}/sobjects/Contact/{free}", body={"Title": "Not held"}, headers=auth)
if status != 204:
    fail(f"a write through B to another record, while one is held, answered {status} {answer}")
ok(f"a record held through A: B's write answered 400 UNABLE_TO_LOCK_ROW ({error['message']}); another record written at once (204)")

# 2. Two writers on one record at once.
before = psql(f"SELECT \"FirstName\" || '|' || \"LastName\" FROM \"obj_Contact\" WHERE \"Id\" = '{shared}'")
holder = subprocess.Popen(
    ["psql", "-h", "127.0.0.1", "-p", PG_PORT, "-U", "postgres", "-d", DB, "-X", "-q", "-c",
     f"BEGIN; UPDATE \"obj_Contact\" SET \"LastName\" = 'Psql', \"Name\" = \"FirstName\" || ' Psql' WHERE \"Id\" = '{shared}'; "
     "SELECT pg_sleep(0.8); COMMIT"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
# The psql transaction holds the row before B's write comes.
for _ in range(100):
    if psql(f"SELECT count(*) FROM pg_stat_activity WHERE datname = '{DB}' AND state = 'active' AND query LIKE '%pg_sleep(0.8)%' AND pid <> pg_backend_pid()") == "1":
        break
    time.sleep(0.02)
else:
    fail("the psql transaction never held the row: the check would prove nothing")
status, _, answer = request("PATCH", f"{B}{V}/sobjects/Contact/{shared}", body={"FirstName": "Dee"}, headers=auth)
holder.wait()
if holder.returncode != 0:
    fail(f"the psql writer failed: {holder.stderr.read()}")
if status != 204:
    fail(f"B's write to the record the other writer held answered {status} {answer}")
after = psql(f"SELECT \"FirstName\" || '|' || \"LastName\" || '|' || \"Name\" FROM \"obj_Contact\" WHERE \"Id\" = '{shared}'")
if after != "Dee|Psql|Dee Psql":
    fail(f"two writers on one record: FirstName|LastName|Name is {after} (was {before}|…); expected Dee|Psql|Dee Psql: a change was lost")
ok("two writers on one record at once: B's write waited for the other's, then applied on top of it (FirstName|LastName|Name = Dee|Psql|Dee Psql)")

# 3. A cursor keeps its rows while another instance deletes some.
soql = "SELECT Id, LastName FROM Contact ORDER BY LastName, Id"
status, _, page = alice.query(soql, batch=200, base=A)
total = page["totalSize"]
status, _, later = alice.query(soql + " LIMIT 5 OFFSET 300", base=A)
doomed = [r["Id"] for r in later["records"]]
status, _, answer = request("DELETE", f"{B}{V}/composite/sobjects?" + urllib.parse.urlencode({"ids": ",".join(doomed)}), headers=auth)
if status != 200 or not all(r.get("success") for r in answer):
    fail(f"deleting 5 contacts through B answered {status} {answer}")
seen = [r["Id"] for r in page["records"]]
while not page["done"]:
    status, _, page = request("GET", B + page["nextRecordsUrl"], headers=auth)
    if status != 200:
        fail(f"queryMore through B answered {status} {page}")
    seen += [r["Id"] for r in page["records"]]
missing = [i for i in doomed if i not in seen]
if len(seen) != total or missing or len(set(seen)) != total:
    fail(f"a cursor opened on A, paged through B after B deleted 5 of its records: {len(seen)} records of {total}, deleted ones missing: {missing}")
status, _, fresh = alice.query("SELECT COUNT() FROM Contact", base=A)
if fresh["totalSize"] != total - 5:
    fail(f"a new query after the deletes counts {fresh['totalSize']}, expected {total - 5}")
ok(f"a cursor opened on A kept its {total} rows while B deleted 5 of them (paged through B, the deleted ones still came); a new query counts {total - 5}")
