import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import NIOHTTPTypes
import NIOCore
import NIOHTTP1

/// The outermost middleware: whatever a route or the router throws (no such route, a body over the
/// limit, a method the route does not take) is answered in Salesforce's error shape,
/// `[{"message", "errorCode", "fields"}]`, with the status the error carries. A client never gets an
/// empty error body.
struct ErrorShapeMiddleware: RouterMiddleware {
    typealias Context = OrgContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as SalesforceError {
            return error.outcome.response
        } catch let error as HTTPError {
            return Self.outcome(error.status, detail: error.body).response
        } catch {
            return SalesforceError.unknown(error).outcome.response
        }
    }

    static func outcome(_ status: HTTPResponse.Status, detail: String?) -> Outcome {
        switch status {
        case .notFound:
            return HTTP.error(.notFound, "NOT_FOUND", "The requested resource does not exist")
        case .contentTooLarge:
            return HTTP.error(.contentTooLarge, "REQUEST_ENTITY_TOO_LARGE", "The request body exceeds the limit of \(HTTP.maxBodyBytes >> 20) MB")
        case .methodNotAllowed:
            return HTTP.error(.methodNotAllowed, "METHOD_NOT_ALLOWED", "HTTP method not allowed for this resource")
        case .badRequest:
            return HTTP.error(.badRequest, "MALFORMED_REQUEST", detail ?? "The request is malformed")
        default:
            return HTTP.error(status, status.code >= 500 ? "UNKNOWN_EXCEPTION" : "INVALID_REQUEST", detail ?? status.reasonPhrase)
        }
    }
}

/// A request the HTTP parser refuses (a request line or headers over the parser's limits, bad syntax)
/// never reaches the router. This handler answers it in the same error shape, 400 with a JSON body,
/// instead of the server's bare empty 400, and closes the connection as the server would.
final class ParserErrorShapeHandler: ChannelInboundHandler, RemovableChannelHandler, Sendable {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundOut = HTTPResponsePart

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.fireChannelRead(data)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard error is HTTPParserError else { return context.fireErrorCaught(error) }
        let body = HTTP.error(.badRequest, "MALFORMED_REQUEST", "The request line or headers are malformed or too long (the URI limit is the parser's, about 80 KB): \(error)").body
        let head = HTTPResponse(status: .badRequest, headerFields: [
            .contentType: "application/json;charset=UTF-8", .contentLength: String(body.count), .connection: "close",
        ])
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(ByteBuffer(bytes: body))), promise: nil)
        // The context is used on its event loop only: the write completes there.
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in bound.value.close(promise: nil) }
    }
}
