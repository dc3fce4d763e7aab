// The SDK's NotificationCategoryFactoryTests and PushNotificationManagerTests.testNotificationTypeFilteredCopy
// (libs/SalesforceSDKCore/SalesforceSDKCoreTests/PushNotificationManagerTests.swift at aea9bf3), rewritten against the
// SDK-named products: the org's notification types decoded (NotificationTypesResponse), categories made from their
// action groups (an API action requires authentication, any other opens the app), a type without groups none.
import Foundation
import SalesforceSDKCore
import UserNotifications
import XCTest

final class NotificationCategoryFactoryTests: XCTestCase {
    func decode(_ json: String) throws -> [NotificationType] {
        try JSONDecoder().decode(NotificationTypesResponse.self, from: Data(json.utf8)).notificationTypes
    }

    func testApprovalActionsRequireAuthenticationAndTypesWithoutGroupsMakeNoCategory() throws {
        let types = try decode("""
            {"notificationTypes": [
              {"type": "chatter_mention", "apiName": "chatter_mention", "label": "Chatter Mention", "actionGroups": []},
              {"type": "approval_notification", "apiName": "approval_notification", "label": "Approval Notification", "actionGroups": [
                {"name": "approval_req", "actions": [
                  {"name": "approve", "actionKey": "approval_req__approve", "label": "Approve", "type": "NotificationApiAction"},
                  {"name": "deny", "actionKey": "approval_req__deny", "label": "Deny", "type": "NotificationApiAction"}]}]}]}
            """)
        let categories = NotificationCategoryFactory.shared.createCategories(from: types)
        XCTAssertEqual(categories.count, 1)
        let approval = try XCTUnwrap(categories.first { $0.identifier == "approval_req" })
        XCTAssertEqual(approval.actions.map(\.identifier).sorted(), ["approval_req__approve", "approval_req__deny"])
        for action in approval.actions {
            XCTAssertTrue(action.options.contains(.authenticationRequired), action.identifier)
            XCTAssertFalse(action.options.contains(.foreground), action.identifier)
        }
        XCTAssertEqual(approval.actions.first { $0.identifier == "approval_req__approve" }?.title, "Approve")
    }

    func testOtherActionsOpenTheApp() throws {
        let types = try decode("""
            {"notificationTypes": [{"type": "custom_notification", "apiName": "custom_notification", "label": "Custom", "actionGroups": [
              {"name": "custom_actions", "actions": [
                {"name": "view", "actionKey": "custom_actions__view", "label": "View Details", "type": "foreground"},
                {"name": "dismiss", "actionKey": "custom_actions__dismiss", "label": "Dismiss", "type": "dismiss"}]}]}]}
            """)
        let category = try XCTUnwrap(NotificationCategoryFactory.shared.createCategories(from: types).first)
        XCTAssertEqual(category.identifier, "custom_actions")
        XCTAssertEqual(category.actions.first { $0.identifier == "custom_actions__view" }?.title, "View Details")
        for action in category.actions {
            XCTAssertEqual(action.options, [.foreground], action.identifier)
        }
        XCTAssertEqual(NotificationType.from(jsonData: Data("not json".utf8)).count, 0, "not a response: no type")
    }

    func testNotificationTypeFilteredCopy() {
        let original = NotificationType(type: "test_type", apiName: "test_type", label: "Test Type", actionGroups: [
            ActionGroup(name: "test_group", actions: [
                Action(name: "action1", identifier: "test_group__action1", label: "Action 1", type: "action1_type"),
                Action(name: "action2", identifier: "test_group__action2", label: "Action 2", type: "action2_type"),
                Action(name: "action3", identifier: "test_group__action3", label: "Action 3", type: "action3_type"),
            ]),
        ])
        let filtered = original.filteredCopy(keepingActions: ["action1_type", "action3_type"])
        XCTAssertEqual([filtered.type, filtered.apiName, filtered.label], [original.type, original.apiName, original.label])
        XCTAssertEqual(filtered.actionGroups?.count, 1)
        XCTAssertEqual(filtered.actionGroups?.first?.name, "test_group")
        XCTAssertEqual(filtered.actionGroups?.first?.actions.map(\.name), ["action1", "action3"])
    }
}
