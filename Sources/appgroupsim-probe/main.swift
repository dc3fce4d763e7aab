import Keychain
import Foundation
func say(_ items: Any...) { FileHandle.standardError.write((items.map { "\($0)" }.joined(separator: " ") + "\n").data(using: .utf8)!) }
let store = LibsecretStore()
say(store.availability())
let kc = KeychainHelper(store: store, deviceID: "dev1", accessGroups: ["T.g1", "T.g2"])
say(await kc.write(Array("hello".utf8), service: "svc"))
say("locking")
try store.lockDefaultCollection()
say("locked", store.availability())
say(await kc.read(service: "svc"))
let p = Process(); p.executableURL = URL(fileURLWithPath: "/bin/sh"); p.arguments = ["-c", "printf %s \"$APPGROUPSIM_KEYRING_PASSWORD\" | gnome-keyring-daemon --unlock --components=secrets"]
try p.run(); p.waitUntilExit()
say("after unlock:", store.availability())
say(await kc.read(service: "svc"))
say(await kc.removeAll())
