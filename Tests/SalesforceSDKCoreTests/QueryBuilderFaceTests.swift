import Foundation
import SalesforceSDKCore
import XCTest

/// The SDK's query builders (`SFRestAPI+QueryBuilder`, `SFSDKSoqlBuilder`, `SFSDKSoslBuilder`): the text they
/// write, clause by clause, as the SDK writes it.
final class QueryBuilderFaceTests: XCTestCase {
    func testSOQLFromTheRestClientsBuilder() {
        XCTAssertEqual(RestClient.SOQLQuery(withFields: ["Id", "Name"], sObject: "Account", whereClause: "Name like 'A%'", groupBy: ["Name"], having: "count(Id) > 1",
                                            orderBy: ["Name", "Id"], limit: 10),
                       "select Id,Name from Account where Name like 'A%' group by Name having count(Id) > 1 order by Name,Id limit 10")
        XCTAssertEqual(RestClient.SOQLQuery(withFields: ["Id"], sObject: "Account", whereClause: nil, groupBy: nil, having: "count(Id) > 1", orderBy: nil, limit: 0),
                       "select Id from Account", "having only with group by; no limit at 0")
        XCTAssertNil(RestClient.SOQLQuery(withFields: [], sObject: "Account", whereClause: nil, limit: 1))
        XCTAssertNil(RestClient.SOQLQuery(withFields: ["Id"], sObject: "", whereClause: nil, limit: 1))
    }

    func testSOSLFromTheRestClientsBuilder() {
        XCTAssertEqual(RestClient.sanitizeSOSLSearchTerm("a-b (c)?"), "a\\-b \\(c\\)\\?")
        XCTAssertEqual(RestClient.SOSLSearch(withSearchTerm: "acme", objectScope: nil), "FIND {acme} IN NAME FIELDS")
        XCTAssertEqual(RestClient.SOSLSearch(withSearchTerm: "acme", fieldScope: nil, objectScope: ["Contact": NSNull(), "Account": "Id, Name"], limit: 1000),
                       "FIND {acme} IN NAME FIELDS RETURNING Account (Id, Name),Contact LIMIT \(kMaxSOSLSearchLimit)")
        XCTAssertNil(RestClient.SOSLSearch(withSearchTerm: "", objectScope: nil))
        XCTAssertEqual(kMaxSOSLSearchLimit, 200)
    }

    func testSoqlBuilder() {
        let builder = SFSDKSoqlBuilder.withFieldsArray(["Id", "Name"]).from("Account").whereClause("Name = 'A&B'").with("SECURITY_ENFORCED")
            .groupBy("Name").having("count(Id) > 0").orderBy("Name").limit(5).offset(10)
        XCTAssertEqual(builder.build(), "select Id, Name from Account where Name = 'A&B' group by Name having count(Id) > 0 order by Name limit 5 offset 10",
                       "with is kept but not written, as in the SDK")
        XCTAssertEqual(builder.encodeAndBuild(), "select%20Id,%20Name%20from%20Account%20where%20Name%20%3D%20'A%26B'%20group%20by%20Name%20having%20count(Id)%20%3E%200%20order%20by%20Name%20limit%205%20offset%2010")
        XCTAssertEqual(SFSDKSoqlBuilder.withFields("Id").from("Account").build(withPath: "/services/data/v66.0"), "/services/data/v66.0/query/?q=select Id from Account")
        XCTAssertEqual(SFSDKSoqlBuilder.withFields("Id").from("Account").build(withPath: "/services/data/v66.0/"), "/services/data/v66.0/query/?q=select Id from Account")
        XCTAssertNil(SFSDKSoqlBuilder.withFields("Id").build(), "no from")
    }

    func testSoslBuilder() {
        let returning = SFSDKSoslReturningBuilder.withObjectName("Contact").fields("Id, Name").whereClause("Name != null").orderBy("Name").withNetwork("0DB").limit(3)
        XCTAssertEqual(returning.objectName, "Contact")
        let builder = SFSDKSoslBuilder.withSearchTerm("a+b:c!").searchGroup("ALL FIELDS").returning(returning).returning(SFSDKSoslReturningBuilder.withObjectName("Account"))
            .divisionFilter("DIVISION = 'x'").dataCategory("Geo__c AT Europe__c").limit(7)
        XCTAssertEqual(builder.build(),
                       "find {a\\+b\\:c\\!} in ALL FIELDS returning  Contact(Id, Name where Name != null order by Name with network = 0DB limit 3),  Account with DIVISION = 'x' with data category Geo__c AT Europe__c limit 7",
                       "the SDK's leading space on each returning clause is kept")
        XCTAssertEqual(SFSDKSoslBuilder.withSearchTerm("x").build(withPath: "/services/data/v66.0"), "/services/data/v66.0/search/?q=find {x}")
        XCTAssertNil(SFSDKSoslBuilder.withSearchTerm("").build())
    }
}
