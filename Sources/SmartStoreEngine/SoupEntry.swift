// The JSON value, reader and writer are FastJSON's (the base module the data layer shares); re-exported
// so that code importing SmartStore keeps `JSON` as before.
@_exported import FastJSON

package typealias SoupEntry = [String: JSON]
