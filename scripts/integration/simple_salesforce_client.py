"""Drives sf-simulator with real PyPI clients, behind TLS, as a new user of the toolkit would.

requests-oauthlib logs in (authorization code with PKCE S256, through the org's login form); then
simple-salesforce makes every call of the "Any org" issue. Usage:
    python simple_salesforce_client.py https://127.0.0.1:PORT CA_FILE
Prints one "ok:" line per check; any failed check raises and exits non-zero.
"""
import datetime
import json
import sys
import urllib.parse

import requests
from requests_oauthlib import OAuth2Session
from simple_salesforce import Salesforce
from simple_salesforce.exceptions import (SalesforceMalformedRequest, SalesforceResourceNotFound,
                                          SalesforceError)

BASE, CA = sys.argv[1], sys.argv[2]
CLIENT_ID = "3MVG9AppGroupSim.MobileSyncExplorer.Sample"
REDIRECT = "testsfdc:///mobilesdk/detect/oauth/done"


def ok(message):
    print(f"  ok: {message}", flush=True)


def check(condition, message):
    if not condition:
        raise AssertionError(message)


def login(username, password):
    """The authorization-code flow with PKCE, as requests-oauthlib runs it."""
    oauth = OAuth2Session(CLIENT_ID, redirect_uri=REDIRECT, scope=["api", "refresh_token"], pkce="S256")
    oauth.verify = CA
    url, state = oauth.authorization_url(f"{BASE}/services/oauth2/authorize")
    page = requests.get(url, verify=CA)
    check(page.status_code == 200 and "login_form" in page.text, f"login page: {page.status_code}")
    form = dict(urllib.parse.parse_qsl(urllib.parse.urlparse(url).query))
    form.update({"username": username, "password": password})
    answer = requests.post(f"{BASE}/services/oauth2/authorize", data=form, verify=CA, allow_redirects=False)
    check(answer.status_code == 302, f"login form answered {answer.status_code}: {answer.text[:200]}")
    redirect = answer.headers["Location"]
    # oauthlib insists on https for the redirect it parses; the app's scheme is not.
    token = oauth.fetch_token(f"{BASE}/services/oauth2/token", authorization_response=redirect.replace("testsfdc:", "https:"),
                              include_client_id=True, verify=CA)
    check(token["access_token"] and token["refresh_token"], "token response")
    return token


token = login("alice@acme.test", "alice-pass")
ok("requests-oauthlib: code + PKCE S256 login over TLS, access and refresh tokens")

session = requests.Session()
session.verify = CA
sf = Salesforce(instance_url=BASE, session_id=token["access_token"], version="66.0", session=session)

# Versions and resources.
versions = requests.get(f"{BASE}/services/data", verify=CA).json()
check(versions[0]["version"] == "31.0" and versions[-1]["version"] == "66.0", f"versions: {versions[:1]} … {versions[-1:]}")
resources = sf.restful("")
check(resources["query"] == "/services/data/v66.0/query" and "sobjects" in resources, f"resources: {resources}")
ok(f"GET /services/data ({len(versions)} versions, v31.0–v66.0) and restful('') ({len(resources)} resources)")

# Describe.
described = sf.describe()
names = [o["name"] for o in described["sobjects"]]
for wanted in ["Account", "Contact", "Opportunity", "Task", "User", "WorkOrder__c"]:
    check(wanted in names, f"{wanted} missing from describe(): {names}")
again = sf.restful("sobjects")
check(json.dumps(again, sort_keys=True) == json.dumps(described, sort_keys=True), "restful('sobjects') is describe()")
contact = sf.Contact.describe()
fields = {f["name"]: f for f in contact["fields"]}
check(fields["AccountId"]["type"] == "reference" and fields["AccountId"]["referenceTo"] == ["Account"]
      and fields["AccountId"]["relationshipName"] == "Account", f"AccountId: {fields['AccountId']}")
check(fields["DeviceRecordId__c"]["externalId"] is True and fields["LastName"]["nillable"] is False, "externalId, nillable")
check(fields["Email"]["type"] == "email" and fields["LastName"]["length"] == 80, "types and lengths")
stage = {f["name"]: f for f in sf.Opportunity.describe()["fields"]}["StageName"]
check(stage["type"] == "picklist" and "Closed Won" in [v["value"] for v in stage["picklistValues"]], f"StageName: {stage}")
children = [c["relationshipName"] for c in sf.Account.describe()["childRelationships"]]
check("Contacts" in children and "WorkOrders__r" in children, f"children: {children}")
metadata = sf.Contact.metadata()
check(metadata["objectDescribe"]["keyPrefix"] == "003" and "recentItems" in metadata, f"metadata: {metadata}")
ok(f"describe() ({len(names)} objects), Contact/Opportunity/Account describe (types, picklists, references, children), metadata()")

# CRUD on several objects, and by external id.
account = sf.Account.create({"Name": "Zeta Optics", "Industry": "Technology", "AnnualRevenue": 1250000.5,
                             "NumberOfEmployees": 42, "ExternalKey__c": "ZETA-1"})
check(account["success"] and account["id"].startswith("001"), f"create: {account}")
aid = account["id"]
sf.Account.update(aid, {"Rating": "Hot"})
read = sf.Account.get(aid)
check(read["Rating"] == "Hot" and read["AnnualRevenue"] == 1250000.5 and read["NumberOfEmployees"] == 42, f"read: {read}")
by_key = sf.Account.get_by_custom_id("ExternalKey__c", "ZETA-1")
check(by_key["Id"] == aid, f"get_by_custom_id: {by_key}")
status = sf.Contact.upsert("DeviceRecordId__c/dev-42", {"LastName": "Upserted", "AccountId": aid})
check(status == 201, f"upsert create: {status}")
status = sf.Contact.upsert("DeviceRecordId__c/dev-42", {"Title": "CTO"})
check(status == 200, f"upsert update: {status}")
contact = sf.Contact.get_by_custom_id("DeviceRecordId__c", "dev-42")
check(contact["Title"] == "CTO" and contact["AccountId"] == aid and contact["Name"] == "Upserted", f"contact: {contact}")
wo = sf.WorkOrder__c.create({"Name": "WO-Zeta", "Status__c": "New", "Account__c": aid, "Contact__c": contact["Id"],
                             "ScheduledStart__c": "2026-12-01T09:00:00.000+0000", "Billable__c": True})
check(wo["success"], f"custom object create: {wo}")
opp = sf.Opportunity.create({"Name": "Zeta renewal", "AccountId": aid, "StageName": "Prospecting", "CloseDate": "2026-12-31",
                             "Amount": 50000})
task = sf.Task.create({"Subject": "Call Zeta", "Status": "Not Started", "Priority": "High", "WhoId": contact["Id"], "WhatId": opp["id"]})
check(opp["success"] and task["success"], f"opportunity {opp}, task {task}")
ok("create/get/update on Account, Opportunity, Task and WorkOrder__c; get_by_custom_id; upsert by external id (201 then 200)")

# SOQL over any object.
result = sf.query("SELECT Name, Industry, (SELECT LastName, Title FROM Contacts), (SELECT Name FROM WorkOrders__r) "
                  "FROM Account WHERE ExternalKey__c = 'ZETA-1'")
rec = result["records"][0]
check(rec["Contacts"]["records"][0]["LastName"] == "Upserted" and rec["WorkOrders__r"]["totalSize"] == 1, f"subqueries: {rec}")
result = sf.query("SELECT Subject, Who.Name, What.Name, Owner.Name FROM Task WHERE Subject = 'Call Zeta'")
rec = result["records"][0]
check(rec["Who"]["Name"] == "Upserted" and rec["What"]["attributes"]["type"] == "Opportunity" and rec["Owner"]["Name"] == "Alice Archer",
      f"parent fields: {rec}")
result = sf.query("SELECT Name, Account__r.Name FROM WorkOrder__c WHERE Account__r.ExternalKey__c = 'ZETA-1'")
check(result["records"][0]["Account__r"]["Name"] == "Zeta Optics", f"custom relationship: {result}")
count = sf.query("SELECT COUNT() FROM Contact")
check(count["totalSize"] == 1001 and count["records"] == [], f"COUNT(): {count}")
agg = sf.query("SELECT COUNT(Id) FROM Account WHERE Industry IN ('Technology', 'Banking') AND NOT Name LIKE 'Q%'")
check(agg["records"][0]["expr0"] >= 1, f"COUNT(Id): {agg}")
recent = sf.query("SELECT Name FROM Account WHERE LastModifiedDate = TODAY OR CreatedDate = LAST_N_DAYS:7 ORDER BY Name NULLS LAST, Id DESC")
check("Zeta Optics" in [r["Name"] for r in recent["records"]], f"date literals: {recent}")
everything = sf.query_all("SELECT Id, LastName FROM Contact ORDER BY LastModifiedDate")
check(everything["totalSize"] == 1001 and len(everything["records"]) == 1001, f"query_all: {everything['totalSize']}")
ok("query(): child subqueries, parent and polymorphic fields, custom __r, COUNT() and COUNT(Id), date literals; query_all() of 1001 contacts")

# Search, limits, updated and deleted.
found = sf.search("FIND {Zeta} IN ALL FIELDS RETURNING Account(Name WHERE Industry = 'Technology'), WorkOrder__c(Name LIMIT 5)")
types = sorted(r["attributes"]["type"] for r in found["searchRecords"])
check(types == ["Account", "WorkOrder__c"], f"search: {found}")
quick = sf.quick_search("Upserted")
check(any(r["Id"] == contact["Id"] for r in quick["searchRecords"]), f"quick_search: {quick}")
limits = sf.limits()
check(limits["DailyApiRequests"]["Max"] == 15000 and limits["DailyApiRequests"]["Remaining"] < 15000, f"limits: {limits}")
now = datetime.datetime.now(datetime.timezone.utc)
start = now - datetime.timedelta(days=1)
end = now + datetime.timedelta(minutes=5)
sf.Contact.delete(contact["Id"])
updated = sf.Account.updated(start, end)
check(aid in updated["ids"], f"updated: {updated}")
deleted = sf.Contact.deleted(start, end)
check([d["id"] for d in deleted["deletedRecords"]] == [contact["Id"]], f"deleted: {deleted}")
ok("search (SOSL RETURNING with WHERE and LIMIT), quick_search, limits, updated and deleted")

# Errors, the Salesforce way.
def expect(exception, code, call, what):
    try:
        call()
    except exception as error:
        content = error.content if isinstance(error.content, list) else []
        check(content and content[0].get("errorCode") == code, f"{what}: {error.content}")
        return
    raise AssertionError(f"{what} succeeded")

expect(SalesforceMalformedRequest, "MALFORMED_QUERY", lambda: sf.query("SELECT Id FROM Account WHERE"), "malformed SOQL")
expect(SalesforceMalformedRequest, "INVALID_FIELD", lambda: sf.query("SELECT Nope__c FROM Account"), "unknown field")
expect(SalesforceMalformedRequest, "INVALID_TYPE", lambda: sf.query("SELECT Id FROM Lead"), "unknown object")
expect(SalesforceMalformedRequest, "MALFORMED_SEARCH", lambda: sf.search("FIND Zeta"), "malformed SOSL")
expect(SalesforceMalformedRequest, "JSON_PARSER_ERROR", lambda: sf.Account.create({"NumberOfEmployees": "many", "Name": "X"}), "wrong type")
expect(SalesforceMalformedRequest, "REQUIRED_FIELD_MISSING", lambda: sf.Opportunity.create({"Name": "No stage"}), "required field")
expect(SalesforceMalformedRequest, "INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST",
       lambda: sf.Opportunity.create({"Name": "x", "StageName": "Won?", "CloseDate": "2026-12-01"}), "picklist value")
expect(SalesforceMalformedRequest, "INVALID_CROSS_REFERENCE_KEY",
       lambda: sf.Contact.create({"LastName": "x", "AccountId": "001000000000000AAA"}), "reference to no record")
expect(SalesforceMalformedRequest, "DUPLICATE_VALUE", lambda: sf.Account.create({"Name": "Dup", "ExternalKey__c": "ZETA-1"}), "unique value")
expect(SalesforceResourceNotFound, "NOT_FOUND", lambda: sf.restful("no/such/route"), "unknown route")
expect(SalesforceResourceNotFound, "NOT_FOUND", lambda: sf.Lead.describe(), "unknown object describe")
expect(SalesforceResourceNotFound, "ENTITY_IS_DELETED", lambda: sf.Contact.get(contact["Id"]), "deleted record")
ok("errors: MALFORMED_QUERY, INVALID_FIELD, INVALID_TYPE, MALFORMED_SEARCH, JSON_PARSER_ERROR, REQUIRED_FIELD_MISSING, "
   "restricted picklist, INVALID_CROSS_REFERENCE_KEY, DUPLICATE_VALUE, NOT_FOUND, ENTITY_IS_DELETED")

# Cursors on an old API version: the 11th releases the oldest.
old = Salesforce(instance_url=BASE, session_id=token["access_token"], version="55.0", session=session)
headers = {"Sforce-Query-Options": "batchSize=200"}
nexts = [old.query("SELECT Id FROM Contact", headers=headers)["nextRecordsUrl"] for _ in range(11)]
expect(SalesforceMalformedRequest, "INVALID_QUERY_LOCATOR", lambda: old.query_more(nexts[0], identifier_is_url=True), "released cursor")
check(len(old.query_more(nexts[1], identifier_is_url=True)["records"]) == 200, "second cursor still open")
ok("v55.0: the 11th open cursor released the user's oldest (INVALID_QUERY_LOCATOR), the others still page")

# aiosalesforce (PyPI), the composite/batch client: independent sub-requests and haltOnError, as Salesforce answers
# them ({hasErrors, results:[{statusCode, result}]}, 412 BATCH_PROCESSING_HALTED after the first failure).
import asyncio

import httpx
from aiosalesforce import Salesforce as AsyncSalesforce
from aiosalesforce.auth import Auth


class Token(Auth):
    def __init__(self, access_token):
        super().__init__()
        self.access_token = access_token

    async def _acquire_new_access_token(self, client):
        return self.access_token


class ToTheOrg(httpx.AsyncBaseTransport):
    """aiosalesforce accepts only a My Domain URL (https://NAME.my.salesforce.com): its requests are sent to the org's
    TLS front here instead, the certificate checked against its CA."""

    def __init__(self):
        self.inner = httpx.AsyncHTTPTransport(verify=CA)
        self.front = urllib.parse.urlsplit(BASE)

    async def handle_async_request(self, request):
        request.url = request.url.copy_with(host=self.front.hostname, port=self.front.port)
        return await self.inner.handle_async_request(request)


async def batches():
    async with httpx.AsyncClient(transport=ToTheOrg()) as http:
        asf = AsyncSalesforce(http, base_url="https://appgroupsim.my.salesforce.com", auth=Token(token["access_token"]), version="66.0")
        async with asf.composite.batch(halt_on_error=False) as batch:
            created = batch.sobject.create("Contact", {"LastName": "AioBatch"})
            missing = batch.sobject.create("Contact", {"FirstName": "no last name"})
            query = batch.query("SELECT Id, LastName FROM Contact WHERE LastName = 'AioBatch'")
        check(created.status_code == 201 and created.is_success, f"create: {created.response}")
        check(missing.status_code == 400 and missing.result[0]["errorCode"] == "REQUIRED_FIELD_MISSING", f"missing field: {missing.response}")
        check(len(query.records) == 1 and query.records[0]["Id"] == created.result["id"], f"query after a failure: {query.response}")
        async with asf.composite.batch(halt_on_error=True) as batch:
            update = batch.sobject.update("Contact", created.result["id"], {"Title": "Batched"})
            bad = batch.sobject.delete("Contact", "003000000000000AAA")
            never = batch.sobject.update("Contact", created.result["id"], {"Title": "Never"})
        check(update.status_code == 204 and update.result is None, f"update: {update.response}")
        check(bad.status_code == 404, f"delete of no record: {bad.response}")
        check(never.status_code == 412 and never.result[0]["errorCode"] == "BATCH_PROCESSING_HALTED", f"halted: {never.response}")
        check(sf.Contact.get(created.result["id"])["Title"] == "Batched", "the sub-request before the failure stays done")


asyncio.run(batches())
ok("aiosalesforce composite/batch: sub-requests run on their own (201, 400 REQUIRED_FIELD_MISSING, then a query that sees the first); "
   "haltOnError: 204, 404, then 412 BATCH_PROCESSING_HALTED")
