"""Timed requests against sf-simulator instances while their PostgreSQL, or another instance, is made to fail
(org-postgres.sh, issue 34): every request must be answered within its bound, whatever happens to the database.

  pg_faults.py burst BASE [--kind read|write] [--other] [-n N] [--timeout S]
      logs alice in at BASE, then sends N requests at once and prints one JSON list: [{"status", "seconds"}]
      (status 0: no answer within --timeout, the client's own bound)
  pg_faults.py until BASE --status CODE [--kind K] [--within S]
      repeats one request until it answers CODE; prints {"status", "seconds"} of the first such answer, or the
      last answer when --within passes first
"""
import argparse, concurrent.futures, json, sys, time, urllib.parse

sys.path.insert(0, __import__("os").path.join(__import__("os").path.dirname(__file__), "..", "lib"))
from orgclient import Session, request  # noqa: E402


def one(session, kind, contact, timeout):
    started = time.monotonic()
    if kind == "read":
        path = "/services/data/v66.0/query?" + urllib.parse.urlencode({"q": "SELECT Id, LastName FROM Contact LIMIT 5"})
        method, body = "GET", None
    else:
        path = f"/services/data/v66.0/sobjects/Contact/{contact}"
        method, body = "PATCH", {"Title": f"Fault check {time.time():.3f}"}
    try:
        status, _, _ = request(method, session.base + path, body=body, headers={"Authorization": "Bearer " + session.access}, timeout=timeout)
    except Exception:  # noqa: BLE001 - a client-side timeout or a reset: no answer
        status = 0
    return {"status": status, "seconds": round(time.monotonic() - started, 2)}


def contact_id(session):
    status, _, answer = session.query("SELECT Id FROM Contact ORDER BY LastModifiedDate DESC LIMIT 1")
    if status != 200:
        raise SystemExit(f"cannot find a contact: {status} {answer}")
    return answer["records"][0]["Id"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["burst", "until"])
    parser.add_argument("base")
    parser.add_argument("--kind", choices=["read", "write"], default="write")
    parser.add_argument("--other", action="store_true", help="write another contact than the session's")
    parser.add_argument("-n", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=60)
    parser.add_argument("--status", type=int, default=200)
    parser.add_argument("--within", type=float, default=30)
    parser.add_argument("--session", help="a JSON file to keep the login in (made when missing)")
    args = parser.parse_args()
    session = Session(args.base)
    if args.session and __import__("os").path.exists(args.session):
        saved = json.load(open(args.session))
        session.access, contact = saved["access"], saved["contact"]
    else:
        session.login()
        contact = contact_id(session)
        if args.session:
            json.dump({"access": session.access, "contact": contact}, open(args.session, "w"))
    if args.other:
        status, _, answer = session.query(f"SELECT Id FROM Contact WHERE Id != '{contact}' ORDER BY Id LIMIT 1")
        if status != 200:
            raise SystemExit(f"cannot find another contact: {status} {answer}")
        contact = answer["records"][0]["Id"]
    if args.mode == "burst":
        with concurrent.futures.ThreadPoolExecutor(max_workers=args.n) as pool:
            answers = list(pool.map(lambda _: one(session, args.kind, contact, args.timeout), range(args.n)))
        print(json.dumps(answers))
        return
    started = time.monotonic()
    while True:
        answer = one(session, args.kind, contact, args.timeout)
        if answer["status"] == args.status or time.monotonic() - started > args.within:
            answer["seconds"] = round(time.monotonic() - started, 2)
            print(json.dumps(answer))
            return
        time.sleep(0.2)


if __name__ == "__main__":
    main()
