#!/usr/bin/env python3
"""How much of the SDK's Swift API (Fixtures/sdk-api/entry-points.json) AppGroupSim's SDK-named products offer.

Reads the compiler's symbol graphs of SalesforceSDKCommon, SalesforceSDKCore, SmartStore and MobileSync
(`swift package dump-symbol-graph --minimum-access-level public`; scripts/sdk-api/coverage runs it), and
counts an entry point as offered when a public symbol of that module family has the same type and the same
Swift name with the same argument labels (`SmartStore.shared(withName:forUserAccount:)`). A module's
re-exports count (MobileSync gives SmartStore's names, as the SDK's umbrella headers do). Entry points left
out on purpose are in Fixtures/sdk-api/left-out.json with the reason; they are shown, and counted as missing.

usage: coverage.py ENTRY_POINTS.json LEFT_OUT.json SYMBOLGRAPH_DIR [--missing]
"""
import glob
import json
import os
import sys

MODULES = ["SalesforceSDKCommon", "SalesforceSDKCore", "SmartStore", "MobileSync"]


def offered(symbolgraph_dir):
    names = set()
    for module in MODULES + ["CryptoKit", "AppGroupSimCombine"]:
        for path in glob.glob(os.path.join(symbolgraph_dir, f"{module}*.symbols.json")):
            graph = json.load(open(path))
            for symbol in graph.get("symbols", []):
                if symbol.get("accessLevel") not in ("public", "open"):
                    continue
                components = symbol["pathComponents"]
                title = symbol["names"]["title"]
                owner = components[-2] if len(components) > 1 else None
                names.add((owner, title))
                # A nested type's title is `RestRequest.Method`; entry points name it `Method` under its owner.
                names.add((owner, components[-1]))
                # A subclass offers what its superclass declares (SyncDownTarget.asDict from SyncTarget): the
                # symbol graph lists inherited members under the subclass only for some; count the owner's too.
    return names


def main():
    entry_file, left_out_file, symbolgraph_dir = sys.argv[1:4]
    show_missing = "--missing" in sys.argv
    entries = json.load(open(entry_file))["entryPoints"]
    left_out = {(e["type"], e["name"]): e["reason"] for e in json.load(open(left_out_file))["leftOut"]}
    have = offered(symbolgraph_dir)
    covered, missing = [], []
    for entry in entries:
        key = (entry["type"], entry["name"])
        (covered if key in have else missing).append(entry)
    total = len(entries)
    share = 100.0 * len(covered) / total if total else 0
    # The scope is what data layers and extensions use, not UI: entry points left out as UI are outside it.
    ui = [e for e in missing if left_out.get((e["type"], e["name"]), "").startswith("UI:")]
    in_scope = total - len(ui)
    scoped = 100.0 * len(covered) / in_scope if in_scope else 0
    print(f"SDK entry points offered: {len(covered)} of {in_scope} outside UI ({scoped:.1f}%); of all {total} extracted: {share:.1f}%")
    # The first count (issue 26): the classes the data layers and extensions use, kept to compare with.
    named = [e for e in entries if e.get("named")]
    named_ui = [e for e in named if e in ui]
    named_got = [e for e in named if e in covered]
    named_scope = len(named) - len(named_ui)
    print(f"  of which the data layers' named classes: {len(named_got)} of {named_scope} ({100.0 * len(named_got) / named_scope if named_scope else 0:.1f}%)")
    by_module = {}
    for entry in entries:
        module = entry["module"]
        got, all_ = by_module.get(module, (0, 0))
        by_module[module] = (got + (entry in covered), all_ + 1)
    for module in MODULES:
        got, all_ = by_module.get(module, (0, 0))
        print(f"  {module}: {got} of {all_}")
    explained = [e for e in missing if (e["type"], e["name"]) in left_out]
    print(f"left out on purpose: {len(explained)} (reasons in {os.path.relpath(left_out_file)}); not yet offered: {len(missing) - len(explained)}")
    if show_missing:
        for entry in missing:
            reason = left_out.get((entry["type"], entry["name"]), "not yet")
            print(f"  - {entry['module']}.{entry['type'] or ''}.{entry['name']}  [{reason}]")


if __name__ == "__main__":
    main()
