#!/usr/bin/env python3
"""Writes Fixtures/sdk-api/left-out.json: the SDK entry points AppGroupSim leaves out on purpose, each with why.

Rules match by type and name; an entry point that no rule names and the products do not offer is "not yet"
in the coverage report. Left-out entry points count as missing in the coverage figure.
usage: left-out-rules.py ENTRY_POINTS.json OUT.json
"""
import json
import re
import sys

RULES = [
    (r"SalesforceManager\.(usesSnapshotView|snapshotView\w+|loginFlowSelectionViewProvider|idpUserSelectionViewProvider|brandLoginIdentifier|isLoginWebviewInspectable|useEphemeralSessionForAdvancedAuth|useWebServerAuthentication|useHybridAuthentication|customDomainInferencePattern|blockSalesforceIntegrationUser|bootConfigRuntimeSelector|bootConfig\(forLoginHost:callback:\)|nativeLoginManager\(\)|useNativeLogin\w*)",
     "UI: the login screen and its options; the simulated apps log in with main-app login"),
    (r"SalesforceManager\.(isDevSupportEnabled|devSupportInfoList\(\)|devInfoTitleString\(\)|showDevSupportDialog\w*|devActionsList\w*)", "UI: the dev support menu"),
    (r"(SalesforceManager\.(screenLockManager|biometricAuthenticationManager)\(\)|\.kSFScreenLock\w+|\.kSFBiometric\w+)", "UI: screen lock and biometrics; main-app simulates the screen lock"),
    (r"SalesforceManager\.(isIdentityProvider|identityProviderURLScheme)|UserAccountManager\.(\w*IDP\w*|idp\w+|isIdentityProvider|handleIdentityProviderResponse\w*|kickOffIDPInitiatedLoginFlow\w*)", "UI: IDP login flows, which run through the apps' URL schemes (main-app login --idp)"),
    (r"UserAccountManager\.(willShowAuthenticationView|userCancelledAuthentication|loginViewControllerConfig|shouldFallbackToWebAuthentication|showAuthWindowWhileLoading|usesAdvancedAuthentication|authClient|brandLoginPath|retriesLoginAfterFailure|switchToNewUser\w*|login\w*|stopCurrentAuthentication\w*|additionalOAuthParameterKeys|isLogoutSettingEnabled)", "UI: the login flow; main-app login and AppGroupSimTesting.logIn do it"),
    (r"UserAccountManager\.(refreshCredentials\w*|refresh\(_:completion:failure:\)|migrateRefreshToken\w*|additionalTokenRefreshParameters)", "token refresh happens inside RestClient and SyncManager (one refresh on a 401), not called by app code here"),
    (r"OAuthCredentials\.(jwt|lightningDomain|lightningSid|vfDomain|vfSid|contentDomain|contentSid|csrfToken|cookieClientSrc|cookieSidClient|sidCookieName|parentSid|tokenFormat|beaconChildConsumerKey|beaconChildConsumerSecret|challengeString|authCode|additionalOAuthFields)", "web session cookies, JWT and beacon fields: the simulated org issues none of these"),
    (r"OAuthCredentials\.(init\(\w.*\)|overrideDomainIfNeeded\(\))", "credentials are made by login and changed by refresh in the engine; app code reads them"),
    (r"SmartStore\.(encryptionKeyGenerator|encryptionSaltBlock|setEncryptionKeyGenerator\(_:\)|setLicenseKey\(_:\)|versionOfSQLCipher\(\)|cipherProviderVersion\(\)|cipherFIPSStatus\(\)|runtimeSettings\(\)|compileOptions\(\))", "SQLCipher: stores are plain SQLite here (docs/differences.md)"),
    (r"(SyncTarget|SyncDownTarget|SyncUpTarget)\.(startFetch\w*|continueFetch\w*|cleanGhosts\w*|isNewerThanServer\w*|areNewerThanServer\w*|createOnServer\w*|updateOnServer\w*|deleteOnServer\w*|saveRecordToLocalStoreWithLastError\w*)",
     "target internals the SDK's sync manager calls; custom targets are not simulated (the engine runs SOQL, MRU, refresh and sync up)"),
    (r"RestRequest\.(sessionDataTask|requestDelegate)|RestClient\.send\(_:requestDelegate:\)", "URLSession task plumbing and delegates: requests are sent by the engine's client"),
    (r"SalesforceLogger\.(setInstanceClass|setLogReceiverFactory)", "log receivers plug into os_log; lines go to standard error here"),
    (r"UserAccount\.(photo|setPhoto\w*)", "UI: the user's photo"),
    (r"SmartStore\.isJsonSerializationCheckEnabled|\.kValue(ExtractedToColumn|ExtractedToFtsColumn|IndexedWithJSONExtract)$", "SmartStore internals: external storage is not simulated; the index filters are the store's own"),
    (r"SalesforceManager\.URLCacheType", "no URL cache: every request reaches the simulated org"),
    (r"PushNotificationManager\.fetchAndStoreNotificationTypes\w*|UserAccount\.notificationTypes", "notification types and actions are not simulated (the org sends the SDK's encrypted payloads only)"),
]



def whole(*names):
    """A rule for whole types: the type itself (`.X`) and every member (`X.name`)."""
    return r"^\.?(" + "|".join(names) + r")(\.|$)"


# Every public entry point of the four modules (issue 37): whole types outside what the simulator reproduces.
RULES += [
    (whole("SFSDKWindowManager", "SFSDKWindowManagerDelegate", "SFSDKWindowContainer", "SFSDKWindowContainerDelegate", "SFSDKWindowType",
           "SFSDKUserSelectionView", "SFSDKUserSelectionViewDelegate", "SFSDKUserSelectionTableViewControllerDelegate", "SFSDKLoginFlowSelectionView",
           "SalesforceLoginViewControllerDelegate", "SalesforceLoginViewControllerConfig", "SFSDKViewControllerConfig", "AlertMessage", "AlertMessageBuilder",
           "SalesforceUserManagementAction", "SFApplicationHelper", "DevAction", "BootConfigEditor"),
     "UI: windows, alerts, the account picker and view configuration"),
    (whole("LoginHostDelegate", "SalesforceLoginHost", "SFSDKLoginHostStorage", "SFOAuthCoordinator", "SFOAuthCoordinatorDelegate", "SFSDKWebViewStateManager",
           "WebViewStateManager", "SFSDKWebUtils", "DomainDiscoveryCoordinator", "DomainDiscoveryResult", "AuthCoordinatorFrontdoorBridgeLoginOverride",
           "NativeLoginManager", "NativeLoginManagerInternal", "NativeLoginResult", "OtpRequestResult", "OtpVerificationMethod",
           "SPConfig", "SPLoginStatus", "SPLoginError", "AuthFlowTypesView"),
     "UI: the login screen, its web view, login hosts, native and IDP login; the simulated apps log in with main-app login"),
    (whole("BiometricAuthenticationManagerInternal", "ScreenLockManager", "ScreenLockManagerInternal"),
     "UI: screen lock and biometrics; main-app simulates the screen lock"),
    (whole("GenerationsResponseBody", "GenerationsRequestBody", "ChatGenerationsResponseBody", "ChatGenerationsRequestBody", "EmbeddingsResponseBody",
           "EmbeddingsRequestBody", "FeedbackRequestBody", "FeedbackResponseBody", "SfapClient", "SfapError", "SfapErrorResponseBody"),
     "Einstein generative AI (sfap) API: the simulated org has no AI endpoints"),
    (whole("SFSDKSalesforceAnalyticsManager", "SFSDKAILTNPublisher", "SFSDKAnalyticsPublisher", "SFSDKEventBuilderHelper", "SFInstrumentation",
           "SFSDKInstrumentationHelper", "SFSDKInstrumentationPostExecutionData", "SFMethodInterceptor", "SFSDKAppFeatureMarkers")
     + r"|^\.?kSFSDKEventBuilderHelper\w+$", "analytics and instrumentation: the simulator sends no telemetry"),
    (whole("WebSocketClient", "WebSocketClientDelegate") + r"|RestClient\.newWebSocket", "WebSockets: the simulated org speaks HTTP only"),
    (whole("SFLayout", "SFLayoutSection", "SFItem", "SFRow", "Layout", "LayoutSyncManager", "LayoutSyncDownTarget", "Metadata", "MetadataSyncManager",
           "MetadataSyncDownTarget"),
     "layout and metadata sync: the simulated org serves records, not UI layouts or describe metadata"),
    (r"RestClient\.(request(For|\()\w*(File|Files|ProfilePhoto)\w*)", "the Files REST API: the simulated org stores no files"),
]


def main():
    entries = json.load(open(sys.argv[1]))["entryPoints"]
    left = []
    for entry in entries:
        key = f"{entry['type'] or ''}.{entry['name']}"
        for pattern, reason in RULES:
            if re.search(pattern, key):
                left.append({"type": entry["type"], "name": entry["name"], "reason": reason})
                break
    json.dump({"note": "written by scripts/sdk-api/left-out-rules.py", "leftOut": left}, open(sys.argv[2], "w"), indent=1, sort_keys=True)
    print(f"{len(left)} entry points left out on purpose -> {sys.argv[2]}")


if __name__ == "__main__":
    main()
