// The SDK's ActionTypeTests (libs/SalesforceSDKCore/SalesforceSDKCoreTests/ActionTypeTests.swift at aea9bf3),
// rewritten against the SDK-named SalesforceSDKCore: an Action decoded from the org's JSON (its `actionKey`), a
// JSON without a type refused; Action, ActionGroup and NotificationType archived and read back with
// NSKeyedArchiver under secure coding.
import Foundation
import SalesforceSDKCore
import XCTest

final class ActionTypeTests: XCTestCase {
    private func action(_ json: String) throws -> Action { try JSONDecoder().decode(Action.self, from: Data(json.utf8)) }

    func testActionDecodesItsTypeAndKey() throws {
        for type in ["NotificationApiAction", "foreground"] {
            let decoded = try action(#"{"name":"approve","actionKey":"approve_key","label":"Approve","type":"\#(type)"}"#)
            XCTAssertEqual(decoded.type, type)
            XCTAssertEqual(decoded.identifier, "approve_key")
        }
    }

    func testActionWithoutATypeIsRefused() {
        XCTAssertThrowsError(try action(#"{"name":"approve","actionKey":"approve_key","label":"Approve","kind":"foreground"}"#))
    }

    private func roundTrip<T: NSObject & NSSecureCoding>(_ value: T) throws -> T? {
        let data = try NSKeyedArchiver.archivedData(withRootObject: value, requiringSecureCoding: true)
        return try NSKeyedUnarchiver.unarchivedObject(ofClass: T.self, from: data)
    }

    func testActionArchivesAndReadsBack() throws {
        let original = Action(name: "approve", identifier: "approve_key", label: "Approve", type: "NotificationApiAction")
        let read = try XCTUnwrap(roundTrip(original))
        XCTAssertEqual([read.name, read.identifier, read.label, read.type], [original.name, original.identifier, original.label, original.type])
    }

    func testActionGroupArchivesAndReadsBack() throws {
        let original = ActionGroup(name: "decide", actions: [
            Action(name: "approve", identifier: "approve_key", label: "Approve", type: "NotificationApiAction"),
            Action(name: "open", identifier: "open_key", label: "Open", type: "foreground"),
        ])
        let read = try XCTUnwrap(roundTrip(original))
        XCTAssertEqual(read.name, "decide")
        XCTAssertEqual(read.actions.map(\.identifier), ["approve_key", "open_key"])
    }

    func testNotificationTypeArchivesAndReadsBack() throws {
        let group = ActionGroup(name: "decide", actions: [Action(name: "approve", identifier: "approve_key", label: "Approve", type: "NotificationApiAction")])
        let original = NotificationType(type: "approval", apiName: "approval_request", label: "Approval", actionGroups: [group])
        let read = try XCTUnwrap(roundTrip(original))
        XCTAssertEqual([read.type, read.apiName, read.label], ["approval", "approval_request", "Approval"])
        XCTAssertEqual(read.actionGroups?.first?.actions.first?.type, "NotificationApiAction")
        let none = try XCTUnwrap(roundTrip(NotificationType(type: "t", apiName: "a", label: "l", actionGroups: nil)))
        XCTAssertNil(none.actionGroups)
    }
}
