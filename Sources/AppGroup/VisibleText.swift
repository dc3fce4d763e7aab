/// An identifier read from a file (an app group, a keychain group, a key, a label), as a message shows it:
/// printable ASCII as it is, everything else escaped as Swift writes it (`\u{435}`). Two ids that differ
/// only by a look-alike character (a Cyrillic `е` for `e`, a zero-width space) then differ visibly.
package func visible(_ id: String) -> String {
    var out = ""
    for scalar in id.unicodeScalars {
        if scalar.value >= 0x20, scalar.value < 0x7F, scalar != "\\" {
            out.unicodeScalars.append(scalar)
        } else if scalar == "\\" {
            out += "\\\\"
        } else {
            out += "\\u{\(String(scalar.value, radix: 16))}"
        }
    }
    return out
}
