"""A rogue org on loopback (hostile-inputs.sh, issue 34): its login page and token endpoint work as an org's do,
but its identity URL names a user id of `..` (or what --user-id says). A client that took that id as a folder
name would log in a user whose folder is the whole library, and that user's logout would delete every account.

  rogue_org.py [--user-id ID]     prints "listening on http://127.0.0.1:PORT", then serves until killed
"""
import argparse, http.server, json, sys, urllib.parse

ORG_ID = "00D5g00000RogueEAA"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--user-id", default="..")
    args = parser.parse_args()

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *a):
            pass

        def answer(self, status, body=b"", headers=None):
            self.send_response(status)
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):
            path = urllib.parse.urlparse(self.path).path
            if path == "/services/oauth2/authorize":
                return self.answer(200, b"<html><form method=post></form></html>", {"Content-Type": "text/html"})
            # The identity URL, however a client normalised it: a user of this org.
            if path.startswith("/id/"):
                body = json.dumps({"user_id": args.user_id, "organization_id": ORG_ID, "username": "rogue@rogue.test",
                                   "display_name": "Rogue", "email": "rogue@rogue.test", "urls": {}}).encode()
                return self.answer(200, body, {"Content-Type": "application/json"})
            return self.answer(404, b'[{"message":"not here","errorCode":"NOT_FOUND"}]', {"Content-Type": "application/json"})

        def do_POST(self):
            length = int(self.headers.get("Content-Length") or 0)
            form = urllib.parse.parse_qs(self.rfile.read(length).decode())
            path = urllib.parse.urlparse(self.path).path
            if path == "/services/oauth2/authorize":
                redirect = form.get("redirect_uri", [""])[0]
                return self.answer(302, b"", {"Location": redirect + "?code=rogue-code"})
            if path == "/services/oauth2/token":
                base = f"http://127.0.0.1:{self.server.server_address[1]}"
                body = json.dumps({"access_token": "rogue-access-token-" + "x" * 20, "refresh_token": "rogue-refresh-token-" + "y" * 20,
                                   "instance_url": base, "id": f"{base}/id/{ORG_ID}/{args.user_id}", "token_type": "Bearer",
                                   "issued_at": "1", "signature": "s"}).encode()
                return self.answer(200, body, {"Content-Type": "application/json"})
            if path == "/services/oauth2/revoke":
                return self.answer(200)
            return self.answer(404, b'[{"message":"not here","errorCode":"NOT_FOUND"}]', {"Content-Type": "application/json"})

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(f"listening on http://127.0.0.1:{server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
