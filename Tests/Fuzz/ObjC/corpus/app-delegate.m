#import "AppDelegate.h"
#define NOT_READ @"group.in.a.macro"
static NSString * const kKeyLabel = @"com.acme.recents.key";

@implementation AppDelegate

- (instancetype)init {
    self = [super init];
    if (self) {
        [MobileSyncSDKManager initializeSDK];
    }
    return self;
}

- (BOOL)application:(UIApplication *)application didFinishLaunchingWithOptions:(NSDictionary *)launchOptions {
    /* [SFSDKDatasharingHelper sharedInstance].appGroupName = @"group.in.a.comment"; */
    [SFSDKDatasharingHelper sharedInstance].appGroupName = @"group.com.acme.recents";
    [[SFSDKDatasharingHelper sharedInstance] setAppGroupEnabled:YES];
    NSUserDefaults *shared = [[NSUserDefaults alloc] initWithSuiteName:@"group.com.acme.recents"];
    [shared setBool:YES forKey:@"userLoggedIn"];
    NSError *error = nil;
    NSData *key = [SFSDKKeyGenerator encryptionKeyFor:kKeyLabel error:&error];
    NSURL *url = [[NSFileManager defaultManager] containerURLForSecurityApplicationGroupIdentifier:[self groupName]];
    NSLog(@"[SFSDKDatasharingHelper sharedInstance].appGroupName = @\"x\"");
    return [[NSUserDefaults msdkUserDefaults] boolForKey:@"userLoggedIn"];
}

@end