// The baseline of the widget's cold-start benchmark: a Swift binary that prints one line,
// built the same way (SwiftPM, release, same toolchain and Foundation).
import Foundation

print("hello")
