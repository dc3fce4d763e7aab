#!/usr/bin/env python3
"""Lists the Mobile SDK's Swift entry points for the classes AppGroupSim gives (issue 26), as data.

Reads the SDK's headers and Swift files at one commit of forcedotcom/SalesforceMobileSDK-iOS (a git
directory, read with `git show`), and writes Fixtures/sdk-api/entry-points.json: for each entry point its
module, its Swift type, its Swift name as Swift code calls it (`shared(withName:forUserAccount:)`), its kind,
and the declaration it comes from. Names and signatures only: no SDK code is copied.

Swift names follow the importer: NS_SWIFT_NAME when the header gives one; otherwise the selector's first
piece is split at its last preposition (`requestForQuery:apiVersion:` -> `request(forQuery:apiVersion:)`),
a factory method of the class becomes an initializer, and a `getter=` property keeps its Swift name.
Left out and counted apart: NS_SWIFT_UNAVAILABLE / NS_UNAVAILABLE declarations, variadic `format:`
methods (not imported), and UI (UIKit types in the signature).

usage: extract-entry-points.py SDK_GIT_DIR COMMIT OUT.json
"""
import json
import re
import subprocess
import sys

# (module, path, Objective-C class -> Swift type); a Swift file's types are read from its declarations.
HEADERS = [
    ("SalesforceSDKCommon", "libs/SalesforceSDKCommon/SalesforceSDKCommon/Classes/Util/SFSDKDatasharingHelper.h", {"SFSDKDatasharingHelper": "DataSharingHelper"}),
    ("SalesforceSDKCommon", "libs/SalesforceSDKCommon/SalesforceSDKCommon/Classes/Util/NSUserDefaults+SFAdditions.h", {"NSUserDefaults": "UserDefaults"}),
    ("SalesforceSDKCommon", "libs/SalesforceSDKCommon/SalesforceSDKCommon/Classes/Logger/SFLogger.h", {"SFLogger": "SalesforceLogger"}),
    ("SalesforceSDKCore", "libs/SalesforceSDKCore/SalesforceSDKCore/Classes/Common/SalesforceSDKManager.h", {"SalesforceSDKManager": "SalesforceManager"}),
    ("SalesforceSDKCore", "libs/SalesforceSDKCore/SalesforceSDKCore/Classes/UserAccount/SFUserAccountManager.h", {"SFUserAccountManager": "UserAccountManager"}),
    ("SalesforceSDKCore", "libs/SalesforceSDKCore/SalesforceSDKCore/Classes/UserAccount/SFUserAccount.h", {"SFUserAccount": "UserAccount"}),
    ("SalesforceSDKCore", "libs/SalesforceSDKCore/SalesforceSDKCore/Classes/UserAccount/SFUserAccountIdentity.h", {"SFUserAccountIdentity": "UserAccountIdentity"}),
    ("SalesforceSDKCore", "libs/SalesforceSDKCore/SalesforceSDKCore/Classes/OAuth/SFOAuthCredentials.h", {"SFOAuthCredentials": "OAuthCredentials"}),
    ("SalesforceSDKCore", "libs/SalesforceSDKCore/SalesforceSDKCore/Classes/Util/SFSDKAuthHelper.h", {"SFSDKAuthHelper": "AuthHelper"}),
    ("SalesforceSDKCore", "libs/SalesforceSDKCore/SalesforceSDKCore/Classes/Util/SFDirectoryManager.h", {"SFDirectoryManager": "SFDirectoryManager"}),
    ("SalesforceSDKCore", "libs/SalesforceSDKCore/SalesforceSDKCore/Classes/RestAPI/SFRestAPI.h", {"SFRestAPI": "RestClient"}),
    ("SalesforceSDKCore", "libs/SalesforceSDKCore/SalesforceSDKCore/Classes/RestAPI/SFRestRequest.h", {"SFRestRequest": "RestRequest"}),
    ("SmartStore", "libs/SmartStore/SmartStore/Classes/SFSmartStore.h", {"SFSmartStore": "SmartStore"}),
    ("SmartStore", "libs/SmartStore/SmartStore/Classes/SFQuerySpec.h", {"SFQuerySpec": "QuerySpec"}),
    ("SmartStore", "libs/SmartStore/SmartStore/Classes/SFSoupIndex.h", {"SFSoupIndex": "SoupIndex"}),
    ("SmartStore", "libs/SmartStore/SmartStore/Classes/SmartStoreSDKManager.h", {"SmartStoreSDKManager": "SmartStoreSDKManager"}),
    ("MobileSync", "libs/MobileSync/MobileSync/Classes/Manager/MobileSyncSDKManager.h", {"MobileSyncSDKManager": "MobileSyncSDKManager"}),
    ("MobileSync", "libs/MobileSync/MobileSync/Classes/Manager/SFMobileSyncSyncManager.h", {"SFMobileSyncSyncManager": "SyncManager"}),
    ("MobileSync", "libs/MobileSync/MobileSync/Classes/Util/SFSyncState.h", {"SFSyncState": "SyncState"}),
    ("MobileSync", "libs/MobileSync/MobileSync/Classes/Util/SFSyncOptions.h", {"SFSyncOptions": "SyncOptions"}),
    ("MobileSync", "libs/MobileSync/MobileSync/Classes/Target/SFSyncTarget.h", {"SFSyncTarget": "SyncTarget"}),
    ("MobileSync", "libs/MobileSync/MobileSync/Classes/Target/SFSyncDownTarget.h", {"SFSyncDownTarget": "SyncDownTarget"}),
    ("MobileSync", "libs/MobileSync/MobileSync/Classes/Target/SFSoqlSyncDownTarget.h", {"SFSoqlSyncDownTarget": "SoqlSyncDownTarget"}),
    ("MobileSync", "libs/MobileSync/MobileSync/Classes/Target/SFMruSyncDownTarget.h", {"SFMruSyncDownTarget": "MruSyncDownTarget"}),
    ("MobileSync", "libs/MobileSync/MobileSync/Classes/Target/SFRefreshSyncDownTarget.h", {"SFRefreshSyncDownTarget": "RefreshSyncDownTarget"}),
    ("MobileSync", "libs/MobileSync/MobileSync/Classes/Target/SFSyncUpTarget.h", {"SFSyncUpTarget": "SyncUpTarget"}),
    ("MobileSync", "libs/MobileSync/MobileSync/Classes/Util/SFMobileSyncConstants.h", {}),
]
SWIFT_FILES = [
    ("SalesforceSDKCommon", "libs/SalesforceSDKCommon/SalesforceSDKCommon/Classes/Keychain/KeychainHelper.swift"),
    ("SalesforceSDKCore", "libs/SalesforceSDKCore/SalesforceSDKCore/Classes/Security/Encryptor.swift"),
    ("SalesforceSDKCore", "libs/SalesforceSDKCore/SalesforceSDKCore/Classes/Extensions/RestClient.swift"),
    ("SalesforceSDKCore", "libs/SalesforceSDKCore/SalesforceSDKCore/Classes/PushNotification/PushNotificationManager.swift"),
    ("SmartStore", "libs/SmartStore/SmartStore/Classes/Extensions/SmartStore.swift"),
    ("MobileSync", "libs/MobileSync/MobileSync/Classes/Extensions/MobileSync.swift"),
]
PREPOSITIONS = ["With", "For", "By", "From", "In", "Of", "To", "Using", "At", "On"]
# Selectors whose Swift name the SDK's own Swift code shows to differ from the simplified rule above (the
# importer does not split `getIdsToSkip:`: BriefcaseSyncDownTarget.swift overrides `getIdsToSkip(_:soupName:)`).
IMPORTED_AS = {"getIdsToSkip:soupName:": "getIdsToSkip(_:soupName:)"}
UI = re.compile(r"\b(UIViewController|UIScene|UIImage|UIView|UIWindow|UIApplication|UINavigationController|WKWebView|UIColor|ASWebAuthenticationSession)\b")


def show(git_dir, commit, path):
    return subprocess.run(["git", "--git-dir", git_dir, "show", f"{commit}:{path}"], capture_output=True, text=True, check=True).stdout


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", " ", text)


def lower_first(word):
    match = re.match(r"^([A-Z]+)(?=[A-Z][a-z]|$)", word)
    if match and len(match.group(1)) > 1:
        return match.group(1).lower() + word[len(match.group(1)):]
    return word[:1].lower() + word[1:]


def selector_pieces(decl):
    """The selector's pieces (`foo:`) and their parameter types, with block types' nested parentheses."""
    text = re.sub(r"^[+-]\s*\(", "(", decl)
    # skip the return type
    depth, i = 0, 0
    while i < len(text):
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
            if depth == 0:
                i += 1
                break
        i += 1
    text = text[i:]
    pieces, types, consumed = [], [], 0
    for m in re.finditer(r"(\w+)\s*:\s*\(", text):
        if pieces and m.start() < consumed:
            continue
        depth, j = 1, m.end()
        while j < len(text) and depth:
            depth += {"(": 1, ")": -1}.get(text[j], 0)
            j += 1
        pieces.append(m.group(1) + ":")
        types.append(text[m.end():j - 1])
        consumed = j
    return pieces, types


def swift_name_for_selector(pieces, is_class, returns_instance, objc_class, swift_type, first_type=""):
    """The importer's name for a selector without NS_SWIFT_NAME (simplified, documented above)."""
    first = pieces[0]
    labels = pieces[1:]
    if "".join(pieces) in IMPORTED_AS:
        return IMPORTED_AS["".join(pieces)]
    if len(pieces) == 1 and not first.endswith(":"):
        # A class method returning the class, named after it, loses the class's name: `+msdkUserDefaults`
        # on NSUserDefaults is `msdk()`, `+sharedManager` on SFDirectoryManager is `shared()`.
        if is_class and returns_instance:
            words = re.findall(r"[A-Z][a-z]+", objc_class)
            for n in range(len(words), 0, -1):
                suffix = "".join(words[-n:])
                if first.endswith(suffix) and len(first) > len(suffix):
                    return first[: -len(suffix)] + "()"
        return first + "()"
    first = first.rstrip(":")
    labels = [p.rstrip(":") for p in labels]
    # `-initWithPath:indexType:` is `init(path:indexType:)`; a bare `-initWith:` is `init(_:)` (the SDK's Swift
    # calls `CompositeResponse(dict)`).
    if first == "initWith":
        return "init(" + "".join(f"{l}:" for l in ["_"] + labels) + ")"
    if first.startswith("initWith"):
        return "init(" + "".join(f"{l}:" for l in [lower_first(first[len("initWith"):])] + labels) + ")"
    # A factory method named after the class (`+requestWithMethod:` on SFRestRequest) is an initializer.
    words = re.findall(r"[A-Z][a-z]+", objc_class or "")
    class_word = words[-1].lower() if words else ""
    if is_class and returns_instance and class_word:
        match = re.match(rf"^{class_word}With([A-Z]\w*)$", first, flags=re.I)
        if match:
            return "init(" + "".join(f"{label}:" for label in [lower_first(match.group(1))] + labels) + ")"
    split = None
    # A setter-like selector is not split (`setHaltOnError:` is `setHaltOnError(_:)` in the SDK's Swift tests).
    for prep in ([] if re.match(r"^set[A-Z]", first) else PREPOSITIONS):
        for m in re.finditer(prep + r"(?=[A-Z])", first):
            if m.start() > 0 and (split is None or m.start() > split):
                split = m.start()
    if split is not None:
        base, label = first[:split], lower_first(first[split:])
        # The importer drops a label's last word when it names the parameter's type (`FromString:(NSString *)`).
        for word in ("String", "Array", "Dictionary", "Number", "Data", "URL", "Date"):
            if label.endswith(word) and label != word.lower() and first_type and word in first_type:
                label = label[: -len(word)]
    else:
        base, label = first, "_"
        # Omit needless words: a last word that repeats the parameter's class (`addRequest:(SFRestRequest *)` is
        # `add(_:)`, as the SDK's Swift tests call it).
        # Only for the SDK's own classes, and not for setters (`setCustomRequestBodyData:` keeps its name).
        cls = None if re.match(r"^set[A-Z]", first) else re.match(r"\s*(?:nullable\s+|nonnull\s+)?(SF[A-Z]\w+)\s*\*", first_type or "")
        tail = re.findall(r"[A-Z][a-z]+", cls.group(1))[-1] if cls and re.findall(r"[A-Z][a-z]+", cls.group(1)) else None
        if tail and base.endswith(tail) and len(base) > len(tail) and base[-len(tail) - 1].islower():
            base = base[: -len(tail)]
    return f"{base}(" + "".join(f"{l}:" for l in [label] + labels) + ")"


UI_BASES = {"UIViewController", "UINavigationController", "UITableViewController", "UITableViewCell", "UIWindow", "UIView",
            "UIColor", "UIScreen", "UIApplication", "UIAlertController", "UIButton", "UILabel"}
BLOCK = re.compile(r"(?:NS_SWIFT_NAME\(([\w.]+)\)\s*)?@(interface|protocol)\s+(\w+)\s*(\(\s*\w*\s*\))?\s*(?::\s*(\w+))?([^\n;]*)\n(.*?)@end", re.S)
# Filled by main() from every public header: Objective-C class -> Swift name, and class -> superclass.
SWIFT_NAMES = {"NSUserDefaults": "UserDefaults"}
SUPERCLASS = {}


def scan_types(clean):
    """Record the Swift name (NS_SWIFT_NAME before the @interface) and superclass of every class in a header."""
    for m in BLOCK.finditer(clean):
        swift, _, objc, category, superclass = m.group(1), m.group(2), m.group(3), m.group(4), m.group(5)
        if swift and not category:
            SWIFT_NAMES[objc] = swift
        if superclass and not category:
            SUPERCLASS[objc] = superclass


def ui_class(objc):
    seen = set()
    while objc and objc not in seen:
        if objc in UI_BASES:
            return True
        seen.add(objc)
        objc = SUPERCLASS.get(objc)
    return False


def blocks(clean, classes):
    """Every @interface (class, category or extension) and @protocol body of a header: with `classes`, those
    classes only under the names given; without, all of them, each under its Swift name. A class that is a view
    (UIKit in its ancestry, or a category on a UIKit class) is UI as a whole."""
    for m in BLOCK.finditer(clean):
        kind, objc, category, body = m.group(2), m.group(3), m.group(4), m.group(7)
        if classes is not None:
            if objc in classes:
                yield objc, classes[objc], body, None
            continue
        swift = SWIFT_NAMES.get(objc, objc)
        reason = "UI: a view or view controller" if ui_class(objc) else None
        yield objc, swift, body, reason


def type_entries(module, path, clean):
    """The public types a header declares (classes, protocols, enums), as entries named by their Swift name."""
    found = []
    for m in BLOCK.finditer(clean):
        kind, objc, category = m.group(2), m.group(3), m.group(4)
        if category:
            continue
        found.append((SWIFT_NAMES.get(objc, objc), "class" if kind == "interface" else "protocol", objc))
    for m in re.finditer(r"typedef\s+NS_(?:ENUM|OPTIONS|CLOSED_ENUM|ERROR_ENUM)\s*\(\s*\w+\s*,\s*(\w+)\s*\)\s*\{[^}]*\}\s*(?:NS_SWIFT_NAME\(([\w.]+)\))?", clean):
        found.append((m.group(2) or m.group(1), "enum", m.group(1)))
    entries, left_out = [], []
    for swift, kind, objc in found:
        owner, name = (swift.rsplit(".", 1) if "." in swift else (None, swift))
        record = {"module": module, "type": owner, "name": name, "kind": kind, "from": path, "declaration": f"{kind} {objc}"}
        (left_out.append(dict(record, reason="UI: a view or view controller")) if ui_class(objc) else entries.append(record))
    return entries, left_out


def header_entries(module, path, classes, text):
    entries, left_out = [], []
    clean = strip_comments(text)
    # Constants with a Swift name on a type (`NS_SWIFT_NAME(SmartStore.defaultStoreName)`) or global ones.
    for m in re.finditer(r"(?:extern|FOUNDATION_EXTERN)\s+[^;]*?\b(\w+)\s*(?:NS_SWIFT_NAME\(([\w.]+)\))?\s*;", clean):
        name, swift = m.group(1), m.group(2)
        if swift and "." in swift:
            owner, member = swift.rsplit(".", 1)
            entries.append({"module": module, "type": owner, "name": member, "kind": "constant", "from": path, "declaration": m.group(0).strip()})
        else:
            entries.append({"module": module, "type": None, "name": swift or name, "kind": "constant", "from": path, "declaration": m.group(0).strip()})
    for objc_class, swift_type, body, ui_reason in blocks(clean, classes):
        decls = re.split(r";\s*\n", body)
        for decl in decls:
            decl = " ".join(decl.split())
            if not decl or decl.startswith("{"):
                continue
            record = {"module": module, "type": swift_type, "from": path, "declaration": decl[:300]}
            if "NS_SWIFT_UNAVAILABLE" in decl or "NS_UNAVAILABLE" in decl or "__attribute__((unavailable" in decl:
                left_out.append(dict(record, reason="unavailable in Swift"))
                continue
            if ui_reason or UI.search(decl):
                left_out.append(dict(record, reason=ui_reason or "UI"))
                continue
            explicit = re.search(r"NS_SWIFT_NAME\(([^()]*(?:\([^()]*\))?)\)", decl)
            if decl.startswith("@property"):
                name_match = re.search(r"\**\s*(\w+)\s*(?:NS_SWIFT_NAME|API_|NS_|__|$)", decl.split(")", 1)[1] if ")" in decl else decl)
                name = explicit.group(1) if explicit else (name_match.group(1) if name_match else None)
                getter = re.search(r"getter\s*=\s*(\w+)", decl)
                if getter and not explicit:
                    name = getter.group(1)
                if not name:
                    continue
                kind = "class property" if re.search(r"\(\s*[^)]*\bclass\b", decl) else "property"
                entries.append(dict(record, name=name, kind=kind))
                continue
            if not (decl.startswith("-") or decl.startswith("+")):
                continue
            if re.search(r"format:\s*\([^)]*\)\s*\w+\s*,\s*\.\.\.", decl) or "va_list" in decl:
                left_out.append(dict(record, reason="variadic (not imported into Swift)"))
                continue
            is_class = decl.startswith("+")
            returns_instance = bool(re.match(r"[+-]\s*\(\s*(nullable\s+|nonnull\s+)?(instancetype|" + re.escape(objc_class) + r"\s*\*)", decl))
            if explicit:
                name = explicit.group(1)
                if "(" not in name:
                    name += "()"
            else:
                pieces, types = selector_pieces(decl)
                # An `NSError **` last parameter becomes `throws`; a selector that was only that keeps its name.
                throws = bool(pieces) and "NSError" in types[-1] and types[-1].count("*") >= 2
                only = pieces[0].rstrip(":") if throws and len(pieces) == 1 else None
                if throws:
                    pieces, types = pieces[:-1], types[:-1]
                if only:
                    pieces = [only]
                if not pieces:
                    bare = re.sub(r"^[+-]\s*\([^)]*\)\s*", "", decl)
                    base = re.match(r"\s*(\w+)", bare).group(1)
                    if throws:
                        base = base  # `- (BOOL)foo:(NSError**)error` is `foo() throws`
                    pieces = [base]
                elif throws and len(pieces) >= 1 and False:
                    pass
                name = swift_name_for_selector(pieces, is_class, returns_instance, objc_class, swift_type, types[0] if types else "")
            if name.startswith("getter:") or name.startswith("setter:"):
                continue
            entries.append(dict(record, name=name, kind="class method" if is_class else "method"))
    return entries, left_out


def swift_entries(module, path, text):
    entries = []
    clean = strip_comments(text)
    owner = None
    depth = 0
    # Logical lines: a declaration whose parameters span lines is joined until its parentheses close.
    logical, buf, open_parens = [], "", 0
    for raw in clean.splitlines():
        buf = (buf + " " + raw.strip()) if buf else raw
        open_parens += raw.count("(") - raw.count(")")
        if open_parens <= 0:
            logical.append(buf)
            buf, open_parens = "", 0
    if buf:
        logical.append(buf)
    previous = ""
    for line in logical:
        stripped = line.strip()
        obsolete = "obsoleted" in previous or "obsoleted" in stripped
        previous = stripped
        m = re.match(r"^(?:@\w+(?:\([^)]*\))?\s+)*(?:public\s+|open\s+)(?:final\s+)?(class|struct|enum|protocol)\s+(\w+)", stripped)
        e = re.match(r"^(?:@\w+(?:\([^)]*\))?\s+)*(?:public\s+)?extension\s+(\w+)", stripped)
        if depth == 0 and (m or e):
            owner = m.group(2) if m else e.group(1)
            if m:
                entries.append({"module": module, "type": None, "name": owner, "kind": m.group(1), "from": path, "declaration": stripped[:300]})
        elif depth >= 1 and owner:
            f = re.match(r"^(?:@\w+(?:\([^)]*\))?\s+)*(?:public|open)\s+(?:static\s+|class\s+|override\s+|final\s+)*(func|var|let|init|case|typealias)\b\s*(\w*)(.*)", stripped)
            if f and (obsolete or re.match(r"^\W", f.group(2) or "x") or (f.group(1) == "func" and not f.group(2))):
                pass  # `@available(swift, obsoleted: 1.0)`: Objective-C only, Swift does not see it
            elif f and not stripped.startswith("public case") and f.group(1) != "typealias":
                kind, name, rest = f.group(1), f.group(2), f.group(3)
                if kind == "init":
                    rest = stripped[stripped.index("init") + 4:]
                    name = "init"
                if kind in ("func", "init"):
                    rest = re.sub(r"^\s*<[^>]*>", "", rest).replace("->", " returns ")
                    params = rest[rest.index("(") + 1:] if "(" in rest else ""
                    depth_p, buf, args = 0, "", []
                    for ch in params:
                        if ch in "([<":
                            depth_p += 1
                        if ch in ")]>":
                            if depth_p == 0:
                                args.append(buf)
                                break
                            depth_p -= 1
                        if ch == "," and depth_p == 0:
                            args.append(buf)
                            buf = ""
                        else:
                            buf += ch
                    labels = []
                    for arg in args:
                        arg = arg.strip()
                        if not arg:
                            continue
                        head = arg.split(":")[0].split()
                        labels.append(head[0] if head else "_")
                    name = f"{name}(" + "".join(f"{l}:" for l in labels) + ")"
                entries.append({"module": module, "type": owner, "name": name, "kind": {"var": "property", "let": "property", "func": "method", "init": "initializer"}[kind],
                                "from": path, "declaration": stripped[:300]})
        depth += line.count("{") - line.count("}")
        if depth <= 0:
            depth = 0
            owner = None if not (m or e) else owner
    return entries


MODULES = ["SalesforceSDKCommon", "SalesforceSDKCore", "SmartStore", "MobileSync"]
SWIFT_UI = re.compile(r"\b(View|UIViewController|UIHostingController|UIView|UIWindow|UIColor|UIImage|UIScene|UIApplication|WKWebView|ASWebAuthenticationSession|LAContext|Color|Image|some View|SwiftUI)\b")


def public_files(git_dir, commit):
    """Each module's public headers (those its umbrella header imports) and its Swift files outside tests."""
    tree = subprocess.run(["git", "--git-dir", git_dir, "ls-tree", "-r", "--name-only", commit, "libs"], capture_output=True, text=True, check=True).stdout.split()
    headers, swift = [], []
    for module in MODULES:
        own = [p for p in tree if p.startswith(f"libs/{module}/{module}/") and "Test" not in p]
        by_name = {p.rsplit("/", 1)[1]: p for p in own if p.endswith(".h")}
        umbrella = show(git_dir, commit, f"libs/{module}/{module}/{module}.h")
        for name in re.findall(rf"#import\s*<{module}/([\w+]+\.h)>", umbrella):
            if name in by_name and name != f"{module}.h":
                headers.append((module, by_name[name]))
        swift += [(module, p) for p in own if p.endswith(".swift")]
    return headers, swift


def ui_swift(entries):
    """Swift entries that are UI: a type whose declaration names a view (SwiftUI or UIKit), its members, and any
    member whose declaration names one."""
    ui_types = {e["name"] for e in entries if e["type"] is None and e["kind"] in ("class", "struct", "enum", "protocol") and SWIFT_UI.search(e["declaration"].split("{")[0].split(":", 1)[-1])}
    kept, left = [], []
    for e in entries:
        if (e["type"] is None and e["name"] in ui_types) or e["type"] in ui_types or SWIFT_UI.search(e["declaration"]):
            left.append(dict(e, reason="UI: a view, or a member that takes or returns one"))
        else:
            kept.append(e)
    return kept, left


def main():
    git_dir, commit, out = sys.argv[1:4]
    headers, swift_files = public_files(git_dir, commit)
    texts = {path: strip_comments(show(git_dir, commit, path)) for _, path in headers}
    for path in texts:
        scan_types(texts[path])
    named_paths = {path for _, path, _ in HEADERS} | {path for _, path in SWIFT_FILES}
    named = set()
    entries, left_out = [], []
    # The classes the data layers and extensions use (the first count, issue 26): their keys are marked `named`.
    for module, path, classes in HEADERS:
        found, skipped = header_entries(module, path, classes, show(git_dir, commit, path))
        named |= {(e["module"], e["type"], e["name"]) for e in found}
        entries += found
        left_out += skipped
    for module, path in SWIFT_FILES:
        found = swift_entries(module, path, show(git_dir, commit, path))
        named |= {(e["module"], e["type"], e["name"]) for e in found}
        entries += found
    # Then every public entry point of the four modules (issue 37): every class, category and protocol of every
    # header the umbrella header imports, and every public declaration of every Swift file.
    for module, path in headers:
        found, skipped = header_entries(module, path, None, texts[path])
        types, ui_types = type_entries(module, path, texts[path])
        entries += found + types
        left_out += skipped + ui_types
    for module, path in swift_files:
        found, skipped = ui_swift(swift_entries(module, path, show(git_dir, commit, path)))
        entries += found
        left_out += skipped
    seen, unique = set(), []
    for entry in entries:
        key = (entry["module"], entry["type"], entry["name"])
        if key not in seen:
            seen.add(key)
            unique.append(dict(entry, named=key in named))
    seen_left, unique_left = set(seen), []
    for entry in left_out:
        key = (entry["module"], entry["type"], entry["name"] if "name" in entry else entry["declaration"])
        if key not in seen_left:
            seen_left.add(key)
            unique_left.append(entry)
    data = {
        "sdk": "forcedotcom/SalesforceMobileSDK-iOS", "commit": commit,
        "note": "names and signatures only, extracted by scripts/sdk-api/extract-entry-points.py",
        "entryPoints": unique, "leftOutBySDK": unique_left,
    }
    with open(out, "w") as f:
        json.dump(data, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"{len(unique)} entry points ({len(named)} in the named classes), {len(unique_left)} left out (UI, unavailable, variadic) -> {out}")


if __name__ == "__main__":
    main()
