import Foundation
import XCTest

@testable import AppExtensions
import CoreEngine
import CoreNetworkEngine

final class WidgetCardTests: XCTestCase {
    typealias W = AppWidget

    let now = ISO8601DateFormatter().date(from: "2026-11-22T12:00:00Z")!

    func testAListedCardHasOneRowPerContactWithInitialsAndEscapedNames() {
        let report = W.Report(
            state: .listed, user: W.User(orgId: "00D", userId: "005", username: "alice@acme.test"),
            contacts: [
                W.Contact(Id: "003A", FirstName: "Ada", LastName: "Singh", LastModifiedDate: "2026-11-22T11:55:00.000+0000"),
                W.Contact(Id: "003B", FirstName: "<b>", LastName: "O'Hara & Sons", LastModifiedDate: "2026-11-20T12:00:00.000+0000"),
                W.Contact(Id: "003C", FirstName: nil, LastName: "Xu", LastModifiedDate: "2025-01-05T00:00:00.000+0000"),
            ],
            message: "3 most recent contacts")
        let html = WidgetCard.html(report, now: now)
        XCTAssertEqual(html.components(separatedBy: "<li>").count - 1, 3)
        XCTAssertTrue(html.contains(">AS</span>"))
        XCTAssertTrue(html.contains("&lt;b&gt; O&#39;Hara &amp; Sons"))
        XCTAssertFalse(html.contains("<b>"))
        XCTAssertTrue(html.contains(">5 min ago<"))
        XCTAssertTrue(html.contains(">2 d ago<"))
        XCTAssertTrue(html.contains(">Jan 5, 2025<"))
        XCTAssertTrue(html.contains(">X</span>"), "one initial when there is no first name")
        XCTAssertTrue(html.contains("alice@acme.test"))
    }

    func testEveryStateHasItsOwnCard() {
        let cases: [(W.State, String)] = [
            (.notLoggedIn, "Not logged in"), (.misconfigured, "Widget misconfigured"), (.keychainUnavailable, "Keychain unavailable"),
        ]
        for (state, title) in cases {
            let html = WidgetCard.html(W.Report(state: state, user: nil, contacts: [], message: "why <exactly>"), now: now)
            XCTAssertTrue(html.contains(title), "\(state)")
            XCTAssertTrue(html.contains("data-state=\"\(state.rawValue)\""))
            XCTAssertTrue(html.contains("why &lt;exactly&gt;"))
            XCTAssertFalse(html.contains("<li>"))
        }
    }

    func testAvatarColoursAreStablePerContact() {
        XCTAssertEqual(WidgetCard.color(for: "003A"), WidgetCard.color(for: "003A"))
        let colours = Set((0..<50).map { WidgetCard.color(for: "003\($0)") })
        XCTAssertGreaterThan(colours.count, 3)
    }
}
