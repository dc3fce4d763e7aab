import Foundation

/// The widget drawn for a person: a small text card for the terminal (`extension-widget`), or as on
/// the home screen, one self-contained HTML page (inline CSS, no script, no network) for `--render html`.
package enum WidgetCard {
    /// The small card a person reads.
    package static func text(_ report: AppWidget.Report) -> String {
        var lines = ["┌─ \(report.title) " + String(repeating: "─", count: max(4, 46 - report.title.count))]
        if let user = report.user { lines.append("│ \(user.username)") }
        switch report.state {
        case .listed:
            for c in report.contacts {
                let name = [c.FirstName, c.LastName].compactMap { $0 }.joined(separator: " ")
                lines.append("│ • \(name.padding(toLength: 26, withPad: " ", startingAt: 0)) \(c.LastModifiedDate?.prefix(16).replacingOccurrences(of: "T", with: " ") ?? "")")
            }
            if report.contacts.isEmpty {
                for record in report.records {
                    lines.append("│ • " + record.filter { $0.key != "Id" }.sorted { $0.key < $1.key }.map(\.value).joined(separator: " · "))
                }
            }
            if report.records.isEmpty { lines.append("│ \(report.message)") }
        default:
            lines.append("│ [\(report.state.rawValue)] \(report.message)")
        }
        lines.append("└" + String(repeating: "─", count: 48))
        return lines.joined(separator: "\n")
    }

    package static func html(_ report: AppWidget.Report, now: Date = Date()) -> String {
        var body: String
        switch report.state {
        case .listed:
            if report.contacts.isEmpty {
                body = "<p class=\"empty\">\(escape(report.message))</p>"
            } else {
                body = "<ul>" + report.contacts.map { row($0, now: now) }.joined() + "</ul>"
            }
        case .notLoggedIn:
            body = state(lockIcon, "Not logged in", "Open MobileSyncExplorer and log in to see your recent contacts.", report.message)
        case .misconfigured:
            body = state(warningIcon, "Widget misconfigured", "The widget and the app do not share their app group or keychain group.", report.message)
        case .keychainUnavailable:
            body = state(lockIcon, "Keychain unavailable", "Unlock the device to see your recent contacts.", report.message)
        case .dataProtected:
            body = state(lockIcon, "Locked", "Unlock the device to see your recent contacts.", report.message)
        case .unreadable:
            body = state(warningIcon, "Cannot read the app's data", "A file the widget reads is missing or damaged; nothing was changed.", report.message)
        }
        let user = report.user.map { "<span class=\"user\">\(escape($0.username))</span>" } ?? ""
        return """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><title>\(escape(report.title))</title>
            <style>
            html,body{margin:0;background:#d9dde3;font-family:"DejaVu Sans",-apple-system,Helvetica,Arial,sans-serif}
            .card{box-sizing:border-box;width:360px;min-height:180px;margin:20px;padding:14px 16px;border-radius:22px;
              background:#fff;box-shadow:0 2px 10px rgba(0,0,0,.18);color:#1c1c1e}
            header{display:flex;justify-content:space-between;align-items:baseline;margin-bottom:8px}
            h1{font-size:15px;margin:0;color:#0b5cab}
            .user{font-size:11px;color:#6e6e73;overflow:hidden;text-overflow:ellipsis;white-space:nowrap;max-width:180px}
            ul{list-style:none;margin:0;padding:0}
            li{display:flex;align-items:center;padding:5px 0;border-top:1px solid #ececf0}
            li:first-child{border-top:none}
            .avatar{flex:none;width:32px;height:32px;border-radius:50%;color:#fff;font-size:13px;font-weight:bold;
              display:flex;align-items:center;justify-content:center;margin-right:10px}
            .name{flex:1;font-size:14px;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
            .time{font-size:11px;color:#6e6e73;margin-left:8px;white-space:nowrap}
            .state{text-align:center;padding:10px 4px}
            .state .icon{height:30px}
            .state h2{font-size:15px;margin:6px 0 4px}
            .state p{font-size:12px;color:#3a3a3c;margin:0 0 6px}
            .state .detail{font-size:10px;color:#8e8e93}
            .empty{font-size:13px;color:#6e6e73}
            </style></head>
            <body data-state="\(report.state.rawValue)"><div class="card">
            <header><h1>\(escape(report.title))</h1>\(user)</header>
            \(body)
            </div></body></html>
            """
    }

    static func row(_ c: AppWidget.Contact, now: Date) -> String {
        let name = [c.FirstName, c.LastName].compactMap { $0 }.joined(separator: " ")
        let initials = [c.FirstName, c.LastName].compactMap { $0?.first.map(String.init) }.joined().uppercased()
        return "<li><span class=\"avatar\" style=\"background:\(color(for: c.Id))\">\(escape(initials.isEmpty ? "?" : initials))</span>"
            + "<span class=\"name\">\(escape(name.isEmpty ? c.Id : name))</span>"
            + "<span class=\"time\">\(escape(relative(c.LastModifiedDate, now: now)))</span></li>"
    }

    /// Inline SVG, so the card needs no emoji font.
    static let lockIcon = """
        <svg width="30" height="30" viewBox="0 0 24 24" fill="none" stroke="#0b5cab" stroke-width="2"><rect x="5" y="11" width="14" height="10" rx="2" fill="#0b5cab"/><path d="M8 11V7a4 4 0 0 1 8 0v4"/></svg>
        """
    static let warningIcon = """
        <svg width="30" height="30" viewBox="0 0 24 24"><path d="M12 2 23 21H1z" fill="#dd7a01"/><rect x="11" y="8" width="2" height="7" fill="#fff"/><rect x="11" y="17" width="2" height="2" fill="#fff"/></svg>
        """

    static func state(_ icon: String, _ title: String, _ text: String, _ detail: String) -> String {
        "<div class=\"state\"><div class=\"icon\">\(icon)</div><h2>\(escape(title))</h2><p>\(escape(text))</p><p class=\"detail\">\(escape(detail))</p></div>"
    }

    /// A stable colour per contact, from a small palette with white text contrast.
    static func color(for id: String) -> String {
        let palette = ["#0b5cab", "#2e844a", "#ba0517", "#8a033e", "#3e3e3c", "#032d60", "#a96404", "#5a1ba9"]
        var hash: UInt32 = 2_166_136_261
        for byte in id.utf8 { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        return palette[Int(hash % UInt32(palette.count))]
    }

    /// "5 min ago", "3 h ago", "2 d ago", or the date, from Salesforce's `2026-01-02T03:04:05.000+0000`.
    static func relative(_ value: String?, now: Date) -> String {
        guard let value else { return "" }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss.SSSZ"
        guard let date = formatter.date(from: value) else { return String(value.prefix(10)) }
        let seconds = now.timeIntervalSince(date)
        switch seconds {
        case ..<60: return "just now"
        case ..<3600: return "\(Int(seconds / 60)) min ago"
        case ..<86_400: return "\(Int(seconds / 3600)) h ago"
        case ..<(86_400 * 30): return "\(Int(seconds / 86_400)) d ago"
        default:
            formatter.dateFormat = "MMM d, yyyy"
            formatter.timeZone = TimeZone(identifier: "UTC")
            return formatter.string(from: date)
        }
    }

    static func escape(_ s: String) -> String {
        var out = ""
        for ch in s {
            switch ch {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(ch)
            }
        }
        return out
    }
}
