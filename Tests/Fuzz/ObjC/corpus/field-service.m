#import "AppDelegate.h"
static NSString * const kRecentsKeyLabel = @"com.acme.fieldservice.recents";

@implementation AppDelegate

- (instancetype)init {
    self = [super init];
    if (self) {
        [SFSDKDatasharingHelper sharedInstance].appGroupName = @"group.com.acme.fieldservice";
        [[SFSDKDatasharingHelper sharedInstance] setAppGroupEnabled:YES];
        [MobileSyncSDKManager initializeSDK];
    }
    return self;
}

- (void)userDidLogIn {
    NSUserDefaults *shared = [[NSUserDefaults alloc] initWithSuiteName:@"group.com.acme.fieldservice"];
    [shared setBool:YES forKey:@"userLoggedIn"];
    NSError *error = nil;
    [SFSDKKeyGenerator encryptionKeyFor:kRecentsKeyLabel error:&error];
}

@end