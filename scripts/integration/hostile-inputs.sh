#!/usr/bin/env bash
# The hostile org and the hostile project (issue 34), with the real binaries, a real keyring and real sockets:
# 1. a rogue org whose identity URL names a user id of `..` (and other ids that are not user ids): the login is
#    refused with one line, and nothing on the device or in the keychain changes (both hashed before and after);
#    alice, logged in from the real org, keeps her account, which a logout of `..` used to delete;
# 2. a project that climbs out of its folder and back in (`../…` to its own file), names a file of its own like
#    the import's generated one, has a type error in two files and a file nested 10,000 deep: the import writes
#    only inside the package (the project and the folder around it hashed before and after), leaves the two
#    broken files out in one build, and refuses the deep file by name; doctor reads the same project without a
#    crash and says it could not read that file.
# scripts/test: scratch (it builds consumer packages in the shared scratch path, AppGroupSim's own .build)
APPGROUPSIM_NEEDS_KEYRING=1 source "$(dirname "$0")/../lib/integration.sh"
SCRATCH="$ROOT/.build"
DEV="$WORK/device"
app() { "$BIN/main-app" --bundle "$APP" --device "$DEV" "$@"; }
# tree_hash DIR: every path under DIR with its kind and content hash, hashed (a link by its target). An app's
# instance lock (.running.lock, the pid of the last launch) is a process marker, not data: left out.
tree_hash() {
  python3 - "$1" <<'PY'
import hashlib, os, sys
root, h = sys.argv[1], hashlib.sha256()
for dirpath, dirs, files in os.walk(root, followlinks=False):
    dirs.sort()
    for name in sorted(dirs + files):
        if name == ".running.lock": continue
        p = os.path.join(dirpath, name)
        rel = os.path.relpath(p, root)
        if os.path.islink(p): h.update(f"{rel} -> {os.readlink(p)}\n".encode())
        elif os.path.isdir(p): h.update(f"{rel}/\n".encode())
        else: h.update(f"{rel} {hashlib.sha256(open(p, 'rb').read()).hexdigest()}\n".encode())
print(h.hexdigest())
PY
}
keychain_hash() { sdk_items | sha256sum | cut -c1-16; }

# 1. The rogue org.
start_org
expect_status 0 app --org "$ORG" login --username alice@acme.test --password alice-pass
expect_status 0 app --org "$ORG" sync
n=0
for id in ".." "." "0055g00000AliceAA/" "0015g00000AliceAAA" "00D5g00000AcmeeEAA"; do
  # A file per rogue: with one file, the wait below could read the previous rogue's line before the new one's
  # redirection emptied the file, and then read the emptied file (seen in CI: --org "", "no org URL").
  n=$((n + 1))
  rogue_out="$WORK/rogue-$n.out"
  python3 "$ROOT/scripts/integration/rogue_org.py" --user-id "$id" >"$rogue_out" 2>&1 &
  ROGUE_PID=$!
  for _ in $(seq 1 600); do grep -q listening "$rogue_out" 2>/dev/null && break; sleep 0.05; done
  ROGUE=$(awk '/^listening on /{print $3}' "$rogue_out" 2>/dev/null)
  [ -n "$ROGUE" ] || fail "the rogue org ($id) did not say where it listens within 30 s: $(cat "$rogue_out" 2>/dev/null)"
  BEFORE_DEVICE=$(tree_hash "$DEV")
  BEFORE_KEYCHAIN=$(keychain_hash)
  expect_status 1 app --org "$ROGUE" login --username rogue@rogue.test --password x
  [ "$(printf '%s\n' "$ERR" | grep -c .)" -eq 1 ] || fail "the rogue login ($id) gave more than one line: $ERR"
  contains "$ERR" "login refused"
  contains "$ERR" "which is not a Salesforce"
  case "$ERR" in *rogue-access-token*|*rogue-refresh-token*) fail "a token was printed: $ERR" ;; esac
  [ "$BEFORE_DEVICE" = "$(tree_hash "$DEV")" ] || fail "the refused login ($id) changed the device"
  [ "$BEFORE_KEYCHAIN" = "$(keychain_hash)" ] || fail "the refused login ($id) changed the keychain"
  kill "$ROGUE_PID"; wait "$ROGUE_PID" 2>/dev/null || true
done
expect_status 0 app status --json
[ "$(field "$OUT" 'd["currentUser"]')" = alice@acme.test ] || fail "alice is no longer the current user: $OUT"
[ "$(field "$OUT" 'len(d["accounts"])')" = 1 ] || fail "the accounts changed: $OUT"
expect_status 0 app --org "$ORG" logout
ok "a rogue org naming '..', '.', a path, an account id or an org id as the user: each login refused with one line; the device and the keychain unchanged (hashed); alice stayed logged in"

# 2. The hostile project.
PROJ="$WORK/around/proj"
mkdir -p "$WORK/around"
cp -r "$ROOT/Fixtures/Recents" "$PROJ"
echo "the folder around the project" > "$WORK/around/neighbour.txt"
PBX="$PROJ/Recents.xcodeproj/project.pbxproj"
python3 - "$PBX" "$PROJ" <<'PY'
import sys
pbx, proj = sys.argv[1], sys.argv[2]
text = open(pbx).read()
# Up past / and down again to the project's own file: the same file, reached from outside.
climb = "../" * 40 + proj.lstrip("/") + "/Shared/RecentContacts.swift"
text = text.replace("path = RecentContacts.swift;", f'path = "{climb}";')
# A file of the project named like the import's generated one.
text = text.replace("DeepLink.swift", "AppGroupSimImport.swift")
open(pbx, "w").write(text)
PY
mv "$PROJ/Recents/DeepLink.swift" "$PROJ/Recents/AppGroupSimImport.swift"
# A type error in two files; a file nested 10,000 deep.
printf '\nlet brokenOne: Int = "one"\n' >> "$PROJ/Recents/ContactsData.swift"
printf '\nlet brokenTwo: Int = "two"\n' >> "$PROJ/Recents/AppSetup.swift"
python3 -c 'import sys; open(sys.argv[1], "w").write("let deep = " + "(" * 10000 + "1" + ")" * 10000 + "\n")' "$PROJ/Recents/ContactColors.swift"
BEFORE_PROJECT=$(tree_hash "$WORK/around")
expect_status 0 "$BIN/msdk-sim" import --xcodeproj "$PROJ/Recents.xcodeproj" --package "$WORK/out/pkg" --scratch-path "$SCRATCH"
IMPORT=$OUT
scratch_done  # what follows reads the import's output and runs doctor: nothing in the scratch path
[ "$BEFORE_PROJECT" = "$(tree_hash "$WORK/around")" ] || fail "the import changed the project or the folder around it"
[ "$(ls -A "$WORK/out")" = pkg ] || fail "the import wrote beside the package: $(ls -A "$WORK/out")"
PKG="$WORK/out/pkg"
# The developer's file stays theirs (compiled, or left out with its own error: it uses ContactsData).
theirs=$(ls "$PKG"/Sources/Recents/Recents/AppGroupSimImport.swift "$PKG"/LeftOut/Recents/Recents/AppGroupSimImport.swift 2>/dev/null | head -1 || true)
[ -n "$theirs" ] && cmp -s "$theirs" "$PROJ/Recents/AppGroupSimImport.swift" || fail "the developer's AppGroupSimImport.swift was replaced or lost"
grep -q "public enum AppGroupSimImport" "$PKG/Sources/Recents/AppGroupSimImport2.swift" || fail "the generated file is not beside the developer's: $(ls "$PKG/Sources/Recents")"
[ -f "$PKG/Sources/RecentsWidget/Shared/RecentContacts.swift" ] || fail "the climbing source is not the project's Shared/RecentContacts.swift in the package"
contains "$IMPORT" "left out: Recents/ContactsData.swift:"
contains "$IMPORT" "left out: Recents/AppSetup.swift:"
contains "$IMPORT" "Recents/ContactColors.swift:1: not read: brackets, parentheses, braces and #if nested more than 200 deep"
contains "$IMPORT" "swift build: built"
# The first build names both broken files, and both are left out after it: one file a build would take 4
# builds here (ContactsData, AppSetup, then the file that used ContactsData, then the one that builds), this 3.
first=$(awk '/^Building for debugging/{n++} n==1' "$PKG/build.log")
contains "$first" "Recents/ContactsData.swift:68:"
contains "$first" "Recents/AppSetup.swift:18:"
builds=$(grep -c "^Building for debugging" "$PKG/build.log")
[ "$builds" = 3 ] || fail "the broken files took $builds builds, not 3"
long=$(printf '%s\n' "$IMPORT" | awk 'length > 400' | head -1)
[ -z "$long" ] || fail "a line quotes too much input: ${long:0:200}…"
grep -q "\.package-\|\.import-" <<< "$(ls -a "$WORK/out" "$WORK/around")" && fail "a staging folder was left behind"
ok "the hostile project: nothing outside the package changed (hashed), the developer's AppGroupSimImport.swift kept beside the generated one, two broken files left out after one build (3 builds where one file a build took 4), the 10,000-deep file refused by name"

expect_status 1 "$BIN/msdk-sim" doctor --xcodeproj "$PROJ/Recents.xcodeproj" --json
contains "$OUT" '"code-not-read"'
contains "$OUT" "nested more than 200 deep"
[ "$BEFORE_PROJECT" = "$(tree_hash "$WORK/around")" ] || fail "doctor changed the project"
ok "doctor on the same project: no crash, the deep file reported as code-not-read, nothing changed"
