// The JSON value, reader and writer are FastJSON's (the base module the data layer shares); re-exported
// so that code importing SmartStore keeps `JSON` as before.
import FastJSON

package typealias SoupEntry = [String: JSON]
