[[SFSDKDatasharingHelper sharedInstance] setAppGroupName:@"g" ] ] [ x y: @"
- (void)f { [a b:c d: