"""A small client of sf-simulator's REST surface, over real sockets with the standard library only: the fleet's
cross-instance checks (scripts/integration/fleet_checks.py) and its load driver (scripts/fleet-load) use it.

Every call is bounded by a timeout; HTTP errors come back as (status, body) rather than exceptions, so a
driver can count them.
"""
import base64, hashlib, json, os, re, urllib.error, urllib.parse, urllib.request

CLIENT_ID = "3MVG9AppGroupSim.MobileSyncExplorer.Sample"
REDIRECT = "testsfdc:///mobilesdk/detect/oauth/done"


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


OPENER = urllib.request.build_opener(NoRedirect)


def request(method, url, body=None, headers=None, form=None, timeout=30):
    """(status, headers, body bytes); never raises for an HTTP status."""
    data = None
    headers = dict(headers or {})
    if form is not None:
        data = urllib.parse.urlencode(form).encode()
        headers["Content-Type"] = "application/x-www-form-urlencoded"
    elif body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    req = urllib.request.Request(url, data=data, method=method, headers=headers)
    try:
        with OPENER.open(req, timeout=timeout) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


class Session:
    """One user's login at one base URL (an instance or the fleet's front)."""

    def __init__(self, base, username="alice@acme.test", password="alice-pass"):
        self.base = base.rstrip("/")
        self.username = username
        self.password = password
        self.access = None
        self.refresh = None
        self.instance_url = None

    def login(self):
        """The code flow with PKCE (S256), as the SDK's login does: authorize, then exchange the code."""
        verifier = base64.urlsafe_b64encode(os.urandom(48)).rstrip(b"=").decode()
        challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
        status, headers, body = request("POST", self.base + "/services/oauth2/authorize", form={
            "client_id": CLIENT_ID, "redirect_uri": REDIRECT, "code_challenge": challenge, "code_challenge_method": "S256",
            "username": self.username, "password": self.password, "response_type": "code"})
        location = headers.get("Location") or headers.get("location") or ""
        match = re.search(r"[?&]code=([^&]+)", location)
        if status != 302 or not match:
            raise RuntimeError(f"authorize answered {status} without a code: {body[:200]!r}")
        status, _, body = request("POST", self.base + "/services/oauth2/token", form={
            "grant_type": "authorization_code", "code": urllib.parse.unquote(match.group(1)), "client_id": CLIENT_ID,
            "redirect_uri": REDIRECT, "code_verifier": verifier})
        if status != 200:
            raise RuntimeError(f"the code exchange answered {status}: {body[:200]!r}")
        answer = json.loads(body)
        self.access, self.refresh, self.instance_url = answer["access_token"], answer.get("refresh_token"), answer["instance_url"]
        return answer

    def refresh_at(self, base, token=None):
        """A refresh-token grant at `base`: (status, answer)."""
        status, _, body = request("POST", base.rstrip("/") + "/services/oauth2/token", form={
            "grant_type": "refresh_token", "refresh_token": token or self.refresh, "client_id": CLIENT_ID})
        return status, (json.loads(body) if body else {})

    def call(self, method, path, base=None, body=None, headers=None, timeout=30):
        """A REST call with this session's token: (status, headers, JSON or None)."""
        h = {"Authorization": "Bearer " + self.access}
        h.update(headers or {})
        status, response_headers, raw = request(method, (base or self.base).rstrip("/") + path, body=body, headers=h, timeout=timeout)
        try:
            parsed = json.loads(raw) if raw else None
        except ValueError:
            parsed = None
        return status, response_headers, parsed

    def query(self, soql, version="v66.0", batch=None, base=None):
        headers = {"Sforce-Query-Options": f"batchSize={batch}"} if batch else None
        return self.call("GET", f"/services/data/{version}/query?" + urllib.parse.urlencode({"q": soql}), base=base, headers=headers)
